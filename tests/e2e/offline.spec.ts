/**
 * Offline use and updates of the built page (`vite build` first), served by a
 * static host of the test's own (with the COOP/COEP headers), so that the
 * host can be stopped and started again on the same origin:
 * - copied into a folder of the host (`/playground/`), the page works as at the root;
 * - after one visit with a network, the page loads with no network at all
 *   (browser offline and the host stopped), is still cross-origin isolated,
 *   runs a standard-library task's tests, says it is offline, and marks a task
 *   whose package was never loaded (Run disabled, with the reason);
 * - a package file fetched once is served by the service worker offline;
 * - a new build is offered ("Reload to update"), not forced, and an update
 *   whose download fails leaves the working version in place.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, expect, type Page, test } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../src/cli/chromium";
import { type StaticHost, startStaticHost } from "../helpers/static-host";
import { CANONICAL, runAndWait, setTarget, TARGET, TASK } from "./helpers";

/** The headers `npm start` serves with (vite.config.ts `isolation`). */
const ISOLATION = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" };
/** A task that needs numpy (never loaded in these tests: there is no network for the package source). */
const NUMPY_TASK = "rms-norm";

test.describe.configure({ mode: "serial" });

let work: string;
test.beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "recode-offline-"));
});
test.afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The port a host listened on (to start another on the same origin). */
function portOf(host: StaticHost): number {
  return Number(new URL(host.url).port);
}

/** Open the page and wait until the service worker controls it and its precache is complete (it is activated). */
async function firstVisit(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(
    async () => navigator.serviceWorker.controller !== null && (await navigator.serviceWorker.ready).active?.state === "activated",
    undefined,
    { timeout: 120_000 },
  );
  await expect(page.getByTestId("offline-bar")).toHaveAttribute("data-offline-ready", "true");
}

/** Open the standard-library task from the list and wait for its editor. */
async function openStdlibTask(page: Page): Promise<void> {
  await page.locator(`[data-task-id="${TASK}"] button`).click();
  await page.waitForFunction(
    (target) =>
      (window as unknown as { monaco?: { editor: { getModels(): { uri: { path: string } }[] } } }).monaco?.editor
        .getModels()
        .some((m) => m.uri.path.endsWith(`/${target}`)),
    TARGET,
  );
}

