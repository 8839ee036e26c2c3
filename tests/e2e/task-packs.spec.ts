/**
 * Importing a task pack: a zip with a valid task and a broken one, dropped on
 * the task list. The broken one is named with its file and line and not
 * stored; the valid one is validated in the page's Python, stored, listed as
 * imported, opens and runs after a reload, and can be removed in Settings. An
 * official RECODE-H task, imported with `recode tasks import-recodeh`, is
 * stored read-only, with the reason.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { zipSync } from "fflate";
import { writeRecodeHDataset } from "../helpers/recodeh-dataset";

/** Every file of a folder, by path relative to it. */
function folderFiles(dir: string): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (name === "__pycache__") continue;
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = new Uint8Array(readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

/** A zip holding `pass-at-k-copy/` (pass-at-k under another id) and `broken-task/` (task.json with a trailing comma). */
function packZip(): Buffer {
  const copy = folderFiles("tasks/pass-at-k");
  const meta = JSON.parse(new TextDecoder().decode(copy["task.json"]));
  copy["task.json"] = new TextEncoder().encode(JSON.stringify({ ...meta, id: "pass-at-k-copy", title: "pass@k (imported copy)" }, null, 2));
  const broken = { ...copy, "task.json": new TextEncoder().encode('{\n  "id": "broken-task",\n  "title": "x",\n}\n') };
  const files: Record<string, Uint8Array> = {};
  for (const [p, d] of Object.entries(copy)) files[`week3/pass-at-k-copy/${p}`] = d;
  for (const [p, d] of Object.entries(broken)) files[`week3/broken-task/${p}`] = d;
  return Buffer.from(zipSync(files));
}

/** Drop a file on the task list, as a person drags it from the desktop. */
async function dropFile(page: Page, name: string, data: Buffer) {
  const dt = await page.evaluateHandle(
    ({ name, bytes }) => {
      const t = new DataTransfer();
      t.items.add(new File([new Uint8Array(bytes)], name, { type: "application/zip" }));
      return t;
    },
    { name, bytes: [...data] },
  );
  const sidebar = page.getByTestId("task-sidebar");
  await sidebar.dispatchEvent("dragover", { dataTransfer: dt });
  await sidebar.dispatchEvent("drop", { dataTransfer: dt });
}

test("a task pack dropped on the task list: the broken task is named, the valid one is validated, stored, kept and removable", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.goto("/");
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  await dropFile(page, "week3.zip", packZip());
  const dialog = page.getByTestId("task-pack");
  await expect(dialog).toBeVisible();
  await expect(page.getByTestId("task-pack-status")).toHaveText("Done: 1 of 2 tasks stored.", { timeout: 180_000 });
  const broken = dialog.locator('[data-folder="broken-task"]');
  await expect(broken).toHaveAttribute("data-stored", "false");
  // (The trailing comma is named where it is, on line 3, not on the line of the brace after it.)
  await expect(broken.locator(".field-error")).toContainText("task broken-task: task.json, line 3: not valid JSON");
  await expect(broken.locator(".field-error")).toContainText("a comma after the last field, which JSON does not allow: remove it");
  const good = dialog.locator('[data-folder="pass-at-k-copy"]');
  await expect(good).toHaveAttribute("data-stored", "true");
  // Counted as the CLI's table counts them (a skipped check is neither ok nor failed).
  await expect(good.locator("summary")).toHaveText(/^(\d+) of \1 checks ok$|^\d+ of \d+ checks ok, \d+ skipped$/);
  await good.locator("summary").click();
  await expect(good).toContainText("ok canonical passes");
  await expect(good).toContainText("ok starter fails");
  if (process.env.RECODE_SCREENSHOTS) await page.screenshot({ path: "docs/img/task-pack-import.png" });
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);

  const item = page.locator('[data-task-id="pass-at-k-copy"]');
  await expect(item).toContainText("pass@k (imported copy)");
  await expect(item.locator(".tag.imported")).toBeVisible();

  // Kept in the browser: after a reload it is listed, opens, and its tests run.
  await page.reload();
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  await item.locator("button").click();
  await page.getByRole("button", { name: "Run tests" }).click();
  await expect(page.getByTestId("results-wrap")).toHaveAttribute("data-runs", "1", { timeout: 60_000 });

  // Removed in Settings (after a question); the built-in pass-at-k stays.
  await page.getByRole("button", { name: "Settings" }).click();
  const section = page.getByTestId("task-packs-section");
  await expect(section.locator('[data-task-id="pass-at-k-copy"]')).toBeVisible();
  page.once("dialog", (d) => void d.accept());
  await section.locator('[data-task-id="pass-at-k-copy"]').getByRole("button", { name: "Remove" }).click();
  await expect(section.getByTestId("imported-tasks")).toHaveCount(0);
  await page.keyboard.press("Escape");
  await expect(item).toHaveCount(0);
  await expect(page.locator('[data-task-id="pass-at-k"]')).toBeVisible();
});

