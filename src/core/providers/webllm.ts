/**
 * WebLLM chat provider: a model running in the page on WebGPU through
 * `@mlc-ai/web-llm`. The library is imported lazily on first use, so pages and
 * Node processes that never pick WebLLM never load it. Chat goes through the
 * engine's OpenAI-style `engine.chat.completions.create` with RECODE-H decoding
 * (temperature 0, top-p 1).
 */
import { type ChatRequest, type ChatResponse, ModelError } from "../model";
import { type MeteredChatModel, nowMs, type OnCall, UsageMeter } from "./usage";

/** Download / compile progress of the model weights. */
export interface WebLLMProgress {
  /** Fraction done, 0..1. */
  progress: number;
  /** The engine's status line, e.g. `Fetching param cache[3/42]: 120MB fetched`. */
  text: string;
}

/** The part of a WebLLM engine this provider uses (an `MLCEngine`, a worker engine, or a test double). */
export interface WebLLMEngineLike {
  chat: {
    completions: {
      create(req: {
        messages: { role: "system" | "user" | "assistant"; content: string }[];
        temperature?: number;
        top_p?: number;
        max_tokens?: number;
        response_format?: { type: "json_object" };
        stream?: false;
      }): Promise<{
        choices: { message: { content: string | null } }[];
        usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
        model?: string;
      }>;
    };
  };
  unload?(): Promise<void>;
}

/** Builds an engine for `model`, reporting progress (default: `CreateMLCEngine` with `initProgressCallback`). */
export type WebLLMEngineFactory = (model: string, onProgress: (p: WebLLMProgress) => void) => Promise<WebLLMEngineLike>;

/** Options of {@link createWebLLMModel}. */
export interface WebLLMModelOptions {
  /** WebLLM model id from its prebuilt list, e.g. `Qwen2.5-Coder-1.5B-Instruct-q4f16_1-MLC`. */
  model: string;
  /** Download / compile progress, 0..1. */
  onProgress?: (p: WebLLMProgress) => void;
  /** Engine builder; tests inject a mock, the page may pass a Web Worker engine. */
  engineFactory?: WebLLMEngineFactory;
  /** WebGPU probe resolving to an adapter (truthy) or null; default `navigator.gpu?.requestAdapter()`. */
  gpuProbe?: () => Promise<unknown>;
  onCall?: OnCall;
}

/** A WebLLM model; `unload()` frees the GPU memory (the next chat loads again). */
export interface WebLLMChatModel extends MeteredChatModel {
  /** Load the engine now (download weights) instead of on the first chat. */
  load(): Promise<void>;
  unload(): Promise<void>;
}

const NO_WEBGPU = "WebLLM needs WebGPU; use an OpenAI-compatible endpoint such as Ollama instead";

async function defaultGpuProbe(): Promise<unknown> {
  const nav = (globalThis as { navigator?: { gpu?: { requestAdapter(): Promise<unknown> } } }).navigator;
  if (!nav?.gpu) return null;
  return nav.gpu.requestAdapter();
}

/** Model ids WebLLM ships prebuilt configs for (imports the library). */
export async function webLLMModelIds(): Promise<string[]> {
  const webllm = await import("@mlc-ai/web-llm");
  return webllm.prebuiltAppConfig.model_list.map((m) => m.model_id);
}

const defaultFactory: WebLLMEngineFactory = async (model, onProgress) => {
  const webllm = await import("@mlc-ai/web-llm");
  const known = webllm.prebuiltAppConfig.model_list.map((m) => m.model_id);
  if (!known.includes(model)) {
    const small = known.filter((id) => /0\.5B|1\.5B|1B|Coder/i.test(id)).slice(0, 6);
    throw new Error(`unknown WebLLM model "${model}"; pick an id from WebLLM's prebuilt list, e.g. ${small.join(", ")}`);
  }
  const engine = await webllm.CreateMLCEngine(model, {
    initProgressCallback: (r) => onProgress({ progress: r.progress, text: r.text }),
  });
  return engine as unknown as WebLLMEngineLike;
};

