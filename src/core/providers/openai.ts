/**
 * OpenAI-compatible chat provider, on the official `openai` SDK. Works with
 * OpenAI, Ollama (`http://localhost:11434/v1`), vLLM and the llama.cpp server:
 * a missing `usage` is recorded as unreported (not as zero), and a server that rejects a
 * parameter (`response_format`, a reasoning model's `temperature`) gets the
 * request again without it.
 *
 * Decoding defaults follow RECODE-H ("Interaction protocol": temperature 0,
 * top-p 1). Retries (exponential backoff with jitter, honouring Retry-After)
 * cover 429, 5xx, timeouts, connection errors and unreadable bodies; any other
 * 4xx fails at once with a message that says what to fix.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { type ChatRequest, type ChatResponse, ModelError, type TokenUsage } from "../model";
import { type ReplyText, readReply } from "./reply";
import { type MeteredChatModel, nowMs, type OnCall, UsageMeter } from "./usage";

/** `fetch` as the SDK accepts it (the global one by default). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Why a retry happens and how long the wait before it is. */
export interface RetryInfo {
  /** 1-based number of the retry about to happen. */
  attempt: number;
  /** Wait before it, in milliseconds. */
  delayMs: number;
  /** HTTP status, or undefined for timeouts and connection errors. */
  status?: number;
  /** Short reason, e.g. `HTTP 429`, `timeout`, `connection error`. */
  reason: string;
}

/** Options of {@link createOpenAIModel}. */
export interface OpenAIModelOptions {
  /** Base URL of the OpenAI-compatible API, including `/v1`, e.g. `http://localhost:11434/v1`. */
  baseURL: string;
  /** API key; local servers accept any (a placeholder is sent when absent). */
  apiKey?: string;
  /** Model name as the server knows it, e.g. `gpt-4o-mini`, `qwen2.5-coder:7b`. */
  model: string;
  /** Provider part of the model id (`<provider>:<model>`); default `openai`. */
  provider?: string;
  /** Per-attempt timeout in milliseconds; default 120 000. */
  timeoutMs?: number;
  /** Retries after the first attempt on retryable failures; default 4. */
  maxRetries?: number;
  /** Backoff base in milliseconds: attempt k waits about base * 2^(k-1), with jitter; default 1000. */
  retryBaseMs?: number;
  /** Upper bound of one wait (backoff or Retry-After), in milliseconds; default 60 000. */
  maxRetryDelayMs?: number;
  /**
   * Where the user sets the API key and the timeout, as failure messages name them (the CLI: `RECODE_API_KEY or
   * --api-key`, `--timeout <seconds>`); default "the API key" and "the timeout".
   */
  settingNames?: { apiKey: string; timeout: string };
  /** Custom fetch (tests, proxies). */
  fetch?: FetchLike;
  /** Called before each retry (progress lines, logs). */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Called once per parameter the server refused with HTTP 400, as the call is sent again without it (and
   * later calls leave it out): `temperature`, `top_p`, `max_tokens` (sent as `max_completion_tokens` from
   * then on) or `response_format`.
   */
  onLeftOut?: (param: string) => void;
  /** Called after each successful call with its tokens and latency. */
  onCall?: OnCall;
  /** Waits between retries; injectable so tests need not sleep. Must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_RETRY_BASE_MS = 1000;
const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;
/** Sent when no key is given: Ollama, vLLM and llama.cpp ignore it, the SDK needs one. */
const PLACEHOLDER_KEY = "no-key";

function checkOptions(opts: OpenAIModelOptions): void {
  const where = "the endpoint's settings";
  if (typeof opts.baseURL !== "string" || !/^https?:\/\//.test(opts.baseURL)) {
    throw new Error(
      `the endpoint's base URL must be an http(s) URL such as http://localhost:11434/v1, got ${JSON.stringify(opts.baseURL)}`,
    );
  }
  if (typeof opts.model !== "string" || opts.model.trim() === "") {
    throw new Error(`the model must be a non-empty model name, got ${JSON.stringify(opts.model)}`);
  }
  for (const key of ["timeoutMs", "maxRetries", "retryBaseMs", "maxRetryDelayMs"] as const) {
    const v = opts[key];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v >= 0)) {
      throw new Error(`${where}: ${key} must be a non-negative number, got ${JSON.stringify(v)}`);
    }
  }
}

