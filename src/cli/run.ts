/**
 * `recode run`: batch episodes of one model over tasks and feedback levels,
 * with progress bars, per-turn persistence (resume by running again), shards
 * for cluster array jobs, and a clean stop on Ctrl-C.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createAgent } from "../core/agent";
import { AGENT_SETTINGS, type AgentSetting } from "../core/agent/types";
import type { EpisodeEnv } from "../core/episode";
import type { FeedbackLevel, Researcher } from "../core/feedback";
import type { TokenCounts } from "../core/model";
import { plural } from "../core/plural";
import { DEFAULT_PROTOCOL, type ProtocolProfile, parseProtocol, profileSeatSampling } from "../core/protocol";
import {
  checkModelSpec,
  loadScript,
  type MeteredChatModel,
  type ModelFromSpecOptions,
  modelFromSpec,
  parseModelSpec,
  type RetryInfo,
} from "../core/providers";
import { staleRecording } from "../core/recording";
import { researcherFromSpec } from "../core/researchers";
import { parseSampling, type SeatSampling, samplingText, withSampling } from "../core/sampling";
import type { Task } from "../core/task";
import { runTaskEpisodes } from "../core/task-episodes";
import { NATIVE_SANDBOXES, type NativeSandbox, resolveSandbox } from "../python/native-sandbox";
import { createRuntime } from "../python/node";
import { type PythonRuntime, taskRunRequest } from "../python/runtime";
import { folderEpisodeStore, type RunConfig, RunFolder } from "./run-folder";
import { episodeLine, makeProgress } from "./run-progress";
import { loadTaskDir, recordCommandFor, resolveTaskIds } from "./task-fs";
import { taskListText } from "./terminal-text";

/** Options of `recode run` as parsed from the command line. */
export interface RunCommandOptions {
  model: string;
  baseUrl?: string;
  apiKey?: string;
  researcher: string;
  researcherBaseUrl?: string;
  researcherApiKey?: string;
  /** Coder decoding settings, `temperature=0.2,top_p=default,max_tokens=4096`. */
  sampling?: string;
  /** Researcher decoding settings, the same form. */
  researcherSampling?: string;
  levels: string;
  turns: string;
  steps: string;
  setting: string;
  /** Protocol profile: playground | reference (src/core/protocol.ts). */
  protocol?: string;
  /** Task ids or globs; absent: all. */
  tasks?: string[];
  workers: string;
  out: string;
  shard?: string;
  backend: string;
  dir: string;
  /** Skip the endpoint probe (offline planning). */
  probe: boolean;
  /** Seconds one model call may take before it is retried. */
  timeout?: string;
  /** Folder or URL with Pyodide package wheels. */
  packageSource?: string;
  /** Native backend's box: auto | bwrap | none. */
  sandbox?: string;
}

/** Time the endpoint probe waits for an answer, in ms. */
const PROBE_TIMEOUT_MS = 15_000;

/** A configuration problem found before any work starts. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Parse `0-4`, `0,2,4` or `2` into sorted unique levels. */
export function parseLevels(text: string): FeedbackLevel[] {
  const out = new Set<number>();
  for (const part of text.split(",").map((s) => s.trim())) {
    const m = /^(\d)(?:-(\d))?$/.exec(part);
    if (!m) throw new ConfigError(`--levels: "${text}" is not a level list; use e.g. 0-4, 0,2,4 or 2`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (a > 4 || b > 4) throw new ConfigError(`--levels: "${part}" is outside L0-L4`);
    if (b < a) throw new ConfigError(`--levels: "${part}" is reversed (give the lower level first: ${b}-${a})`);
    for (let l = a; l <= b; l++) out.add(l);
  }
  return [...out].sort() as FeedbackLevel[];
}

function positiveInt(name: string, text: string, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new ConfigError(`${name}: "${text}" must be a whole number from 1 to ${max}`);
  return n;
}

/** Parse `--shard i/n` (0-based i): which tasks this shard takes. */
export function parseShard(text: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) throw new ConfigError(`--shard: "${text}" must be i/n, e.g. 0/4 (i counts from 0)`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index >= count) throw new ConfigError(`--shard: "${text}": i must be from 0 to n-1`);
  return { index, count };
}

/** The tasks of one shard: every n-th task of the sorted list, starting at i. */
export function shardTasks(ids: string[], shard: { index: number; count: number } | null): string[] {
  if (!shard) return ids;
  return [...ids].sort().filter((_, i) => i % shard.count === shard.index);
}

