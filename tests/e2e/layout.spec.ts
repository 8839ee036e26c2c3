/**
 * The page's layout as a student on a laptop or a small screen meets it:
 * panes that resize, collapse and are remembered, the editor's size with the
 * results open, tabs on a narrow page, the dark theme, word wrap, and the
 * settings dialog.
 */
import { expect, type Page, test } from "@playwright/test";
import { openTab, openTask, runAndWait, STARTER, setTarget } from "./helpers";

/** Monaco's editor: how many whole lines it shows, and its word wrap and theme. */
async function editorView(page: Page): Promise<{ lines: number; wordWrap: string; dark: boolean }> {
  // (After a reload, Monaco takes over from the plain editor a moment later.)
  await page.waitForFunction(
    () => ((window as unknown as { monaco?: typeof import("monaco-editor") }).monaco?.editor.getEditors().length ?? 0) > 0,
  );
  return page.evaluate(() => {
    const m = (window as unknown as { monaco: typeof import("monaco-editor") }).monaco;
    const ed = m.editor.getEditors()[0];
    if (!ed) throw new Error("no editor");
    const lineHeight = ed.getOption(m.editor.EditorOption.lineHeight);
    return {
      lines: Math.floor(ed.getLayoutInfo().height / lineHeight),
      wordWrap: String(ed.getOption(m.editor.EditorOption.wordWrap)),
      dark: document.querySelector(".monaco-editor")?.classList.contains("vs-dark") ?? false,
    };
  });
}

/** Relative luminance (0-1) of an element's computed background colour. */
async function backgroundLuminance(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) throw new Error(`no ${sel}`);
    const [r, g, b] = (getComputedStyle(el).backgroundColor.match(/[\d.]+/g) ?? []).map(Number);
    return (0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0)) / 255;
  }, selector);
}