function makeClient(opts: OpenAIModelOptions): OpenAI {
  return new OpenAI({
    baseURL: opts.baseURL,
    apiKey: opts.apiKey || PLACEHOLDER_KEY,
    organization: null,
    project: null,
    timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: 0,
    dangerouslyAllowBrowser: true,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}

/** Abortable wait. */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error("aborted"));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Parse `retry-after-ms` / `Retry-After` (seconds or an HTTP date) into milliseconds.
 * Returns undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = headers.get("retry-after");
  if (ra === null || ra.trim() === "") return undefined;
  const seconds = Number(ra);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Classified failure of one attempt. */
interface Failure {
  retryable: boolean;
  status?: number;
  /** The request parameter the server named, if any. */
  param?: string;
  reason: string;
  message: string;
  retryAfter?: number;
}

function causeText(err: unknown): string {
  // fetch wraps the socket error: APIConnectionError -> TypeError("fetch failed") -> Error { code: "ECONNREFUSED" }.
  const parts: string[] = [];
  let cur = (err as { cause?: unknown }).cause;
  for (let depth = 0; cur && depth < 4; depth++) {
    const code = (cur as { code?: unknown }).code;
    const msg = cur instanceof Error ? cur.message : String(cur);
    parts.push(typeof code === "string" && !msg.includes(code) ? `${code} ${msg}` : msg);
    cur = (cur as { cause?: unknown }).cause;
  }
  return parts.join(": ");
}

function serverMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | undefined;
  if (body && typeof body.message === "string") return body.message;
  // A web page (an HTML error page: a plain web server, not an OpenAI-compatible API) is named, not quoted whole.
  if (/<!DOCTYPE html|<html[\s>]/i.test(err.message))
    return `an HTML page, not an OpenAI-compatible answer: is the base URL that of an OpenAI-compatible API (ending in /v1)?`;
  return err.message.length > 500 ? `${err.message.slice(0, 500)}…` : err.message;
}

function classify(err: unknown, opts: OpenAIModelOptions): Failure {
  const url = opts.baseURL;
  if (err instanceof APIConnectionTimeoutError) {
    const ms = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return {
      retryable: true,
      reason: "timeout",
      message: `no answer from ${url} within ${ms} ms; raise ${opts.settingNames?.timeout ?? "the timeout"}, use a smaller model, or check that the server is not overloaded`,
    };
  }
  if (err instanceof APIConnectionError) {
    const cause = causeText(err);
    // A server that answered and then dropped the connection is running: it broke off (a crash, a proxy's limit).
    if (/UND_ERR_SOCKET|ECONNRESET|other side closed|socket hang up/i.test(cause))
      return {
        retryable: true,
        reason: "connection error",
        message: `the server at ${url} closed the connection before it answered (it crashed, restarted, or a proxy cut it) (${cause})`,
      };
    return {
      retryable: true,
      reason: "connection error",
      message: `cannot reach the server at ${url}: is the server running at ${url}?${inPage() ? " In the page, the server must also allow requests from this page's origin (CORS; for Ollama set OLLAMA_ORIGINS)." : ""}${cause ? ` (${cause})` : ""}`,
    };
  }
  if (err instanceof APIError && typeof err.status === "number") {
    const status = err.status;
    const detail = serverMessage(err);
    if (status === 429) {
      return {
        retryable: true,
        status,
        reason: "HTTP 429",
        message: `rate limited (HTTP 429): ${detail}; wait, lower concurrency, or check the account's quota`,
        retryAfter: retryAfterMs(err.headers),
      };
    }
    if (status >= 500) {
      return {
        retryable: true,
        status,
        reason: `HTTP ${status}`,
        message: `server error (HTTP ${status}) from ${url}: ${detail}`,
        retryAfter: retryAfterMs(err.headers),
      };
    }
    if (status === 408) {
      return { retryable: true, status, reason: "HTTP 408", message: `request timeout (HTTP 408) from ${url}: ${detail}` };
    }
    if (status === 401) {
      return {
        retryable: false,
        status,
        reason: "HTTP 401",
        message: `the API key was rejected (HTTP 401): ${detail}; check ${opts.settingNames?.apiKey ?? "the API key"} for ${url}`,
      };
    }
    if (status === 403) {
      return {
        retryable: false,
        status,
        reason: "HTTP 403",
        message: `access denied (HTTP 403): ${detail}; the key has no access to model "${opts.model}" at ${url}`,
      };
    }
    if (status === 404) {
      return {
        retryable: false,
        status,
        reason: "HTTP 404",
        message: `not found (HTTP 404): ${detail}; check the model name "${opts.model}" (for Ollama: \`ollama pull ${opts.model}\`) and that the base URL ${url} ends with /v1`,
      };
    }
    return {
      retryable: false,
      status,
      param: rejectedParam(err, detail),
      reason: `HTTP ${status}`,
      message: `request rejected (HTTP ${status}) by ${url}: ${detail}`,
    };
  }
  if (err instanceof SyntaxError) {
    return {
      retryable: true,
      reason: "unreadable body",
      message: `the server at ${url} answered with a body that is not valid JSON (${err.message}); is ${url} an OpenAI-compatible /v1 endpoint?`,
    };
  }
  const msg = err instanceof Error ? err.message : String(err);
  return { retryable: false, reason: "error", message: `request failed: ${msg}` };
}

