/**
 * Stored record shapes and their upgrades. Every record carries `version`;
 * `restore*` functions take whatever was read from storage (any past version)
 * and return the current shape, or throw RecordError saying what is wrong.
 * Adding a record version: bump the CURRENT constant, add an upgrade step from
 * the previous version, and add a fixture of the old shape to the store tests.
 */
import type { AgentMemoryState } from "../core/agent/types";
import type { SharedTurn0, Turn0Partial } from "../core/episode";
import { restoreAgentMemory, restoreSharedTurn0, restoreTurn0Partial } from "../core/episode-records";
import { DEFAULT_PROTOCOL, type ProtocolProfile } from "../core/protocol";
import type { RunResult } from "../core/results";
import { restoreTrajectory, type Trajectory } from "../core/trajectory";

/** A stored record that cannot be read as any known version. */
export class RecordError extends Error {
  constructor(
    /** Store the record came from, e.g. `drafts`. */
    readonly store: string,
    /** Key of the record in that store. */
    readonly key: string,
    readonly problem: string,
  ) {
    super(`stored ${store} record "${key}": ${problem}`);
    this.name = "RecordError";
  }
}

/** Current version of draft records. */
export const DRAFT_VERSION = 1;
/** Current version of settings records. */
export const SETTINGS_VERSION = 1;
/** Current version of run records. */
export const RUN_VERSION = 1;

/** The coder's unsaved-to-disk work on a task's target file. */
export interface DraftRecord {
  version: typeof DRAFT_VERSION;
  taskId: string;
  /** Full text of the target file. */
  code: string;
  /** When it was last saved, in milliseconds since the Unix epoch. */
  updatedAt: number;
  /** taskContentHash of the task the draft was written against, or null when unknown. */
  taskHash: string | null;
}

/** Page settings. Empty strings mean "use the default". */
export interface SettingsRecord {
  version: typeof SETTINGS_VERSION;
  /** Folder URL holding pyodide.mjs, pyodide.asm.wasm, python_stdlib.zip, pyodide-lock.json. */
  indexURL: string;
  /** Folder URL holding package wheels (numpy etc.). */
  packageBaseUrl: string;
}

/** The last run of a task's unit tests. */
export interface RunRecord {
  version: typeof RUN_VERSION;
  taskId: string;
  /** The target file text that was run. */
  code: string;
  /** When the run finished, in milliseconds since the Unix epoch. */
  finishedAt: number;
  result: RunResult;
}

/** Settings used when nothing is stored. */
export const DEFAULT_SETTINGS: SettingsRecord = { version: SETTINGS_VERSION, indexURL: "", packageBaseUrl: "" };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function versionOf(store: string, key: string, raw: unknown, current: number): number {
  if (!isObject(raw)) throw new RecordError(store, key, `expected an object, found ${raw === null ? "null" : typeof raw}`);
  const v = raw.version ?? 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0)
    throw new RecordError(store, key, `version ${JSON.stringify(v)} is not a record version`);
  if (v > current) {
    throw new RecordError(
      store,
      key,
      `record version ${v} was written by a newer version of the playground (this one reads up to ${current})`,
    );
  }
  return v;
}

function need(store: string, key: string, raw: Record<string, unknown>, field: string, type: "string" | "number"): void {
  if (typeof raw[field] !== type)
    throw new RecordError(store, key, `field ${field} should be a ${type}, found ${JSON.stringify(raw[field])}`);
}

/**
 * Upgrade a stored draft to the current version.
 * Accepts version 0 (an object `{code, savedAt?}` without version, or a bare string of code, as early builds wrote)
 * and version 1. `key` is the task id the record is stored under.
 * @throws RecordError when the record is malformed or from a newer version.
 */
