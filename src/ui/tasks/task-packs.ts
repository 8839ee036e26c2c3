/**
 * Task packs imported into the page: a zip or a folder of task folders
 * (docs/task-format.md), each read with the task loader and validated with
 * the checks of `recode tasks validate` (src/python/validate.ts) in the page's
 * Python before it is stored in this browser and joins the task list. A task
 * that does not load or fails a check is named with why, and not stored;
 * nothing already stored changes. The coverage and mutation gates of
 * `recode tasks validate` need the command line (docs/tasks-gates.md).
 * Unpacking and validating are loaded when a pack is first imported.
 */
import { loadTaskFromFiles } from "../../core/task";
import type { PythonRuntime } from "../../python/runtime";
import type { CheckOutcome } from "../../python/validate";
import type { ImportedTask } from "../../store/imported-tasks";
import type { Repositories } from "../../store/repositories";
import { Observable } from "../observable";
import type { CatalogEntry } from "./catalog";
import type { PackSource } from "./pack-drop";

/** What importing one task folder of a pack did. */
export interface PackTaskReport {
  /** The folder's name in the pack. */
  folder: string;
  /** The task id (the folder name), once its task.json was read. */
  id: string | null;
  /** Stored and in the task list. */
  stored: boolean;
  /** Why it was not stored: a file that does not fit the format (file, line, field), an id taken, storage full. */
  error: string | null;
  /**
   * Stored to read, not to run: why the page does not run its tests (an imported RECODE-H task, which runs under
   * pytest: `pageRunBlocker`), or null. Such a task is checked against the format alone.
   */
  readOnly: string | null;
  /** The validation checks, in order, as far as they ran. */
  checks: CheckOutcome[];
}

/**
 * A task's checks in one line, counted as `recode tasks validate` counts them: "9 of 11 checks ok, 2 skipped"
 * (skipped: the check could not run here, not a failure), with the failures named by count.
 */
export function checksSummary(checks: readonly CheckOutcome[]): string {
  const skipped = checks.filter((c) => c.skipped).length;
  const failed = checks.filter((c) => !c.ok && !c.skipped).length;
  const ok = checks.length - skipped - failed;
  return `${ok} of ${checks.length} checks ok${skipped ? `, ${skipped} skipped` : ""}${failed ? `, ${failed} failed` : ""}`;
}

/** What importing a pack did. */
export interface PackReport {
  source: string;
  tasks: PackTaskReport[];
  /** Files that could not be read, or a pack with no task. */
  problems: string[];
}

/** An imported task as the task list shows it. */
export interface ImportedSummary {
  id: string;
  source: string;
  importedAt: number;
}

/** What the page gives the packs: storage, its Python, and its task list. */
export interface TaskPackHost {
  repos: Promise<Repositories>;
  /** The page's Python runtime (started when it is not). */
  python(): PythonRuntime;
  /** Ids of the tasks built into the page (an imported task may not take one). */
  builtinIds(): string[];
  /** Add these entries to the task list (replacing entries of the same ids) or remove ids from it. */
  setImported(entries: CatalogEntry[], removed: string[]): void;
  notify(kind: "warning" | "error", text: string): void;
}

/** The imported tasks of the page. */
export class TaskPacks {
  /** Imported tasks, by id (what the task list marks as imported). */
  readonly imported = new Observable<ImportedSummary[]>([]);
  /** A pack dropped or chosen and shown in the import dialog (TaskPackDialog), or null. */
  readonly opened = new Observable<PackSource | null>(null);
  private loaded: Promise<void> | null = null;

  constructor(private readonly host: TaskPackHost) {}

  /** Read the stored imported tasks into the task list (once; later calls wait for the first). */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      try {
        const { records, problems } = await (await this.host.repos).importedTasks.all();
        for (const p of problems) this.host.notify("warning", p);
        const entries: CatalogEntry[] = [];
        for (const r of records) {
          try {
            entries.push({ id: r.id, task: loadTaskFromFiles(r.id, r.files), error: null });
          } catch (e) {
            this.host.notify("warning", `The imported task ${r.id} no longer loads: ${(e as Error).message}`);
          }
        }
        this.host.setImported(entries, []);
        this.imported.set(records.map(summary));
      } catch (e) {
        this.host.notify("error", `${(e as Error).message} (imported tasks are not shown)`);
      }
    })();
    return this.loaded;
  }

  /**
   * Import a pack: each task folder is loaded, validated in the page's Python,
   * and stored when every check passes (task-pack-import.ts, loaded now).
   * @param onProgress called with the report so far, after each folder.
   */
  async importPack(files: Record<string, Uint8Array | string>, source: string, onProgress?: (r: PackReport) => void): Promise<PackReport> {
    await this.load();
    const { importTaskPack } = await import("./task-pack-import");
    return importTaskPack(files, source, this.host, {
      onProgress,
      stored: (task, record) => {
        this.host.setImported([{ id: task.id, task, error: null }], []);
        this.imported.set([...this.imported.get().filter((x) => x.id !== task.id), summary(record)]);
      },
    });
  }

  /** Remove an imported task from this browser and the task list (its drafts and turns stay). */
  async remove(id: string): Promise<void> {
    await (await this.host.repos).importedTasks.remove(id);
    this.host.setImported([], [id]);
    this.imported.set(this.imported.get().filter((s) => s.id !== id));
  }
}

export function summary(r: ImportedTask): ImportedSummary {
  return { id: r.id, source: r.source, importedAt: r.importedAt };
}
