/**
 * Weight of the page's start: the JavaScript a cold visit loads before the
 * editor is usable, and the chunks that are loaded only when first needed.
 *
 * "Usable" means: the task opened from the address (`/#task=<id>`) shows its
 * target file in an editor, and a key typed into it lands in the draft: first
 * the plain editor (PlainEditor.tsx), then Monaco, which takes over with the
 * text as typed. Every JavaScript response of the page and its workers until then is
 * counted, gzipped here with node's zlib (the preview server sends bodies
 * uncompressed; Playwright hands over a compressed body decoded), except
 * Pyodide's own files under /pyodide/ and the blob: scripts the Python box
 * starts from them: that is the Python runtime, which the page starts at once
 * and loads in parallel. The box's worker script (its own chunk, with the
 * harness's Python sources) is held back, like Monaco's, until the plain editor
 * has been used: the editor must not need it.
 *
 * Timings (editor usable, Python ready; ms after navigation start) are printed
 * and attached to the test, not asserted: speed goals live in the bench.
 */
import { gzipSync } from "node:zlib";
import { expect, type Page, type Response, test } from "@playwright/test";
import { closeResults, type MonacoWindow, openResults, openTab, TARGET, TASK } from "./helpers";

/**
 * Most JavaScript before an editor on the draft is usable, gzipped, in KB (1 KB = 1000 bytes): the plain
 * editor, shown from the first render while Monaco (about 690 KB gzipped for its core alone in
 * monaco-editor 0.57) loads.
 */
const BUDGET_KB = 250;

/** Most JavaScript before Monaco itself is usable, in KB: the page above, Monaco's chunk and the box's worker script. */
const MONACO_BUDGET_KB = 1250;

interface Loaded {
  url: string;
  /** Gzipped size in bytes. */
  gz: number;
}

/** Record every JavaScript response of the page (and its workers) from now on. */
function recordScripts(page: Page): { list: Loaded[]; stop: () => Promise<Loaded[]> } {
  const list: Loaded[] = [];
  const pending: Promise<void>[] = [];
  let on = true;
  const onResponse = (res: Response) => {
    if (!on) return;
    const url = new URL(res.url());
    const type = res.headers()["content-type"] ?? "";
    const isJs = /javascript|ecmascript/.test(type) || /\.(m?js)$/.test(url.pathname);
    // blob: scripts are the Python box's worker and Pyodide's modules, handed in as blobs (not fetched again).
    if (!isJs || url.protocol === "blob:" || url.pathname.startsWith("/pyodide/")) return;
    // The service worker's own downloads (it stores the build for offline use once Python is ready) are not the page's start.
    if (res.request().serviceWorker()) return;
    pending.push(
      res.body().then(
        // Playwright hands over the decoded body: gzip it here, whatever the server sent.
        (body) => void list.push({ url: url.pathname, gz: gzipSync(body).length }),
        () => undefined,
      ),
    );
  };
  page.context().on("response", onResponse);
  return {
    list,
    stop: async () => {
      on = false;
      page.context().off("response", onResponse);
      await Promise.all(pending);
      return list;
    },
  };
}

