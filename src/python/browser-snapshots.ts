/**
 * Start snapshots in the page: Pyodide's memory with the harness imported,
 * made by the first start of the page's Python box and kept in the page
 * origin's IndexedDB (the box itself has no storage), so that later starts and
 * visits load it instead of starting Python and importing the harness again.
 * Keyed by the box worker's own code (which holds the harness) and the Pyodide
 * folder; only the latest snapshot is kept (some 16 MB: snapshot-pack.ts leaves out its empty pages), as a
 * Blob, which the page hands to the box's worker unread: the worker reads it (some 0.3 s here) while it
 * fetches and compiles Pyodide, off the page's thread, which a start would otherwise wait on.
 */
import { type DBSchema, type IDBPDatabase, openDB } from "idb";
import type { StartSnapshotStore } from "./pyodide-runtime";

const DB_NAME = "recode-start-snapshots";
const STORE = "snapshots";

interface SnapshotDB extends DBSchema {
  /** (`bytes`: a Blob; a byte array in rows saved before, still read.) */
  snapshots: { key: string; value: { key: string; bytes: Blob | Uint8Array; savedAt: string } };
}

let db: Promise<IDBPDatabase<SnapshotDB>> | null = null;

function database(): Promise<IDBPDatabase<SnapshotDB>> {
  db ??= openDB<SnapshotDB>(DB_NAME, 1, {
    upgrade(d) {
      d.createObjectStore(STORE, { keyPath: "key" });
    },
  });
  db.catch(() => {
    db = null;
  });
  return db;
}

/**
 * The page's store of start snapshots for the box worker whose code has the
 * hash `workerSha256()` gives (base64), with Pyodide `pyodideVersion` from `indexURL`. Where
 * IndexedDB is missing or refuses (a private window, a full disk), it keeps
 * nothing and every start is a fresh one.
 */
export function browserSnapshotStore(workerSha256: () => Promise<string>, indexURL: string, pyodideVersion: string): StartSnapshotStore {
  const keyOf = async () => `${pyodideVersion} ${indexURL} ${await workerSha256()}`;
  return {
    async load() {
      try {
        const row = await (await database()).get(STORE, await keyOf());
        // (A Blob goes to the worker as it is, and is read there, off the page's thread.)
        return row ? row.bytes : null;
      } catch {
        return null;
      }
    },
    async save(bytes) {
      try {
        const key = await keyOf();
        const tx = (await database()).transaction(STORE, "readwrite");
        await tx.store.clear();
        await tx.store.put({ key, bytes: new Blob([bytes as Uint8Array<ArrayBuffer>]), savedAt: new Date().toISOString() });
        await tx.done;
      } catch {
        // a full disk or no IndexedDB: no snapshot next time
      }
    },
  };
}