export function restoreDraft(key: string, raw: unknown): DraftRecord {
  if (typeof raw === "string") return { version: DRAFT_VERSION, taskId: key, code: raw, updatedAt: 0, taskHash: null };
  const v = versionOf("drafts", key, raw, DRAFT_VERSION);
  const rec = raw as Record<string, unknown>;
  need("drafts", key, rec, "code", "string");
  if (v === 0) {
    const saved = typeof rec.savedAt === "string" ? Date.parse(rec.savedAt) : Number.NaN;
    return { version: DRAFT_VERSION, taskId: key, code: rec.code as string, updatedAt: Number.isNaN(saved) ? 0 : saved, taskHash: null };
  }
  need("drafts", key, rec, "updatedAt", "number");
  const taskHash = typeof rec.taskHash === "string" ? rec.taskHash : null;
  return { version: DRAFT_VERSION, taskId: key, code: rec.code as string, updatedAt: rec.updatedAt as number, taskHash };
}

/**
 * Upgrade stored settings to the current version; unknown fields are dropped,
 * missing ones take their defaults.
 * @throws RecordError when the record is not an object or from a newer version.
 */
export function restoreSettings(raw: unknown): SettingsRecord {
  versionOf("settings", "settings", raw, SETTINGS_VERSION);
  const rec = raw as Record<string, unknown>;
  const str = (f: string) => (typeof rec[f] === "string" ? (rec[f] as string).trim() : "");
  return { version: SETTINGS_VERSION, indexURL: str("indexURL"), packageBaseUrl: str("packageBaseUrl") };
}

/**
 * Upgrade a stored run record to the current version.
 * @throws RecordError when the record is malformed or from a newer version.
 */
export function restoreRun(key: string, raw: unknown): RunRecord {
  versionOf("runs", key, raw, RUN_VERSION);
  const rec = raw as Record<string, unknown>;
  need("runs", key, rec, "code", "string");
  need("runs", key, rec, "finishedAt", "number");
  const result = rec.result;
  if (!isObject(result) || !Array.isArray(result.tests) || !isObject(result.counts)) {
    throw new RecordError("runs", key, "field result is not a run result (needs tests and counts)");
  }
  return {
    version: RUN_VERSION,
    taskId: key,
    code: rec.code as string,
    finishedAt: rec.finishedAt as number,
    result: result as unknown as RunResult,
  };
}

// ---------------------------------------------------------------------------
// Model settings: the coder (agent) and the researcher (llm) models.

/** Current version of model settings records. */
export const MODEL_SETTINGS_VERSION = 1;

/** How a model is reached. */
export type ModelKind = "endpoint" | "webllm" | "scripted";

/** Presets of OpenAI-compatible endpoints (the provider part of the model spec). */
export type EndpointPreset = "ollama" | "vllm" | "llamacpp" | "openai";

/** One model seat's configuration (coder or researcher). Empty strings mean "not set". */
export interface ModelConfig {
  kind: ModelKind;
  /** Endpoint flavour; decides the spec's provider and the default base URL. */
  preset: EndpointPreset;
  /** Base URL of the OpenAI-compatible endpoint (e.g. `http://localhost:11434/v1`); "" for the preset's default. */
  baseURL: string;
  /** API key; stored only in this browser. */
  apiKey: string;
  /** Model name at the endpoint, e.g. `qwen2.5-coder:7b`. */
  model: string;
  /** WebLLM prebuilt model id. */
  webllmModel: string;
  /** File name of the uploaded scripted-model script (names the model: `scripted:<name>`). */
  scriptName: string;
  /** JSON text of the script (validated with loadScript when uploaded). */
  scriptText: string;
  /** Decoding settings, `temperature=0.2,top_p=default,max_tokens=4096` (src/core/sampling.ts); "" for the protocol's. */
  sampling: string;
}

/** Models of the page: the coder seat (agent) and the researcher (llm researcher). */
export interface ModelSettingsRecord {
  version: typeof MODEL_SETTINGS_VERSION;
  coder: ModelConfig;
  researcher: ModelConfig;
}

/** A seat with nothing configured (an Ollama endpoint without a model name). */
export const EMPTY_MODEL_CONFIG: ModelConfig = {
  kind: "endpoint",
  preset: "ollama",
  baseURL: "",
  apiKey: "",
  model: "",
  webllmModel: "",
  scriptName: "",
  scriptText: "",
  sampling: "",
};

