/**
 * Attacks on the verdicts in the page (docs/security.md): every attack of
 * tests/helpers/attacks.ts is submitted through the editor; none may yield a
 * passed test or say it reached something it must not, and the canonical
 * solution still passes afterwards in the same page.
 */
import { expect, test } from "@playwright/test";
import { ATTACKS, eventTakeoverAttack, LEFTOVER_PROBE } from "../helpers/attacks";
import { CANONICAL, openTask, runAndWait, setTarget } from "./helpers";

const BREACH = /recorded values are visible|reached \[|left over from an earlier run/;

test("no attack on the verdicts passes a test in the page, and the next run is clean", async ({ page }) => {
  test.setTimeout(600_000);
  await openTask(page);
  for (const [kind, code] of Object.entries(ATTACKS)) {
    await setTarget(page, code);
    await runAndWait(page);
    const passed = await page.locator('.test-row[data-status="passed"]').count();
    expect(passed, `${kind}: passed tests`).toBe(0);
    await expect(page.getByTestId("counts"), kind).not.toContainText("All tests passed");
    expect(await page.locator(".test-row").allInnerTexts(), kind).not.toContainEqual(expect.stringMatching(BREACH));
    await setTarget(page, LEFTOVER_PROBE);
    await runAndWait(page);
    expect(await page.locator(".test-row").allInnerTexts(), `${kind}: probe`).not.toContainEqual(expect.stringMatching(BREACH));
  }
  await setTarget(page, CANONICAL);
  await runAndWait(page);
  await expect(page.getByTestId("counts")).toContainText("All tests passed");
});

test("a stream of passes the candidate writes on the event channel itself is not trusted in the page", async ({ page }) => {
  test.setTimeout(120_000);
  await openTask(page);
  await setTarget(page, eventTakeoverAttack(CANONICAL, "raise"));
  await runAndWait(page);
  expect(await page.locator('.test-row[data-status="passed"]').count()).toBe(0);
  await expect(page.getByTestId("counts")).not.toContainText("All tests passed");
  await setTarget(page, CANONICAL);
  await runAndWait(page);
  await expect(page.getByTestId("counts")).toContainText("All tests passed");
});
