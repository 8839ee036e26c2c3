/**
 * Repositories over the page's storage: drafts, settings, model settings,
 * last runs, the trajectories of agent runs, and (teaching.ts) a student's
 * turns and the active class file.
 * They sit on a tiny key-value interface with two implementations: IndexedDB
 * (idb) and memory (used when IndexedDB cannot be opened, so the page still
 * works). Every read goes through restore*(); a record that cannot be read is
 * copied to the `unreadable` store before anything may overwrite it.
 */
import type { AgentMemoryState } from "../core/agent/types";
import type { SharedTurn0, Turn0Partial } from "../core/episode";
import type { RunResult } from "../core/results";
import type { Trajectory } from "../core/trajectory";
import { openPlaygroundDb, StorageError } from "./db";
import { ImportedTaskRepository } from "./imported-tasks";
import { idbStore, type KeyValueStore, memoryStore, type Restored, readRecord } from "./kv";
import {
  DEFAULT_MODEL_SETTINGS,
  DEFAULT_SETTINGS,
  DRAFT_VERSION,
  type DraftRecord,
  MODEL_SETTINGS_VERSION,
  type ModelSettingsRecord,
  RecordError,
  RUN_VERSION,
  type RunRecord,
  restoreDraft,
  restoreModelSettings,
  restoreRun,
  restoreSettings,
  SETTINGS_VERSION,
  type SettingsRecord,
} from "./records";
import { ScriptDigestRepository } from "./script-digests";
import { ClassRepository, ProgressRepository } from "./teaching";
import type { TrajectoryRecord, TrajectorySource, Turn0PartialRecord, Turn0Record } from "./trajectory-records";

export { idbStore, type KeyValueStore, memoryStore, type Restored, readRecord } from "./kv";

/** Drafts of target files, one per task. */
export class DraftRepository {
  constructor(private readonly kv: KeyValueStore) {}

  /** The draft of a task, upgraded to the current record version. */
  get(taskId: string): Promise<Restored<DraftRecord>> {
    return readRecord(this.kv, "drafts", taskId, (raw) => restoreDraft(taskId, raw));
  }

  /**
   * Save the text of the target file.
   * @param updatedAt milliseconds since the Unix epoch (default now)
   * @throws StorageError (quota full, database closed)
   */
  async save(taskId: string, code: string, taskHash: string | null, updatedAt: number = Date.now()): Promise<DraftRecord> {
    const rec: DraftRecord = { version: DRAFT_VERSION, taskId, code, updatedAt, taskHash };
    await this.kv.put("drafts", taskId, rec);
    return rec;
  }

  /** Forget the draft (the task then opens with its starting text). */
  remove(taskId: string): Promise<void> {
    return this.kv.delete("drafts", taskId);
  }

  /** Every draft that can be read, by task id (unreadable ones are set aside, as by `get`). */
  async all(): Promise<Map<string, DraftRecord>> {
    const out = new Map<string, DraftRecord>();
    for (const { key } of await this.kv.entries("drafts")) {
      const got = await this.get(key);
      if (got.value) out.set(key, got.value);
    }
    return out;
  }
}

/** Page settings (a single record). */
export class SettingsRepository {
  constructor(private readonly kv: KeyValueStore) {}

  /** Stored settings, or the defaults. */
  async get(): Promise<Restored<SettingsRecord>> {
    const r = await readRecord(this.kv, "settings", "settings", restoreSettings);
    return { value: r.value ?? { ...DEFAULT_SETTINGS }, problem: r.problem };
  }

  /** Save settings; URLs are trimmed. @throws StorageError */
  async save(s: Omit<SettingsRecord, "version">): Promise<SettingsRecord> {
    const rec: SettingsRecord = { version: SETTINGS_VERSION, indexURL: s.indexURL.trim(), packageBaseUrl: s.packageBaseUrl.trim() };
    await this.kv.put("settings", "settings", rec);
    return rec;
  }
}

/** The last run of each task. */
export class RunRepository {
  constructor(private readonly kv: KeyValueStore) {}