/** Sampling and length parameters a server may refuse for a model (OpenAI's reasoning models refuse temperature and top_p, and want max_completion_tokens). */
const ADJUSTABLE = ["temperature", "top_p", "max_tokens", "response_format"] as const;
type Adjustable = (typeof ADJUSTABLE)[number];

/** The parameter a 4xx names: the error's `param` field, or one its message names (quoted or not). */
function rejectedParam(err: APIError, detail: string): string | undefined {
  if (typeof err.param === "string" && err.param) return err.param;
  return (
    ADJUSTABLE.find((p) => new RegExp(`['"\`]${p}['"\`]`).test(detail)) ??
    ADJUSTABLE.find((p) => new RegExp(`(?<![\\w.])${p}(?![\\w])`).test(detail)) ??
    (/(?<![\w.])max_completion_tokens(?!\w)/.test(detail) ? "max_completion_tokens" : undefined)
  );
}

/** OpenAI's reasoning models (o1, o3, o4-mini, gpt-5...): no temperature or top_p, `max_completion_tokens` instead of `max_tokens`. */
export function isOpenAIReasoningModel(provider: string, model: string): boolean {
  return provider === "openai" && /^(o\d|gpt-5)/i.test(model);
}

function backoffMs(attempt: number, base: number, max: number): number {
  const exp = Math.min(max, base * 2 ** (attempt - 1));
  // Jitter: between half and all of the exponential delay.
  return Math.round(exp / 2 + Math.random() * (exp / 2));
}

/** Whether this runs in a browser page or worker (where a refused cross-origin request looks like a dead server). */
function inPage(): boolean {
  return (
    typeof (globalThis as { document?: unknown }).document !== "undefined" ||
    typeof (globalThis as { importScripts?: unknown }).importScripts === "function"
  );
}

/** Whether a server's token count is one (a finite number, not negative). */
function isCount(v: unknown): boolean {
  return typeof v === "number" && Number.isFinite(v) && v >= 0;
}

/** A token count as reported, or 0 when it is missing, negative or not a number. */
export function tokenCount(v: unknown): number {
  return isCount(v) ? Math.round(v as number) : 0;
}

function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return err instanceof APIUserAbortError || (signal?.aborted ?? false);
}

/**
 * Run `attempt` with the retry policy: retryable failures wait (Retry-After when
 * the server sent one, else exponential backoff with jitter, both capped) and try
 * again up to `maxRetries` times. Throws ModelError (with the status when there
 * was one) once the failure is final.
 */
