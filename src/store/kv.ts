/**
 * The key-value interface the page's repositories sit on, with its two
 * implementations: IndexedDB (idb) and memory (used when IndexedDB cannot be
 * opened, so the page still works), and the one way records are read.
 */
import type { IDBPDatabase } from "idb";
import { type PlaygroundDB, type RecordStore, storageError, type UnreadableRecord } from "./db";
import { RecordError } from "./records";

/** Minimal storage the repositories need. All methods may reject with StorageError. */
export interface KeyValueStore {
  /** `memory` when nothing survives a reload. */
  readonly kind: "indexeddb" | "memory";
  get(store: RecordStore, key: string): Promise<unknown>;
  put(store: RecordStore, key: string, value: unknown): Promise<void>;
  delete(store: RecordStore, key: string): Promise<void>;
  /** Every key and value of a store, in key order. */
  entries(store: RecordStore): Promise<{ key: string; value: unknown }[]>;
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
    async entries(store) {
      try {
        const tx = db.transaction(store, "readonly");
        const out: { key: string; value: unknown }[] = [];
        for (let c = await tx.store.openCursor(); c; c = await c.continue()) out.push({ key: String(c.key), value: c.value });
        await tx.done;
        return out;
      } catch (e) {
        throw storageError(`list ${store}`, e);
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
    entries: async (store) =>
      [...of(store).entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, value]) => ({ key, value: structuredClone(value) })),
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

/**
 * Read one record through `restore`; a record that cannot be restored is set
 * aside in the `unreadable` store (never lost) and reported in `problem`,
 * which ends with `then` (what happens instead).
 */
export async function readRecord<T>(
  kv: KeyValueStore,
  store: RecordStore,
  key: string,
  restore: (raw: unknown) => T,
  then = "the task starts from its starting text",
): Promise<Restored<T>> {
  const raw = await kv.get(store, key);
  if (raw === undefined) return { value: null, problem: null };
  try {
    return { value: restore(raw), problem: null };
  } catch (e) {
    if (!(e instanceof RecordError)) throw e;
    await kv.keep({ store, key, raw, problem: e.problem, at: Date.now() });
    await kv.delete(store, key);
    return { value: null, problem: `${e.message}. It was set aside; ${then}.` };
  }
}