  get(taskId: string): Promise<Restored<RunRecord>> {
    return readRecord(this.kv, "runs", taskId, (raw) => restoreRun(taskId, raw));
  }

  /** Store a run as the task's last run. @throws StorageError */
  async save(taskId: string, code: string, result: RunResult, finishedAt: number = Date.now()): Promise<RunRecord> {
    const rec: RunRecord = { version: RUN_VERSION, taskId, code, finishedAt, result };
    await this.kv.put("runs", taskId, rec);
    return rec;
  }

  /** Forget the last run of a task (its text was reset). */
  remove(taskId: string): Promise<void> {
    return this.kv.delete("runs", taskId);
  }
}

/** The coder and researcher model settings (a single record in the settings store, key `models`). */
export class ModelSettingsRepository {
  constructor(private readonly kv: KeyValueStore) {}

  /** Stored model settings, or the defaults. */
  async get(): Promise<Restored<ModelSettingsRecord>> {
    const r = await readRecord(this.kv, "settings", "models", restoreModelSettings);
    return { value: r.value ?? structuredClone(DEFAULT_MODEL_SETTINGS), problem: r.problem };
  }

  /** Save model settings (normalised through restoreModelSettings). @throws StorageError */
  async save(s: Omit<ModelSettingsRecord, "version">): Promise<ModelSettingsRecord> {
    const rec = restoreModelSettings({ ...s, version: MODEL_SETTINGS_VERSION });
    await this.kv.put("settings", "models", rec);
    return rec;
  }
}

/** Every stored trajectory that could be read, plus what could not. */
export interface TrajectoryListing {
  records: TrajectoryRecord[];
  /** One message per record that could not be read (it was set aside in the `unreadable` store). */
  problems: string[];
}

/** The agent-run records module, loaded on first use (not part of the page's first load). */
const runRecords = () => import("./trajectory-records");

/**
 * Trajectories of agent runs (saved after every turn) and the shared turn 0
 * they start from. Reads go through restoreTrajectoryRecord / restoreTurn0Record
 * (trajectory-records.ts).
 */
export class TrajectoryRepository {
  constructor(private readonly kv: KeyValueStore) {}

  /** The stored episode under `key` (see trajectoryKey), or null. */
  async get(key: string): Promise<Restored<TrajectoryRecord>> {
    const { restoreTrajectoryRecord } = await runRecords();
    return readRecord(this.kv, "trajectories", key, (raw) => restoreTrajectoryRecord(key, raw), "the episode runs again");
  }

  /** Every readable trajectory, oldest key first; unreadable ones are set aside and reported. */
  async list(): Promise<TrajectoryListing> {
    const { restoreTrajectoryRecord } = await runRecords();
    const records: TrajectoryRecord[] = [];
    const problems: string[] = [];
    for (const { key, value } of await this.kv.entries("trajectories")) {
      try {
        records.push(restoreTrajectoryRecord(key, value));
      } catch (e) {
        if (!(e instanceof RecordError)) throw e;
        await this.kv.keep({ store: "trajectories", key, raw: value, problem: e.problem, at: Date.now() });
        await this.kv.delete("trajectories", key);
        problems.push(`${e.message}. It was set aside.`);
      }
    }
    return { records, problems };
  }

  /**
   * Save (overwrite) an episode after a turn.
   * @throws StorageError (quota full, database closed)
   */
  async save(
    trajectory: Trajectory,
    memory: AgentMemoryState | null,
    source: TrajectorySource = "page",
    fileName: string | null = null,
    savedAt: number = Date.now(),
  ): Promise<TrajectoryRecord> {
    const { TRAJECTORY_RECORD_VERSION, trajectoryKey } = await runRecords();
    const key = trajectoryKey(trajectory);
    const rec: TrajectoryRecord = { version: TRAJECTORY_RECORD_VERSION, key, trajectory, memory, source, fileName, savedAt };
    await this.kv.put("trajectories", key, rec);
    return rec;
  }

  /** Forget one episode. */
  remove(key: string): Promise<void> {
    return this.kv.delete("trajectories", key);
  }

