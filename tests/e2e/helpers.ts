/** Shared steps of the page's end-to-end tests. */
import { readFileSync } from "node:fs";
import { expect, type Page } from "@playwright/test";

export const TASK = "min-p-sampling";
export const TARGET = JSON.parse(readFileSync(`tasks/${TASK}/task.json`, "utf8")).target_file_path as string;
export const CANONICAL = readFileSync(`tasks/${TASK}/canonical.py`, "utf8");
export const STARTER = readFileSync(`tasks/${TASK}/repo/${TARGET}`, "utf8");

/** The part of Monaco the tests use (the page exposes `window.monaco`). */
export interface MonacoWindow {
  monaco: {
    editor: {
      getModels(): { uri: { path: string }; getValue(): string; setValue(v: string): void }[];
      getModelMarkers(filter: { owner?: string }): { startLineNumber: number; resource: { path: string } }[];
    };
  };
}

/** Open the page and the task, wait for Python and the editor. */
export async function openTask(page: Page, path = "/"): Promise<void> {
  await page.goto(path);
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  await page.locator(`[data-task-id="${TASK}"] button`).click();
  await page.waitForFunction(
    (target) => (window as unknown as MonacoWindow).monaco?.editor.getModels().some((m) => m.uri.path.endsWith(`/${target}`)),
    TARGET,
  );
}

/** Set the target file's text in the editor. */
export async function setTarget(page: Page, code: string): Promise<void> {
  await page.evaluate(
    ([target, text]) => {
      const model = (window as unknown as MonacoWindow).monaco.editor.getModels().find((m) => m.uri.path.endsWith(`/${target}`));
      if (!model) throw new Error(`no editor model for ${target}`);
      model.setValue(text as string);
    },
    [TARGET, code],
  );
}

/** The target file's text in the editor. */
export async function getTarget(page: Page): Promise<string> {
  return page.evaluate((target) => {
    const model = (window as unknown as MonacoWindow).monaco.editor.getModels().find((m) => m.uri.path.endsWith(`/${target}`));
    return model ? model.getValue() : "";
  }, TARGET);
}

/** Click Run tests and wait for this run's result (the view counts finished runs in `data-runs`). */
export async function runAndWait(page: Page): Promise<void> {
  const wrap = page.getByTestId("results-wrap");
  const before = Number(await wrap.getAttribute("data-runs"));
  await page.getByRole("button", { name: "Run tests" }).click();
  await expect(wrap).toHaveAttribute("data-runs", String(before + 1), { timeout: 120_000 });
  await expect(page.getByRole("button", { name: "Run tests" })).toBeVisible();
}

/** Lines of the target file that carry a marker of the test results. */
export async function markers(page: Page): Promise<number[]> {
  return page.evaluate((target) => {
    return (window as unknown as MonacoWindow).monaco.editor
      .getModelMarkers({ owner: "recode" })
      .filter((m) => m.resource.path.endsWith(`/${target}`))
      .map((m) => m.startLineNumber);
  }, TARGET);
}

/** Open a tab of the task view. */
export async function openTab(page: Page, name: string): Promise<void> {
  await page.getByRole("tab", { name, exact: true }).click();
}

/** Open the results page from the header (the task stays open behind it). */
export async function openResults(page: Page): Promise<void> {
  const toggle = page.getByTestId("results-toggle");
  if ((await toggle.getAttribute("aria-pressed")) !== "true") await toggle.click();
  await expect(page.getByTestId("results-view")).toBeVisible();
}

/** Back from the results page to the task. */
export async function closeResults(page: Page): Promise<void> {
  const toggle = page.getByTestId("results-toggle");
  if ((await toggle.getAttribute("aria-pressed")) === "true") await toggle.click();
  await expect(page.getByTestId("results-view")).toHaveCount(0);
}

/** Climb the Feedback tab's ladder, one "Ask for more help" at a time, until level `level` is shown. */
export async function climbTo(page: Page, level: number): Promise<void> {
  const ladder = page.getByTestId("ladder");
  for (;;) {
    const reached = Number(await ladder.getAttribute("data-reached"));
    if (reached >= level) break;
    await page.getByRole("button", { name: `Ask for more help (L${reached + 1})` }).click();
    await expect(ladder).toHaveAttribute("data-reached", String(reached + 1));
  }
  await page.getByLabel(`L${level}`, { exact: true }).check();
  await expect(page.getByTestId("feedback")).toHaveAttribute("data-level", String(level));
}
