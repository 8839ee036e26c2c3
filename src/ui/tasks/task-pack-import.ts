/**
 * Importing a task pack (loaded when a pack is first imported, not in the
 * page's first load): unpacking zips, sorting files into task folders,
 * loading each task and validating it with the checks of `recode tasks
 * validate` (src/python/validate.ts) in the page's Python, then storing it.
 */
import { unzipSync } from "fflate";
import { loadTaskFromFiles, type Task } from "../../core/task";
import { PACK_LIMITS, readTaskPack } from "../../core/task-pack";
import { validateTask } from "../../python/validate";
import type { ImportedTask } from "../../store/imported-tasks";
import { pageRunBlocker } from "./page-support";
import type { PackReport, PackTaskReport, TaskPackHost } from "./task-packs";

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/**
 * Read the files of a dropped or chosen pack: `.zip` files are unpacked (their
 * paths under the zip's name), other files keep their path in the folder.
 * @throws Error naming the zip when it cannot be unpacked, or would unpack past the pack's limits (core/task-pack.ts).
 */
export async function packFiles(files: readonly File[]): Promise<{ files: Record<string, Uint8Array>; name: string }> {
  const out = new Map<string, Uint8Array>();
  let name = "";
  let total = 0;
  /** Files accepted so far (folder files and zip entries). */
  let count = 0;
  const tooMuch = () => `more than ${mb(PACK_LIMITS.packBytes)} MB or ${PACK_LIMITS.files} files`;
  for (const f of files) {
    const path = (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name;
    // Sizes are judged before anything is read: a file's own size, then a zip's directory.
    if (f.size > PACK_LIMITS.packBytes)
      throw new Error(`${path}: ${mb(f.size)} MB; a pack may hold at most ${mb(PACK_LIMITS.packBytes)} MB`);
    if (!/\.zip$/i.test(f.name)) {
      total += f.size;
      if (total > PACK_LIMITS.packBytes || ++count > PACK_LIMITS.files)
        throw new Error(`the folder holds ${tooMuch()}; nothing was imported`);
      name ||= path.split("/")[0] ?? f.name;
      out.set(path, new Uint8Array(await f.arrayBuffer()));
      continue;
    }
    const bytes = new Uint8Array(await f.arrayBuffer());
    let refused: string | null = null;
    let entries: Record<string, Uint8Array>;
    try {
      entries = unzipSync(bytes, {
        filter: (file) => {
          if (refused !== null) return false;
          total += file.originalSize;
          if (file.originalSize > PACK_LIMITS.fileBytes) {
            refused = `${file.name} unpacks to ${mb(file.originalSize)} MB; a task's file may have at most ${mb(PACK_LIMITS.fileBytes)} MB`;
          } else if (file.compression === 0 && file.size !== file.originalSize) {
            // A stored entry is copied as its compressed size says: one that claims another original size lies.
            refused = `${file.name} says it holds ${file.originalSize} bytes but stores ${file.size}`;
          } else if (total > PACK_LIMITS.packBytes || ++count > PACK_LIMITS.files) {
            refused = `it unpacks to ${tooMuch()}`;
          }
          return refused === null;
        },
      });
    } catch (e) {
      throw new Error(`${f.name}: not a zip file that can be read (${(e as Error).message})`);
    }
    if (refused) throw new Error(`${f.name}: ${refused}; nothing was imported`);
    const base = f.name.replace(/\.zip$/i, "");
    name ||= base;
    for (const [p, data] of Object.entries(entries)) out.set(`${base}/${p}`, data);
  }
  return { files: Object.fromEntries(out), name: name || "pack" };
}

/**
 * Import a pack: each task folder is loaded, validated in the page's Python,
 * and stored when every check passes; nothing already stored changes for a
 * task that fails. A task the page does not run (`pageRunBlocker`: an imported
 * RECODE-H task) is stored read-only once its files fit the format, with the
 * reason in its report line (`readOnly`).
 * @param opts.onProgress called with the report so far, after each folder.
 * @param opts.stored called with each task once it is stored.
 */
export async function importTaskPack(
  files: Record<string, Uint8Array | string>,
  source: string,
  host: TaskPackHost,
  opts: { onProgress?: (r: PackReport) => void; stored: (task: Task, record: ImportedTask) => void },
): Promise<PackReport> {
  const onProgress = opts.onProgress;
  const contents = readTaskPack(files, source.replace(/\.zip$/i, ""));
  const report: PackReport = { source, tasks: [], problems: contents.problems };
  const show = () => onProgress?.({ ...report, tasks: report.tasks.map((t) => ({ ...t, checks: [...t.checks] })) });
  show();
  const builtin = new Set(host.builtinIds());
  for (const { folder, files: taskFiles } of contents.folders) {
    const line: PackTaskReport = { folder, id: null, stored: false, error: null, readOnly: null, checks: [] };
    report.tasks.push(line);
    let task: Task;
    try {
      task = loadTaskFromFiles(folder, taskFiles);
      line.id = task.id;
    } catch (e) {
      line.error = (e as Error).message;
      show();
      continue;
    }
    if (builtin.has(task.id)) {
      line.error = `task ${task.id}: a task with this id is built into the page; give the imported one another id (its folder name and task.json's id)`;
      show();
      continue;
    }
    // A task the page does not run (an imported RECODE-H task) is stored to be read, as the built-in list shows one:
    // its files fit the format (loaded above); its tests are `recode`'s to run, with pytest.
    line.readOnly = pageRunBlocker(task);
    show();
    if (line.readOnly === null) {
      try {
        line.checks = await validateTask(task, host.python());
      } catch (e) {
        line.error = `task ${task.id}: could not be validated here: ${(e as Error).message}`;
        show();
        continue;
      }
      // (A check skipped beside a failure follows from it, a stale recording say: the failures are the report.)
      const notOk = line.checks.filter((c) => !c.ok);
      const failed = notOk.length > 0 ? notOk : line.checks.filter((c) => c.skipped);
      if (failed.length > 0) {
        line.error = `task ${task.id}: ${failed.map((c) => `check "${c.name}" ${c.skipped ? "could not run here" : "does not hold"}: ${packDetail(c.detail)}`).join("; ")}`;
        show();
        continue;
      }
    }
    const record: ImportedTask = {
      version: 1,
      id: task.id,
      files: taskFiles,
      source,
      importedAt: Date.now(),
      checks: line.checks.map((c) => c.name),
    };
    try {
      await (await host.repos).importedTasks.put(record);
    } catch (e) {
      line.error = `task ${task.id}: ${(e as Error).message}`;
      show();
      continue;
    }
    line.stored = true;
    opts.stored(task, record);
    show();
  }
  return report;
}

/** A check's advice as it applies to a pack's task: `recode` finds the task in the pack's folder, not among the built-in ones. */
function packDetail(detail: string): string {
  return detail.replace(/`recode tasks record ([\w.-]+)`/g, "`recode tasks record $1 --dir <the pack's folder>`");
}
