/** The page as a class uses it: the feedback ladder, the student's turns in the task list, and class files. */
import { expect, type Page, test } from "@playwright/test";
import { CANONICAL, climbTo, openTab, openTask, runAndWait, STARTER, setTarget, TASK } from "./helpers";

// Class files are fetched by the page: served here through the browser's routing, which a service worker would bypass.
test.use({ serviceWorkers: "block" });

const classFile = (over: Record<string, unknown>) => JSON.stringify({ format: "recode-class", version: 1, name: "Week 3", ...over });

const item = (page: Page, id: string) => page.locator(`[data-task-id="${id}"]`);

test("the ladder: a failing run starts at L0, each level asked for is kept with its turn, and the task list shows solved, attempted and levels", async ({
  page,
}) => {
  await openTask(page);
  await setTarget(page, STARTER);
  await runAndWait(page);
  const progress = item(page, TASK).getByTestId("task-progress");
  await expect(progress).toHaveAttribute("data-solved", "false");
  await expect(progress).toHaveAttribute("data-runs", "1");
  await expect(progress).toContainText("attempted");
  await openTab(page, "Feedback");
  await expect(page.getByTestId("feedback")).toHaveAttribute("data-level", "0");
  await climbTo(page, 2);
  await expect(progress).toHaveAttribute("data-levels", "2");
  await expect(progress).toContainText("feedback L2");

  await setTarget(page, CANONICAL);
  await runAndWait(page);
  await expect(progress).toHaveAttribute("data-solved", "true");
  await expect(progress).toHaveAttribute("data-runs", "2");
  await expect(progress).toContainText("solved");
  await expect(progress).not.toContainText("last run not passing");

  // Solved once, then a failing text: still solved (as the benchmark counts it), and the card says the last run fails.
  await setTarget(page, STARTER);
  await runAndWait(page);
  await expect(progress).toHaveAttribute("data-solved", "true");
  await expect(progress).toHaveAttribute("data-last-solved", "false");
  await expect(progress).toContainText("solved");
  await expect(progress).toContainText("last run not passing");

  // The turns are stored: a reload shows the same.
  await page.reload();
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  await expect(item(page, TASK).getByTestId("task-progress")).toHaveAttribute("data-runs", "3");
  // (The last failing run had no help asked for: L0 joins the levels.)
  await expect(item(page, TASK).getByTestId("task-progress")).toHaveAttribute("data-levels", "0,2");
  await expect(item(page, TASK).getByTestId("task-progress")).toContainText("last run not passing");
});

test("a class file from a URL picks the tasks, caps the level, fixes the researcher; another hides Apply; a broken one names its line", async ({
  page,
}) => {
  await page.route(
    (url) => url.pathname === "/week3.class.json",
    (route) =>
      route.fulfill({
        contentType: "application/json",
        body: classFile({ tasks: [TASK, "pass-at-k"], maxLevel: 2, researcher: "rules" }),
      }),
  );
  await openTask(page, "/?class=/week3.class.json");
  await expect(page.getByTestId("class-badge")).toContainText("Class: Week 3");
  await expect(page.getByTestId("class-badge")).toContainText("2 tasks · feedback up to L2 · rules researcher");
  await expect(page.locator(".task-list > li")).toHaveCount(2);
  // The class is stored: the address no longer carries it.
  expect(new URL(page.url()).search).toBe("");

  await setTarget(page, STARTER);
  await runAndWait(page);
  await openTab(page, "Feedback");
  await expect(page.getByLabel("Researcher", { exact: true })).toBeDisabled();
  await climbTo(page, 2);
  await expect(page.getByRole("button", { name: /Ask for more help/ })).toHaveCount(0);
  await expect(page.getByTestId("level-cap")).toHaveText("Your class allows feedback up to L2.");
  await expect(page.getByLabel("L3", { exact: true })).toHaveCount(0);
  await expect(page.getByTestId("feedback-code")).toHaveCount(0);

  // In Settings: a class with every level but no Apply, then a broken file, then leaving the class.
  await page.getByRole("button", { name: "Settings" }).click();
  const input = page.getByTestId("class-file-input");
  await input.setInputFiles({ name: "open.json", mimeType: "application/json", buffer: Buffer.from(classFile({ hideApply: true })) });
  await expect(page.getByTestId("class-section")).toContainText("all tasks · feedback up to L4 · apply hidden");
  await input.setInputFiles({
    name: "broken.json",
    mimeType: "application/json",
    buffer: Buffer.from('{\n  "format": "recode-class",\n  "version": 1,\n  "name": "x",\n  "maxLevel": 9\n}'),
  });
  await expect(page.getByTestId("class-error")).toContainText("class file broken.json, line 5: field maxLevel");
  // The broken file changed nothing.
  await expect(page.getByTestId("class-badge")).toContainText("apply hidden");
  await page.keyboard.press("Escape");
  await climbTo(page, 4);
  await expect(page.getByTestId("feedback-code").first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Apply to editor" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Apply all/ })).toHaveCount(0);
  await expect(page.locator(".task-list > li").nth(2)).toBeVisible();

  await page.getByRole("button", { name: "Settings" }).click();
  await page.getByRole("button", { name: "Leave the class" }).click();
  await expect(page.getByTestId("class-badge")).toHaveCount(0);
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: "Apply to editor" }).first()).toBeVisible();
});

