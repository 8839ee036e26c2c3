import { expect, test } from "@playwright/test";
import { climbTo, getTarget, openTab, openTask, runAndWait, STARTER, setTarget } from "./helpers";

/** How many interfaces of a target file are still the starting stub. */
const stubs = (text: string) => text.split("raise NotImplementedError").length - 1;

test.beforeEach(async ({ page }) => {
  await openTask(page);
  await setTarget(page, STARTER);
  await runAndWait(page);
  await openTab(page, "Feedback");
});

test("the rules researcher reviews a failing run; levels re-render the same record and code shows only at L4", async ({ page }) => {
  await expect(page.getByTestId("test-log")).toContainText(/Test run: \d+ tests, 0 passed/);
  const feedback = page.getByTestId("feedback");
  // A new run starts at the foot of the ladder: the test log alone; higher levels wait until asked for.
  await expect(feedback).toHaveAttribute("data-level", "0");
  await expect(page.getByLabel("L1", { exact: true })).toBeDisabled();
  await climbTo(page, 2);
  await expect(page.getByTestId("feedback-text")).toContainText("Researcher feedback");
  await expect(page.getByTestId("feedback-text")).toContainText("Analysis:");
  // Every item names its category (T0-T4 with its name).
  await expect(page.locator(".feedback-items li").first()).toContainText(
    /T[0-4] (code structure|code correctness|implementation alignment|knowledge and context|repository integration)/,
  );
  await expect(page.getByTestId("feedback-code")).toHaveCount(0);

  // A level asked for before can be viewed again.
  await page.getByLabel("L1", { exact: true }).check();
  await expect(feedback).toHaveAttribute("data-level", "1");
  const l1 = await page.getByTestId("feedback-text").textContent();
  expect(l1).not.toContain("Analysis:");
  expect(l1).not.toContain("def min_p_filter");
  await expect(page.getByTestId("feedback-code")).toHaveCount(0);

  await climbTo(page, 4);
  const l4 = await page.getByTestId("feedback-text").textContent();
  expect(l4).not.toEqual(l1);
  expect(l4).toContain("Suggested fix:");
  // The code shows once per interface, in its own highlighted block, not in the text as well.
  expect(l4).not.toContain("def min_p_filter");
  await expect(page.getByTestId("feedback-code").first()).toBeVisible();
  await expect(page.getByTestId("feedback-code").first()).toContainText("def ");
  // Before applying: what it would change in the editor.
  await page.getByRole("button", { name: "Show the change" }).first().click();
  await expect(page.getByTestId("feedback-diff").first()).toContainText("+ ");
  await expect(page.getByTestId("feedback-diff").first()).toContainText("- ");

  // L0: nothing but the test log.
  await page.getByLabel("L0", { exact: true }).check();
  await expect(page.getByTestId("feedback-text")).toHaveCount(0);
  await expect(page.getByTestId("test-log")).toBeVisible();

  // Apply the L4 correction of the first item into the editor.
  await page.getByLabel("L4", { exact: true }).check();
  const before = await getTarget(page);
  await page.getByRole("button", { name: "Apply to editor" }).first().click();
  await expect.poll(() => getTarget(page)).not.toEqual(before);
  expect(stubs(await getTarget(page))).toBe(stubs(before) - 1);
});

test("a human item is checked field by field and then rendered like any researcher's", async ({ page }) => {
  await page.getByLabel("Researcher", { exact: true }).selectOption("human");
  await expect(page.getByRole("region", { name: "Write feedback" })).toBeVisible();
  await page.getByRole("button", { name: "Add item" }).click();
  await expect(page.locator('.field-error[data-field="description"]')).toContainText("say what is wrong");
  await expect(page.getByTestId("feedback-text")).toHaveCount(0);

  const form = page.getByRole("region", { name: "Write feedback" });
  await form.getByLabel("Interface").selectOption("min_p_filter");
  await form.getByLabel("Category").selectOption("T2");
  await form.getByLabel(/Description/).fill("The filter keeps tokens below the threshold.");
  await form.getByLabel(/Analysis/).fill("The threshold must scale with the top probability.");
  await form.getByLabel(/Actionable feedback/).fill("Compare each probability with p_base times the maximum.");
  await form.getByLabel(/Direct code/).fill("```python\ndef min_p_filter(probs, p_base):\n    return probs\n```");
  await form.getByRole("button", { name: "Add item" }).click();
  await expect(page.locator(".field-error")).toHaveCount(0);
  await climbTo(page, 1);
  await expect(page.getByTestId("feedback-text")).toContainText("The filter keeps tokens below the threshold.");
  await expect(page.getByTestId("feedback-text")).toContainText("T2 implementation alignment");
  await expect(page.getByTestId("feedback-text")).not.toContainText("def min_p_filter");
  await climbTo(page, 4);
  await expect(page.getByTestId("feedback-code")).toContainText("def min_p_filter(probs, p_base):");

  // What the teacher wrote survives a reload.
  await page.reload();
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  await openTab(page, "Feedback");
  await page.getByLabel("Researcher", { exact: true }).selectOption("human");
  await expect(page.getByTestId("feedback-text")).toContainText("The filter keeps tokens below the threshold.");
});

test("at L4, Apply all puts every interface's correction in the editor at once", async ({ page }) => {
  await climbTo(page, 4);
  const blocks = await page.getByTestId("feedback-code").count();
  expect(blocks).toBeGreaterThan(1);
  const before = await getTarget(page);
  await page.getByRole("button", { name: `Apply all ${blocks} corrections` }).click();
  await expect.poll(() => getTarget(page)).not.toEqual(before);
  expect(stubs(await getTarget(page))).toBe(Math.max(0, stubs(before) - blocks));
  // Shown again, a block's change is empty: the editor holds its code.
  await page.getByRole("button", { name: "Show the change" }).first().click();
  await expect(page.getByTestId("feedback-diff").first()).toContainText("The editor already holds this code.");
});
