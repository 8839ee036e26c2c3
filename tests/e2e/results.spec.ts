/**
 * The results page: two imported runs listed, filtered, shown side by side
 * and compared; a cell opens its episodes and one episode's transcript; the
 * CSV has both runs. With RECODE_SCREENSHOTS set, the page is saved to docs/img
 * in light and dark.
 */
import { readFileSync } from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { restoreTrajectory, type Trajectory } from "../../src/core/trajectory";
import { openResults } from "./helpers";

// Turn 0: collection error; turn 1: 1 of 3 passed; turn 2: 3 of 3 (solved).
const BASE = restoreTrajectory(readFileSync(new URL("../fixtures/trajectories/v4-current.json", import.meta.url), "utf8"));

function episode(model: string, level: 0 | 2 | 4, task: string, turns: number, at: string): Trajectory {
  const t = structuredClone(BASE);
  // Turn 1's third test was never reached (a time limit in an earlier test).
  const one = t.turns[1]?.run;
  if (one) {
    one.tests = one.tests.map((x) =>
      x.status === "skipped" ? { ...x, status: "not_run", message: "not run: the time limit was reached" } : x,
    );
    one.counts = { ...one.counts, skipped: 0, not_run: 1 };
  }
  t.config.model = model;
  t.config.level = level;
  t.config.maxTurns = 5;
  t.versions.task.id = task;
  t.turns = t.turns.slice(0, turns);
  t.stoppedReason = t.turns.at(-1)?.run.allPassed ? "solved" : "max_turns";
  t.finished = true;
  t.createdAt = at;
  return restoreTrajectory(t);
}

const TASKS = ["min-p-sampling", "pass-at-k", "dynamic-tanh"];
/** Run A solves every task at turn 2 at every level (three identical curves); run B solves one of three at L4 only. */
const FILES = [
  ...TASKS.flatMap((task) =>
    ([0, 2, 4] as const).map((level) => ({
      name: `run-a/L${level}/${task}.json`,
      t: episode("ollama:qwen2.5-coder:7b", level, task, 3, "2026-11-20T09:00:00Z"),
    })),
  ),
  ...TASKS.flatMap((task, i) =>
    ([0, 4] as const).map((level) => ({
      name: `run-b/L${level}/${task}.json`,
      t: episode("openai:gpt-4o-mini", level, task, level === 4 && i === 0 ? 3 : 2, "2026-11-28T15:30:00Z"),
    })),
  ),
];

/** The whole results page (it scrolls inside the page, so the window is made tall enough), Python ready. */
async function shoot(page: Page, path: string) {
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  const height = await page.getByTestId("results-view").evaluate((e) => e.scrollHeight + 60);
  await page.setViewportSize({ width: 1366, height: Math.min(height, 2400) });
  await page.screenshot({ path });
  await page.setViewportSize({ width: 1280, height: 720 });
}

async function importRuns(page: Page) {
  await page.goto("/#results");
  await expect(page.getByTestId("results-view")).toBeVisible();
  await page
    .getByLabel("Import trajectory files")
    .setInputFiles(
      FILES.map((f) => ({ name: f.name.replaceAll("/", "-"), mimeType: "application/json", buffer: Buffer.from(JSON.stringify(f.t)) })),
    );
  await expect(page.getByTestId("import-report")).toContainText(`Imported ${FILES.length} episode${FILES.length === 1 ? "" : "s"}.`);
}