/** Model settings used when nothing is stored. */
export const DEFAULT_MODEL_SETTINGS: ModelSettingsRecord = {
  version: MODEL_SETTINGS_VERSION,
  coder: { ...EMPTY_MODEL_CONFIG },
  researcher: { ...EMPTY_MODEL_CONFIG },
};

const MODEL_KINDS: readonly ModelKind[] = ["endpoint", "webllm", "scripted"];
const PRESETS: readonly EndpointPreset[] = ["ollama", "vllm", "llamacpp", "openai"];

function restoreModelConfig(raw: unknown): ModelConfig {
  const rec = isObject(raw) ? raw : {};
  const str = (f: keyof ModelConfig) => (typeof rec[f] === "string" ? (rec[f] as string) : "");
  const kind = MODEL_KINDS.includes(rec.kind as ModelKind) ? (rec.kind as ModelKind) : "endpoint";
  const preset = PRESETS.includes(rec.preset as EndpointPreset) ? (rec.preset as EndpointPreset) : "ollama";
  return {
    kind,
    preset,
    baseURL: str("baseURL").trim(),
    apiKey: str("apiKey").trim(),
    model: str("model").trim(),
    webllmModel: str("webllmModel").trim(),
    scriptName: str("scriptName"),
    scriptText: str("scriptText"),
    sampling: str("sampling").trim(),
  };
}

/**
 * Upgrade stored model settings to the current version; unknown fields are
 * dropped, missing or unknown values take their defaults.
 * @throws RecordError when the record is not an object or from a newer version.
 */
export function restoreModelSettings(raw: unknown): ModelSettingsRecord {
  versionOf("settings", "models", raw, MODEL_SETTINGS_VERSION);
  const rec = raw as Record<string, unknown>;
  return { version: MODEL_SETTINGS_VERSION, coder: restoreModelConfig(rec.coder), researcher: restoreModelConfig(rec.researcher) };
}

// ---------------------------------------------------------------------------
// Agent runs: trajectories (saved after every turn) and shared turn 0.

/** Current version of stored trajectory records (the wrapper; the trajectory has its own schemaVersion). */
export const TRAJECTORY_RECORD_VERSION = 1;
/** Current version of stored turn-0 records. */
export const TURN0_RECORD_VERSION = 1;

/** Where a stored trajectory came from. */
export type TrajectorySource = "page" | "import";

/**
 * One episode (model x setting x feedback level x researcher x task) as the
 * page stores it: the trajectory in the current trajectory schema and the
 * agent memory after its last saved turn (for resume; null for imports).
 */
export interface TrajectoryRecord {
  version: typeof TRAJECTORY_RECORD_VERSION;
  /** Store key, see trajectoryKey. */
  key: string;
  trajectory: Trajectory;
  memory: AgentMemoryState | null;
  source: TrajectorySource;
  /** File the trajectory was imported from, or null. */
  fileName: string | null;
  /** When it was last saved, in milliseconds since the Unix epoch. */
  savedAt: number;
}

/** The shared turn 0 of one (model, researcher, setting, task), reused by every feedback level. */
export interface Turn0Record {
  version: typeof TURN0_RECORD_VERSION;
  key: string;
  turn0: SharedTurn0;
  savedAt: number;
}

/** The protocol part of a key: none for `playground` (so keys written before profiles stay valid), else the profile. */
function protocolPart(protocol: ProtocolProfile | undefined): string[] {
  return protocol && protocol !== DEFAULT_PROTOCOL ? [protocol] : [];
}

/**
 * Store key of an episode: model, researcher, setting, level, task, the
 * protocol profile unless `playground`, and `native` when its tests ran
 * natively (an episode imported from a `recode run --backend native` folder
 * is kept beside the page's own Pyodide episode of the same model, level and
 * task, not in its place).
 */