test.describe("on a 1366x768 laptop", () => {
  test.use({ viewport: { width: 1366, height: 768 } });

  test("the editor shows at least 30 lines with the results open, and the task's tab row does not wrap", async ({ page }) => {
    await openTask(page);
    await setTarget(page, STARTER);
    await runAndWait(page);
    await expect(page.locator(".test-row").first()).toBeVisible();
    expect((await editorView(page)).lines).toBeGreaterThanOrEqual(30);
    // A closed row is one line, its message cut to it: the pane lists at least four tests whole.
    const shown = await page.evaluate(() => {
      const pane = document.querySelector('[data-testid="results-wrap"]')?.getBoundingClientRect();
      if (!pane) return 0;
      const bottom = Math.min(pane.bottom, window.innerHeight);
      return [...document.querySelectorAll(".test-row")].filter((r) => r.getBoundingClientRect().bottom <= bottom + 0.5).length;
    });
    expect(shown).toBeGreaterThanOrEqual(4);
    // Opened, a row shows its whole message.
    const row = page.locator(".test-row").first();
    await row.locator("summary").click();
    const msg = row.locator(".test-msg");
    expect(await msg.evaluate((el) => el.scrollWidth <= el.clientWidth && getComputedStyle(el).whiteSpace === "pre-wrap")).toBe(true);
    await row.locator("summary").click();
    // One row of tabs: every tab button on the same line.
    const tops = await page.locator(".task-info .tabs button").evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().top));
    expect(new Set(tops).size).toBe(1);
    // The page itself does not scroll: each pane scrolls on its own.
    expect(await page.evaluate(() => document.scrollingElement?.scrollHeight ?? 0)).toBeLessThanOrEqual(768);
  });

  test("panes resize with the keyboard, collapse, and come back the same after a reload", async ({ page }) => {
    await openTask(page);
    const results = page.getByRole("separator", { name: "Resize the test results" });
    const before = Number(await results.getAttribute("aria-valuenow"));
    await results.focus();
    for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowUp");
    const after = Number(await results.getAttribute("aria-valuenow"));
    expect(after).toBeLessThan(before - 5);
    // Ctrl+B hides the task list; a double click on the task text's separator hides the task text.
    await page.keyboard.press("Control+b");
    await expect(page.locator(".sidebar")).toBeHidden();
    await page.getByRole("separator", { name: "Resize the task's text" }).dblclick();
    await expect(page.locator(".task-info")).toBeHidden();
    await page.reload();
    await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
    await expect(page.getByRole("separator", { name: "Resize the test results" })).toHaveAttribute("aria-valuenow", String(after));
    await expect(page.locator(".sidebar")).toBeHidden();
    await expect(page.locator(".task-info")).toBeHidden();
    // Back again.
    await page.keyboard.press("Control+b");
    await expect(page.locator(".sidebar")).toBeVisible();
    const info = page.getByRole("separator", { name: "Resize the task's text" });
    await info.focus();
    await page.keyboard.press("Enter");
    await expect(page.locator(".task-info")).toBeVisible();
  });

  test("word wrap is a toggle (button and Alt+Z) and is remembered", async ({ page }) => {
    await openTask(page);
    const wrap = page.getByTestId("wrap-toggle");
    await expect(wrap).toHaveAttribute("aria-pressed", "false");
    await wrap.click();
    await expect(wrap).toHaveAttribute("aria-pressed", "true");
    await expect.poll(async () => (await editorView(page)).wordWrap).toBe("on");
    await page.reload();
    await expect(page.getByTestId("wrap-toggle")).toHaveAttribute("aria-pressed", "true");
    await page.keyboard.press("Alt+z");
    await expect(page.getByTestId("wrap-toggle")).toHaveAttribute("aria-pressed", "false");
    await expect.poll(async () => (await editorView(page)).wordWrap).toBe("off");
  });

  test("settings is a modal dialog that Escape closes, and it lists the keyboard shortcuts", async ({ page }) => {
    await openTask(page);
    await page.getByRole("button", { name: "Settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("shortcuts")).toContainText("Ctrl/Cmd+Enter");
    await expect(dialog.getByTestId("shortcuts")).toContainText("Alt+Z");
    // Modal: the page behind it cannot be clicked.
    expect(await page.evaluate(() => document.querySelector("dialog.settings")?.matches(":modal"))).toBe(true);
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await page.keyboard.press("Control+,");
    await expect(dialog).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    // Opened again before the close event of the last one came (it comes a task later): it stays open.
    await page.keyboard.press("Control+,");
    await expect(dialog).toBeVisible();
    await page.evaluate(() => {
      document.querySelector<HTMLDialogElement>("dialog.settings")?.close();
      window.dispatchEvent(new KeyboardEvent("keydown", { key: ",", ctrlKey: true }));
    });
    await expect(dialog).toBeVisible();
    // The close event's task, then a render.
    await page.evaluate(() => new Promise((done) => setTimeout(() => requestAnimationFrame(() => done(null)), 0)));
    await expect(dialog).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
  });
});

test.describe("with a dark system theme", () => {
  test.use({ viewport: { width: 1366, height: 768 }, colorScheme: "dark" });

  test("the page and the editor are dark; a light choice in the settings wins and is remembered", async ({ page }) => {
    await openTask(page);
    await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    expect(await backgroundLuminance(page, ".task-info")).toBeLessThan(0.25);
    await expect.poll(async () => (await editorView(page)).dark).toBe(true);
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByTestId("theme-choice").selectOption("light");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    await page.keyboard.press("Escape");
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    expect(await backgroundLuminance(page, ".task-info")).toBeGreaterThan(0.8);
    await expect.poll(async () => (await editorView(page)).dark).toBe(false);
  });
});

