/**
 * The page's Python box itself (docs/security.md "The page's box"): what holds
 * if candidate code ever got past the sealed bridge to JavaScript. The test
 * clones the live box frame the page made (same document, sandbox and policy)
 * and starts in it, instead of Pyodide, a probe script that tries every route
 * out: the network (a catcher server on the loopback address must receive
 * nothing), the page's own origin and its assets (which hold the canonical
 * solutions), and the origin's storage. The same probe run as a worker of
 * the page itself gets through, and afterwards the page must still work.
 */
import { expect, type Page, test, type Worker } from "@playwright/test";
import { type Catcher, startCatcher } from "../helpers/catcher";
import { startStaticHost } from "../helpers/static-host";
import { CANONICAL, getTarget, openTask, runAndWait, setTarget } from "./helpers";

/** The probe: a classic worker script that reports, per route, what happened ("reached ..." when it got through). */
function probeSource(catcher: string, origin: string, asset: string): string {
  return `
const routes = {};
const tryRoute = async (name, fn) => {
  try { routes[name] = "reached: " + String(await fn()).slice(0, 80); }
  catch (e) { routes[name] = "refused: " + String(e && e.name || e); }
};
const waitEvent = (target, ok, bad) => new Promise((resolve, reject) => {
  target[ok] = () => resolve("open");
  target[bad] = (e) => reject(new Error("error event"));
  setTimeout(() => reject(new Error("no answer")), 3000);
});
self.onmessage = async (ev) => {
  const port = ev.data.port;
  await tryRoute("origin", () => self.origin === "null" ? Promise.reject(new Error("opaque")) : self.origin);
  await tryRoute("fetch to the catcher", () => fetch(${JSON.stringify(`${catcher}/fetch`)}).then((r) => r.text()));
  await tryRoute("fetch, no-cors, keepalive", () => fetch(${JSON.stringify(`${catcher}/keepalive`)}, { mode: "no-cors", keepalive: true }).then((r) => r.type));
  await tryRoute("fetch of the page", () => fetch(${JSON.stringify(`${origin}/`)}).then((r) => r.text()));
  await tryRoute("fetch of the page's bundle", () => fetch(${JSON.stringify(asset)}).then((r) => r.text()));
  await tryRoute("synchronous XMLHttpRequest", () => { const x = new XMLHttpRequest(); x.open("GET", ${JSON.stringify(`${catcher}/xhr-sync`)}, false); x.send(); return x.status; });
  await tryRoute("XMLHttpRequest", () => new Promise((resolve, reject) => { const x = new XMLHttpRequest(); x.open("GET", ${JSON.stringify(`${catcher}/xhr`)}); x.onload = () => resolve(x.status); x.onerror = () => reject(new Error("xhr error")); x.send(); }));
  await tryRoute("WebSocket", () => waitEvent(new WebSocket(${JSON.stringify(`${catcher.replace("http", "ws")}/ws`)}), "onopen", "onerror"));
  await tryRoute("EventSource", () => waitEvent(new EventSource(${JSON.stringify(`${catcher}/sse`)}), "onopen", "onerror"));
  await tryRoute("import() from the catcher", () => import(${JSON.stringify(`${catcher}/module.js`)}));
  await tryRoute("import() of the page's bundle", () => import(${JSON.stringify(asset)}));
  await tryRoute("importScripts", () => { importScripts(${JSON.stringify(`${catcher}/script.js`)}); return "loaded"; });
  await tryRoute("a worker from the origin", () => waitEvent(new Worker(${JSON.stringify(asset)}), "onmessage", "onerror"));
  await tryRoute("a worker from the catcher", () => waitEvent(new Worker(${JSON.stringify(`${catcher}/worker.js`)}), "onmessage", "onerror"));
  await tryRoute("IndexedDB", () => new Promise((resolve, reject) => { const r = indexedDB.open("recode"); r.onsuccess = () => resolve("opened"); r.onerror = () => reject(r.error); }));
  await tryRoute("IndexedDB list", () => indexedDB.databases().then((d) => JSON.stringify(d)));
  await tryRoute("Cache Storage", () => caches.keys().then((k) => JSON.stringify(k)));
  await tryRoute("storage estimate", () => navigator.storage.estimate().then((e) => JSON.stringify(e)));
  await tryRoute("WebTransport", () => new WebTransport(${JSON.stringify(`https://127.0.0.1:${new URL(catcher).port}/wt`)}).ready);
  port.postMessage(routes);
};
`;
}

/** Run the probe in a clone of the page's live box frame, or (to show the routes work) as a worker of the page itself. */
function runProbe(page: Page, source: string, where: "box" | "page"): Promise<Record<string, string>> {
  return page.evaluate(
    async ({ source, where }) => {
      const data = new MessageChannel();
      const report = new Promise<Record<string, string>>((resolve, reject) => {
        data.port1.onmessage = (ev) => resolve(ev.data);
        setTimeout(() => reject(new Error("the probe did not report")), 60_000);
      });
      if (where === "page") {
        const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
        worker.postMessage({ type: "port", port: data.port2 }, [data.port2]);
        try {
          return await report;
        } finally {
          worker.terminate();
        }
      }
      const live = document.querySelector("iframe[data-recode-box]");
      if (!live) throw new Error("the page made no box frame");
      const frame = live.cloneNode() as HTMLIFrameElement;
      const control = new MessageChannel();
      frame.addEventListener("load", () => {
        frame.contentWindow?.postMessage({ type: "recode-box-hello" }, "*", [control.port2, data.port2]);
        control.port1.postMessage({ type: "start", source });
      });
      document.body.append(frame);
      try {
        return await report;
      } finally {
        frame.remove();
      }
    },
    { source, where },
  );
}

test.describe("the page's Python box", () => {
  let catcher: Catcher;
  test.beforeAll(async () => {
    catcher = await startCatcher();
  });
  test.afterAll(async () => {
    await catcher.close();
  });

  test("JavaScript in the box reaches no network, none of the page's files and none of its storage", async ({ page, baseURL }) => {
    await openTask(page);
    const origin = new URL(baseURL ?? "").origin;
    const asset = await page.evaluate(() => (document.querySelector("script[type=module][src]") as HTMLScriptElement).src);
    const source = probeSource(`http://127.0.0.1:${catcher.port}`, origin, asset);
    const routes = await runProbe(page, source, "box");
    const reached = Object.entries(routes).filter(([, outcome]) => outcome.startsWith("reached"));
    expect(reached).toEqual([]);
    expect(Object.keys(routes)).toHaveLength(19);
    expect(catcher.hits).toEqual([]);

    // The same probe as a worker of the page itself gets through: the routes are real.
    const outside = await runProbe(page, source, "page");
    for (const route of ["IndexedDB", "IndexedDB list", "Cache Storage", "fetch of the page", "fetch of the page's bundle"]) {
      expect(outside[route], route).toMatch(/^reached/);
    }
    // (The page's cross-origin isolation hides the catcher's answers from it, but every request arrives.)
    expect([...catcher.hits].sort()).toEqual(["/fetch", "/keepalive", "/module.js", "/script.js", "/sse", "/ws", "/xhr", "/xhr-sync"]);

    // The page's own box still runs the tests.
    await setTarget(page, CANONICAL);
    await runAndWait(page);
    await expect(page.getByTestId("counts")).toContainText("All tests passed");
  });

  test("on a plain static host (no isolation headers) the box runs the tests, and Stop replaces it", async ({ page }) => {
    const host = await startStaticHost("dist");
    try {
      await openTask(page, host.url);
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
      await setTarget(page, `${CANONICAL}\n\ndef _spin():\n    while True:\n        pass\n\n\nmin_p_sample = lambda *a, **k: _spin()\n`);
      await page.getByRole("button", { name: "Run tests" }).click();
      await expect(page.locator('.test-row[data-status="passed"]').first()).toBeVisible();
      await page.getByRole("button", { name: "Stop" }).click();
      await expect(page.getByRole("button", { name: "Run tests" })).toBeVisible();
      await expect(page.getByTestId("incident")).toContainText("Stopped: no interrupt is available here");
      // The replaced box's worker, still spinning when it was replaced, is gone.
      await expect.poll(() => page.workers().filter((w) => w.url().startsWith("blob:null/")).length, { timeout: 20_000 }).toBe(1);
      await setTarget(page, CANONICAL);
      await runAndWait(page);
      await expect(page.getByTestId("counts")).toContainText("All tests passed");
      await expect(page.locator("iframe[data-recode-box]")).toHaveCount(1);
    } finally {
      await host.close();
    }
  });

  test("a box that dies during a run: a clear status, the draft kept, and the next run works", async ({ page }) => {
    await openTask(page);
    const spinning = `${CANONICAL}\n\ndef _spin():\n    while True:\n        pass\n\n\nmin_p_sample = lambda *a, **k: _spin()\n`;
    await setTarget(page, spinning);
    await page.getByRole("button", { name: "Run tests" }).click();
    await expect(page.locator('.test-row[data-status="passed"]').first()).toBeVisible();
    // The box goes away without a word (its frame closed, its process gone): nothing tells the page.
    await page.evaluate(() => document.querySelector("iframe[data-recode-box]")?.remove());
    await expect(page.getByRole("button", { name: "Run tests" })).toBeVisible();
    // The test that was running is an error that says why; the rest ran in a new box (where the loop met the time limit).
    await expect(page.locator('.test-row[data-status="error"]', { hasText: "the Python box was closed" })).toHaveCount(1);
    await expect(page.locator("iframe[data-recode-box]")).toHaveCount(1);
    expect(await getTarget(page)).toBe(spinning);
    await setTarget(page, CANONICAL);
    await runAndWait(page);
    await expect(page.getByTestId("counts")).toContainText("All tests passed");
  });

  test("a box that floods the page with file requests is ended, and the page goes on working", async ({ page }) => {
    await openTask(page);
    // JavaScript in the box (as if the seal were broken): the worker's own fetch asks the page for each file (its
    // port and the prototypes it posts through are frozen, so this is the route left). It is planted before the
    // first run: a sealed box has no eval, which the browser driver needs to run code in it. It floods once the
    // box is sealed (its eval is no longer the native one), that is, during the first run.
    const armed: Worker[] = [];
    for (const w of page.workers().filter((x) => x.url().startsWith("blob:null/"))) {
      const ok = await w
        .evaluate(() => {
          const timer = setInterval(() => {
            // The sealed box's eval is the refusal (js-seal.ts sealCodeLoading), no longer the native one.
            if (/\[native code\]/.test(String((globalThis as unknown as { eval: unknown }).eval))) return;
            clearInterval(timer);
            for (let i = 0; i < 1500; i++) void fetch(`https://cdn.invalid/x${i}.whl`).catch(() => {});
          }, 20);
          return true;
        })
        .catch(() => false);
      if (ok) armed.push(w);
    }
    expect(armed.length, "a live box worker, not yet sealed").toBeGreaterThan(0);
    await setTarget(page, CANONICAL);
    await runAndWait(page);
    // The page ends that box (its worker goes), and the next run gets a new one.
    await expect.poll(() => armed.some((w) => !page.workers().includes(w)), { timeout: 30_000 }).toBe(true);
    await runAndWait(page);
    await expect(page.getByTestId("counts")).toContainText("All tests passed");
  });
});
