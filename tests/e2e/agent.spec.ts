import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { fence } from "../../src/core/agent/prompts";
import { solverScript } from "../../src/core/providers/scripted";
import { type ChatStub, closedPort, type RecordedRequest, startChatStub } from "../helpers/chat-stub-server";
import { CANONICAL, closeResults, type MonacoWindow, openResults, openTab, openTask, STARTER, TARGET } from "./helpers";

const work = mkdtempSync(join(tmpdir(), "recode-e2e-agent-"));
test.afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A scripted coder: turn 0 writes the starting text (fails), later turns write the canonical solution. */
function writeScript(): string {
  const file = join(work, "fix-on-turn-1.json");
  writeFileSync(file, JSON.stringify(solverScript([{ targetPath: TARGET, first: STARTER, later: CANONICAL }])));
  return file;
}

async function openSettings(page: Page) {
  await page.getByRole("button", { name: "Settings" }).click();
  return page.getByTestId("seat-coder");
}

async function saveSettings(page: Page) {
  await page.getByRole("dialog", { name: "Settings" }).getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("dialog", { name: "Settings" })).toHaveCount(0);
}

/** Choose levels and turns in the Agent tab and run; wait for the outcome. */
async function runAgent(page: Page, levels: number[], turns: number, setting = "memory_agent") {
  await closeResults(page);
  await openTab(page, "Agent");
  await page.getByLabel("Setting").selectOption(setting);
  for (const l of [0, 1, 2, 3, 4]) await page.getByLabel(`Level L${l}`).setChecked(levels.includes(l));
  await page.getByLabel("Max turns").fill(String(turns));
  await page.getByRole("button", { name: "Run agent" }).click();
  await expect(page.getByTestId("agent-outcome")).toBeVisible({ timeout: 150_000 });
}

function metricCell(page: Page, level: number) {
  return page.getByTestId("run-detail").first().getByTestId("metrics-table").locator(`[data-level="${level}"]`);
}

