import { existsSync, readdirSync, readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { CANONICAL, getTarget, type MonacoWindow, markers, openTask, runAndWait, STARTER, setTarget, TARGET, TASK } from "./helpers";

test("the canonical solution passes every unit test, with no request leaving the page's origin", async ({ page }) => {
  const external: string[] = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (!["localhost", "127.0.0.1"].includes(u.hostname) && u.protocol !== "data:" && u.protocol !== "blob:") external.push(r.url());
  });
  await openTask(page);
  await setTarget(page, CANONICAL);
  await runAndWait(page);
  await expect(page.getByTestId("counts")).toContainText("All tests passed");
  const rows = page.locator(".test-row");
  expect(await rows.count()).toBeGreaterThan(0);
  expect(await page.locator('.test-row:not([data-status="passed"])').count()).toBe(0);
  expect(await markers(page)).toEqual([]);
  expect(external).toEqual([]);
  await page.screenshot({ path: "/tmp/recode-shot.png", fullPage: true });
});

test("the starting text fails, with failures listed and editor markers on the failing lines", async ({ page }) => {
  await openTask(page);
  await setTarget(page, STARTER);
  await runAndWait(page);
  await expect(page.getByTestId("counts")).toContainText("Not all tests passed");
  expect(await page.locator('.test-row[data-status="error"], .test-row[data-status="failed"]').count()).toBeGreaterThan(0);
  const lines = await markers(page);
  expect(lines.length).toBeGreaterThan(0);
  const raiseLines = STARTER.split("\n").flatMap((l, i) => (l.includes("raise NotImplementedError") ? [i + 1] : []));
  for (const l of lines) expect(raiseLines).toContain(l);
  // Expanding a failing test shows its traceback.
  const failing = page.locator('.test-row[data-status="error"]').first();
  await failing.locator("summary").click();
  await expect(failing.locator(".test-detail")).toContainText("NotImplementedError");
});

test("a failed check of outcome() calls names, in the test's details, the call that differs", async ({ page }) => {
  await openTask(page);
  // Without its check of p_base, min_p_filter returns where it must raise.
  await setTarget(page, CANONICAL.replace('raise ValueError(f"p_base must be', 'None and (f"p_base must be'));
  await runAndWait(page);
  const failing = page.locator('.test-row[data-status="failed"]').first();
  await failing.locator("summary").click();
  const mismatch = failing.locator(".test-detail .mismatch");
  await expect(mismatch).toContainText(/, for min_p_filter\(\[.*\], -?[\d.]+\): expected ValueError to be raised, got /);
  if (process.env.RECODE_SCREENSHOTS) await page.screenshot({ path: "/tmp/recode-outcome-call.png" });
});

test("an endless loop is stopped by the time limit, and the next run works", async ({ page }) => {
  await openTask(page);
  await setTarget(page, "while True:\n    pass\n");
  await runAndWait(page);
  // The interrupt reaches the code inside the box, and the tests, which import the module, could not run at
  // all. (This loop is where the interpreter polls the interrupt most often: none may be lost to its poll.)
  const incident = page.getByTestId("incident");
  await expect(incident).toContainText(/Time limit .* reached; the interrupt stopped the code/);
  await expect(incident).toHaveAttribute("data-kind", "timeout");
  await expect(page.getByTestId("counts")).toContainText("The tests could not run");
  await expect(page.getByTestId("collection-error")).toContainText("time limit");
  await setTarget(page, CANONICAL);
  await runAndWait(page);
  await expect(page.getByTestId("counts")).toContainText("All tests passed");
  await expect(page.getByTestId("incident")).toHaveCount(0);
});

test("tests asked for while Python starts wait for it, and say so; then they run", async ({ page }) => {
  // Python's box is held back (its worker script) until the tests have been asked for.
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route(/\/assets\/box-worker-source-[^/]*\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`/#task=${TASK}`);
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "loading");
  await page.getByRole("button", { name: "Run tests" }).click();
  await expect(page.getByTestId("results")).toContainText("Waiting for Python to start: the tests run as soon as it is ready.");
  release();
  await expect(page.getByTestId("results-wrap")).toHaveAttribute("data-runs", "1", { timeout: 120_000 });
  await expect(page.getByTestId("counts")).toContainText("Not all tests passed");
});

test("a task opened by its link is in sight in the task list", async ({ page }) => {
  // The last task of the list, which a 768-pixel-high list does not show at first.
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.goto("/");
  const ids = await page.locator(".task-list [data-task-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-task-id")));
  const last = ids.at(-1) as string;
  await expect(page.locator(`[data-task-id="${last}"]`)).not.toBeInViewport();
  await page.goto(`/#task=${last}`);
  await expect(page.locator(`[data-task-id="${last}"]`)).toBeInViewport();
});

test("the draft survives a reload", async ({ page }) => {
  await openTask(page);
  const draft = `# my draft ${Date.now()}\n${STARTER}`;
  await setTarget(page, draft);
  await expect(page.getByTestId("draft-saved")).toBeVisible();
  await page.reload();
  await page.waitForFunction(
    (target) => (window as unknown as MonacoWindow).monaco?.editor.getModels().some((m) => m.uri.path.endsWith(`/${target}`)),
    TARGET,
  );
  expect(await getTarget(page)).toBe(draft);
});