test("after one visit, the page loads and runs a standard-library task with no network; a package task is marked", async ({ browser }) => {
  // Copied into a folder of the host, as a school server keeps it (/playground/): the build's URLs are relative.
  const site = join(work, "site-a");
  const dist = join(site, "playground");
  cpSync("dist", dist, { recursive: true });
  // A package file on the host, as a package source would hold it (fetched once while online).
  mkdirSync(join(dist, "wheels"));
  writeFileSync(join(dist, "wheels", "demo-1.0-py3-none-any.whl"), "not a real wheel, just its bytes");
  // A class file beside the page, handed out as a link.
  const classFile = { format: "recode-class", version: 1, name: "Offline week", tasks: [TASK, NUMPY_TASK, "min-p-sampling"] };
  writeFileSync(join(dist, "week.class.json"), JSON.stringify(classFile));
  let host: StaticHost | null = await startStaticHost(site, { headers: ISOLATION });
  const url = `${host.url}playground/`;
  const ctx: BrowserContext = await browser.newContext();
  try {
    const page = await ctx.newPage();
    await firstVisit(page, `${url}?class=week.class.json`);
    await expect(page.getByTestId("class-badge")).toContainText("Offline week");
    await expect(page.getByTestId("offline-ready")).toBeVisible();
    await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
    const wheel = `${url}wheels/demo-1.0-py3-none-any.whl`;
    expect(await page.evaluate((u) => fetch(u).then((r) => r.text()), wheel)).toContain("not a real wheel");

    // No network at all: the browser is offline and the host is gone.
    await host.close();
    host = null;
    await ctx.setOffline(true);
    await page.reload();
    await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
    // Served by the service worker, the page is still cross-origin isolated (the interrupt behind Stop).
    expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
    expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    await expect(page.getByTestId("offline-notice")).toContainText("Offline");
    // The package file fetched once is served from the cache.
    expect(await page.evaluate((u) => fetch(u).then((r) => r.text()), wheel)).toContain("not a real wheel");

    await openStdlibTask(page);
    await setTarget(page, CANONICAL);
    await runAndWait(page);
    await expect(page.getByTestId("counts")).toContainText("All tests passed");
    expect(await page.locator('.test-row:not([data-status="passed"])').count()).toBe(0);

    // numpy was never loaded in this browser: the task is marked, and Run is disabled with the reason.
    const numpyItem = page.locator(`[data-task-id="${NUMPY_TASK}"]`);
    await expect(numpyItem).toHaveAttribute("data-offline-blocked", "true");
    await expect(numpyItem.getByText("needs network")).toBeVisible();
    await expect(page.locator(`[data-task-id="${TASK}"]`)).not.toHaveAttribute("data-offline-blocked", "true");
    // Counted among the class's tasks alone: numpy's is the one of them that needs a package.
    await expect(page.getByTestId("offline-notice")).toContainText("1 task needs a package never loaded here");
    await numpyItem.locator("button").click();
    await expect(page.getByTestId("offline-reason")).toContainText("needs numpy");
    await expect(page.getByRole("button", { name: "Run tests" })).toBeDisabled();
    if (process.env.RECODE_SCREENSHOTS) await page.screenshot({ path: "docs/img/offline.png" });
    // The notice can be hidden (it floats over the page), and the marks in the list stay.
    await page.getByRole("button", { name: "Hide the offline notice" }).click();
    await expect(page.getByTestId("offline-notice")).toHaveCount(0);
    await expect(numpyItem).toHaveAttribute("data-offline-blocked", "true");
    // The class link opened again with no network: the stored class goes on, and the page says so (no error).
    await page.goto(`${url}?class=week.class.json`);
    await expect(page.getByRole("status").filter({ hasText: "could not be fetched" })).toContainText(
      'the copy of the class "Offline week" stored in this browser is in use',
    );
    await expect(page.getByRole("alert")).toHaveCount(0);
    await expect(page.getByTestId("class-badge")).toContainText("Offline week");
  } finally {
    await ctx.close();
    await host?.close();
  }
});

