/**
 * Repositories over the page's storage: drafts, settings and last runs.
 * They sit on a tiny key-value interface with two implementations: IndexedDB
 * (idb) and memory (used when IndexedDB cannot be opened, so the page still
 * works). Every read goes through restore*(); a record that cannot be read is
 * copied to the `unreadable` store before anything may overwrite it.
 */
import type { IDBPDatabase } from "idb";
import type { RunResult } from "../core/results";
import { openPlaygroundDb, type PlaygroundDB, type RecordStore, StorageError, storageError, type UnreadableRecord } from "./db";
import {
  DEFAULT_SETTINGS,
  DRAFT_VERSION,
  type DraftRecord,
  RecordError,
  RUN_VERSION,
  type RunRecord,
  restoreDraft,
  restoreRun,
  restoreSettings,
  SETTINGS_VERSION,
  type SettingsRecord,
} from "./records";

/** Minimal storage the repositories need. All methods may reject with StorageError. */
export interface KeyValueStore {
  /** `memory` when nothing survives a reload. */
  readonly kind: "indexeddb" | "memory";
  get(store: RecordStore, key: string): Promise<unknown>;
  put(store: RecordStore, key: string, value: unknown): Promise<void>;
  delete(store: RecordStore, key: string): Promise<void>;
  keep(rec: UnreadableRecord): Promise<void>;
  unreadable(): Promise<UnreadableRecord[]>;
}

/** KeyValueStore over an open IndexedDB database. */
export function idbStore(db: IDBPDatabase<PlaygroundDB>): KeyValueStore {
  return {
    kind: "indexeddb",
    async get(store, key) {
      try {
        return await db.get(store, key);
      } catch (e) {
        throw storageError(`read ${store} "${key}"`, e);
      }
    },
    async put(store, key, value) {
      try {
        await db.put(store, value, key);
      } catch (e) {
        throw storageError(`save ${store} "${key}"`, e);
      }
    },
    async delete(store, key) {
      try {
        await db.delete(store, key);
      } catch (e) {
        throw storageError(`delete ${store} "${key}"`, e);
      }
    },
    async keep(rec) {
      try {
        await db.add("unreadable", rec);
      } catch (e) {
        throw storageError(`keep an unreadable ${rec.store} record`, e);
      }
    },
    async unreadable() {
      try {
        return await db.getAll("unreadable");
      } catch (e) {
        throw storageError("list unreadable records", e);
      }
    },
  };
}

/** KeyValueStore in memory (structured clones, like IndexedDB). */
export function memoryStore(): KeyValueStore {
  const stores = new Map<string, Map<string, unknown>>();
  const kept: UnreadableRecord[] = [];
  const of = (s: string) => {
    let m = stores.get(s);
    if (!m) {
      m = new Map();
      stores.set(s, m);
    }
    return m;
  };
  return {
    kind: "memory",
    get: async (store, key) => structuredClone(of(store).get(key)),
    put: async (store, key, value) => {
      of(store).set(key, structuredClone(value));
    },
    delete: async (store, key) => {
      of(store).delete(key);
    },
    keep: async (rec) => {
      kept.push(structuredClone(rec));
    },
    unreadable: async () => structuredClone(kept),
  };
}

/** A read that may have found an unreadable record. */
export interface Restored<T> {
  value: T | null;
  /** Why a stored record could not be read (it was kept in the `unreadable` store), or null. */
  problem: string | null;
}

async function read<T>(kv: KeyValueStore, store: RecordStore, key: string, restore: (raw: unknown) => T): Promise<Restored<T>> {
  const raw = await kv.get(store, key);
  if (raw === undefined) return { value: null, problem: null };
  try {
    return { value: restore(raw), problem: null };
  } catch (e) {
    if (!(e instanceof RecordError)) throw e;
    await kv.keep({ store, key, raw, problem: e.problem, at: Date.now() });
    await kv.delete(store, key);
    return { value: null, problem: `${e.message}. It was set aside; the task starts from its starting text.` };
  }
}

/** Drafts of target files, one per task. */
export class DraftRepository {
  constructor(private readonly kv: KeyValueStore) {}

  /** The draft of a task, upgraded to the current record version. */
  get(taskId: string): Promise<Restored<DraftRecord>> {
    return read(this.kv, "drafts", taskId, (raw) => restoreDraft(taskId, raw));
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
}

/** Page settings (a single record). */
export class SettingsRepository {
  constructor(private readonly kv: KeyValueStore) {}

  /** Stored settings, or the defaults. */
  async get(): Promise<Restored<SettingsRecord>> {
    const r = await read(this.kv, "settings", "settings", restoreSettings);
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
    return read(this.kv, "runs", taskId, (raw) => restoreRun(taskId, raw));
  }

  /** Store a run as the task's last run. @throws StorageError */
  async save(taskId: string, code: string, result: RunResult, finishedAt: number = Date.now()): Promise<RunRecord> {
    const rec: RunRecord = { version: RUN_VERSION, taskId, code, finishedAt, result };
    await this.kv.put("runs", taskId, rec);
    return rec;
  }
}

/** The repositories of the page, plus how they are stored. */
export interface Repositories {
  drafts: DraftRepository;
  settings: SettingsRepository;
  runs: RunRepository;
  kv: KeyValueStore;
  /** Why storage fell back to memory, or null when IndexedDB is in use. */
  fallback: string | null;
}

/** Repositories over a given store. */
export function repositoriesOver(kv: KeyValueStore, fallback: string | null = null): Repositories {
  return { drafts: new DraftRepository(kv), settings: new SettingsRepository(kv), runs: new RunRepository(kv), kv, fallback };
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