test("text typed just before a reload is not lost", async ({ page }) => {
  await openTask(page);
  const draft = `# typed right before the reload ${Date.now()}\n${STARTER}`;
  await setTarget(page, draft);
  // No wait for the debounced save.
  await page.reload();
  await page.waitForFunction(
    (target) => (window as unknown as MonacoWindow).monaco?.editor.getModels().some((m) => m.uri.path.endsWith(`/${target}`)),
    TARGET,
  );
  expect(await getTarget(page)).toBe(draft);
});

test("the task list filters by title, paper, domain or package", async ({ page }) => {
  await page.goto("/");
  const items = page.getByRole("list", { name: "Tasks" }).locator("li");
  const all = await items.count();
  expect(all).toBeGreaterThan(30);
  const filter = page.getByLabel("Filter tasks");
  await filter.fill("BM25");
  await expect(items).toHaveCount(1);
  await expect(items.first()).toHaveAttribute("data-task-id", "bm25-ranking");
  await expect(page.getByTestId("task-filter-count")).toHaveText(`1 of ${all}`);
  // Every word must match, anywhere: here a package and a domain.
  const want = readdirSync("tasks")
    .filter((id) => existsSync(`tasks/${id}/task.json`))
    .filter((id) => {
      const t = JSON.parse(readFileSync(`tasks/${id}/task.json`, "utf8")) as { packages?: string[]; domain?: string };
      return (t.packages ?? []).includes("numpy") && /time series/i.test(t.domain ?? "");
    });
  expect(want.length).toBeGreaterThan(0);
  await filter.fill("numpy time series");
  await expect(items).toHaveCount(want.length);
  expect((await items.evaluateAll((els) => els.map((e) => e.getAttribute("data-task-id")))).sort()).toEqual(want.sort());
  await filter.fill("no task is called this");
  await expect(items).toHaveCount(0);
  await filter.fill("");
  await expect(items).toHaveCount(all);
});

test("Reset to start asks first, then restores the starting text", async ({ page }) => {
  await openTask(page);
  await setTarget(page, "# something to throw away\n");
  const reset = page.getByRole("button", { name: "Reset to start" });
  // Each click is answered through the dialog it raised (a click ends only once its dialog is answered).
  await Promise.all([page.waitForEvent("dialog").then((d) => d.dismiss()), reset.click()]);
  expect(await getTarget(page)).toBe("# something to throw away\n");
  await Promise.all([page.waitForEvent("dialog").then((d) => d.accept()), reset.click()]);
  // (The editor takes the starting text once the dialog's answer has come back: looked at until it has.)
  await expect.poll(() => getTarget(page)).toBe(STARTER);
});

test("the paper and the repository context render", async ({ page }) => {
  await openTask(page);
  await page.getByRole("tab", { name: "Paper" }).click();
  await expect(page.locator(".tab-body .katex").first()).toBeVisible();
  // The paper is parsed as LaTeX (unified-latex): no formula KaTeX rejected, no command left as text.
  await expect(page.locator(".tab-body .katex-error, .tab-body .latex-raw")).toHaveCount(0);
  // biome-ignore lint/performance/useDomNodeTextContent: the text as shown (textContent holds KaTeX's TeX annotations too).
  expect(await page.locator(".tab-body .paper").innerText()).not.toMatch(/\\[A-Za-z]+/);
  // KaTeX markup and stylesheet come from the same katex: scripts are set smaller than the base text.
  const sizes = await page.evaluate(() => {
    const sub = document.querySelector(".tab-body .katex .msupsub .mtight");
    const base = sub?.closest(".katex");
    return sub && base ? [Number.parseFloat(getComputedStyle(sub).fontSize), Number.parseFloat(getComputedStyle(base).fontSize)] : null;
  });
  expect(sizes).not.toBeNull();
  expect((sizes as number[])[0]).toBeLessThan((sizes as number[])[1] as number);
  await page.getByRole("tab", { name: "Repo" }).click();
  await expect(page.getByTestId("repo-file")).toBeVisible();
  expect(await page.content()).not.toContain(CANONICAL.split("\n").find((l) => l.includes("#")) ?? "\u0000never");
});

