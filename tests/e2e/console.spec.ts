/** The Console tab: a snippet runs beside the editor's text, separate from the tests, and is kept across a reload. */
import { expect, test } from "@playwright/test";
import { CANONICAL, openTab, openTask, setTarget } from "./helpers";

test("a snippet runs against the editor's text: output, the last value, an error's line, kept across a reload", async ({ page }) => {
  await openTask(page);
  await setTarget(page, CANONICAL);
  await openTab(page, "Console");
  const input = page.getByLabel("Console snippet");
  await expect(input).toHaveValue(/^from decoding\.min_p import softmax_with_temperature/);
  await input.fill(
    "from decoding.min_p import softmax_with_temperature\nprint('sum', round(sum(softmax_with_temperature([1.0, 2.0], 1.0)), 6))\n2 + 3",
  );
  await input.press("Control+Enter");
  const entries = page.getByTestId("console-entry");
  await expect(entries).toHaveCount(1, { timeout: 60_000 });
  await expect(entries.first()).toHaveAttribute("data-ok", "true");
  await expect(entries.first().locator(".console-stdout")).toHaveText("sum 1.0\n5\n");
  // Not a run of the tests: the results panel has not run.
  await expect(page.getByTestId("results-wrap")).toHaveAttribute("data-runs", "0");

  await input.fill("x = 1\nx / 0");
  await page.getByRole("button", { name: "Run snippet" }).click();
  await expect(entries).toHaveCount(2, { timeout: 60_000 });
  await expect(entries.nth(1).locator(".console-error")).toContainText("ZeroDivisionError");
  await expect(entries.nth(1).locator(".console-error")).toContainText('scratch_console.py", line 2');
  // The console's own scaffolding (the test that runs the snippet) is not shown.
  await expect(entries.nth(1).locator(".console-error")).not.toContainText("test.py");
  if (process.env.RECODE_SCREENSHOTS) {
    // (The note that the page is stored for offline use would cover the output.)
    const dismiss = page.getByTestId("offline-ready").getByRole("button", { name: "Dismiss" });
    if (await dismiss.isVisible()) await dismiss.click();
    await page.screenshot({ path: "docs/img/console.png" });
  }

  // A snippet that hangs until the time limit: what it printed is kept, and the entry shows the snippet that ran.
  await input.fill("print('before the loop')\nwhile True:\n    pass");
  await page.getByRole("button", { name: "Run snippet" }).click();
  // Shown while it runs, as it is printed.
  await expect(page.getByTestId("console-live").locator(".console-stdout")).toHaveText("before the loop\n", { timeout: 30_000 });
  await expect(entries).toHaveCount(2);
  await expect(entries).toHaveCount(3, { timeout: 60_000 });
  await expect(page.getByTestId("console-live")).toHaveCount(0);
  await expect(entries.nth(2).locator(".console-stdout")).toHaveText("before the loop\n");
  await expect(entries.nth(2).locator(".console-error")).toContainText("reached while the snippet ran");
  await expect(entries.nth(2).locator(".console-snippet")).toContainText("print('before the loop')");
  await input.fill("x = 1\nx / 0");

  await page.reload();
  await openTab(page, "Console");
  await expect(page.getByLabel("Console snippet")).toHaveValue("x = 1\nx / 0");
});
