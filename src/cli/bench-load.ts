/**
 * Page-load figures for `recode bench` (`recode bench --only page` measures
 * only these): the weight of a first and of a repeat visit, the JavaScript
 * loaded before the editor is usable (gzipped), Python ready time after the
 * navigation (cold and repeat) and the time until the editor is usable, in
 * headless Chromium against `vite preview` (what `npm start` serves).
 */
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type Page } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium";

/** The task opened by URL (`#task=`) so that the editor shows without a click. */
const LOAD_TASK = "min-p-sampling";

/** Targets of the page-load figures. */
export const LOAD_TARGETS = { jsBeforeEditorGzKB: 250, pythonColdMs: 2000, pythonRepeatMs: 1000, editorColdMs: 1000 } as const;

/** One page load: milliseconds after the navigation started, and bytes. */
export interface LoadSample {
  /** Python's header badge says ready. */
  pythonMs: number;
  /** An editor on the draft takes keystrokes: the plain editor shown until Monaco has loaded, or Monaco. */
  editorMs: number;
  /** Monaco (the full editor) is on the page with its input. */
  monacoMs: number;
  /** Bytes transferred over the network by the page until both (headers included; files the service worker served count 0). */
  pageBytes: number;
  /** The app's scripts loaded before the editor was usable: their paths (under the build). */
  scriptsBeforeEditor: string[];
}

/** The page-load figures. */
export interface LoadMeasurements {
  cold: LoadSample[];
  repeat: LoadSample[];
  /** Bytes the service worker downloaded on the first visit to work offline (its precache), per visit. */
  precacheBytes: number[];
  /** Gzipped size (level 9) of the scripts loaded before the editor was usable on the first cold visit, in bytes. */
  jsBeforeEditorGz: number;
  /** Their size as built, in bytes. */
  jsBeforeEditorRaw: number;
  /** Load average (1 min) of the machine when the measurement started and ended. */
  load: [number, number];
}

/** Marks set in the page when Python is ready and when the editor is usable (before any page script runs). */
const MARKS = `(() => {
  const m = (window.__recodeMarks = {});
  const look = () => {
    if (m.python === undefined && document.querySelector('[data-testid="python-status"][data-state="ready"]')) m.python = performance.now();
    if (m.editor === undefined && document.querySelector("[data-editor-usable], .monaco-editor textarea")) m.editor = performance.now();
    if (m.monaco === undefined && document.querySelector(".monaco-editor textarea")) m.monaco = performance.now();
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true });
})();`;

/** Load `url` in `page`, wait for Python and the editor, and return the sample. */
async function loadOnce(page: Page, url: string): Promise<LoadSample> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  const viaWorker = new Set<string>();
  let bytes = 0;
  cdp.on("Network.responseReceived", (e: { requestId: string; response: { fromServiceWorker?: boolean } }) => {
    if (e.response.fromServiceWorker) viaWorker.add(e.requestId);
  });
  cdp.on("Network.loadingFinished", (e: { requestId: string; encodedDataLength: number }) => {
    if (!viaWorker.has(e.requestId)) bytes += e.encodedDataLength;
  });
  await page.goto(url);
  await page.waitForFunction(
    () => {
      const m = (window as unknown as { __recodeMarks?: { python?: number; editor?: number; monaco?: number } }).__recodeMarks;
      return m?.python !== undefined && m.editor !== undefined && m.monaco !== undefined;
    },
    undefined,
    { timeout: 180_000, polling: 100 },
  );
  const got = await page.evaluate(() => {
    const m = (window as unknown as { __recodeMarks: { python: number; editor: number; monaco: number } }).__recodeMarks;
    const scripts = performance
      .getEntriesByType("resource")
      .filter((e) => (e as PerformanceResourceTiming).responseEnd <= m.editor)
      .map((e) => new URL(e.name).pathname)
      // (Monaco's chunk and the Python box's worker script are fetched beside the plain editor, not for it: on
      // a fast link they can arrive first. weight.spec.ts holds them back and types into the plain editor.)
      .filter((p) => /\.m?js$/.test(p) && !p.includes("/pyodide/") && !/\/(CodeEditor|box-worker-source)-[^/]*\.js$/.test(p));
    return { python: m.python, editor: m.editor, monaco: m.monaco, scripts };
  });
  await cdp.detach();
  return {
    pythonMs: got.python,
    editorMs: got.editor,
    monacoMs: got.monaco,
    pageBytes: bytes,
    scriptsBeforeEditor: [...new Set(got.scripts)],
  };
}