/** Whether two model specs name one provider (false when either cannot be read: its own check says why). */
function sameProvider(a: string, b: string): boolean {
  try {
    return parseModelSpec(a).provider === parseModelSpec(b).provider;
  } catch {
    return false;
  }
}

/** The option of `recode run` that sets each field of run.json, as messages name it. */
const OPTION_OF: Partial<Record<keyof RunConfig, string>> = {
  model: "--model",
  researcher: "--researcher",
  setting: "--setting",
  maxTurns: "--turns",
  maxSteps: "--steps",
  backend: "--backend",
  shard: "--shard",
  sampling: "--sampling",
  protocol: "--protocol",
  scriptSha256: "--model's script (its text, by SHA-256)",
  researcherScriptSha256: "--researcher's script (its text, by SHA-256)",
  gridTasks: "--tasks (the grid the shard is taken from)",
};

function modelOptions(
  spec: string,
  baseUrl: string | undefined,
  apiKey: string | undefined,
  env: NodeJS.ProcessEnv,
  timeoutMs?: number,
  keyOption = "--api-key",
): ModelFromSpecOptions {
  const { provider, model } = parseModelSpec(spec);
  const keyVar = provider === "openai" ? "OPENAI_API_KEY" : "RECODE_API_KEY";
  const o: ModelFromSpecOptions = { settingNames: { apiKey: `the key (${keyOption} or ${keyVar})`, timeout: "--timeout <seconds>" } };
  if (timeoutMs) o.timeoutMs = timeoutMs;
  if (baseUrl) o.baseURL = baseUrl;
  const key = apiKey ?? (provider === "openai" ? env.OPENAI_API_KEY : env.RECODE_API_KEY);
  if (key) o.apiKey = key;
  if (provider === "scripted") {
    const file = resolve(model);
    if (!existsSync(file)) throw new ConfigError(`--model ${spec}: no script file at ${file}`);
    o.script = loadScript(readFileSync(file, "utf8"), model);
  }
  if (provider === "webllm")
    throw new ConfigError(
      `--model ${spec}: WebLLM runs only in the page (it needs WebGPU); use an OpenAI-compatible endpoint such as ollama:<model> here`,
    );
  return o;
}

/**
 * The model name a run records: the spec as given, except that a scripted
 * model is named by its script's file name (`scripted:fix.json` for
 * `scripted:examples/fix.json`), as the page names an uploaded script, so
 * that the same script gives the same name in both.
 */
export function recordedModelName(spec: string): string {
  const { provider, model } = parseModelSpec(spec);
  return provider === "scripted" ? `scripted:${basename(model)}` : spec;
}

/**
 * For a scripted model, `{ scriptSha256 }`: the SHA-256 (hex) of its script file's text, kept in run.json
 * beside the name ({@link recordedModelName}) so that another script of the same file name does not resume
 * this one's episodes. Nothing for other models. The file was read and checked before (modelOptions).
 */
function scriptDigest(spec: string): { scriptSha256?: string } {
  const sha = scriptSha(spec);
  return sha ? { scriptSha256: sha } : {};
}

/** The SHA-256 (hex) of a scripted model's script file (`scripted:<file>`), or null for another model. */
function scriptSha(spec: string): string | null {
  const { provider, model } = parseModelSpec(spec);
  if (provider !== "scripted") return null;
  return createHash("sha256")
    .update(readFileSync(resolve(model)))
    .digest("hex");
}

async function probe(what: string, spec: string, o: ModelFromSpecOptions): Promise<void> {
  try {
    // A quick look before any work: one short attempt, not the patient retries of real calls.
    await checkModelSpec(spec, { ...o, timeoutMs: Math.min(o.timeoutMs ?? PROBE_TIMEOUT_MS, PROBE_TIMEOUT_MS), maxRetries: 0 });
  } catch (e) {
    throw new ConfigError(`${what}: ${(e as Error).message}`);
  }
}

function appVersion(): { app: string; gitCommit: string | null } {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  let app = "unknown";
  try {
    app = (JSON.parse(readFileSync(`${root}/package.json`, "utf8")) as { version: string }).version;
  } catch {
    /* keep unknown */
  }
  let gitCommit: string | null = null;
  try {
    gitCommit =
      execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || null;
  } catch {
    /* not a checkout */
  }
  return { app, gitCommit };
}