async function withRetries<T>(
  modelId: string,
  opts: OpenAIModelOptions,
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
): Promise<{ value: T; retried: string[]; waitedMs: number }> {
  const maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
  const base = opts.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  const maxDelay = opts.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  const sleep = opts.sleep ?? defaultSleep;
  const retried: string[] = [];
  let waitedMs = 0;
  for (let retries = 0; ; retries++) {
    try {
      return { value: await attempt(), retried, waitedMs };
    } catch (err) {
      if (err instanceof ModelError) throw err;
      if (isAbort(err, signal)) throw new ModelError(modelId, "the request was cancelled");
      const f = classify(err, opts);
      if (!f.retryable || retries >= maxRetries) {
        const tail = f.retryable && maxRetries > 0 ? ` (gave up after ${retries + 1} attempts)` : "";
        throw new ModelError(modelId, f.message + tail, f.status, f.param);
      }
      const delayMs = Math.min(maxDelay, f.retryAfter ?? backoffMs(retries + 1, base, maxDelay));
      retried.push(f.reason);
      opts.onRetry?.({ attempt: retries + 1, delayMs, status: f.status, reason: f.reason });
      const before = nowMs();
      try {
        await sleep(delayMs, signal);
      } catch {
        throw new ModelError(modelId, "the request was cancelled");
      } finally {
        waitedMs += nowMs() - before;
      }
    }
  }
}

/**
 * Create a chat model on an OpenAI-compatible endpoint.
 *
 * id: `<provider>:<model>` (`openai:<model>` by default). Each call sends
 * temperature 0 and top_p 1 unless the request says otherwise; `json: true`
 * sends `response_format: {type: "json_object"}`. A server that answers HTTP
 * 400 naming one of these parameters (or `max_tokens`) gets the call again
 * without it (`max_completion_tokens` instead of `max_tokens`), once per
 * parameter, and later calls leave it out; a second 400 naming temperature
 * (or top_p) once it is left out takes the other one out too; OpenAI's reasoning models (o1, o3,
 * o4-mini, gpt-5) get neither temperature nor top_p from the start. The answer
 * is the message's final text ({@link readReply}: content parts joined,
 * reasoning kept apart in `reasoning`); `truncated` marks a reply cut at the
 * token limit. A missing `usage` is recorded as `unreported` (its zeros are unknown).
 *
 * @throws Error at once for bad options (names the option).
 * @returns a model whose `chat` rejects with {@link ModelError} (status set for
 *   HTTP failures) after retries, with a message saying what to fix.
 */
