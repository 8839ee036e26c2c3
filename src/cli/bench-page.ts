/**
 * In-page measurements for `recode bench`: serves the built app with
 * `vite preview`, drives Debian's Chromium with playwright-core, and measures
 * Python ready time and warm submission latency inside the page.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

/**
 * In-page measurement of one submission, as plain JavaScript text (so that no
 * helper the TypeScript loader adds to functions leaks into the page): puts the
 * text in the editor, clicks Run tests and resolves with the milliseconds until
 * the results are shown.
 */
const MEASURE_RUN = `async function (target, text) {
  const model = window.monaco.editor.getModels().find((m) => m.uri.path.endsWith("/" + target));
  if (!model) throw new Error("no editor model for " + target);
  model.setValue(text + "\\n");
  // The edit comes first; the submission is measured from the click (as in Node, 50 ms apart).
  await new Promise((r) => setTimeout(r, 50));
  const button = [...document.querySelectorAll("button")].find((b) => b.textContent.trim() === "Run tests");
  if (!button) throw new Error("no Run tests button");
  const wrap = document.querySelector('[data-testid="results-wrap"]');
  const before = Number(wrap.getAttribute("data-runs"));
  const t0 = performance.now();
  await new Promise((done, fail) => {
    // The task view counts finished runs in data-runs; the result is on screen when it goes up.
    const obs = new MutationObserver(check);
    function check() {
      if (Number(wrap.getAttribute("data-runs")) > before) {
        obs.disconnect();
        done();
      }
    }
    obs.observe(wrap, { attributes: true });
    setTimeout(() => fail(new Error("no results within 60 s")), 60000);
    button.click();
  });
  return performance.now() - t0;
}`;

/** Page measurements: ready times (ms) and warm submission latencies (ms) per task. */
export interface PageMeasurements {
  ready: number[];
  warm: Record<string, number[]>;
}

/** Start `vite preview` (the build in `outDir`, default dist/, with the COOP/COEP headers) on `port`; resolves when it listens. */
export async function startPreview(port: number, outDir = "dist"): Promise<ChildProcess> {
  const vite = join(ROOT, "node_modules/.bin/vite");
  const child = spawn(vite, ["preview", "--port", String(port), "--strictPort", "--outDir", outDir], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error("vite preview did not start within 30 s")), 30_000);
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes(`${port}`)) {
        clearTimeout(timer);
        ok();
      }
    });
    child.on("exit", (code) => fail(new Error(`vite preview exited with code ${code}`)));
  });
  return child;
}

/** Measure in headless Chromium. Throws when Chromium or the build is missing. */
export async function measurePage(taskIds: string[], runs: number, port = 4183): Promise<PageMeasurements> {
  const exe = CHROMIUM_PATH;
  if (!existsSync(exe)) throw new Error(`no Chromium at ${exe} (apt-get install chromium, or set CHROMIUM_PATH)`);
  if (!existsSync(join(ROOT, "dist/index.html"))) throw new Error("no build in dist/ (run npm run build first)");
  const server = await startPreview(port);
  const browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS });
  const url = `http://localhost:${port}/`;
  try {
    const out: PageMeasurements = { ready: [], warm: {} };
    for (let i = 0; i < 3; i++) {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto(url);
      await page.waitForSelector('[data-testid="python-status"][data-state="ready"]', { timeout: 120_000 });
      out.ready.push(await page.evaluate(() => performance.now()));
      await ctx.close();
    }
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(url);
    await page.waitForSelector('[data-testid="python-status"][data-state="ready"]', { timeout: 120_000 });
    for (const id of taskIds) {
      const meta = JSON.parse(readFileSync(join(ROOT, "tasks", id, "task.json"), "utf8")) as { target_file_path: string };
      const canonical = readFileSync(join(ROOT, "tasks", id, "canonical.py"), "utf8");
      await page.locator(`[data-task-id="${id}"] button`).click();
      await page.waitForFunction(
        (target) =>
          (window as unknown as { monaco?: { editor: { getModels(): { uri: { path: string } }[] } } }).monaco?.editor
            .getModels()
            .some((m) => m.uri.path.endsWith(`/${target}`)),
        meta.target_file_path,
      );
      const xs: number[] = [];
      for (let i = 0; i <= runs; i++) {
        const ms = (await page.evaluate(
          `(${MEASURE_RUN})(${JSON.stringify(meta.target_file_path)}, ${JSON.stringify(canonical)})`,
        )) as number;
        if (i > 0) xs.push(ms);
      }
      out.warm[id] = xs;
    }
    await ctx.close();
    return out;
  } finally {
    await browser.close();
    server.kill();
  }
}
