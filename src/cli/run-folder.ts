/**
 * Run folders of `recode run`: where the batch configuration, the shared turn
 * 0 of each (model, setting, task), and the trajectory of every episode live.
 *
 * ```
 * <out>/run.json                                           batch configuration
 * <out>/turn0/<model>/<setting>/<task>.json                shared turn 0 + agent memory
 * <out>/episodes/<model>/<setting>/L<level>/<task>.json    trajectory (written after every turn)
 * <out>/episodes/<model>/<setting>/L<level>/<task>.memory.json  agent memory after the last saved turn
 * ```
 * Files are written to a temporary name and renamed, so a crash never leaves
 * half a file.
 */
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import type { AgentMemoryState } from "../core/agent/types";
import type { SharedTurn0, Turn0Partial } from "../core/episode";
import type { FeedbackLevel } from "../core/feedback";
import type { SeatSampling } from "../core/sampling";
import { restoreTrajectory, type Trajectory } from "../core/trajectory";

/** Batch configuration stored in run.json. */
export interface RunConfig {
  model: string;
  researcher: string;
  setting: "baseline" | "agent" | "memory_agent";
  levels: FeedbackLevel[];
  maxTurns: number;
  maxSteps: number;
  tasks: string[];
  backend: "pyodide" | "native";
  /** `i/n` when this folder holds one shard, else null. */
  shard: string | null;
  /** Decoding settings of the coder and the researcher, when any were given. */
  sampling?: SeatSampling;
}

/** Model ids contain `:` and `/`; folder names keep letters, digits, `.`, `_`, `-`. */
export function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, "_");
}

/**
 * Write JSON atomically (temporary file, then rename), so a crash or a full
 * disk never leaves half a file. Throws an error naming the file.
 */
export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, `${JSON.stringify(value, null, 1)}\n`);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === "ENOSPC"
        ? "the disk is full"
        : err.code === "EACCES" || err.code === "EROFS"
          ? "the folder is not writable"
          : err.message;
    throw new Error(`cannot write ${path}: ${why}; what was saved before is kept`);
  }
}

function readJson(path: string): unknown {
  const text = readFileSync(path, "utf8");
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: not valid JSON (${(e as Error).message})`);
  }
}

/** Paths inside one run folder. */
export class RunFolder {
  constructor(readonly root: string) {}

  get configPath(): string {
    return join(this.root, "run.json");
  }

  turn0Path(model: string, setting: string, task: string): string {
    return join(this.root, "turn0", slug(model), setting, `${task}.json`);
  }

  episodePath(model: string, setting: string, level: number, task: string): string {
    return join(this.root, "episodes", slug(model), setting, `L${level}`, `${task}.json`);
  }

  memoryPath(model: string, setting: string, level: number, task: string): string {
    return join(this.root, "episodes", slug(model), setting, `L${level}`, `${task}.memory.json`);
  }

  /** Create the folder if needed and check it can be written. Throws naming the folder. */
  checkWritable(): void {
    try {
      mkdirSync(this.root, { recursive: true });
      accessSync(this.root, constants.W_OK);
    } catch (e) {
      throw new Error(`cannot write to ${this.root} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    // Leftovers of an interrupted write are never read; clear them.
    for (const f of listFiles(this.root)) if (/\.tmp-\d+$/.test(f)) rmSync(f, { force: true });
  }

  /** Move an unreadable episode file aside (`.corrupt-<time>`), so the episode can run again. Returns the new name. */
  setAside(model: string, setting: string, level: number, task: string): string {
    const p = this.episodePath(model, setting, level, task);
    const dest = `${p}.corrupt-${Date.now()}`;
    renameSync(p, dest);
    rmSync(this.memoryPath(model, setting, level, task), { force: true });
    return dest;
  }

  readConfig(): RunConfig | null {
    return existsSync(this.configPath) ? (readJson(this.configPath) as RunConfig) : null;
  }

  writeConfig(c: RunConfig): void {
    writeJsonAtomic(this.configPath, c);
  }

  /** Turn 0 of the coder whose review failed (reused by the next try), or null. */
  readTurn0Partial(model: string, setting: string, task: string): Turn0Partial | null {
    const p = this.turn0Path(model, setting, task).replace(/\.json$/, ".partial.json");
    if (!existsSync(p)) return null;
    try {
      return readJson(p) as Turn0Partial;
    } catch {
      return null;
    }
  }

  writeTurn0Partial(model: string, setting: string, task: string, partial: Turn0Partial): void {
    writeJsonAtomic(this.turn0Path(model, setting, task).replace(/\.json$/, ".partial.json"), partial);
  }

  readTurn0(model: string, setting: string, task: string): SharedTurn0 | null {
    const p = this.turn0Path(model, setting, task);
    return existsSync(p) ? (readJson(p) as SharedTurn0) : null;
  }

  writeTurn0(t: SharedTurn0): void {
    writeJsonAtomic(this.turn0Path(t.config.model, t.config.setting, t.taskId), t);
    rmSync(this.turn0Path(t.config.model, t.config.setting, t.taskId).replace(/\.json$/, ".partial.json"), { force: true });
  }

  /** The saved trajectory and memory of an episode, or null. Throws naming the file when it is unreadable. */
  readEpisode(
    model: string,
    setting: string,
    level: number,
    task: string,
  ): { trajectory: Trajectory; memory: AgentMemoryState | null } | null {
    const p = this.episodePath(model, setting, level, task);
    if (!existsSync(p)) return null;
    let trajectory: Trajectory;
    const raw = readJson(p);
    try {
      trajectory = restoreTrajectory(raw);
    } catch (e) {
      throw new Error(`${p}: ${(e as Error).message}`);
    }
    const m = this.memoryPath(model, setting, level, task);
    return { trajectory, memory: existsSync(m) ? (readJson(m) as AgentMemoryState) : null };
  }

  writeEpisode(t: Trajectory, memory: AgentMemoryState): void {
    const { model, setting, level } = t.config;
    writeJsonAtomic(this.memoryPath(model, setting, level, t.versions.task.id), memory);
    writeJsonAtomic(this.episodePath(model, setting, level, t.versions.task.id), t);
  }
}

/** Every file below a folder, sorted; none when the folder does not exist. */
function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out;
}

/** Every .json file below a folder, sorted; none when the folder does not exist. */
export function listJsonFiles(dir: string): string[] {
  return listFiles(dir).filter((p) => p.endsWith(".json"));
}

/** Every trajectory file under a run folder (or a tree of run folders), sorted. */
export function findTrajectoryFiles(root: string): string[] {
  if (!existsSync(root)) throw new Error(`no such folder: ${root}`);
  return listJsonFiles(root).filter((p) => !p.endsWith(".memory.json") && relative(root, p).split(/[\\/]/).includes("episodes"));
}
