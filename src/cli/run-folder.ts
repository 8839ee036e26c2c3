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
import { z } from "zod";
import type { AgentMemoryState } from "../core/agent/types";
import type { SharedTurn0 } from "../core/episode";
import { restoreAgentMemory, restoreSharedTurn0, restoreTurn0Partial } from "../core/episode-records";
import type { EpisodeStore, StoreRead } from "../core/episode-store";
import type { FeedbackLevel } from "../core/feedback";
import type { ProtocolProfile } from "../core/protocol";
import { type SeatSampling, SeatSamplingSchema } from "../core/sampling";
import { describeIssues, restoreTrajectory, type Trajectory } from "../core/trajectory";
import { type AgentSetting, AgentSettingSchema, FeedbackLevelSchema, ProtocolProfileSchema } from "../core/vocabulary";

/** Batch configuration stored in run.json. */
export interface RunConfig {
  /** The coder's model id; a scripted model is named by its script's file name ({@link RunConfig.scriptSha256}). */
  model: string;
  /**
   * For a scripted coder: the SHA-256 (hex) of its script file's text, which tells apart two scripts of one
   * file name. Absent for other models, and in folders written before it was kept.
   */
  scriptSha256?: string;
  /** `rules` or `llm:<provider:model>` as given (a scripted one by its script's path, {@link RunConfig.researcherScriptSha256}). */
  researcher: string;
  /**
   * For a scripted LLM researcher (`llm:scripted:<file>`): the SHA-256 (hex) of its script file's text, so that an
   * edited script does not resume the episodes its first text reviewed. Absent otherwise, and in folders written
   * before it was kept.
   */
  researcherScriptSha256?: string;
  setting: AgentSetting;
  levels: FeedbackLevel[];
  maxTurns: number;
  maxSteps: number;
  tasks: string[];
  backend: "pyodide" | "native";
  /** `i/n` when this folder holds one shard, else null. */
  shard: string | null;
  /**
   * For a shard, and a folder merged from shards: the sorted task ids of the whole grid the shards split (the
   * tasks given before `--shard` took its part), so that a merge can tell shards of two grids apart and a report
   * can name the grid's tasks no shard brought. Absent otherwise, and in folders written before it was kept.
   */
  gridTasks?: string[];
  /** The shards (`i/n`) a folder made by `recode merge` holds; absent in other folders. */
  shards?: string[];
  /** Decoding settings of the coder and the researcher, when any were given. */
  sampling?: SeatSampling;
  /** Protocol profile; absent in folders written before profiles (`playground`). */
  protocol?: ProtocolProfile;
}

/** Zod schema of {@link RunConfig} (run.json). */
export const RunConfigSchema: z.ZodType<RunConfig, unknown> = z
  .object({
    model: z.string().min(1),
    scriptSha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    researcher: z.string().min(1),
    researcherScriptSha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    setting: AgentSettingSchema,
    levels: z.array(FeedbackLevelSchema).min(1),
    maxTurns: z.number().int().positive(),
    maxSteps: z.number().int().positive(),
    tasks: z.array(z.string().min(1)),
    backend: z.enum(["pyodide", "native"]),
    shard: z.string().nullable(),
    gridTasks: z.array(z.string().min(1)).optional(),
    shards: z.array(z.string()).optional(),
    sampling: SeatSamplingSchema.optional(),
    protocol: ProtocolProfileSchema.optional(),
  })
  .strict();

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

  /** The batch configuration, or null when the folder has none. Throws naming the file and the field when it is not one. */
  readConfig(): RunConfig | null {
    if (!existsSync(this.configPath)) return null;
    const r = RunConfigSchema.safeParse(readJson(this.configPath));
    if (!r.success) throw new Error(`${this.configPath}: not a run configuration: ${describeIssues(r.error)}`);
    return r.data;
  }

  writeConfig(c: RunConfig): void {
    writeJsonAtomic(this.configPath, c);
  }

  /** Where the coder's turn 0 whose review failed is kept (reused by the next try). */
  turn0PartialPath(model: string, setting: string, task: string): string {
    return this.turn0Path(model, setting, task).replace(/\.json$/, ".partial.json");
  }

  /** Save the shared turn 0 and forget the partial one. Throws naming the file. */
  writeTurn0(t: SharedTurn0): void {
    writeJsonAtomic(this.turn0Path(t.config.model, t.config.setting, t.taskId), t);
    rmSync(this.turn0PartialPath(t.config.model, t.config.setting, t.taskId), { force: true });
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
    return { trajectory, memory: existsSync(m) ? restoreAgentMemory(readJson(m), m) : null };
  }

  /** Save an episode and its agent memory (none: the memory file is removed). Throws naming the file. */
  writeEpisode(t: Trajectory, memory: AgentMemoryState | null): void {
    const { model, setting, level } = t.config;
    const m = this.memoryPath(model, setting, level, t.versions.task.id);
    if (memory) writeJsonAtomic(m, memory);
    else rmSync(m, { force: true });
    writeJsonAtomic(this.episodePath(model, setting, level, t.versions.task.id), t);
  }
}

/**
 * The run folder as the episode runner's store (src/core/episode-store.ts).
 * The folder holds one researcher's episodes (run.json names it), so turn 0
 * files are named by model, setting and task. An unreadable file is renamed
 * `<name>.corrupt-<time>` and reported; the work it held runs again.
 */
export function folderEpisodeStore(folder: RunFolder): EpisodeStore {
  /** Read a file through `restore`; an unreadable one is renamed aside and reported. */
  const read = <T>(path: string, restore: (raw: unknown, where: string) => T): StoreRead<T> => {
    if (!existsSync(path)) return { value: null, problem: null };
    try {
      return { value: restore(readJson(path), path), problem: null };
    } catch (e) {
      const dest = `${path}.corrupt-${Date.now()}`;
      renameSync(path, dest);
      return { value: null, problem: `${(e as Error).message}; set aside as ${dest}, and the work it held runs again` };
    }
  };
  return {
    async readEpisode(id) {
      try {
        return { value: folder.readEpisode(id.model, id.setting, id.level, id.taskId), problem: null };
      } catch (e) {
        const moved = folder.setAside(id.model, id.setting, id.level, id.taskId);
        return { value: null, problem: `${(e as Error).message}; set aside as ${moved}, and the episode runs again` };
      }
    },
    async writeEpisode(t, memory) {
      folder.writeEpisode(t, memory);
    },
    async readTurn0(id) {
      return read(folder.turn0Path(id.model, id.setting, id.taskId), restoreSharedTurn0);
    },
    async writeTurn0(t) {
      folder.writeTurn0(t);
    },
    async readTurn0Partial(id) {
      return read(folder.turn0PartialPath(id.model, id.setting, id.taskId), restoreTurn0Partial);
    },
    async writeTurn0Partial(id, partial) {
      writeJsonAtomic(folder.turn0PartialPath(id.model, id.setting, id.taskId), partial);
    },
  };
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
