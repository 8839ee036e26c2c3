/**
 * What the page keeps for teaching: a student's turns per task (the
 * `progress` store) and the active class file (the `settings` store, key
 * `class`). Both are read through their schemas; a record that does not fit
 * is set aside in the `unreadable` store, never dropped.
 */
import type { ClassSettings } from "../core/class-settings";
import type { RunResult } from "../core/results";
import { addRun, raiseLevel, type TaskProgress, TaskProgressSchema } from "../core/study";
import type { FeedbackLevel } from "../core/vocabulary";
import { type KeyValueStore, type Restored, readRecord } from "./kv";
import { RecordError } from "./records";

function restoreProgress(key: string, raw: unknown): TaskProgress {
  const res = TaskProgressSchema.safeParse(raw);
  if (!res.success) {
    const issue = res.error.issues[0];
    throw new RecordError("progress", key, `field ${issue?.path.join(".") || "(top level)"} ${issue?.message ?? "is invalid"}`);
  }
  if (res.data.taskId !== key) throw new RecordError("progress", key, `field taskId is ${JSON.stringify(res.data.taskId)}, not the key`);
  return res.data;
}

/** A student's turns on each task. */
export class ProgressRepository {
  constructor(private readonly kv: KeyValueStore) {}

  /** The turns on one task, or null. */
  get(taskId: string): Promise<Restored<TaskProgress>> {
    return readRecord(this.kv, "progress", taskId, (raw) => restoreProgress(taskId, raw), "its turns start again");
  }

  /** Every task's turns that could be read, and what could not (set aside). */
  async all(): Promise<{ records: TaskProgress[]; problems: string[] }> {
    const records: TaskProgress[] = [];
    const problems: string[] = [];
    for (const { key } of await this.kv.entries("progress")) {
      const got = await this.get(key);
      if (got.value) records.push(got.value);
      if (got.problem) problems.push(got.problem);
    }
    return { records, problems };
  }

  /** Add a run as a new turn. @throws StorageError */
  async addRun(taskId: string, result: RunResult, at: number = Date.now(), code: string | null = null): Promise<TaskProgress> {
    const next = addRun((await this.get(taskId)).value, taskId, result, at, code);
    await this.kv.put("progress", taskId, next);
    return next;
  }

  /** Raise the last turn's feedback level; null when the task has no turn. @throws StorageError */
  async raiseLevel(taskId: string, level: FeedbackLevel): Promise<TaskProgress | null> {
    const got = (await this.get(taskId)).value;
    if (!got || got.turns.length === 0) return null;
    const next = raiseLevel(got, level);
    if (next !== got) await this.kv.put("progress", taskId, next);
    return next;
  }

  /** Store a task's turns as given (an imported student's work). @throws StorageError */
  async put(progress: TaskProgress): Promise<void> {
    await this.kv.put("progress", progress.taskId, restoreProgress(progress.taskId, progress));
  }
}

/** Current version of the stored class record. */
export const CLASS_RECORD_VERSION = 1;

/** The active class file (its text is read again through the schema on every start). */
export class ClassRepository {
  constructor(private readonly kv: KeyValueStore) {}

  /**
   * The active class, or null. A stored class that no longer reads (a task
   * it names left the page) is set aside with the reason in `problem`.
   */
  async get(knownTasks: readonly string[]): Promise<Restored<ClassSettings>> {
    // The parser (and its schema) is loaded only when a class is stored.
    if ((await this.kv.get("settings", "class")) === undefined) return { value: null, problem: null };
    const { parseClassFile } = await import("../core/class-file");
    return readRecord(
      this.kv,
      "settings",
      "class",
      (raw) => {
        const rec = raw as { version?: unknown; source?: unknown; text?: unknown } | null;
        if (!rec || rec.version !== CLASS_RECORD_VERSION || typeof rec.source !== "string" || typeof rec.text !== "string") {
          throw new RecordError("settings", "class", "not a class record of version 1");
        }
        try {
          return parseClassFile(rec.text, rec.source, knownTasks);
        } catch (e) {
          throw new RecordError("settings", "class", (e as Error).message);
        }
      },
      "the page runs without a class",
    );
  }

  /** Make `c` the active class. @throws StorageError */
  async save(c: ClassSettings): Promise<void> {
    await this.kv.put("settings", "class", { version: CLASS_RECORD_VERSION, source: c.source, text: c.text });
  }

  /** Leave the class. @throws StorageError */
  remove(): Promise<void> {
    return this.kv.delete("settings", "class");
  }
}