test("a student exports their work as one file, and a teacher opens it in the page to read it", async ({ page }) => {
  await openTask(page);
  await setTarget(page, STARTER);
  await runAndWait(page);
  await openTab(page, "Feedback");
  await climbTo(page, 1);
  await page.getByRole("button", { name: "Settings" }).click();
  // Without a name, the page asks first (Cancel exports nothing).
  await page.getByLabel("Your name (in the file you hand in)").fill("");
  const asked = new Promise<string>((resolve) =>
    page.once("dialog", (d) => {
      resolve(d.message());
      void d.dismiss();
    }),
  );
  await page.getByRole("button", { name: "Export my work" }).click();
  expect(await asked).toContain("Export without your name?");
  // Accepted, the file has no name: its file name holds the time it was made, so that two students' do not collide.
  page.once("dialog", (d) => void d.accept());
  const [unnamed] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export my work" }).click()]);
  expect(unnamed.suggestedFilename()).toMatch(/^recode-work-unnamed-\d{4}-\d{2}-\d{2}-\d{6}\.json$/);
  await page.getByLabel("Your name (in the file you hand in)").fill("Ada Lovelace");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export my work" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^recode-work-Ada-Lovelace-\d{4}-\d{2}-\d{2}\.json$/);
  const text = await (await download.createReadStream()).toArray().then((parts) => Buffer.concat(parts).toString("utf8"));
  const work = JSON.parse(text);
  expect(work.format).toBe("recode-student-work");
  expect(work.student).toBe("Ada Lovelace");
  const mine = work.tasks.find((t: { taskId: string }) => t.taskId === TASK);
  expect(mine.draft).toBe(STARTER);
  expect(mine.progress.turns.map((t: { level: number; solved: boolean }) => [t.solved, t.level])).toEqual([[false, 1]]);
  // Each turn keeps the text it ran.
  expect(mine.progress.turns[0].code).toBe(STARTER);

  // A broken file says where it is wrong; the student's own file opens, read-only.
  const input = page.getByTestId("work-file-input");
  await input.setInputFiles({ name: "bad.json", mimeType: "application/json", buffer: Buffer.from('{"format":"recode-student-work"}') });
  await expect(page.getByTestId("work-error")).toContainText("bad.json: not a student-work file: version");
  // A file edited to claim the task solved: the turns say so, the tests on its text do not.
  mine.progress.turns[0] = { ...mine.progress.turns[0], passed: 8, total: 8, solved: true };
  await input.setInputFiles({ name: "ada.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(work)) });
  const view = page.getByTestId("student-work");
  await expect(view).toBeVisible();
  await expect(view).toContainText("Ada Lovelace");
  await expect(view).toContainText("ada.json");
  const section = view.locator(`[data-task-id="${TASK}"]`);
  await expect(section).toHaveAttribute("data-solved", "true");
  await expect(section.locator("tbody tr")).toHaveCount(1);
  // A turn that solved the task asked for no feedback, and says so.
  await expect(section.locator("tbody tr")).toContainText("none (solved)");
  await section.getByTestId("work-check").click();
  await expect(section.getByTestId("work-check-result")).toHaveAttribute("data-solved", "false");
  await expect(section.getByTestId("work-check-result")).toContainText(/Checked here: 0\/\d+ tests passed, not solved/);
  // The turn's own text, and the tests run on it here.
  const turnCode = section.getByTestId("turn-code");
  await turnCode.locator("summary").click();
  await expect(turnCode.locator("pre")).toHaveText(STARTER);
  await turnCode.getByTestId("turn-check").click();
  await expect(turnCode.getByTestId("turn-check-result")).toHaveAttribute("data-solved", "false");
  await page.keyboard.press("Escape");
  await expect(view).toHaveCount(0);

  // A class's files at once: one line per student, one column per task; a broken file is named; a name opens the work.
  const bob = { ...work, student: "Bob", tasks: [{ taskId: TASK, draft: null, progress: null }] };
  await page.getByRole("button", { name: "Settings" }).click();
  await input.setInputFiles([
    { name: "ada.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(work)) },
    { name: "bob.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(bob)) },
    { name: "bad.json", mimeType: "application/json", buffer: Buffer.from("{}") },
  ]);
  const classView = page.getByTestId("class-work");
  await expect(classView).toBeVisible();
  await expect(classView.getByRole("alert")).toContainText("bad.json");
  await expect(classView.locator('tr[data-student="Ada Lovelace"]').locator(`[data-task-id="${TASK}"]`)).toHaveAttribute(
    "data-state",
    "solved",
  );
  await expect(classView.locator('tr[data-student="Bob"]').locator(`[data-task-id="${TASK}"]`)).toHaveAttribute("data-state", "not-run");
  await expect(classView.locator("tfoot")).toContainText("1/2");
  if (process.env.RECODE_SCREENSHOTS) await page.screenshot({ path: "docs/img/class-work.png" });
  // The table for a gradebook: one line per student, the task's state, runs and levels.
  const [csv] = await Promise.all([page.waitForEvent("download"), classView.getByTestId("class-work-csv").click()]);
  expect(csv.suggestedFilename()).toMatch(/^recode-class-work-\d{4}-\d{2}-\d{2}\.csv$/);
  const rows = Buffer.concat(await (await csv.createReadStream()).toArray())
    .toString("utf8")
    .trim()
    .split("\n");
  const head = rows[0]?.split(",") ?? [];
  expect(head.slice(0, 3)).toEqual(["student", "file", "exported_at"]);
  const col = head.indexOf(TASK);
  expect(head.slice(col, col + 3)).toEqual([TASK, `${TASK} runs`, `${TASK} levels`]);
  // (Ada's file was edited above to claim its one failing turn at L1 solved: solved, no failing run's level.)
  expect(rows.slice(1).map((r) => [...r.split(",").slice(0, 2), ...r.split(",").slice(col, col + 3)])).toEqual([
    ["Ada Lovelace", "ada.json", "solved", "1", ""],
    ["Bob", "bob.json", "not run", "0", ""],
  ]);
  await classView.getByRole("button", { name: "Bob" }).click();
  await expect(page.getByTestId("student-work")).toContainText("Bob");
  // Closing one student's work goes back to the class.
  await page.getByTestId("student-work").getByRole("button", { name: "Close" }).click();
  await expect(page.getByTestId("student-work")).toHaveCount(0);
  await expect(classView).toBeVisible();
});

test("a class link does not silently replace the class in use, and a huge class file is refused unread", async ({ page }) => {
  const serve = (path: string, body: string) =>
    page.route(
      (url) => url.pathname === path,
      (route) => route.fulfill({ contentType: "application/json", body }),
    );
  await serve("/a.class.json", classFile({ name: "Class A" }));
  await serve("/b.class.json", classFile({ name: "Class B", maxLevel: 0 }));
  await serve("/huge.class.json", `${classFile({ name: "Huge" }).slice(0, -1)}, "x": "${"x".repeat(300 * 1024)}"}`);
  await openTask(page, "/?class=/a.class.json");
  await expect(page.getByTestId("class-badge")).toContainText("Class A");

  // Another class's link asks first; "Cancel" keeps the class in use.
  page.once("dialog", (d) => {
    expect(d.message()).toContain('Leave the class "Class A" for "Class B"');
    void d.dismiss();
  });
  await openTask(page, "/?class=/b.class.json");
  await expect(page.getByTestId("class-badge")).toContainText("Class A");

  await openTask(page, "/?class=/huge.class.json");
  await expect(page.locator(".notice.error")).toContainText("is larger than 256 KB");
  await expect(page.getByTestId("class-badge")).toContainText("Class A");
});
