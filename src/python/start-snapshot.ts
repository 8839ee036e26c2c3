/**
 * Start snapshots: Pyodide's memory with the harness loaded (before it is
 * sealed), made by a worker's first start and kept by the host, so that later
 * starts load that memory instead of starting Python and importing the
 * harness again (about 0.7 s instead of 3.5 s in Node here).
 *
 * A snapshot is made only by trusted code (Pyodide's start and the harness's
 * import, before any candidate code runs) and kept where candidate code cannot
 * write. It is keyed by everything that shapes that memory: Pyodide's version,
 * the harness's sources and the start options; a snapshot that does not load
 * is ignored and made again.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { StartSnapshotStore } from "./pyodide-runtime";

/** Bumped when what the worker puts in the snapshot changes in a way the key does not show (2: standard streams with handlers). */
const FORMAT = 2;

/**
 * The key of a snapshot: a hash of the format, Pyodide's version, the harness
 * sources (module name -> text) and the start options that shape the memory.
 */
export function startSnapshotKey(pyodideVersion: string, sources: Record<string, string>, options: Record<string, unknown>): string {
  const h = createHash("sha256");
  h.update(JSON.stringify({ FORMAT, pyodideVersion, options }));
  for (const name of Object.keys(sources).sort()) h.update(`\0${name}\0${sources[name]}`);
  return h.digest("hex").slice(0, 32);
}

/**
 * The folder for start snapshots: `$RECODE_START_SNAPSHOTS` when it names one, none (false) when it is
 * `off`, `0`, `false` or `no` (every start imports the harness afresh), else
 * `$XDG_CACHE_HOME/recode/start-snapshots` or `~/.cache/recode/start-snapshots`.
 */
export function defaultSnapshotDir(env: NodeJS.ProcessEnv = process.env): string | false {
  const set = env.RECODE_START_SNAPSHOTS?.trim();
  if (set && /^(off|0|false|no)$/i.test(set)) return false;
  if (set) return set;
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "recode", "start-snapshots");
}

/**
 * A store of start snapshots in `dir`, one file per key; saving one removes
 * the folder's other snapshots (older harness or Pyodide versions).
 */
export function fileSnapshotStore(dir: string, key: string): StartSnapshotStore {
  const file = join(dir, `${key}.bin`);
  return {
    load() {
      try {
        return new Uint8Array(readFileSync(file));
      } catch {
        return null;
      }
    },
    save(bytes) {
      try {
        mkdirSync(dir, { recursive: true });
        const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
        writeFileSync(tmp, bytes);
        renameSync(tmp, file);
        for (const name of readdirSync(dir)) {
          if (name.endsWith(".bin") && name !== `${key}.bin`) rmSync(join(dir, name), { force: true });
        }
      } catch {
        // no snapshot next time: the worker starts the slow way and makes one again
      }
    },
  };
}
