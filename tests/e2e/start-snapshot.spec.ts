import { expect, test } from "@playwright/test";
import { CANONICAL, openTask, runAndWait, STARTER, setTarget } from "./helpers";

/** Snapshots kept in the page origin's IndexedDB (browser-snapshots.ts). */
async function savedSnapshots(page: import("@playwright/test").Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const open = indexedDB.open("recode-start-snapshots");
        open.onerror = () => resolve(0);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains("snapshots")) {
            db.close();
            resolve(0);
            return;
          }
          const count = db.transaction("snapshots").objectStore("snapshots").count();
          count.onsuccess = () => {
            resolve(count.result);
            db.close();
          };
          count.onerror = () => resolve(0);
        };
      }),
  );
}

test("the first start saves the interpreter, the next visit starts from it, and the tests run the same", async ({ page }) => {
  await openTask(page);
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-start", "fresh");
  await expect.poll(() => savedSnapshots(page), { timeout: 30_000 }).toBe(1);

  await page.reload();
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-start", "snapshot");
  await openTask(page);
  await setTarget(page, CANONICAL);
  await runAndWait(page);
  await expect(page.getByTestId("counts")).toContainText("All tests passed");
  await setTarget(page, STARTER);
  await runAndWait(page);
  await expect(page.getByTestId("counts")).toContainText("Not all tests passed");
  expect(await savedSnapshots(page)).toBe(1);
});