/**
 * Create a chat model that runs in the page with WebLLM. id `webllm:<model>`.
 * Nothing is imported or downloaded until the first `chat` (or `load`). Before
 * that, WebGPU is probed; without it every call rejects with a ModelError
 * saying to use an OpenAI-compatible endpoint instead.
 *
 * @throws Error at once when `model` is empty.
 */
export function createWebLLMModel(opts: WebLLMModelOptions): WebLLMChatModel {
  if (typeof opts.model !== "string" || opts.model.trim() === "") {
    throw new Error(`createWebLLMModel: model must be a WebLLM model id, got ${JSON.stringify(opts.model)}`);
  }
  const id = `webllm:${opts.model}`;
  const meter = new UsageMeter(opts.onCall);
  const factory = opts.engineFactory ?? defaultFactory;
  const probe = opts.gpuProbe ?? defaultGpuProbe;
  let engine: Promise<WebLLMEngineLike> | null = null;

  const report = (p: WebLLMProgress) => {
    const progress = Number.isFinite(p.progress) ? Math.min(1, Math.max(0, p.progress)) : 0;
    opts.onProgress?.({ progress, text: p.text });
  };

  const getEngine = (): Promise<WebLLMEngineLike> => {
    if (!engine) {
      engine = (async () => {
        let adapter: unknown = null;
        try {
          adapter = await probe();
        } catch {
          adapter = null;
        }
        if (!adapter) throw new ModelError(id, NO_WEBGPU);
        try {
          const e = await factory(opts.model, report);
          report({ progress: 1, text: "model ready" });
          return e;
        } catch (err) {
          throw new ModelError(id, `could not load the model: ${err instanceof Error ? err.message : String(err)}`);
        }
      })();
      // A failed load may be retried later (e.g. after the user frees GPU memory).
      engine.catch(() => {
        engine = null;
      });
    }
    return engine;
  };

  async function chat(req: ChatRequest): Promise<ChatResponse> {
    const started = nowMs();
    try {
      if (!req || !Array.isArray(req.messages) || req.messages.length === 0) {
        throw new ModelError(id, "chat request needs at least one message in `messages`");
      }
      if (req.signal?.aborted) throw new ModelError(id, "the request was cancelled");
      const e = await getEngine();
      let res: Awaited<ReturnType<WebLLMEngineLike["chat"]["completions"]["create"]>>;
      try {
        res = await e.chat.completions.create({
          messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
          ...(req.temperature === null ? {} : { temperature: req.temperature ?? 0 }),
          ...(req.topP === null ? {} : { top_p: req.topP ?? 1 }),
          ...(req.maxTokens !== undefined && req.maxTokens !== null ? { max_tokens: req.maxTokens } : {}),
          ...(req.json ? { response_format: { type: "json_object" as const } } : {}),
          stream: false,
        });
      } catch (err) {
        throw new ModelError(id, `generation failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      const choice = res?.choices?.[0];
      if (!choice?.message) throw new ModelError(id, "the engine returned no choices[0].message");
      const usage = { promptTokens: res.usage?.prompt_tokens ?? 0, completionTokens: res.usage?.completion_tokens ?? 0 };
      const latencyMs = nowMs() - started;
      meter.success({ usage, latencyMs, retries: 0 });
      return { content: choice.message.content ?? "", usage, latencyMs, model: res.model || opts.model };
    } catch (err) {
      meter.failure();
      throw err;
    }
  }

  return {
    id,
    chat,
    load: async () => {
      await getEngine();
    },
    unload: async () => {
      const current = engine;
      engine = null;
      if (current) {
        const e = await current.catch(() => null);
        await e?.unload?.();
      }
    },
    totals: () => meter.totals(),
    calls: () => meter.calls(),
  };
}