test("a new build is offered, not forced; an update whose download fails leaves the working version", async ({ browser }) => {
  const a = join(work, "update-a");
  cpSync("dist", a, { recursive: true });
  // The second build: a changed index.html and a new Pyodide (here: its WebAssembly with a new revision), as the
  // service worker's precache list names them.
  const b = join(work, "update-b");
  cpSync("dist", b, { recursive: true });
  writeFileSync(
    join(b, "index.html"),
    readFileSync(join(b, "index.html"), "utf8").replace("<head>", '<head><meta name="recode-build" content="second">'),
  );
  const sw = readFileSync(join(b, "sw.js"), "utf8");
  const changed = sw
    .replace(/("revision":")[0-9a-f]+(","url":"index.html")/, "$1second0000000000000000000000000$2")
    .replace(/("revision":")[0-9a-f]+(","url":"pyodide\/pyodide.asm.wasm")/, "$1second0000000000000000000000001$2");
  expect(changed.match(/second000/g)?.length).toBe(2);
  writeFileSync(join(b, "sw.js"), changed);

  let host = await startStaticHost(a, { headers: ISOLATION });
  const port = portOf(host);
  const ctx = await browser.newContext();
  /** Ask the host for a new service worker and wait until its install ended; true when one is waiting. */
  const checkForUpdate = (page: Page) =>
    page.evaluate(async () => {
      const reg = await navigator.serviceWorker.getRegistration();
      if (!reg) throw new Error("no service worker registration");
      await reg.update().catch(() => {});
      for (let i = 0; i < 600 && reg.installing; i++) await new Promise((r) => setTimeout(r, 100));
      return reg.waiting !== null;
    });
  const build = (page: Page) =>
    page.evaluate(() => document.querySelector('meta[name="recode-build"]')?.getAttribute("content") ?? "first");
  try {
    const page = await ctx.newPage();
    await firstVisit(page, host.url);

    // The second build, whose download breaks off halfway through Pyodide's WebAssembly: never installed, no
    // offer, the working version stays.
    await host.close();
    host = await startStaticHost(b, { headers: ISOLATION, port, cut: ["/pyodide/pyodide.asm.wasm"] });
    expect(await checkForUpdate(page)).toBe(false);
    await page.reload();
    await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
    await expect(page.getByTestId("update-offer")).toHaveCount(0);
    expect(await build(page)).toBe("first");

    // The whole second build: offered, not forced.
    await host.close();
    host = await startStaticHost(b, { headers: ISOLATION, port });
    expect(await checkForUpdate(page)).toBe(true);
    await expect(page.getByTestId("update-offer")).toContainText("A new version is available");
    expect(await build(page)).toBe("first");
    await page.reload();
    await expect(page.getByTestId("update-offer")).toBeVisible();
    expect(await build(page)).toBe("first");
    if (process.env.RECODE_SCREENSHOTS) await page.screenshot({ path: "docs/img/update-offer.png" });

    // Accepted: the new version takes over and the page reloads from it.
    await page.getByRole("button", { name: "Reload to update" }).click();
    await expect.poll(() => build(page).catch(() => "reloading"), { timeout: 60_000 }).toBe("second");
    await expect(page.getByTestId("update-offer")).toHaveCount(0);
  } finally {
    await ctx.close();
    await host.close();
  }
});

test("a first visit whose download for offline use breaks off says so, and the next visit stores the page", async ({ browser }) => {
  const dist = join(work, "cut-first");
  cpSync("dist", dist, { recursive: true });
  // A file of the precache the page itself does not fetch to start: its download breaks off halfway.
  const font = readdirSync(join(dist, "assets")).find((f) => /^KaTeX_Main-Regular-.*\.woff2$/.test(f));
  expect(font).toBeDefined();
  let host = await startStaticHost(dist, { headers: ISOLATION, cut: [`/assets/${font}`] });
  const port = portOf(host);
  const ctx = await browser.newContext();
  try {
    const page = await ctx.newPage();
    await page.goto(host.url);
    await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
    await expect(page.getByTestId("offline-failed")).toContainText("Not stored for offline use (download broke off)", { timeout: 120_000 });
    await expect(page.getByTestId("offline-installing")).toHaveCount(0);
    // The next visit, with the whole build on the host: stored.
    await host.close();
    host = await startStaticHost(dist, { headers: ISOLATION, port });
    await page.reload();
    await expect(page.getByTestId("offline-bar")).toHaveAttribute("data-offline-ready", "true", { timeout: 120_000 });
    await expect(page.getByTestId("offline-failed")).toHaveCount(0);
  } finally {
    await ctx.close();
    await host.close();
  }
});

test("served over plain http to another computer, the page works and says it is not stored for offline use", async () => {
  // A host name that is not localhost (as a school server's LAN address is): not a secure context.
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, "--host-resolver-rules=MAP school.test 127.0.0.1"],
  });
  const host = await startStaticHost(join("dist"), { headers: ISOLATION });
  try {
    const page = await browser.newPage();
    await page.goto(`http://school.test:${portOf(host)}/`);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
    await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
    await expect(page.getByTestId("offline-insecure")).toContainText("Not stored for offline use (plain http)");
    await expect(page.getByTestId("offline-insecure")).toHaveAttribute("title", /https \(or on localhost\)/);
    await openStdlibTask(page);
    await setTarget(page, CANONICAL);
    await runAndWait(page);
    await expect(page.getByTestId("counts")).toContainText("All tests passed");
  } finally {
    await browser.close();
    await host.close();
  }
});