export function createOpenAIModel(opts: OpenAIModelOptions): MeteredChatModel {
  checkOptions(opts);
  const provider = opts.provider ?? "openai";
  const id = `${provider}:${opts.model}`;
  const client = makeClient(opts);
  const meter = new UsageMeter(opts.onCall);
  // What this model's server refused so far: later calls leave it out from the start.
  const refused = new Set<Adjustable>();
  if (isOpenAIReasoningModel(provider, opts.model)) {
    refused.add("temperature");
    refused.add("top_p");
    refused.add("max_tokens");
  }

  async function chat(req: ChatRequest): Promise<ChatResponse> {
    if (!req || !Array.isArray(req.messages) || req.messages.length === 0) {
      throw new ModelError(id, "chat request needs at least one message in `messages`");
    }
    const started = nowMs();
    // The failures retried before the answer, by reason (kept in the reply: a trajectory shows them).
    const retried: string[] = [];
    let retryWaitMs = 0;
    const body = (): OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming => ({
      model: opts.model,
      messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
      ...(refused.has("temperature") || req.temperature === null ? {} : { temperature: req.temperature ?? 0 }),
      ...(refused.has("top_p") || req.topP === null ? {} : { top_p: req.topP ?? 1 }),
      ...(req.maxTokens === undefined || req.maxTokens === null
        ? {}
        : refused.has("max_tokens")
          ? { max_completion_tokens: req.maxTokens }
          : { max_tokens: req.maxTokens }),
      ...(req.json === true && !refused.has("response_format") ? { response_format: { type: "json_object" as const } } : {}),
    });
    const send = async () => {
      const {
        value,
        retried: again,
        waitedMs,
      } = await withRetries(id, opts, req.signal, async () => {
        // The deadline covers the whole answer, body included (a body that never ends is a timeout too).
        const ctl = new AbortController();
        let expired = false;
        const timer = setTimeout(
          () => {
            expired = true;
            ctl.abort();
          },
          (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) + 1000,
        );
        const onAbort = () => ctl.abort();
        if (req.signal?.aborted) ctl.abort();
        req.signal?.addEventListener("abort", onAbort, { once: true });
        try {
          return await client.chat.completions.create(body(), { signal: ctl.signal });
        } catch (err) {
          if (expired && !req.signal?.aborted) throw new APIConnectionTimeoutError({ message: "the answer did not finish in time" });
          throw err;
        } finally {
          clearTimeout(timer);
          req.signal?.removeEventListener("abort", onAbort);
        }
      });
      retried.push(...again);
      retryWaitMs += waitedMs;
      return value;
    };
    try {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      for (;;) {
        try {
          completion = await send();
          break;
        } catch (err) {
          // A 400 that names a parameter this call sent: once per parameter, ask again without it.
          const param = err instanceof ModelError && err.status === 400 ? adjustableParam(err, req) : undefined;
          if (!param) throw err;
          if (refused.has(param)) {
            // The same sampling parameter again, though the call no longer sends it: the server refuses
            // sampling settings as a whole and names one (case 08). Leave the other one out too, once.
            const other = param === "temperature" ? "top_p" : param === "top_p" ? "temperature" : null;
            const sent = other === "top_p" ? req.topP !== null : req.temperature !== null;
            if (!other || refused.has(other) || !sent) throw err;
            refused.add(other);
            opts.onLeftOut?.(other);
            continue;
          }
          refused.add(param);
          opts.onLeftOut?.(param);
        }
      }
      // The SDK gives a body that is not JSON as its text: a web page where the API was expected.
      if (typeof (completion as unknown) === "string") {
        const head = JSON.stringify((completion as unknown as string).trim().slice(0, 40));
        throw new ModelError(
          id,
          `the response from ${opts.baseURL} is not JSON (it begins ${head}); is the base URL the API's (often ending in /v1)?`,
        );
      }
      const choice = completion?.choices?.[0];
      if (!choice?.message) {
        throw new ModelError(id, `the response from ${opts.baseURL} has no choices[0].message; is it an OpenAI-compatible endpoint?`);
      }
      let reply: ReplyText;
      try {
        reply = readReply(choice.message as unknown as Record<string, unknown>);
      } catch (e) {
        throw new ModelError(id, `the response from ${opts.baseURL} cannot be read: ${(e as Error).message}`);
      }
      // Servers differ: a missing usage block (or count) is recorded as unreported, not as zero tokens.
      const u = completion.usage;
      const usage: TokenUsage = {
        promptTokens: tokenCount(u?.prompt_tokens),
        completionTokens: tokenCount(u?.completion_tokens),
        ...(isCount(u?.prompt_tokens) && isCount(u?.completion_tokens) ? {} : { unreported: true as const }),
      };
      const latencyMs = nowMs() - started;
      meter.success({ usage, latencyMs, retries: retried.length });
      const leftOut = leftOutOf(req, refused);
      return {
        content: reply.text,
        usage,
        latencyMs,
        model: completion.model || opts.model,
        ...(leftOut.length > 0 ? { leftOut } : {}),
        ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
        ...(choice.finish_reason === "length" ? { truncated: true } : {}),
        ...(retried.length > 0 ? { retried } : {}),
        ...(retryWaitMs > 0 ? { retryWaitMs } : {}),
      };
    } catch (err) {
      meter.failure();
      throw err;
    }
  }

  return { id, chat, totals: () => meter.totals(), calls: () => meter.calls() };
}