  /** Forget every episode and every shared turn 0. */
  async clear(): Promise<void> {
    for (const store of ["trajectories", "turn0"] as const) {
      for (const { key } of await this.kv.entries(store)) await this.kv.delete(store, key);
    }
  }

  /** The stored shared turn 0 under `key` (see turn0Key), or null. */
  async getTurn0(key: string): Promise<Restored<Turn0Record>> {
    const { restoreTurn0Record } = await runRecords();
    return readRecord(this.kv, "turn0", key, (raw) => restoreTurn0Record(key, raw), "turn 0 runs again");
  }

  /** Save the shared turn 0 of a (model, researcher, setting, task), and forget its partial turn 0. @throws StorageError */
  async saveTurn0(turn0: SharedTurn0, savedAt: number = Date.now()): Promise<Turn0Record> {
    const { TURN0_RECORD_VERSION, turn0Key, turn0PartialKey } = await runRecords();
    const { model, researcher, setting, protocol } = turn0.config;
    const key = turn0Key(model, researcher, setting, turn0.taskId, protocol);
    const rec: Turn0Record = { version: TURN0_RECORD_VERSION, key, turn0, savedAt };
    await this.kv.put("turn0", key, rec);
    await this.kv.delete("turn0", turn0PartialKey(model, researcher, setting, turn0.taskId, protocol));
    return rec;
  }

  /** The stored partial turn 0 under `key` (see turn0PartialKey), or null. */
  async getTurn0Partial(key: string): Promise<Restored<Turn0PartialRecord>> {
    const { restoreTurn0PartialRecord } = await runRecords();
    return readRecord(this.kv, "turn0", key, (raw) => restoreTurn0PartialRecord(key, raw), "turn 0 runs again");
  }

  /** Save the coder's turn 0 whose review failed. @throws StorageError */
  async saveTurn0Partial(key: string, partial: Turn0Partial, savedAt: number = Date.now()): Promise<Turn0PartialRecord> {
    const { TURN0_PARTIAL_RECORD_VERSION } = await runRecords();
    const rec: Turn0PartialRecord = { version: TURN0_PARTIAL_RECORD_VERSION, key, partial, savedAt };
    await this.kv.put("turn0", key, rec);
    return rec;
  }
}

/** The repositories of the page, plus how they are stored. */
export interface Repositories {
  drafts: DraftRepository;
  settings: SettingsRepository;
  models: ModelSettingsRepository;
  runs: RunRepository;
  trajectories: TrajectoryRepository;
  progress: ProgressRepository;
  classes: ClassRepository;
  /** The script each scripted coder's stored episodes ran with (script-digests.ts). */
  scripts: ScriptDigestRepository;
  importedTasks: ImportedTaskRepository;
  kv: KeyValueStore;
  /** Why storage fell back to memory, or null when IndexedDB is in use. */
  fallback: string | null;
}

/** Repositories over a given store. */
export function repositoriesOver(kv: KeyValueStore, fallback: string | null = null): Repositories {
  return {
    drafts: new DraftRepository(kv),
    settings: new SettingsRepository(kv),
    models: new ModelSettingsRepository(kv),
    runs: new RunRepository(kv),
    trajectories: new TrajectoryRepository(kv),
    progress: new ProgressRepository(kv),
    importedTasks: new ImportedTaskRepository(kv),
    classes: new ClassRepository(kv),
    scripts: new ScriptDigestRepository(kv),
    kv,
    fallback,
  };
}

/**
 * Open IndexedDB and build the repositories; when it cannot be opened, fall
 * back to memory and say why in `fallback` (never throws).
 */
export async function openRepositories(dbName?: string): Promise<Repositories> {
  try {
    return repositoriesOver(idbStore(await openPlaygroundDb(dbName)));
  } catch (e) {
    const msg = e instanceof StorageError ? e.message : String(e);
    return repositoriesOver(memoryStore(), `${msg} Drafts are kept in memory only and will be lost on reload.`);
  }
}