test("Stop ends a running test and the page is cross-origin isolated for the interrupt", async ({ page }) => {
  await openTask(page);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await setTarget(page, `${CANONICAL}\n\ndef _spin():\n    while True:\n        pass\n\n\nmin_p_sample = lambda *a, **k: _spin()\n`);
  await page.getByRole("button", { name: "Run tests" }).click();
  await expect(page.locator('.test-row[data-status="passed"]').first()).toBeVisible();
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(page.getByRole("button", { name: "Run tests" })).toBeVisible();
  await expect(page.getByTestId("incident")).toContainText("Stopped by the user; the interrupt stopped the code");
  expect(await page.locator('.test-row[data-status="timeout"]').count()).toBe(1);
  // Its status is timeout (as the metrics count it), its label says what happened.
  await expect(page.locator('.test-row[data-status="timeout"] .badge')).toHaveText("stopped");
  // The tests after it were not run (not skipped: no test asked to be skipped), and the counts say so.
  const notRun = page.locator('.test-row[data-status="not_run"]');
  expect(await notRun.count()).toBeGreaterThan(0);
  await expect(notRun.first().locator(".badge")).toHaveText("not run");
  expect(await page.locator('.test-row[data-status="skipped"]').count()).toBe(0);
  await expect(page.getByTestId("counts")).toContainText(`${await notRun.count()} not run`);
  // A stopped run is shown but is no turn of the student's progress: the next run is the first.
  const progress = page.locator(`[data-task-id="${TASK}"]`).getByTestId("task-progress");
  await expect(progress).toHaveCount(0);
  await setTarget(page, CANONICAL);
  await runAndWait(page);
  await expect(progress).toHaveAttribute("data-runs", "1");
});

test("a wrong Pyodide URL in Settings shows the error; clearing it brings Python back", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByLabel(/Pyodide URL/).fill("/no-such-folder/");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "error");
  await expect(page.getByTestId("python-status")).toContainText("no-such-folder");
  await page.reload();
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "error");
  await page.getByRole("button", { name: "Settings" }).click();
  await expect(page.getByLabel(/Pyodide URL/)).toHaveValue("/no-such-folder/");
  await page.getByLabel(/Pyodide URL/).fill("");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
});

test("a syntax error is shown as a collection error with its line, marked in the editor", async ({ page }) => {
  await openTask(page);
  await setTarget(page, "import math\n\ndef softmax_with_temperature(logits:\n    return 1\n");
  await runAndWait(page);
  const panel = page.getByTestId("collection-error");
  await expect(panel).toContainText(TARGET);
  await expect(panel).toContainText(/line \d+/);
  const line = Number(/line (\d+)/.exec((await panel.textContent()) ?? "")?.[1]);
  expect(await markers(page)).toContain(line);
  // No count of tests where none ran.
  await expect(page.getByTestId("counts")).toContainText("The tests could not run: no test ran");
  await expect(page.getByTestId("counts")).not.toContainText("0/0");
  // The next run clears the markers of the previous one.
  await setTarget(page, CANONICAL);
  await runAndWait(page);
  await expect(page.getByTestId("counts")).toContainText("All tests passed");
  expect(await markers(page)).toEqual([]);
});

/** The editor's cursor line (Monaco's first editor). */
type EditorsWindow = {
  monaco: {
    editor: { getEditors(): { getPosition(): { lineNumber: number }; setPosition(p: { lineNumber: number; column: number }): void }[] };
  };
};
const cursorLine = (page: import("@playwright/test").Page) =>
  page.evaluate(() => (window as unknown as EditorsWindow).monaco.editor.getEditors()[0]?.getPosition().lineNumber);

test("a traceback's line in the target file moves the editor to that line", async ({ page }) => {
  await openTask(page);
  const lines = STARTER.split("\n");
  // The stub raises on its own line: the failing tests point there.
  await setTarget(page, STARTER);
  await runAndWait(page);
  const row = page.locator(".test-row").first();
  const link = row.locator(".test-line .line-link");
  const line = Number(await link.getAttribute("data-line"));
  expect(lines[line - 1]).toContain("raise NotImplementedError");
  await link.click();
  // The row did not open: the click went to the editor.
  await expect(row.locator("details")).not.toHaveAttribute("open", "");
  await expect.poll(() => cursorLine(page)).toBe(line);
  // In the traceback too.
  await row.locator("summary").click();
  await page.evaluate(() => (window as unknown as EditorsWindow).monaco.editor.getEditors()[0]?.setPosition({ lineNumber: 1, column: 1 }));
  await expect.poll(() => cursorLine(page)).toBe(1);
  await row.locator(".test-detail .line-link").first().click();
  await expect.poll(() => cursorLine(page)).toBe(line);
});

test("the first run's time says how much of it went to preparing Python; a warm run's does not", async ({ page }) => {
  await openTask(page);
  await setTarget(page, CANONICAL);
  await runAndWait(page);
  const first = (await page.getByTestId("counts").textContent()) ?? "";
  await page.screenshot({ path: "/tmp/recode-first-run.png" });
  await runAndWait(page);
  const warm = (await page.getByTestId("counts").textContent()) ?? "";
  // An instance's first run seals Python and copies its memory before the tests start: named, and within the whole.
  const named = /\(([\d.]+) (s|ms), of which ([\d.]+) (s|ms) preparing Python\)/.exec(first);
  expect(named, first).not.toBeNull();
  const inMs = (n: string, unit: string) => Number(n) * (unit === "s" ? 1000 : 1);
  const [, whole, wholeUnit, waited, waitedUnit] = named as RegExpExecArray;
  expect(inMs(waited as string, waitedUnit as string)).toBeLessThanOrEqual(inMs(whole as string, wholeUnit as string));
  expect(warm).toContain("All tests passed");
  expect(warm).not.toContain("preparing Python");
});
