/**
 * Tasks imported from task packs (the `importedTasks` store): each task's
 * files as text, with where it came from and what validating it found. Read
 * through a check of their shape; a record that does not fit is set aside in the
 * `unreadable` store, never dropped.
 */
import { type KeyValueStore, readRecord } from "./kv";
import { RecordError } from "./records";

/** Current version of imported-task records. */
export const IMPORTED_TASK_VERSION = 1;

/** One imported task as stored. */
export interface ImportedTask {
  version: typeof IMPORTED_TASK_VERSION;
  /** The task id (its folder name, which its task.json's id equals). */
  id: string;
  /** Path in the task folder -> text. */
  files: Record<string, string>;
  /** The pack it came from (a zip's or a folder's name). */
  source: string;
  /** When it was imported, in milliseconds since the Unix epoch. */
  importedAt: number;
  /** The validation checks it passed in the page (names, as `recode tasks validate` prints them). */
  checks: string[];
}

/** What is wrong with a stored imported task (null when nothing is); checked by hand, it is a small shape. */
function problemOf(raw: unknown): string | null {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return "(top level) is not an object";
  const r = raw as Record<string, unknown>;
  if (r.version !== IMPORTED_TASK_VERSION) return `field version is ${JSON.stringify(r.version)}, not ${IMPORTED_TASK_VERSION}`;
  if (typeof r.id !== "string" || r.id === "") return "field id is not a task id";
  if (!r.files || typeof r.files !== "object" || Array.isArray(r.files)) return "field files is not an object";
  for (const [k, v] of Object.entries(r.files)) if (typeof v !== "string") return `field files.${k} is not text`;
  if (typeof r.source !== "string") return "field source is not text";
  if (typeof r.importedAt !== "number") return "field importedAt is not a number";
  if (!Array.isArray(r.checks) || r.checks.some((c) => typeof c !== "string")) return "field checks is not a list of names";
  const extra = Object.keys(r).filter((k) => !["version", "id", "files", "source", "importedAt", "checks"].includes(k));
  return extra.length > 0 ? `field ${extra[0]} is not part of an imported task` : null;
}

function restore(key: string, raw: unknown): ImportedTask {
  const problem = problemOf(raw);
  if (problem) throw new RecordError("importedTasks", key, problem);
  const task = raw as ImportedTask;
  if (task.id !== key) throw new RecordError("importedTasks", key, `field id is ${JSON.stringify(task.id)}, not the key`);
  return task;
}

/** The tasks imported into this browser. */
export class ImportedTaskRepository {
  constructor(private readonly kv: KeyValueStore) {}

  /** Every imported task that could be read, and what could not (set aside, one message each). */
  async all(): Promise<{ records: ImportedTask[]; problems: string[] }> {
    const records: ImportedTask[] = [];
    const problems: string[] = [];
    for (const { key } of await this.kv.entries("importedTasks")) {
      const got = await readRecord(this.kv, "importedTasks", key, (raw) => restore(key, raw), "import its pack again");
      if (got.value) records.push(got.value);
      if (got.problem) problems.push(got.problem);
    }
    return { records, problems };
  }

  /** Store (or replace) an imported task. May reject with StorageError (a full quota names itself). */
  put(task: ImportedTask): Promise<void> {
    return this.kv.put("importedTasks", task.id, task);
  }

  /** Remove an imported task (its drafts and turns stay). */
  remove(id: string): Promise<void> {
    return this.kv.delete("importedTasks", id);
  }
}