test("an import that is not a pack says why, and nothing changes", async ({ page }) => {
  await page.goto("/");
  await dropFile(page, "notes.zip", Buffer.from("not a zip at all"));
  await expect(page.getByTestId("task-pack").getByRole("alert")).toContainText("notes.zip: not a zip file that can be read");
  await page.keyboard.press("Escape");
  await dropFile(page, "empty.zip", Buffer.from(zipSync({ "readme.txt": new TextEncoder().encode("hello") })));
  await expect(page.getByTestId("task-pack").getByRole("alert")).toContainText("the pack holds no task folder");
  await page.keyboard.press("Escape");
  // A small zip that unpacks to a large file is refused from its directory, before anything is inflated.
  const bomb = zipSync({ "t/task.json": new TextEncoder().encode("{}"), "t/big.bin": new Uint8Array(5 * 1024 * 1024) }, { level: 9 });
  expect(bomb.byteLength).toBeLessThan(64 * 1024);
  await dropFile(page, "bomb.zip", Buffer.from(bomb));
  await expect(page.getByTestId("task-pack").getByRole("alert")).toContainText(
    "bomb.zip: t/big.bin unpacks to 5.0 MB; a task's file may have at most 4.0 MB; nothing was imported",
  );
});

test("a course task (no paper, no paper.tex) imports and opens with no Paper tab and no citation", async ({ page }) => {
  test.setTimeout(240_000);
  const files = folderFiles("tasks/pass-at-k");
  delete files["paper.tex"];
  const { paper: _paper, ...meta } = JSON.parse(new TextDecoder().decode(files["task.json"]));
  files["task.json"] = new TextEncoder().encode(
    JSON.stringify({ ...meta, id: "pass-at-k-exercise", title: "pass@k, an exercise" }, null, 2),
  );
  const zip: Record<string, Uint8Array> = {};
  for (const [p, d] of Object.entries(files)) zip[`pass-at-k-exercise/${p}`] = d;
  await page.goto("/");
  await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready", { timeout: 120_000 });
  await dropFile(page, "exercise.zip", Buffer.from(zipSync(zip)));
  await expect(page.getByTestId("task-pack-status")).toHaveText("Done: 1 of 1 task stored.", { timeout: 180_000 });
  await page.keyboard.press("Escape");
  const item = page.locator('[data-task-id="pass-at-k-exercise"]');
  await expect(item).toContainText("pass@k, an exercise");
  await expect(item.locator(".task-paper")).toHaveCount(0);
  await item.locator("button").click();
  const info = page.locator(".task-info");
  await expect(info.locator("h2")).toHaveText("pass@k, an exercise");
  await expect(info.locator(".task-paper")).toHaveCount(0);
  await expect(info.getByRole("tab").nth(1)).toHaveText("Repo");
  await expect(info.getByRole("tab", { name: "Paper" })).toHaveCount(0);
  // (A task with a paper keeps its tab.)
  await page.locator('[data-task-id="pass-at-k"] button').click();
  await expect(info.getByRole("tab", { name: "Paper" })).toBeVisible();
});

test("an official RECODE-H task imported with the command line is stored read-only, with the reason, and opens to be read", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const dataset = writeRecodeHDataset();
  const out = mkdtempSync(join(tmpdir(), "recodeh-page-"));
  try {
    const made = spawnSync(process.execPath, ["bin/recode.mjs", "tasks", "import-recodeh", dataset, "--out", out, "--python", "python3"], {
      encoding: "utf8",
    });
    expect(made.stdout).toContain("imported recodeh-1 (annotation_1)");
    const zip: Record<string, Uint8Array> = {};
    for (const [p, d] of Object.entries(folderFiles(join(out, "recodeh-1")))) zip[`recodeh/recodeh-1/${p}`] = d;
    await page.goto("/");
    await dropFile(page, "recodeh.zip", Buffer.from(zipSync(zip)));
    await expect(page.getByTestId("task-pack-status")).toHaveText("Done: 1 of 1 task stored.", { timeout: 60_000 });
    const line = page.getByTestId("task-pack").locator('[data-folder="recodeh-1"]');
    await expect(line).toHaveAttribute("data-read-only", "true");
    await expect(line.locator(".tag.ok")).toHaveText("stored read-only");
    await expect(line).toContainText("runs its tests under pytest beside the reference solution");
    await page.keyboard.press("Escape");

    // Listed, and kept after a reload: it opens read-only, with the reason and the command that runs it.
    await page.reload();
    const item = page.locator('[data-task-id="recodeh-1"]');
    await expect(item).toContainText("ema-repo: stats/ema.py");
    await item.locator("button").click();
    await expect(page.locator(".toolbar .tag.readonly")).toHaveText("read-only");
    await expect(page.getByTestId("read-only-reason")).toContainText("recode test recodeh-1 <file.py> --dir <its task folder>");
    await expect(page.getByRole("button", { name: "Run tests" })).toHaveCount(0);
    await expect(page.locator(".task-info")).toContainText("Implement ema(xs, alpha) and debias(values, alpha) in stats/ema.py.");
  } finally {
    rmSync(dataset, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
});