test("a scripted coder solves the task at turn 1 at L0 and L4; results show Recall 100 and MRR 50 and survive a reload", async ({
  page,
}) => {
  await openTask(page);
  const seat = await openSettings(page);
  await seat.getByLabel("Scripted (script file)").check();
  // A broken script is refused with the field that is wrong.
  const broken = join(work, "broken.json");
  writeFileSync(broken, JSON.stringify({ rules: [{ match: "x" }] }));
  await seat.getByLabel("Coder model script file").setInputFiles(broken);
  await expect(seat.locator(".field-error")).toContainText(/broken\.json.*rules\[0\].*exactly one of `reply` or `replies`/);
  await seat.getByLabel("Coder model script file").setInputFiles(writeScript());
  await expect(page.getByTestId("script-coder")).toContainText("fix-on-turn-1.json");
  await saveSettings(page);

  await runAgent(page, [0, 4], 3);
  await expect(page.getByTestId("agent-outcome")).toContainText("Done: 2 of 2 levels solved.");
  const episodes = page.getByTestId("episode");
  await expect(episodes).toHaveCount(2);
  for (const level of [0, 4]) {
    const ep = page.locator(`[data-testid="episode"][data-level="${level}"]`);
    await expect(ep).toHaveAttribute("data-status", "solved");
    await expect(ep.getByTestId("turn")).toHaveCount(2);
    await expect(ep.locator('[data-turn="1"] .turn-verdict')).toHaveText("all tests passed");
  }
  // The L4 episode's turn 0 carries the feedback text the agent received, code included.
  const l4 = page.locator('[data-testid="episode"][data-level="4"]');
  await l4.locator('[data-turn="0"] summary', { hasText: "Feedback the agent received" }).click();
  await expect(l4.locator('[data-turn="0"] .feedback-text')).toContainText("Code correction:");
  await page.screenshot({ path: "/tmp/recode-agent-panel.png", fullPage: true });

  await openResults(page);
  for (const level of [0, 4]) {
    await expect(metricCell(page, level).and(page.locator(".recall"))).toHaveText("100.0");
    await expect(metricCell(page, level).and(page.locator(".mrr"))).toHaveText("50.0");
  }
  // The shared default n (src/core/report.ts, as `recode report`): 10, or the largest turn limit (3) when smaller.
  await expect(page.getByTestId("metrics-table")).toContainText("Recall@3");
  await expect(page.getByTestId("run-detail")).toContainText("over the first n = 3 turns");
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(page.getByTestId("recall-chart")).toHaveCount(1);
  await page.screenshot({ path: "/tmp/recode-results.png", fullPage: true });
  // The table as CSV, the columns `recode report --format csv` writes: one line per level.
  const [csv] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
  expect(csv.suggestedFilename()).toBe("recode-results.csv");
  const lines = Buffer.concat(await (await csv.createReadStream()).toArray())
    .toString("utf8")
    .trim()
    .split("\n");
  expect(lines[0]).toMatch(/^model,setting,researcher,protocol,backend,max_steps,sampling,level,tasks,solved,n,recall_at_n,mrr,pass_rate,/);
  expect(lines.slice(1).map((l) => l.split(",")[7])).toEqual(["0", "4"]);

  await page.reload();
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  await openResults(page);
  for (const level of [0, 4]) {
    await expect(metricCell(page, level).and(page.locator(".recall"))).toHaveText("100.0");
    await expect(metricCell(page, level).and(page.locator(".mrr"))).toHaveText("50.0");
  }
  await expect(page.getByTestId("run-detail")).toHaveCount(1);

  // Running again keeps the finished episodes instead of redoing them.
  await runAgent(page, [0, 4], 3);
  await expect(page.getByTestId("agent-outcome")).toContainText("Done: 2 of 2");

  // Another script of the same file name (another folder) is another text: it neither resumes nor joins these episodes.
  mkdirSync(join(work, "other"), { recursive: true });
  const other = join(work, "other", "fix-on-turn-1.json");
  writeFileSync(other, JSON.stringify(solverScript([{ targetPath: TARGET, first: STARTER, later: STARTER }])));
  await (await openSettings(page)).getByLabel("Coder model script file").setInputFiles(other);
  await saveSettings(page);
  await runAgent(page, [0, 4, 2], 3);
  await expect(page.getByTestId("agent-outcome")).toContainText(
    "The stored episodes of scripted:fix-on-turn-1.json ran with another script of that file name",
  );
  await expect(page.getByTestId("episode")).toHaveCount(2);
  // The first script again: its episodes are its own.
  await (await openSettings(page)).getByLabel("Coder model script file").setInputFiles(writeScript());
  await saveSettings(page);

  // A broken import names the file and field, and nothing stored is lost.
  await openResults(page);
  await page.getByLabel("Import trajectory files").setInputFiles({
    name: "bad-episode.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify({ schemaVersion: 2, turns: "no" })),
  });
  await expect(page.getByTestId("import-report")).toContainText("bad-episode.json");
  await expect(page.getByTestId("import-report")).toContainText(/config|turns/);
  // A run folder's other files are named as left out, not dropped silently.
  await page.getByLabel("Import trajectory files").setInputFiles([
    { name: "run.json", mimeType: "application/json", buffer: Buffer.from("{}") },
    { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("x") },
  ]);
  await expect(page.getByTestId("import-skipped")).toContainText("Left out 2 files");
  await expect(page.getByTestId("import-skipped")).toContainText("run.json, notes.txt");
  await expect(metricCell(page, 4).and(page.locator(".recall"))).toHaveText("100.0");

  // Delete asks first; after confirming, nothing is left.
  page.once("dialog", (d) => void d.accept());
  await page.getByRole("button", { name: "Delete stored results" }).click();
  await expect(page.getByTestId("metrics-table")).toHaveCount(0);
});