/** Marks in the page: when the task's editor first shows, and when Python is ready (ms after navigation start). */
async function watchStart(page: Page): Promise<void> {
  await page.addInitScript((target) => {
    const w = window as unknown as { __editorShownAt?: number; __pythonReadyAt?: number; monaco?: MonacoWindow["monaco"] };
    const tick = () => {
      if (w.__editorShownAt === undefined) {
        const hasModel = w.monaco?.editor.getModels().some((m) => m.uri.path.endsWith(`/${target}`));
        if (hasModel && document.querySelector(".monaco-editor .view-line")) w.__editorShownAt = performance.now();
      }
      if (w.__pythonReadyAt === undefined && document.querySelector('[data-testid="python-status"][data-state="ready"]'))
        w.__pythonReadyAt = performance.now();
      if (w.__editorShownAt === undefined || w.__pythonReadyAt === undefined) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, TARGET);
}

/** Type into the editor and wait until the text is in the target file's model: the editor is usable. */
async function typeInEditor(page: Page, text: string): Promise<void> {
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type(text);
  await page.waitForFunction(
    ([target, t]) =>
      (window as unknown as MonacoWindow).monaco.editor
        .getModels()
        .find((m) => m.uri.path.endsWith(`/${target}`))
        ?.getValue()
        .includes(t as string),
    [TARGET, text],
  );
}

const kb = (bytes: number) => Math.round(bytes / 100) / 10;

test("a cold visit loads at most 250 KB of JavaScript before an editor is usable, and Monaco takes over with what was typed", async ({
  page,
}, info) => {
  await watchStart(page);
  // Monaco's chunk and the Python box's worker script are held back until the plain editor has been used.
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route(/\/assets\/(CodeEditor|box-worker-source)-[^/]*\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  const rec = recordScripts(page);
  await page.goto(`/#task=${TASK}`);
  const plain = page.getByTestId("plain-editor");
  await plain.click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type("# typed early");
  await expect(plain).toHaveValue(/# typed early$/);
  const usableAt = await page.evaluate(() => performance.now());
  const early = [...(await rec.stop())];
  const total = early.reduce((n, s) => n + s.gz, 0);
  const lines = [...early].sort((a, b) => b.gz - a.gz).map((s) => `${String(kb(s.gz)).padStart(8)} KB  ${s.url}`);

  // Monaco arrives and carries on with the text as typed.
  const rest = recordScripts(page);
  release();
  await expect(plain).toHaveCount(0, { timeout: 60_000 });
  await page.waitForFunction(
    (target) =>
      (window as unknown as MonacoWindow).monaco?.editor
        .getModels()
        .find((m) => m.uri.path.endsWith(`/${target}`))
        ?.getValue()
        .includes("# typed early"),
    TARGET,
  );
  await typeInEditor(page, "# typed later");
  const later = await rest.stop();
  const monaco = later.filter((s) => /\/CodeEditor-[^/]*\.js$/.test(s.url)).reduce((n, s) => n + s.gz, 0);
  const boxScript = later.filter((s) => /\/box-worker-source-[^/]*\.js$/.test(s.url)).reduce((n, s) => n + s.gz, 0);
  const shownAt = await page.evaluate(() => (window as unknown as { __editorShownAt?: number }).__editorShownAt ?? null);
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  const pythonAt = await page.evaluate(() => (window as unknown as { __pythonReadyAt?: number }).__pythonReadyAt ?? null);
  const summary = [
    `JavaScript before an editor is usable (the plain editor): ${kb(total)} KB gzipped in ${early.length} responses`,
    ...lines,
    `then Monaco's chunk ${kb(monaco)} KB and the Python box's worker script ${kb(boxScript)} KB; plain editor typed in at ${Math.round(usableAt)} ms, Monaco shown ${Math.round(shownAt ?? Number.NaN)} ms (held back until then), Python ready ${Math.round(pythonAt ?? Number.NaN)} ms after navigation start`,
  ].join("\n");
  console.log(summary);
  await info.attach("start-weight.txt", { body: summary, contentType: "text/plain" });

  expect(monaco, "Monaco's chunk was loaded once released").toBeGreaterThan(0);
  expect(boxScript, "the box's worker script was loaded once released").toBeGreaterThan(0);
  // The lazily loaded parts were not loaded before the plain editor was usable.
  for (const name of [
    "CodeEditor",
    "AgentPanel",
    "ResultsPage",
    "SettingsPanel",
    "FeedbackPanel",
    "latex-html",
    "services-lazy",
    "models",
  ]) {
    expect(
      early.map((s) => s.url),
      `${name} is loaded only when needed`,
    ).not.toContainEqual(expect.stringMatching(new RegExp(`/${name}-[^/]*\\.js$`)));
  }
  expect(kb(total), summary).toBeLessThanOrEqual(BUDGET_KB);
  expect(kb(total + later.reduce((n, s) => n + s.gz, 0)), summary).toBeLessThanOrEqual(MONACO_BUDGET_KB);
});

test("Results, Settings and the Agent tab load their chunks when first opened, and work", async ({ page }) => {
  await page.goto(`/#task=${TASK}`);
  await typeInEditor(page, "# typed");

  const loadedBy = async (action: () => Promise<void>, chunk: RegExp): Promise<string[]> => {
    const rec = recordScripts(page);
    await action();
    const urls = (await rec.stop()).map((s) => s.url);
    expect(urls, `opening it loads ${chunk}`).toContainEqual(expect.stringMatching(chunk));
    return urls;
  };

  await loadedBy(async () => {
    await openResults(page);
    await expect(page.getByLabel("Import trajectory files")).toBeAttached();
    await closeResults(page);
  }, /\/ResultsPage-[^/]*\.js$/);

  await loadedBy(async () => {
    await page.getByRole("button", { name: "Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    await expect(dialog).toBeVisible();
    await expect(page.getByTestId("seat-coder")).toBeVisible();
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(dialog).toHaveCount(0);
  }, /\/SettingsPanel-[^/]*\.js$/);

  await loadedBy(async () => {
    await openTab(page, "Agent");
    await expect(page.getByTestId("agent-panel")).toBeVisible();
    await expect(page.getByRole("button", { name: "Run agent" })).toBeVisible();
    await expect(page.getByLabel("Setting")).toBeEnabled();
  }, /\/AgentPanel-[^/]*\.js$/);

  // Opened again, nothing is fetched again: the tab shows at once.
  const again = recordScripts(page);
  await openResults(page);
  expect((await again.stop()).map((s) => s.url)).not.toContainEqual(expect.stringMatching(/\/ResultsPage-/));
});