export function trajectoryKey(t: Pick<Trajectory, "config" | "versions"> & { turns?: readonly { run: { backend: string } }[] }): string {
  return JSON.stringify([
    t.config.model,
    t.config.researcher,
    t.config.setting,
    t.config.level,
    t.versions.task.id,
    ...protocolPart(t.config.protocol),
    ...(t.turns?.[0]?.run.backend === "native" ? ["native"] : []),
  ]);
}

/** Store key of a shared turn 0: model, researcher, setting, task, and the protocol profile unless `playground`. */
export function turn0Key(model: string, researcher: string, setting: string, taskId: string, protocol?: ProtocolProfile): string {
  return JSON.stringify([model, researcher, setting, taskId, ...protocolPart(protocol)]);
}

/**
 * Upgrade a stored trajectory record; the trajectory inside goes through
 * restoreTrajectory (any trajectory schema version this build reads).
 * @throws RecordError naming the key and the field when it cannot be read.
 */
export function restoreTrajectoryRecord(key: string, raw: unknown): TrajectoryRecord {
  versionOf("trajectories", key, raw, TRAJECTORY_RECORD_VERSION);
  const rec = raw as Record<string, unknown>;
  let trajectory: Trajectory;
  try {
    trajectory = restoreTrajectory(rec.trajectory);
  } catch (e) {
    throw new RecordError("trajectories", key, `field trajectory: ${(e as Error).message}`);
  }
  let memory: AgentMemoryState | null = null;
  if (rec.memory !== null && rec.memory !== undefined) {
    try {
      memory = restoreAgentMemory(rec.memory, "memory");
    } catch (e) {
      throw new RecordError("trajectories", key, `field ${(e as Error).message}`);
    }
  }
  return {
    version: TRAJECTORY_RECORD_VERSION,
    key,
    trajectory,
    memory,
    source: rec.source === "import" ? "import" : "page",
    fileName: typeof rec.fileName === "string" ? rec.fileName : null,
    savedAt: typeof rec.savedAt === "number" ? rec.savedAt : 0,
  };
}

/**
 * Upgrade a stored turn-0 record.
 * @throws RecordError when the record is malformed or from a newer version.
 */
export function restoreTurn0Record(key: string, raw: unknown): Turn0Record {
  versionOf("turn0", key, raw, TURN0_RECORD_VERSION);
  const rec = raw as Record<string, unknown>;
  let turn0: SharedTurn0;
  try {
    turn0 = restoreSharedTurn0(rec.turn0, "turn0");
  } catch (e) {
    throw new RecordError("turn0", key, `field ${(e as Error).message}`);
  }
  return { version: TURN0_RECORD_VERSION, key, turn0, savedAt: typeof rec.savedAt === "number" ? rec.savedAt : 0 };
}

/** Current version of stored partial turn-0 records. */
export const TURN0_PARTIAL_RECORD_VERSION = 1;

/** The coder's turn 0 of one (model, researcher, setting, task) whose review failed, kept so that the next try only redoes the review. */
export interface Turn0PartialRecord {
  version: typeof TURN0_PARTIAL_RECORD_VERSION;
  key: string;
  partial: Turn0Partial;
  savedAt: number;
}

/** Store key of a partial turn 0 (in the `turn0` store, beside the shared turn 0 of the same key). */
export function turn0PartialKey(model: string, researcher: string, setting: string, taskId: string, protocol?: ProtocolProfile): string {
  return `partial:${turn0Key(model, researcher, setting, taskId, protocol)}`;
}

/**
 * Upgrade a stored partial turn-0 record.
 * @throws RecordError naming the key and the field.
 */
export function restoreTurn0PartialRecord(key: string, raw: unknown): Turn0PartialRecord {
  versionOf("turn0", key, raw, TURN0_PARTIAL_RECORD_VERSION);
  const rec = raw as Record<string, unknown>;
  let partial: Turn0Partial;
  try {
    partial = restoreTurn0Partial(rec.partial, "partial");
  } catch (e) {
    throw new RecordError("turn0", key, `field ${(e as Error).message}`);
  }
  return { version: TURN0_PARTIAL_RECORD_VERSION, key, partial, savedAt: typeof rec.savedAt === "number" ? rec.savedAt : 0 };
}
