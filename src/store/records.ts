/**
 * Stored record shapes and their upgrades. Every record carries `version`;
 * `restore*` functions take whatever was read from storage (any past version)
 * and return the current shape, or throw RecordError saying what is wrong.
 * Adding a record version: bump the CURRENT constant, add an upgrade step from
 * the previous version, and add a fixture of the old shape to the store tests.
 */
import type { RunResult } from "../core/results";

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

/** The version of a stored record, checked (a number this build reads). @throws RecordError */
export function versionOf(store: string, key: string, raw: unknown, current: number): number {
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