/**
 * What a call asked for but did not send, because this model's server refused it (or, for OpenAI's
 * reasoning models, refuses it): `temperature`, `top_p`, `response_format`, `max_tokens (sent as
 * max_completion_tokens)`. A parameter the call left to the server's default anyway is not listed.
 */
function leftOutOf(req: ChatRequest, refused: ReadonlySet<Adjustable>): string[] {
  const out: string[] = [];
  if (refused.has("temperature") && req.temperature !== null) out.push("temperature");
  if (refused.has("top_p") && req.topP !== null) out.push("top_p");
  if (refused.has("max_tokens") && req.maxTokens !== undefined && req.maxTokens !== null)
    out.push("max_tokens (sent as max_completion_tokens)");
  if (refused.has("response_format") && req.json === true) out.push("response_format");
  return out;
}

/** The parameter a rejected call named, when the call sent it and it can be left out (or renamed). */
function adjustableParam(err: ModelError, req: ChatRequest): Adjustable | undefined {
  // A 400 that names nothing, to a call that asked for JSON: JSON mode is the usual culprit (older servers).
  if (err.param === undefined) return req.json === true ? "response_format" : undefined;
  const p = ADJUSTABLE.find((a) => a === err.param || (err.param === "max_completion_tokens" && a === "max_tokens"));
  if (!p) return undefined;
  if (p === "response_format" && req.json !== true) return undefined;
  if (p === "max_tokens" && (req.maxTokens === undefined || req.maxTokens === null)) return undefined;
  return p;
}

/** What {@link checkEndpoint} found. */
export interface EndpointCheck {
  /** `models`: GET /models answered; `chat`: it did not, a 1-token chat did. */
  via: "models" | "chat";
  /** Model names the server listed (empty when probed via chat). */
  models: string[];
  /** Wall time of the probe in milliseconds. */
  latencyMs: number;
}

function modelListed(listed: string[], model: string): boolean {
  return listed.some((m) => m === model || m === `${model}:latest` || `${m}:latest` === model);
}

/**
 * Cheap probe before a batch: GET /models (and, when that route is missing or
 * fails with a non-auth error, a 1-token chat). A listed model set that lacks
 * `model` is an error naming the models the server has.
 *
 * @throws ModelError with a fix-it message (key, model name, base URL, server not running).
 */
export async function checkEndpoint(opts: OpenAIModelOptions): Promise<EndpointCheck> {
  checkOptions(opts);
  const id = `${opts.provider ?? "openai"}:${opts.model}`;
  const started = nowMs();
  const probeOpts: OpenAIModelOptions = { ...opts, maxRetries: Math.min(opts.maxRetries ?? 1, 1) };
  const client = makeClient(probeOpts);
  let listed: string[] | undefined;
  try {
    const { value } = await withRetries(id, probeOpts, undefined, async () => {
      const page = await client.models.list();
      return page.data.map((m) => m.id);
    });
    listed = value;
  } catch (err) {
    if (!(err instanceof ModelError)) throw err;
    // Unreachable servers and rejected keys fail the same way on chat: report now.
    if (err.status === undefined || err.status === 401 || err.status === 403) throw err;
  }
  if (listed !== undefined && listed.length > 0) {
    if (!modelListed(listed, opts.model)) {
      const shown = listed.slice(0, 15).join(", ") + (listed.length > 15 ? `, ... (${listed.length} in all)` : "");
      throw new ModelError(
        id,
        `the server at ${opts.baseURL} does not list model "${opts.model}"; available: ${shown}. Fix the model name${
          opts.provider === "ollama" ? ` or run \`ollama pull ${opts.model}\`` : ""
        }`,
        404,
      );
    }
    return { via: "models", models: listed, latencyMs: nowMs() - started };
  }
  const model = createOpenAIModel(probeOpts);
  await model.chat({ messages: [{ role: "user", content: "ping" }], maxTokens: 1 });
  return { via: "chat", models: listed ?? [], latencyMs: nowMs() - started };
}
