/**
 * The IndexedDB database of the page (through `idb`): a versioned schema with
 * an upgrade function. Records inside the stores carry their own `version`
 * and are upgraded on read (records.ts).
 */
import { type DBSchema, type IDBPDatabase, openDB } from "idb";

/** Database name used by the page. */
export const DB_NAME = "recode-playground";
/** Current schema version (object stores and indexes). */
export const DB_VERSION = 4;

/** A record that could not be restored, kept so that nothing stored is thrown away. */
export interface UnreadableRecord {
  store: string;
  key: string;
  raw: unknown;
  problem: string;
  /** Milliseconds since the Unix epoch. */
  at: number;
}

/** Object stores. Values are `unknown` on purpose: they are checked by restore*(). */
export interface PlaygroundDB extends DBSchema {
  /** task id -> draft record */
  drafts: { key: string; value: unknown };
  /** "settings" -> settings record */
  settings: { key: string; value: unknown };
  /** task id -> last run record */
  runs: { key: string; value: unknown };
  /** episode key (see trajectoryKey) -> trajectory record (schema version 2 on) */
  trajectories: { key: string; value: unknown };
  /** turn-0 key (see turn0Key) -> shared turn 0 record (schema version 2 on) */
  turn0: { key: string; value: unknown };
  /** task id -> a student's turns on the task (TaskProgress, schema version 3 on) */
  progress: { key: string; value: unknown };
  /** task id -> a task imported from a task pack, its files as text (ImportedTask, schema version 4 on) */
  importedTasks: { key: string; value: unknown };
  /** auto key -> UnreadableRecord */
  unreadable: { key: number; value: UnreadableRecord };
}

/** Names of the stores holding versioned records. */
export type RecordStore = "drafts" | "settings" | "runs" | "trajectories" | "turn0" | "progress" | "importedTasks";

/** A storage failure, with a message meant for the user. */
export class StorageError extends Error {
  constructor(
    message: string,
    /** DOMException name when there was one (QuotaExceededError, VersionError, ...). */
    readonly reason: string | null = null,
  ) {
    super(message);
    this.name = "StorageError";
  }
}

/** Turn an IndexedDB failure into a StorageError saying what was being done. */
export function storageError(doing: string, e: unknown): StorageError {
  if (e instanceof StorageError) return e;
  const name = e instanceof Error || (typeof DOMException !== "undefined" && e instanceof DOMException) ? (e as Error).name : null;
  const msg = e instanceof Error ? e.message : String(e);
  if (name === "QuotaExceededError")
    return new StorageError(`Could not ${doing}: the browser's storage quota is full. Free space for this site.`, name);
  if (name === "VersionError") {
    return new StorageError(`Could not ${doing}: the stored database was written by a newer version of the playground.`, name);
  }
  return new StorageError(`Could not ${doing}: ${msg}`, name);
}

/**
 * Schema upgrade: runs inside the versionchange transaction for every step
 * from `oldVersion` to DB_VERSION. Keep old steps unchanged; add new ones.
 */
export function upgradeSchema(db: IDBPDatabase<PlaygroundDB>, oldVersion: number): void {
  if (oldVersion < 1) {
    db.createObjectStore("drafts");
    db.createObjectStore("settings");
    db.createObjectStore("runs");
    db.createObjectStore("unreadable", { autoIncrement: true });
  }
  if (oldVersion < 2) {
    // Agent runs: trajectories saved after every turn, and the shared turn 0 they start from.
    db.createObjectStore("trajectories");
    db.createObjectStore("turn0");
  }
  if (oldVersion < 3) {
    // A student's turns per task: runs, solved, feedback levels asked for (the ladder).
    db.createObjectStore("progress");
  }
  if (oldVersion < 4) {
    // Tasks imported from task packs (a zip or a folder), validated in the page before they were stored.
    db.createObjectStore("importedTasks");
  }
}

/**
 * Open (creating or upgrading) the database `name` in the global IndexedDB.
 * @throws StorageError when IndexedDB is missing, another tab holding an older
 * version open blocks the upgrade, or the browser refuses.
 */
export async function openPlaygroundDb(name: string = DB_NAME): Promise<IDBPDatabase<PlaygroundDB>> {
  if (!(globalThis as { indexedDB?: IDBFactory }).indexedDB) {
    throw new StorageError("IndexedDB is not available in this browser; drafts are kept in memory only.", "missing");
  }
  let onBlocked: () => void = () => {};
  const blocked = new Promise<never>((_, reject) => {
    onBlocked = () =>
      reject(
        new StorageError(
          "Could not open storage: another tab holds an older version of the playground open. Close it and reload.",
          "blocked",
        ),
      );
  });
  try {
    const db = await Promise.race([
      openDB<PlaygroundDB>(name, DB_VERSION, {
        upgrade: (database, oldVersion) => upgradeSchema(database, oldVersion),
        blocked: () => onBlocked(),
      }),
      blocked,
    ]);
    db.addEventListener("versionchange", () => db.close());
    return db;
  } catch (e) {
    throw storageError("open storage", e);
  }
}