test.describe("OpenAI-compatible endpoint", () => {
  let stub: ChatStub;
  test.beforeAll(async () => {
    const last = (req: RecordedRequest) => {
      const msgs = req.body?.messages ?? [];
      return msgs.at(-1)?.content ?? "";
    };
    stub = await startChatStub({
      models: ["stub-coder"],
      fallback: (req) => {
        const text = last(req);
        if (text.includes("Result of REPLACE")) return { content: "Reflection: done.\nAction: SUBMIT" };
        if (text.includes("# Turn 0")) return { content: `Reflection: try.\nAction: REPLACE\n${fence(STARTER)}` };
        return { content: `Reflection: fix.\nAction: REPLACE\n${fence(CANONICAL)}` };
      },
    });
  });
  test.afterAll(async () => {
    await stub.close();
  });

  test("the page calls a local endpoint for the coder; a closed port gives a clear message", async ({ page }) => {
    await openTask(page);
    let seat = await openSettings(page);
    await seat.getByLabel("Coder model server").selectOption("vllm");
    await seat.getByLabel("Coder model base URL").fill(stub.baseURL);
    await seat.getByLabel("Coder model name").fill("stub-coder");
    await seat.getByLabel("Coder model sampling").fill("temprature=1");
    await expect(seat.getByRole("alert")).toContainText('unknown setting "temprature"');
    await seat.getByLabel("Coder model sampling").fill("temperature=default, max_tokens=700");
    await seat.getByRole("button", { name: "Test connection" }).click();
    await expect(page.getByTestId("check-coder")).toContainText("vllm:stub-coder: connected");
    await saveSettings(page);

    await runAgent(page, [2], 3);
    await expect(page.getByTestId("agent-outcome")).toContainText("Done: 1 of 1");
    const ep = page.locator('[data-testid="episode"][data-level="2"]');
    await expect(ep.getByTestId("turn")).toHaveCount(2);
    await expect(ep).toContainText("vllm:stub-coder");
    expect(stub.chatRequests().length).toBeGreaterThanOrEqual(4);
    // The seat's sampling settings reach every request.
    for (const q of stub.chatRequests()) expect([q.body?.temperature, q.body?.top_p, q.body?.max_tokens]).toEqual([undefined, 1, 700]);

    const port = await closedPort();
    seat = await openSettings(page);
    await seat.getByLabel("Coder model base URL").fill(`http://127.0.0.1:${port}/v1`);
    await seat.getByRole("button", { name: "Test connection" }).click();
    await expect(page.getByTestId("check-coder")).toContainText(`cannot reach the server at http://127.0.0.1:${port}/v1`);
    await saveSettings(page);
    await runAgent(page, [1], 3);
    await expect(page.getByTestId("agent-outcome")).toContainText(`cannot reach the server at http://127.0.0.1:${port}/v1`);
    // The failed attempt is kept as an errored episode; the solved one is untouched.
    await expect(page.locator('[data-testid="episode"][data-level="1"]')).toHaveAttribute("data-status", "error");
    await expect(page.locator('[data-testid="episode"][data-level="2"]')).toHaveAttribute("data-status", "solved");
  });
});