test.describe("on a narrow page (800 px)", () => {
  test.use({ viewport: { width: 800, height: 900 } });

  test("the task is tabs (Task, Code, Results), each its own scroll area, and the task list is a button away", async ({ page }) => {
    await openTask(page);
    await expect(page.getByRole("tab", { name: "Code" })).toHaveAttribute("aria-selected", "true");
    await expect(page.locator(".monaco-editor").first()).toBeVisible();
    await setTarget(page, STARTER);
    await page.getByRole("button", { name: "Run tests" }).click();
    await expect(page.getByRole("tab", { name: /^Results 0\/\d+$/ })).toBeVisible({ timeout: 120_000 });
    await page.getByRole("tab", { name: /^Results/ }).click();
    await expect(page.locator(".test-row").first()).toBeVisible();
    await page.getByRole("tab", { name: "Task" }).click();
    await expect(page.locator(".task-info")).toBeVisible();
    await expect(page.locator(".monaco-editor").first()).toBeHidden();
    // One scroll area: the page itself never scrolls.
    expect(await page.evaluate(() => (document.scrollingElement?.scrollHeight ?? 0) <= innerHeight)).toBe(true);
    await page.getByTestId("tasks-toggle").click();
    await expect(page.locator(".sidebar")).toBeVisible();
    await page.locator('[data-task-id="pass-at-k"] button').click();
    await expect(page.locator(".sidebar")).toHaveCount(0);
    await expect(page.getByRole("tab", { name: "Code" })).toBeVisible();
  });
});

test.describe("the same view when the panes were left mid-run", () => {
  test.use({ viewport: { width: 1366, height: 768 } });

  test("a run's results stay when the results pane is hidden and shown again", async ({ page }) => {
    await openTask(page);
    await setTarget(page, STARTER);
    await runAndWait(page);
    const sep = page.getByRole("separator", { name: "Resize the test results" });
    await sep.dblclick();
    await expect(page.getByTestId("results-wrap")).toBeHidden();
    await sep.dblclick();
    await expect(page.locator(".test-row").first()).toBeVisible();
  });
});

test.describe("on a 1280x720 laptop with a class active", () => {
  test.use({ viewport: { width: 1280, height: 720 } });

  test("the header keeps one line, and the feedback ladder and the researcher's form stay inside their pane", async ({ page }) => {
    const name = "Research code, week 3 of the spring term";
    await page.route(
      (url) => url.pathname === "/long.class.json",
      (route) =>
        route.fulfill({
          contentType: "application/json",
          body: JSON.stringify({
            format: "recode-class",
            version: 1,
            name,
            tasks: ["min-p-sampling", "pass-at-k", "dynamic-tanh"],
            hideApply: true,
          }),
        }),
    );
    await openTask(page, "/?class=/long.class.json");
    await expect(page.getByTestId("class-badge")).toContainText("Class: Research code");
    // One line: the title and the Python badge are not wrapped, the class's badge gives way.
    const heights = await page.evaluate(() =>
      [".app-head h1", '[data-testid="python-status"]'].map((s) => document.querySelector(s)?.getBoundingClientRect().height ?? 0),
    );
    for (const h of heights) expect(h).toBeLessThan(30);
    await setTarget(page, STARTER);
    await runAndWait(page);
    await openTab(page, "Feedback");
    await page.getByLabel("Researcher").selectOption("human");
    await expect(page.getByRole("region", { name: "Write feedback" })).toBeVisible();
    /** How far an element reaches past the right edge of the task pane (px; <= 0 inside). */
    const past = (selector: string) =>
      page.evaluate((sel) => {
        const pane = document.querySelector(".task-view .tab-body, .task-info")?.getBoundingClientRect();
        const el = document.querySelector(sel)?.getBoundingClientRect();
        if (!pane || !el) throw new Error(`no ${sel}`);
        return el.right - pane.right;
      }, selector);
    expect(await past('[data-testid="ladder"]')).toBeLessThanOrEqual(0);
    expect(await past(".human-form")).toBeLessThanOrEqual(0);
    expect(await past(".human-form select")).toBeLessThanOrEqual(0);
    // The ladder's button keeps its words on one line.
    expect((await page.getByRole("button", { name: /Ask for more help/ }).boundingBox())?.height ?? 99).toBeLessThan(40);
  });
});
