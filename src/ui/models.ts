/**
 * Model seats of the page: turns the stored model settings of the coder
 * (agent) and the researcher (llm) into `provider:model` specs and chat models
 * (src/core/providers). No React, no storage: the services call these.
 */
import {
  type EndpointCheck,
  loadScript,
  type MeteredChatModel,
  type ModelFromSpecOptions,
  modelFromSpec,
  OPENAI_COMPATIBLE_PROVIDERS,
  type WebLLMProgress,
} from "../core/providers";
import { parseSampling, type Sampling, withSampling } from "../core/sampling";
import type { EndpointPreset, ModelConfig } from "../store/records";

/** Which seat a model fills: the coder (agent) or the llm researcher. */
export type ModelRole = "coder" | "researcher";

/** Human names of the seats, for messages. */
export const ROLE_NAMES: Record<ModelRole, string> = { coder: "Coder model", researcher: "Researcher model" };

/** Endpoint presets with their default base URLs (the OpenAI-compatible servers RECODE-H users run locally). */
export const ENDPOINT_PRESETS: { id: EndpointPreset; label: string; baseURL: string }[] = [
  { id: "ollama", label: "Ollama", baseURL: OPENAI_COMPATIBLE_PROVIDERS.ollama },
  { id: "vllm", label: "vLLM", baseURL: OPENAI_COMPATIBLE_PROVIDERS.vllm },
  { id: "llamacpp", label: "llama.cpp server", baseURL: OPENAI_COMPATIBLE_PROVIDERS.llamacpp },
  { id: "openai", label: "OpenAI", baseURL: OPENAI_COMPATIBLE_PROVIDERS.openai },
];

/** A seat whose configuration is incomplete or wrong; the message names the seat and the field. */
export class ModelConfigError extends Error {
  constructor(
    readonly role: ModelRole,
    /** The settings field at fault, e.g. `model`, `scriptText`. */
    readonly field: keyof ModelConfig,
    message: string,
  ) {
    super(`${ROLE_NAMES[role]}: ${message}`);
    this.name = "ModelConfigError";
  }
}

/**
 * The `provider:model` spec of a seat, e.g. `ollama:qwen2.5-coder:7b`,
 * `scripted:fix.json`, `webllm:Qwen2.5-Coder-1.5B-Instruct-q4f16_1-MLC`.
 * @throws ModelConfigError when the model name, WebLLM id or script is missing.
 */
export function specOf(role: ModelRole, c: ModelConfig): string {
  if (c.kind === "scripted") {
    if (!c.scriptName || !c.scriptText) throw new ModelConfigError(role, "scriptText", "upload a script file (Settings, Models)");
    return `scripted:${c.scriptName}`;
  }
  if (c.kind === "webllm") {
    if (!c.webllmModel) throw new ModelConfigError(role, "webllmModel", "pick a WebLLM model id (Settings, Models)");
    return `webllm:${c.webllmModel}`;
  }
  if (!c.model.trim()) throw new ModelConfigError(role, "model", "enter the model name the endpoint serves (Settings, Models)");
  return `${c.preset}:${c.model.trim()}`;
}

/**
 * Options for modelFromSpec / checkModelSpec from a seat's settings.
 * @throws ModelConfigError for a base URL that is not an http(s) URL or a broken script (naming the script field).
 */
export function optionsOf(role: ModelRole, c: ModelConfig, onProgress?: (p: WebLLMProgress) => void): ModelFromSpecOptions {
  const o: ModelFromSpecOptions = {};
  if (c.kind === "scripted") {
    try {
      o.script = loadScript(c.scriptText, c.scriptName);
    } catch (e) {
      throw new ModelConfigError(role, "scriptText", (e as Error).message);
    }
    return o;
  }
  if (c.kind === "webllm") {
    if (onProgress) o.onProgress = onProgress;
    return o;
  }
  const preset = ENDPOINT_PRESETS.find((p) => p.id === c.preset);
  const base = c.baseURL.trim();
  if (base && base !== preset?.baseURL) {
    let url: URL;
    try {
      url = new URL(base);
    } catch {
      throw new ModelConfigError(role, "baseURL", `base URL "${base}" is not a URL; use e.g. http://localhost:11434/v1`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new ModelConfigError(role, "baseURL", `base URL "${base}" must start with http:// or https://`);
    o.baseURL = base.replace(/\/+$/, "");
  }
  if (c.apiKey.trim()) o.apiKey = c.apiKey.trim();
  // The page has no one at the terminal to wait for: fail after a few quick retries.
  o.maxRetries = 2;
  o.retryBaseMs = 300;
  o.maxRetryDelayMs = 3000;
  return o;
}

/**
 * The decoding settings of a seat (its `sampling` text; "" gives none).
 * @throws ModelConfigError naming the sampling field and what is wrong in it.
 */
export function samplingOf(role: ModelRole, c: ModelConfig): Sampling {
  try {
    return parseSampling(c.sampling, "sampling");
  } catch (e) {
    throw new ModelConfigError(role, "sampling", `${(e as Error).message} (Settings, Models)`);
  }
}

/**
 * Build the chat model of a seat, decoding with its sampling settings.
 * @throws ModelConfigError / Error with what to fix (missing key, unknown provider, broken script).
 */
export function buildModel(
  role: ModelRole,
  c: ModelConfig,
  onProgress?: (p: WebLLMProgress) => void,
): { spec: string; model: MeteredChatModel } {
  const spec = specOf(role, c);
  const opts = optionsOf(role, c, onProgress);
  const sampling = samplingOf(role, c);
  try {
    return { spec, model: withSampling(modelFromSpec(spec, opts), sampling) };
  } catch (e) {
    throw new Error(`${ROLE_NAMES[role]}: ${(e as Error).message}`);
  }
}

/** One line saying what a successful endpoint probe found. */
export function describeCheck(spec: string, check: EndpointCheck | null): string {
  if (!check) return `${spec}: ready (no endpoint to probe)`;
  const listed = check.models.length
    ? `; the server lists ${check.models.slice(0, 5).join(", ")}${check.models.length > 5 ? ", ..." : ""}`
    : "";
  return `${spec}: connected in ${Math.round(check.latencyMs)} ms (via ${check.via === "models" ? "GET /models" : "a 1-token chat"})${listed}`;
}

/** Whether the browser offers WebGPU (an adapter), which WebLLM needs. Never throws. */
export async function webGpuAvailable(): Promise<boolean> {
  const nav = (globalThis as { navigator?: { gpu?: { requestAdapter(): Promise<unknown> } } }).navigator;
  if (!nav?.gpu) return false;
  try {
    return Boolean(await nav.gpu.requestAdapter());
  } catch {
    return false;
  }
}

/** Message shown when WebLLM is picked in a browser without WebGPU. */
export const NEEDS_WEBGPU =
  "WebLLM needs WebGPU, which this browser does not offer (or it is switched off). Use an OpenAI-compatible endpoint such as Ollama instead, or open the page in a browser with WebGPU.";