test.describe("interrupted runs", () => {
  let stub: ChatStub;
  let slow = true;
  test.beforeAll(async () => {
    stub = await startChatStub({
      models: ["stub-coder"],
      fallback: (req) => {
        const text = req.body?.messages?.at(-1)?.content ?? "";
        if (text.includes("Result of REPLACE")) return { content: "Reflection: done.\nAction: SUBMIT" };
        if (text.includes("# Turn 0")) return { content: `Reflection: try.\nAction: REPLACE\n${fence(STARTER)}` };
        if (slow) return { delayMs: 120_000, content: "Reflection: too late.\nAction: SUBMIT" };
        return { content: `Reflection: fix.\nAction: REPLACE\n${fence(CANONICAL)}` };
      },
    });
  });
  test.afterAll(async () => {
    await stub.close();
  });

  test("Stop and a reload keep the saved turns; Resume goes on with the episode's own options", async ({ page }) => {
    await openTask(page);
    const seat = await openSettings(page);
    await seat.getByLabel("Coder model server").selectOption("llamacpp");
    await seat.getByLabel("Coder model base URL").fill(stub.baseURL);
    await seat.getByLabel("Coder model name").fill("stub-coder");
    await saveSettings(page);

    await openTab(page, "Agent");
    for (const l of [0, 1, 2, 3, 4]) await page.getByLabel(`Level L${l}`).setChecked(l === 3);
    await page.getByLabel("Max turns").fill("4");
    await page.getByRole("button", { name: "Run agent" }).click();
    const episode = page.locator('[data-testid="episode"][data-level="3"]');
    await expect(episode).toHaveAttribute("data-status", "unfinished");
    await expect(page.getByTestId("agent-live")).toContainText(/L3, turn 1/);
    // Opening another task asks first; declining leaves the run going on this one.
    const question = new Promise<string>((resolve) =>
      page.once("dialog", (d) => {
        resolve(d.message());
        void d.dismiss();
      }),
    );
    await page.locator('[data-task-id="pass-at-k"] button').click();
    expect(await question).toMatch(/Stop the agent run on min-p-sampling and open pass-at-k\?/);
    await expect(page).toHaveURL(/#task=min-p-sampling$/);
    await expect(page.getByTestId("agent-live")).toBeVisible();
    await page.getByRole("button", { name: "Stop agent" }).click();
    await expect(page.getByTestId("agent-outcome")).toContainText("Stopped");
    await expect(episode.getByTestId("turn")).toHaveCount(1);

    // Run again while the model is still slow, and reload in the middle of the turn.
    await page.getByRole("button", { name: "Run agent" }).click();
    await expect(page.getByTestId("agent-live")).toContainText(/L3: resuming at turn 1|L3, turn 1/);
    // Reloading mid-run: the browser asks whether to leave first.
    const leaving = new Promise<string>((resolve) =>
      page.once("dialog", (d) => {
        resolve(d.type());
        void d.accept();
      }),
    );
    await page.reload();
    expect(await leaving).toBe("beforeunload");
    await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
    await openTab(page, "Agent");
    await expect(episode).toHaveAttribute("data-status", "unfinished");
    await expect(episode.getByTestId("turn")).toHaveCount(1);

    slow = false;
    // Resume goes on with the episode's own options (L3, 4 turns), whatever the form says now.
    for (const l of [0, 1, 2, 3, 4]) await page.getByLabel(`Level L${l}`).setChecked(l === 0);
    await page.getByLabel("Max turns").fill("9");
    await episode.getByTestId("episode-resume").click();
    await expect(page.getByTestId("agent-outcome")).toContainText("Done: 1 of 1", { timeout: 150_000 });
    await expect(episode).toHaveAttribute("data-status", "solved");
    await expect(episode.getByTestId("turn")).toHaveCount(2);
    await expect(episode).toContainText("2/4 turns");
    await expect(page.locator('[data-testid="episode"][data-level="0"]')).toHaveCount(0);
    await expect(episode.getByTestId("episode-resume")).toHaveCount(0);
  });
});

test("WebLLM in a browser without WebGPU says so and leaves the page working", async ({ page }) => {
  await openTask(page);
  const seat = await openSettings(page);
  await seat.getByLabel("WebLLM (in this page)").check();
  await expect(page.getByTestId("webgpu-coder")).toContainText("WebLLM needs WebGPU");
  await page.screenshot({ path: "/tmp/recode-settings.png" });
  await saveSettings(page);
  await expect(page.getByTestId("coder-model").or(page.getByRole("tab", { name: "Agent" }))).toHaveCount(1);
  await openTab(page, "Agent");
  await expect(page.getByTestId("coder-model")).toContainText("WebLLM");
  await page.screenshot({ path: "/tmp/recode-agent-form.png" });
  await page.getByLabel("Level L0").setChecked(true);
  await page.getByRole("button", { name: "Run agent" }).click();
  await expect(page.getByTestId("agent-outcome")).toContainText(/WebLLM/);
  await openTab(page, "Instruction");
  await expect(page.getByRole("button", { name: "Run tests" })).toBeEnabled();
});

test("the Agent tab's options survive a reload; a stored value the page cannot read gives the defaults", async ({ page }) => {
  await openTask(page);
  await openTab(page, "Agent");
  await page.getByLabel("Setting").selectOption("baseline");
  await page.getByLabel("Protocol").selectOption("reference");
  await page.getByLabel("Level L1").setChecked(true);
  await page.getByLabel("Max turns").fill("7");
  await page.reload();
  await openTab(page, "Agent");
  await expect(page.getByLabel("Setting")).toHaveValue("baseline");
  await expect(page.getByLabel("Protocol")).toHaveValue("reference");
  await expect(page.getByLabel("Level L1")).toBeChecked();
  await expect(page.getByLabel("Max turns")).toHaveValue("7");

  // Another version's (or a hand-edited) value is not used.
  await page.evaluate(() => {
    for (const k of Object.keys(localStorage)) if (k.startsWith("recode.agent-options.")) localStorage.setItem(k, '{"setting":"nope"}');
  });
  await page.reload();
  await openTab(page, "Agent");
  await expect(page.getByLabel("Setting")).toHaveValue("memory_agent");
  await expect(page.getByLabel("Max turns")).toHaveValue("10");
});

test("the offline demo runs a scripted model from examples/ on pass-at-k, with no endpoint set, and leaves the options alone", async ({
  page,
}) => {
  await page.goto("/#task=pass-at-k");
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  await openTab(page, "Agent");
  await page.getByLabel("Max turns").fill("7");
  await page.getByTestId("agent-demo").click();
  await expect(page.getByTestId("agent-outcome")).toContainText("Done: 2 of 2 levels solved.", { timeout: 150_000 });
  // The script acts on what the feedback says: L3's suggested fix solves it a turn sooner than the test log alone.
  for (const [level, turns] of [
    [0, 3],
    [3, 2],
  ] as const) {
    const ep = page.locator(`[data-testid="episode"][data-level="${level}"]`);
    await expect(ep).toHaveAttribute("data-status", "solved");
    await expect(ep.getByTestId("turn")).toHaveCount(turns);
  }
  await expect(page.getByTestId("episode").first()).toContainText("scripted:demo-pass-at-k.script.json");
  await expect(page.getByLabel("Max turns")).toHaveValue("7");
  await expect(page.getByTestId("agent-demo-note")).toContainText("baseline, L0 and L3, 3 turns");
  // Load into editor asks before it replaces the student's text; Cancel keeps it.
  const target = JSON.parse(readFileSync("tasks/pass-at-k/task.json", "utf8")).target_file_path as string;
  const editorText = (text?: string) =>
    page.evaluate(
      ([path, value]) => {
        const models = (window as unknown as MonacoWindow).monaco?.editor.getModels() ?? [];
        const model = models.find((m) => m.uri.path.endsWith(`/${path}`));
        if (model && value !== undefined) model.setValue(value);
        return model ? model.getValue() : null;
      },
      [target, text] as const,
    );
  const mine = "# an hour of my own work\n";
  await expect.poll(() => editorText(), { timeout: 60_000 }).not.toBeNull();
  await editorText(mine);
  const load = page.locator('[data-testid="episode"][data-level="0"]').getByRole("button", { name: "Load into editor" }).last();
  page.once("dialog", (d) => void d.dismiss());
  await load.click();
  expect(await editorText()).toBe(mine);
  page.once("dialog", (d) => void d.accept());
  await load.click();
  await expect.poll(() => editorText()).not.toBe(mine);
  // A task with no demo script has no demo button.
  await page.goto("/#task=min-p-sampling");
  await openTab(page, "Agent");
  await expect(page.getByTestId("agent-demo")).toHaveCount(0);
});