/**
 * Measure page loads in headless Chromium: `visits` fresh browser contexts,
 * each a cold first visit, then (once the service worker has stored the app)
 * a repeat visit in the same context. `origin` serves the build (with the
 * COOP/COEP headers); `dist` is the build folder (to size the scripts).
 */
export async function measurePageLoad(origin: string, dist: string, visits = 3): Promise<LoadMeasurements> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const url = `${origin}#task=${LOAD_TASK}`;
  const out: LoadMeasurements = {
    cold: [],
    repeat: [],
    precacheBytes: [],
    jsBeforeEditorGz: 0,
    jsBeforeEditorRaw: 0,
    load: [loadavg()[0] ?? 0, 0],
  };
  try {
    for (let i = 0; i < visits; i++) {
      const ctx = await browser.newContext();
      await ctx.addInitScript(MARKS);
      // What the service worker downloads (its precache): Chromium reports its requests to the context.
      let swBytes = 0;
      ctx.on("requestfinished", (req) => {
        if (!req.serviceWorker()) return;
        void req.sizes().then(
          (s) => {
            swBytes += s.responseBodySize + s.responseHeadersSize;
          },
          () => {},
        );
      });
      const first = await ctx.newPage();
      out.cold.push(await loadOnce(first, url));
      await first.waitForFunction(
        async () => navigator.serviceWorker.controller !== null && (await navigator.serviceWorker.ready).active?.state === "activated",
        undefined,
        { timeout: 180_000 },
      );
      await new Promise((r) => setTimeout(r, 500));
      out.precacheBytes.push(swBytes);
      await first.close();
      const again = await ctx.newPage();
      out.repeat.push(await loadOnce(again, url));
      await ctx.close();
    }
  } finally {
    await browser.close();
  }
  out.load[1] = loadavg()[0] ?? 0;
  for (const p of out.cold[0]?.scriptsBeforeEditor ?? []) {
    const file = join(dist, p.replace(/^\//, ""));
    if (!existsSync(file)) continue;
    const raw = readFileSync(file);
    out.jsBeforeEditorRaw += raw.length;
    out.jsBeforeEditorGz += gzipSync(raw, { level: 9 }).length;
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const kb = (b: number) => `${(b / 1024).toFixed(0)} KB`;
const mb = (b: number) => `${(b / 1024 ** 2).toFixed(1)} MB`;
const s2 = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const verdict = (ok: boolean) => (ok ? "met" : "NOT met");

/** The report section (Markdown, starting with its "## Page load" heading) for these measurements. */
export function pageLoadSection(m: LoadMeasurements, when: string): string {
  const med = (xs: LoadSample[], k: "pythonMs" | "editorMs" | "monacoMs" | "pageBytes") => median(xs.map((x) => x[k]));
  const js = m.jsBeforeEditorGz / 1024;
  const pyCold = med(m.cold, "pythonMs");
  const pyRepeat = med(m.repeat, "pythonMs");
  const edCold = med(m.cold, "editorMs");
  const list = (xs: LoadSample[], k: "pythonMs" | "editorMs" | "monacoMs") => xs.map((x) => s2(x[k])).join(", ");
  return [
    "## Page load",
    "",
    `Measured ${when} in headless Chromium (Debian's, \`--disable-gpu\`: no GPU) on this ${cpus().length}-core machine, against \`vite preview\` on localhost (what \`npm start\` serves: COOP/COEP headers, gzip on the fly; no network latency or bandwidth limit). The page is opened at \`#task=${LOAD_TASK}\`, so the editor shows without a click. "Editor usable" is the first editor on the draft that takes keystrokes: the plain editor (Python indentation, Ctrl+Enter runs) shown from the first render until Monaco, the full editor, has loaded and takes over with the text and cursor. Times are from the start of the navigation; medians of ${m.cold.length} fresh browser profiles (cold: nothing cached, no service worker), each followed by a repeat visit in the same profile once the service worker had stored the app. \`npm run bench -- --only page\` measures this section alone. Load average (1 min) when it started: ${m.load[0].toFixed(2)}, when it ended: ${m.load[1].toFixed(2)} (well above 1 means other work shared the ${cpus().length} cores, and the times are longer than on an idle machine). On the first visit the service worker starts once Python is ready, and then downloads and stores the app in the background.`,
    "",
    "| figure | measured | target | |",
    "| --- | --- | --- | --- |",
    `| JS before the editor is usable, first visit (the app's scripts, gzip -9) | ${js.toFixed(0)} KB (${mb(m.jsBeforeEditorRaw)} as built) | <= ${LOAD_TARGETS.jsBeforeEditorGzKB} KB | ${verdict(js <= LOAD_TARGETS.jsBeforeEditorGzKB)} |`,
    `| Editor usable, cold | ${s2(edCold)} (${list(m.cold, "editorMs")}) | <= ${s2(LOAD_TARGETS.editorColdMs)} | ${verdict(edCold <= LOAD_TARGETS.editorColdMs)} |`,
    `| Monaco (the full editor) ready, cold | ${s2(med(m.cold, "monacoMs"))} (${list(m.cold, "monacoMs")}) | | |`,
    `| Python ready, cold | ${s2(pyCold)} (${list(m.cold, "pythonMs")}) | <= ${s2(LOAD_TARGETS.pythonColdMs)} | ${verdict(pyCold <= LOAD_TARGETS.pythonColdMs)} |`,
    `| Python ready, repeat visit | ${s2(pyRepeat)} (${list(m.repeat, "pythonMs")}) | <= ${s2(LOAD_TARGETS.pythonRepeatMs)} | ${verdict(pyRepeat <= LOAD_TARGETS.pythonRepeatMs)} |`,
    `| Editor usable, repeat visit | ${s2(med(m.repeat, "editorMs"))} | | |`,
    `| Transferred by the page until Python and the editor are ready, first visit | ${mb(med(m.cold, "pageBytes"))} | | |`,
    `| Transferred by the service worker on the first visit (the app stored for offline use, in the background) | ${mb(median(m.precacheBytes))} | | |`,
    `| Transferred on a repeat visit (everything from the service worker's cache) | ${kb(med(m.repeat, "pageBytes"))} | | |`,
    "",
    `Scripts before the editor was usable (first visit): ${m.cold[0]?.scriptsBeforeEditor.map((p) => `\`${p}\``).join(", ") || "none"}. Pyodide's own JavaScript (\`pyodide.mjs\`, \`pyodide.asm.mjs\`) and its WebAssembly are the Python runtime, fetched beside the page and counted in the bytes, not in the JS figure; so are Monaco's chunk (\`CodeEditor-*.js\`) and the Python box's worker script (\`box-worker-source-*.js\`, with the harness's Python sources), which the app fetches beside the plain editor, not for it.`,
  ].join("\n");
}

/** Replace (or append) the "## Page load" section of the Markdown report `text`. */
export function withPageLoadSection(text: string, section: string): string {
  const start = text.indexOf("\n## Page load\n");
  if (start < 0) return `${text.trimEnd()}\n\n${section}\n`;
  const next = text.indexOf("\n## ", start + 1);
  return `${text.slice(0, start + 1)}${section}\n${next < 0 ? "" : text.slice(next)}`;
}