/**
 * Runtime options for a package source given as a folder or a URL. `native`: the command's option for python3,
 * which the advice names (`--backend native` for run and test; `--native` for tasks record and validate; null
 * for a command that runs python3 anyway).
 * @throws ConfigError when it names a folder that does not exist (said before any run, not as a run's collection error).
 */
export function packageOptions(
  source: string | undefined,
  native: string | null = "--backend native",
): { packageBaseUrl?: string; packageAdvice: string } {
  const orNative = native ? ` Or use ${native} (a python3 that has them).` : "";
  const packageAdvice = source
    ? `Does --package-source hold Pyodide's wheels of these packages (the files pyodide-lock.json names, built for WebAssembly)?${orNative}`
    : `Give --package-source a folder or URL that holds Pyodide's wheels of these packages.${orNative}`;
  if (!source) return { packageAdvice };
  if (/^[a-z]+:\/\//.test(source)) return { packageBaseUrl: source, packageAdvice };
  if (!existsSync(source) || !statSync(source).isDirectory())
    throw new ConfigError(`--package-source: ${source} is not a folder (give the folder or URL that holds the package wheels)`);
  return { packageBaseUrl: `${resolve(source)}/`, packageAdvice };
}

/** Everything checked and built before work starts. */
export interface PreparedRun {
  config: RunConfig;
  folder: RunFolder;
  tasks: Task[];
  workers: number;
  coder: MeteredChatModel;
  /** Folder or URL with Pyodide package wheels, if set. */
  packageSource?: string;
  /** Native backend's box (native-sandbox.ts). */
  sandbox: NativeSandbox;
  /** The run's task folders, which the boxes do not show to code under test (their canonical solutions and recorded values). */
  taskFolders: string[];
  /** The levels this run takes (run.json keeps every level the folder has held). */
  levels: FeedbackLevel[];
  /** A researcher and its token counter, one per worker. */
  makeResearcher: () => { researcher: Researcher; usage?: () => TokenCounts };
  /**
   * Where a model call that failed and is tried again, and a parameter a server refused, are said (a line
   * each; executeRun points it at its output).
   */
  retries: { log: (line: string) => void };
}

/** The line that says the server refused a parameter, which the seat's calls leave out from then on. */
function leftOutLine(seat: string, spec: string, param: string): string {
  return param === "max_tokens"
    ? `${seat} ${spec}: the server refused max_tokens (HTTP 400); calls send the limit as max_completion_tokens from now on\n`
    : `${seat} ${spec}: the server refused ${param} (HTTP 400); calls leave it out from now on, and the server's default is used (trajectories list it: messages[].leftOut)\n`;
}

/** The line that says a model call failed and is tried again (`seat`: "coder" or "researcher"). */
function retryLine(seat: string, spec: string, i: RetryInfo): string {
  return `${seat} ${spec}: ${i.reason}; trying again in ${(i.delayMs / 1000).toFixed(1)} s (retry ${i.attempt})\n`;
}

/**
 * Check the whole configuration and fail before any work with a message that
 * says what to fix: levels, turns, steps, setting, workers, shard, task ids,
 * model and researcher specs (unknown provider, missing key, missing script,
 * unreachable endpoint), and a run folder that holds a different run.
 */
export async function prepareRun(o: RunCommandOptions, env: NodeJS.ProcessEnv = process.env): Promise<PreparedRun> {
  const levels = parseLevels(o.levels);
  const maxTurns = positiveInt("--turns", o.turns, 50);
  const maxSteps = positiveInt("--steps", o.steps, 20);
  const workers = positiveInt("--workers", o.workers, 16);
  // (Checked now, before the run folder is made: a folder that does not exist is a wrong input, not every episode's error.)
  packageOptions(o.packageSource);
  if (!AGENT_SETTINGS.includes(o.setting as AgentSetting))
    throw new ConfigError(`--setting: "${o.setting}" is not one of ${AGENT_SETTINGS.join(", ")}`);
  if (o.backend !== "pyodide" && o.backend !== "native") throw new ConfigError(`--backend: "${o.backend}" is not pyodide or native`);
  const sandbox = (o.sandbox ?? "auto") as NativeSandbox;
  if (!NATIVE_SANDBOXES.includes(sandbox)) throw new ConfigError(`--sandbox: "${o.sandbox}" is not one of ${NATIVE_SANDBOXES.join(", ")}`);
  if (o.backend === "native") {
    try {
      resolveSandbox(sandbox);
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
  }
  const shard = o.shard ? parseShard(o.shard) : null;
  const timeoutMs = o.timeout === undefined ? undefined : positiveInt("--timeout", o.timeout, 3600) * 1000;
  let ids: string[];
  try {
    ids = resolveTaskIds(o.dir, o.tasks ?? []);
  } catch (e) {
    throw new ConfigError(`--tasks: ${(e as Error).message}`);
  }
  const gridTasks = shard ? [...ids].sort() : undefined;
  ids = shardTasks(ids, shard);
  const tasks = ids.map((id) => loadTaskDir(o.dir, id));
  const shared = tasks.filter((t) => t.meta.isolation === "shared").map((t) => t.id);
  if (shared.length)
    throw new ConfigError(
      `${shared.join(", ")}: isolation "shared" (imported RECODE-H tasks run under pytest beside canonical.py); agent runs over them are not supported, use recode test --python`,
    );
  const unrecorded = tasks.filter((t) => t.expected === null).map((t) => t.id);
  if (unrecorded.length) throw new ConfigError(`tasks without expected.json: ${unrecorded.join(", ")} (run recode tasks record)`);
  // An episode judged against values recorded from another test.py or canonical solution would measure nothing.
  const stale = tasks.flatMap((t) => {
    const why = staleRecording(t);
    return why === null ? [] : [{ id: t.id, why: why.replace(/^expected\.json was /, "") }];
  });
  if (stale.length)
    throw new ConfigError(
      `tasks whose expected.json is not a recording of the task as it is now: ${stale.map((s) => `${s.id}: ${s.why}`).join("; ")}. Run ${stale
        .map((s) => recordCommandFor(o.dir, s.id))
        .join("; ")}`,
    );

  let sampling: SeatSampling;
  try {
    sampling = {
      coder: parseSampling(o.sampling ?? "", "--sampling"),
      researcher: parseSampling(o.researcherSampling ?? "", "--researcher-sampling"),
    };
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  let protocol: ProtocolProfile;
  try {
    protocol = parseProtocol(o.protocol ?? DEFAULT_PROTOCOL);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  // The reference profile leaves OpenAI models at their provider's default temperature.
  sampling = profileSeatSampling(protocol, o.model, o.researcher.startsWith("llm:") ? o.researcher.slice(4) : "", sampling);
  const anySampling = samplingText(sampling.coder) !== "" || samplingText(sampling.researcher) !== "";
  let coder: MeteredChatModel;
  let coderOpts: ModelFromSpecOptions;
  // Said nowhere until the run starts (the probes do not retry).
  const retries = { log: (_line: string) => {} };
  try {
    coderOpts = {
      ...modelOptions(o.model, o.baseUrl, o.apiKey, env, timeoutMs),
      onRetry: (i) => retries.log(retryLine("coder", o.model, i)),
      onLeftOut: (param) => retries.log(leftOutLine("coder", o.model, param)),
    };
    coder = withSampling(modelFromSpec(o.model, coderOpts), sampling.coder);
  } catch (e) {
    // A message that names the option already says where.
    const m = (e as Error).message;
    throw new ConfigError(m.startsWith("--model") ? m : `--model: ${m}`);
  }
  let makeResearcher: PreparedRun["makeResearcher"];
  let researcherId: string;
  let researcherScript: { researcherScriptSha256?: string } = {};
  if (o.researcher === "rules") {
    researcherId = "rules";
    makeResearcher = () => ({ researcher: researcherFromSpec("rules") });
  } else if (o.researcher.startsWith("llm:")) {
    const spec = o.researcher.slice(4);
    let ropts: ModelFromSpecOptions;
    try {
      // The coder's endpoint and key are the researcher's only when both use one provider: o4-mini as the researcher
      // of a local coder is asked at OpenAI, with OpenAI's key, not at the local server with the local key.
      const same = sameProvider(spec, o.model);
      ropts = modelOptions(
        spec,
        o.researcherBaseUrl ?? (same ? o.baseUrl : undefined),
        o.researcherApiKey ?? (same ? o.apiKey : undefined),
        env,
        timeoutMs,
        same && o.researcherApiKey === undefined ? "--researcher-api-key, --api-key" : "--researcher-api-key",
      );
      ropts.onRetry = (i) => retries.log(retryLine("researcher", spec, i));
      ropts.onLeftOut = (param) => retries.log(leftOutLine("researcher", spec, param));
      modelFromSpec(spec, ropts);
    } catch (e) {
      throw new ConfigError(`--researcher: ${(e as Error).message}`);
    }
    if (o.probe) await probe("--researcher", spec, ropts);
    researcherId = `llm:${spec}`;
    const sha = scriptSha(spec);
    if (sha) researcherScript = { researcherScriptSha256: sha };
    makeResearcher = () => {
      const m = withSampling(modelFromSpec(spec, ropts), sampling.researcher);
      return {
        researcher: researcherFromSpec(`llm:${spec}`, { model: () => m }),
        usage: () => {
          const t = m.totals();
          return { prompt: t.promptTokens, completion: t.completionTokens, unreported: t.unreported };
        },
      };
    };
  } else {
    throw new ConfigError(`--researcher: "${o.researcher}" must be rules or llm:<provider:model>`);
  }
  if (o.probe) await probe("--model", o.model, coderOpts);

  const config: RunConfig = {
    model: recordedModelName(o.model),
    ...scriptDigest(o.model),
    researcher: researcherId,
    ...researcherScript,
    setting: o.setting as AgentSetting,
    levels,
    maxTurns,
    maxSteps,
    tasks: ids,
    backend: o.backend,
    shard: o.shard ?? null,
    ...(gridTasks ? { gridTasks } : {}),
    ...(anySampling ? { sampling } : {}),
    protocol,
  };
  const folder = new RunFolder(resolve(o.out));
  try {
    folder.checkWritable();
  } catch (e) {
    throw new ConfigError(`--out: ${(e as Error).message}`);
  }
  let existing: RunConfig | null;
  try {
    existing = folder.readConfig();
  } catch (e) {
    throw new ConfigError(`--out: ${(e as Error).message}; use another --out, or fix or remove that file`);
  }
  if (existing) {
    const keys: (keyof RunConfig)[] = [
      "model",
      "researcher",
      "setting",
      "maxTurns",
      "maxSteps",
      "backend",
      "shard",
      "sampling",
      "protocol",
      // (A folder written before the script's digest was kept is taken as holding this script.)
      ...(existing.scriptSha256 ? (["scriptSha256"] as const) : []),
      ...(existing.researcherScriptSha256 ? (["researcherScriptSha256"] as const) : []),
      // A shard is a part of its grid: the same shard of another task list is another part (from before it was kept: taken as the same).
      ...(existing.gridTasks ? (["gridTasks"] as const) : []),
    ];
    // (A folder written before profiles holds a playground run.)
    const norm = (c: RunConfig, k: keyof RunConfig) => JSON.stringify(k === "protocol" ? (c.protocol ?? DEFAULT_PROTOCOL) : c[k]);
    const diff = keys.filter((k) => norm(existing, k) !== norm(config, k));
    const shown = (c: RunConfig, k: keyof RunConfig) =>
      k === "sampling" && !c.sampling
        ? "the protocol's"
        : k === "shard" && !c.shard
          ? "none"
          : k === "scriptSha256" || k === "researcherScriptSha256"
            ? c[k]
              ? `${c[k].slice(0, 12)}…`
              : "none"
            : k === "gridTasks"
              ? taskListText(c.gridTasks ?? [])
              : norm(c, k);
    if (diff.length) {
      throw new ConfigError(
        `${folder.configPath} holds a run with a different ${diff.map((k) => `${OPTION_OF[k] ?? k} (${shown(existing, k)}; this run: ${shown(config, k)})`).join(", ")}; use another --out or the same settings to resume`,
      );
    }
    config.levels = [...new Set([...existing.levels, ...levels])].sort() as FeedbackLevel[];
    config.tasks = [...new Set([...existing.tasks, ...ids])].sort();
  }
  const taskFolders = [resolve(o.dir), ...tasks.map((t) => resolve(o.dir, t.id))];
  return {
    config: { ...config },
    folder,
    tasks,
    levels,
    workers,
    coder,
    makeResearcher,
    packageSource: o.packageSource,
    sandbox,
    taskFolders,
    retries,
  };
}

/** Run the batch. Returns the exit code: 0 done, 1 some episodes errored, 130 stopped. */
export async function executeRun(
  p: PreparedRun,
  log: (s: string) => void,
  signal: AbortSignal,
  tty = Boolean(process.stderr.isTTY),
): Promise<number> {
  p.folder.writeConfig(p.config);
  const versions = appVersion();
  const { model, setting, maxTurns, maxSteps } = p.config;
  const levels = p.levels;
  const todo = p.tasks.map((t) => t);
  const total = p.tasks.length * levels.length;
  const progress = makeProgress(total, p.workers, log, tty);
  p.retries.log = (line) => progress.log(line);
  let errors = 0;
  let skipped = 0;
  let storageError: string | null = null;
  const store = folderEpisodeStore(p.folder);
  // Stopped on request (Ctrl-C), or when a save fails.
  const stopAll = new AbortController();
  const onAbort = () => stopAll.abort();
  signal.addEventListener("abort", onAbort);

  async function work(w: number): Promise<void> {
    const runtime: PythonRuntime = createRuntime(p.config.backend, {
      ...packageOptions(p.packageSource),
      sandbox: p.sandbox,
      hide: p.taskFolders,
    });
    const { researcher, usage } = p.makeResearcher();
    try {
      await runtime.ready();
      for (let task = todo.shift(); task; task = todo.shift()) {
        if (stopAll.signal.aborted) return;
        progress.start(task.id, w, levels.length * maxTurns);
        const env: EpisodeEnv = {
          task,
          runtime,
          researcher,
          researcherUsage: usage,
          createAgent: () => createAgent(setting, p.coder, { maxSteps, profile: p.config.protocol ?? DEFAULT_PROTOCOL }),
          versions,
          request: (t, code) => taskRunRequest(t, code),
          signal: stopAll.signal,
        };
        const config = {
          model,
          researcher: p.config.researcher,
          setting,
          maxTurns,
          maxSteps,
          sampling: p.config.sampling,
          protocol: p.config.protocol ?? DEFAULT_PROTOCOL,
        };
        const out = await runTaskEpisodes(env, store, config, levels, (e) => {
          switch (e.type) {
            case "problem":
              progress.log(`warning: ${e.message}\n`);
              break;
            case "level-skip":
              skipped += 1;
              progress.episodeKept();
              break;
            case "turn0-start":
              progress.note(w, `${task.id} turn 0 (shared by the levels)`);
              break;
            case "level-start":
              progress.note(w, `${task.id} L${e.level}${e.resumedAt !== null ? ` (resumed: ${plural(e.resumedAt, "turn")} saved)` : ""}`);
              break;
            case "saved": {
              const t = e.trajectory;
              progress.turn(w, `${task.id} L${t.config.level} turn ${t.turns.length - 1}`, t.finished ? maxTurns - t.turns.length : 0);
              break;
            }
            case "level-done":
              if (e.trajectory.stoppedReason === "error") errors += 1;
              progress.episodeDone(episodeLine(e.trajectory));
              break;
          }
        });
        if (out.cancelled || signal.aborted) return;
        if (out.error?.startsWith("turn 0 failed")) progress.log(`${task.id}: ${out.error}\n`);
        else if (out.error && out.trajectories.every((t) => t.stoppedReason !== "error") && !out.storageFailed) {
          // Stored episodes this run may not continue (other limits).
          errors += 1;
          progress.log(`${task.id}: ${out.error}\n`);
        }
        if (out.storageFailed) {
          // Nothing more can be saved: stop every worker; what was saved stays.
          storageError ??= `${task.id}: ${out.error}`;
          stopAll.abort();
          return;
        }
        progress.taskDone(w);
      }
    } finally {
      await runtime.dispose();
    }
  }

  try {
    await Promise.all(Array.from({ length: Math.min(p.workers, Math.max(1, p.tasks.length)) }, (_, w) => work(w)));
  } finally {
    progress.stop();
    signal.removeEventListener("abort", onAbort);
  }
  if (storageError) {
    log(
      `stopped: a result could not be saved (${storageError}). What was saved before is kept; free space or fix the folder, then run the same command again to resume.\n`,
    );
    return 1;
  }
  if (signal.aborted) {
    log(`stopped; finished turns are saved in ${p.folder.root}. Run the same command again to resume.\n`);
    return 130;
  }
  log(
    `done: ${plural(total, "episode")} in ${p.folder.root}${skipped ? ` (${skipped} already finished)` : ""}${errors ? `, ${errors} ended in an error (run again to retry them)` : ""}\n`,
  );
  return errors ? 1 : 0;
}