test("two runs: listed newest first, filtered, compared side by side, drilled down to a transcript, exported as CSV", async ({ page }) => {
  await importRuns(page);
  const rows = page.getByTestId("run-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toHaveAttribute("data-model", "openai:gpt-4o-mini");
  await expect(rows.first()).toContainText("L0 L4");
  await expect(rows.first()).toContainText("memory_agent");
  // The newest run is shown at first: its table by level, with the n used (the turn limit, 5).
  const details = page.getByTestId("run-detail");
  await expect(details).toHaveCount(1);
  await expect(details.getByTestId("metrics-table")).toContainText("Recall@5");
  await expect(details).toContainText("over the first n = 5 turns");
  await expect(details.locator('[data-level="4"].recall')).toHaveText("33.3");
  await expect(details.locator('[data-level="0"].recall')).toHaveText("0.0");
  await expect(details.getByTestId("task-table").locator('[data-task-id="min-p-sampling"] [data-level="4"]')).toHaveText("turn 2");

  // Search and filters.
  await page.getByLabel("Search runs").fill("qwen");
  await expect(page.getByTestId("run-count")).toHaveText("1 of 2 runs");
  await page.getByLabel("Search runs").fill("");
  await page.getByLabel("Level").selectOption("2");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute("data-model", "ollama:qwen2.5-coder:7b");
  await page.getByLabel("Level").selectOption("");
  await expect(rows).toHaveCount(2);

  // Both ticked: compared at one n, side by side, one chart with every curve.
  await page.getByLabel(/Show the run of ollama:qwen2\.5-coder:7b/).check();
  await expect(details).toHaveCount(2);
  const compare = page.getByTestId("compare-runs");
  await expect(compare).toContainText("2 runs compared at n = 5 turns");
  const qwen = compare.locator('tr[data-model="ollama:qwen2.5-coder:7b"]');
  for (const l of [0, 2, 4]) await expect(qwen.locator(`[data-level="${l}"]`)).toHaveText("100.0");
  await page.getByLabel("Metric").selectOption("mrr");
  await expect(compare.getByTestId("compare-table").locator("caption")).toContainText("MRR");
  await expect(qwen.locator('[data-level="4"]')).toHaveText("33.3");
  await expect(compare.getByTestId("recall-chart")).toHaveAttribute("data-series", "5");
  // Run A's three curves coincide: each keeps its own dash, width and point shape, the caption says so, and the tooltip names all three.
  await expect(details.nth(1).getByTestId("same-curves")).toHaveText("· the same curve: L0 = L2 = L4");
  await expect(compare.getByTestId("same-curves")).toContainText("run 2 · L0 = run 2 · L2 = run 2 · L4");
  const canvas = compare.locator("canvas");
  const box = await canvas.boundingBox();
  if (box) await page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.4);
  if (process.env.RECODE_SCREENSHOTS) await shoot(page, "docs/img/results-light.png");

  // A cell lists its episodes; one opens as a transcript; Escape closes.
  await page.getByLabel("Metric").selectOption("recall");
  await compare.locator('tr[data-model="openai:gpt-4o-mini"] [data-level="4"] button').click();
  const dialog = page.getByTestId("episodes-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId("episode-list").locator("tbody tr")).toHaveCount(3);
  await expect(dialog.locator('tr[data-task-id="min-p-sampling"]')).toContainText("solved at turn 2");
  await expect(dialog.locator('tr[data-task-id="pass-at-k"]')).toContainText("not solved, best 33.3% of tests");
  await dialog.locator('tr[data-task-id="pass-at-k"]').getByRole("button", { name: "Transcript" }).click();
  await expect(dialog.getByTestId("episode-transcript").getByTestId("turn")).toHaveCount(2);
  // A turn's tests are labelled as the test log labels them.
  const tests = dialog.getByTestId("episode-transcript").locator(".turn-tests li");
  await expect(tests.filter({ hasText: "TestMinP.test_threshold" }).first()).toHaveText(/^FAILED TestMinP\.test_threshold/);
  await expect(tests.filter({ hasText: "TestMinP.test_sampler" }).first()).toHaveText(
    /^NOT RUN TestMinP\.test_sampler — not run: the time limit/,
  );
  await expect(dialog.getByRole("button", { name: "Load into editor" })).toHaveCount(0);
  if (process.env.RECODE_SCREENSHOTS) await page.screenshot({ path: "docs/img/results-transcript.png" });
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);

  // A per-task cell opens that episode's transcript at once.
  await details.first().getByTestId("task-table").locator('[data-task-id="dynamic-tanh"] [data-level="0"] button').click();
  await expect(page.getByTestId("episode-transcript").getByTestId("turn")).toHaveCount(2);
  await page.getByRole("button", { name: "Close" }).click();

  // The CSV has both runs, one line per level, as `recode report --format csv`.
  const [csv] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
  const lines = Buffer.concat(await (await csv.createReadStream()).toArray())
    .toString("utf8")
    .trim()
    .split("\n");
  expect(
    lines.slice(1).map((l) =>
      l
        .split(",")
        .slice(0, 1)
        .concat(l.split(",")[7] ?? ""),
    ),
  ).toEqual([
    ["ollama:qwen2.5-coder:7b", "0"],
    ["ollama:qwen2.5-coder:7b", "2"],
    ["ollama:qwen2.5-coder:7b", "4"],
    ["openai:gpt-4o-mini", "0"],
    ["openai:gpt-4o-mini", "4"],
  ]);

  // A reload keeps the page and the runs.
  await page.reload();
  await expect(page.getByTestId("run-row")).toHaveCount(2);

  // The same files again: nothing new, the stored episodes are kept, and that is not an error.
  await page
    .getByLabel("Import trajectory files")
    .setInputFiles(
      FILES.slice(0, 2).map((f) => ({ name: f.name, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(f.t)) })),
    );
  await expect(page.getByTestId("import-already-stored")).toContainText("2 episodes already stored were kept");
  await expect(page.getByTestId("import-report")).toHaveAttribute("role", "status");

  // One run deleted (after a confirmation): the other stays.
  page.once("dialog", (d) => void d.accept());
  await page.getByTestId("delete-shown").click();
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(page.getByTestId("run-row").first()).toHaveAttribute("data-model", "ollama:qwen2.5-coder:7b");
});

test.describe("dark theme", () => {
  test.use({ colorScheme: "dark" });
  test("the results page and its charts follow the system's dark theme", async ({ page }) => {
    await importRuns(page);
    await page.getByLabel(/Show the run of ollama:qwen2\.5-coder:7b/).check();
    await expect(page.getByTestId("compare-runs").getByTestId("recall-chart")).toHaveAttribute("data-theme", "dark");
    if (process.env.RECODE_SCREENSHOTS) await shoot(page, "docs/img/results-dark.png");
  });
});

test("the header's Results button opens the page over the open task and goes back to it", async ({ page }) => {
  await page.goto("/#task=pass-at-k");
  await expect(page.getByRole("button", { name: "Run tests" })).toBeVisible({ timeout: 120_000 });
  await openResults(page);
  expect(new URL(page.url()).hash).toBe("#results/task=pass-at-k");
  await expect(page.getByTestId("results-empty")).toBeVisible();
  await page.getByTestId("results-toggle").click();
  await expect(page.getByRole("button", { name: "Run tests" })).toBeVisible();
  expect(new URL(page.url()).hash).toBe("#task=pass-at-k");
});
