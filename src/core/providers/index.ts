/**
 * Model providers and the spec parser that picks one: `provider:model` strings
 * as the CLI and the settings page take them.
 *
 * | spec | provider | default base URL |
 * | --- | --- | --- |
 * | `openai:<model>` | OpenAI API (key required) | https://api.openai.com/v1 |
 * | `ollama:<model>` | Ollama | http://localhost:11434/v1 |
 * | `vllm:<model>` | vLLM | http://localhost:8000/v1 |
 * | `llamacpp:<model>` | llama.cpp server | http://localhost:8080/v1 |
 * | `scripted:<name>` | replay of `options.script` | - |
 * | `webllm:<model>` | WebLLM in the page (WebGPU) | - |
 */

import { checkEndpoint, createOpenAIModel, type EndpointCheck, type OpenAIModelOptions } from "./openai";
import { createScriptedModel, type Script, type ScriptInput } from "./scripted";
import type { MeteredChatModel } from "./usage";
import { createWebLLMModel, type WebLLMEngineFactory, type WebLLMProgress } from "./webllm";

export * from "./openai";
export * from "./scripted";
export * from "./usage";
export * from "./webllm";

/** Providers reached over the OpenAI chat-completions protocol, with their default base URLs. */
export const OPENAI_COMPATIBLE_PROVIDERS = {
  openai: "https://api.openai.com/v1",
  ollama: "http://localhost:11434/v1",
  vllm: "http://localhost:8000/v1",
  llamacpp: "http://localhost:8080/v1",
} as const;

/** Every provider name a spec may start with. */
export const KNOWN_PROVIDERS = ["openai", "ollama", "vllm", "llamacpp", "scripted", "webllm"] as const;

/** A provider name. */
export type ProviderName = (typeof KNOWN_PROVIDERS)[number];

/** A parsed `provider:model` spec. */
export interface ModelSpec {
  provider: ProviderName;
  /** Model name (or script name for `scripted`); may itself contain `:` (e.g. `ollama:qwen2.5-coder:7b`). */
  model: string;
}

/** Options of {@link modelFromSpec}. The caller reads environment variables and passes values here. */
export interface ModelFromSpecOptions
  extends Partial<
    Pick<
      OpenAIModelOptions,
      "timeoutMs" | "maxRetries" | "retryBaseMs" | "maxRetryDelayMs" | "fetch" | "onRetry" | "onLeftOut" | "onCall" | "settingNames"
    >
  > {
  /** Overrides the provider's default base URL (OpenAI-compatible providers). */
  baseURL?: string;
  /** API key; required for `openai`, optional elsewhere. */
  apiKey?: string;
  /** The parsed script for `scripted:<name>` (see {@link loadScript}). */
  script?: ScriptInput | Script;
  /** WebLLM download progress. */
  onProgress?: (p: WebLLMProgress) => void;
  /** WebLLM engine builder (a Web Worker engine in the page; a mock in tests). */
  engineFactory?: WebLLMEngineFactory;
  /** WebGPU probe override (tests). */
  gpuProbe?: () => Promise<unknown>;
}

/**
 * Split `provider:model`. The model part keeps any further colons.
 * @throws Error for a spec without a provider or model, or with an unknown provider (lists the known ones).
 */
export function parseModelSpec(spec: string): ModelSpec {
  const text = typeof spec === "string" ? spec.trim() : "";
  const colon = text.indexOf(":");
  const known = KNOWN_PROVIDERS.join(", ");
  if (colon <= 0 || colon === text.length - 1) {
    throw new Error(
      `model spec ${JSON.stringify(spec)} must look like <provider>:<model>, e.g. ollama:qwen2.5-coder:7b; providers: ${known}`,
    );
  }
  const provider = text.slice(0, colon).toLowerCase();
  const model = text.slice(colon + 1);
  if (!(KNOWN_PROVIDERS as readonly string[]).includes(provider)) {
    throw new Error(`unknown model provider "${provider}" in ${JSON.stringify(spec)}; known providers: ${known}`);
  }
  return { provider: provider as ProviderName, model };
}

/**
 * Build the chat model a spec names. `openai:` needs `options.apiKey` unless
 * `options.baseURL` points elsewhere (a proxy or gateway that may not need one).
 *
 * @throws Error for an unknown provider (listing the known ones), a missing
 *   OpenAI key ("set OPENAI_API_KEY or pass --api-key"), or `scripted:` without
 *   `options.script`.
 */
export function modelFromSpec(spec: string, options: ModelFromSpecOptions = {}): MeteredChatModel {
  const { provider, model } = parseModelSpec(spec);
  if (provider === "scripted") {
    if (options.script === undefined) {
      throw new Error(`model spec ${JSON.stringify(spec)} needs a script: pass options.script (the parsed script file, see loadScript)`);
    }
    return createScriptedModel(options.script, model, { onCall: options.onCall });
  }
  if (provider === "webllm") {
    return createWebLLMModel({
      model,
      onProgress: options.onProgress,
      engineFactory: options.engineFactory,
      gpuProbe: options.gpuProbe,
      onCall: options.onCall,
    });
  }
  return createOpenAIModel(openAIOptions(provider, model, options));
}

function openAIOptions(provider: keyof typeof OPENAI_COMPATIBLE_PROVIDERS, model: string, options: ModelFromSpecOptions) {
  const baseURL = options.baseURL ?? OPENAI_COMPATIBLE_PROVIDERS[provider];
  const apiKey = options.apiKey?.trim() || undefined;
  if (provider === "openai" && apiKey === undefined && options.baseURL === undefined) {
    throw new Error(`model openai:${model} needs an API key: set OPENAI_API_KEY or pass --api-key`);
  }
  return {
    baseURL,
    apiKey,
    model,
    provider,
    timeoutMs: options.timeoutMs,
    settingNames: options.settingNames,
    maxRetries: options.maxRetries,
    retryBaseMs: options.retryBaseMs,
    maxRetryDelayMs: options.maxRetryDelayMs,
    fetch: options.fetch,
    onRetry: options.onRetry,
    onLeftOut: options.onLeftOut,
    onCall: options.onCall,
  };
}

/**
 * Probe the endpoint a spec names before a batch starts (see {@link checkEndpoint}).
 * Scripted and WebLLM specs need no probe and resolve to null.
 * @throws Error / ModelError with a fix-it message.
 */
export async function checkModelSpec(spec: string, options: ModelFromSpecOptions = {}): Promise<EndpointCheck | null> {
  const { provider, model } = parseModelSpec(spec);
  if (provider === "scripted" || provider === "webllm") return null;
  return checkEndpoint(openAIOptions(provider, model, options));
}
