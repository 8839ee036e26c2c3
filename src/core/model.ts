/**
 * The model interface: every LLM (OpenAI-compatible endpoint, WebLLM in the
 * page, a scripted replay) is reached through {@link ChatModel}.
 */

/** One chat message. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
  /** An assistant's reasoning apart from its answer, kept in trajectories only: never sent back to a model, never parsed. */
  reasoning?: string;
  /** An assistant's reply: the parameters its call left out because the server refused them ({@link ChatResponse.leftOut}); kept in trajectories only. */
  leftOut?: string[];
  /** An assistant's reply: the failures its call retried before it ({@link ChatResponse.retried}); kept in trajectories only. */
  retried?: string[];
}

/**
 * The assistant message a reply becomes in a trajectory: its answer, and its reasoning, left-out parameters and
 * retried failures when there are any.
 */
export function assistantMessage(res: ChatResponse): ChatMessage {
  return {
    role: "assistant",
    content: res.content,
    ...(res.reasoning ? { reasoning: res.reasoning } : {}),
    ...(res.leftOut?.length ? { leftOut: res.leftOut } : {}),
    ...(res.retried?.length ? { retried: res.retried } : {}),
  };
}

/** One chat request. Decoding defaults follow RECODE-H: temperature 0, top-p 1. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Default 0; null leaves it out of the request (the server's default). */
  temperature?: number | null;
  /** Default 1; null leaves it out of the request. */
  topP?: number | null;
  /** Upper bound on completion tokens; the server's default when absent or null. */
  maxTokens?: number | null;
  /** Ask for a JSON object (providers that support it); the caller still validates. */
  json?: boolean;
  signal?: AbortSignal;
}

/** Token counts of one call. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** The server sent no counts: the zeros above are unknown, not zero. */
  unreported?: true;
}

/**
 * Tokens summed over calls, as trajectories, summaries and reports keep them.
 * `unreported`: how many of the calls had no counts from their server (so the
 * sums are a lower bound); absent or 0 when every call reported.
 */
export interface TokenCounts {
  prompt: number;
  completion: number;
  unreported?: number;
}

/** `a + b`, for {@link TokenCounts}. */
export function addTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  const unreported = (a.unreported ?? 0) + (b.unreported ?? 0);
  return { prompt: a.prompt + b.prompt, completion: a.completion + b.completion, ...(unreported ? { unreported } : {}) };
}

/** The counts of one call, as {@link TokenCounts}. */
export function callTokens(u: TokenUsage): TokenCounts {
  return { prompt: u.promptTokens, completion: u.completionTokens, ...(u.unreported ? { unreported: 1 } : {}) };
}

/** One chat response. */
export interface ChatResponse {
  content: string;
  usage: TokenUsage;
  /** Wall time of the call including retries, in milliseconds. */
  latencyMs: number;
  /** Model name as the provider reported it. */
  model: string;
  /** Reasoning the model gave apart from its answer (a field of its own, thinking parts, `<think>` blocks); never parsed for actions or code. */
  reasoning?: string;
  /** The reply was cut at the token limit (`finish_reason: "length"`): the answer may be unfinished. */
  truncated?: boolean;
  /**
   * Parameters the call asked for but did not send because the server refused them (a 400 that named
   * them, or a model known to refuse them), e.g. `temperature`: the server's default was used instead.
   */
  leftOut?: string[];
  /**
   * Failures the call retried before this reply, oldest first, by reason (`HTTP 500`, `HTTP 429`, `timeout`,
   * `connection error`); absent when the first attempt answered.
   */
  retried?: string[];
  /** Milliseconds of `latencyMs` spent waiting before those retries (backoff or Retry-After); absent when none. */
  retryWaitMs?: number;
}

/** A chat model. `id` is `provider:model`, e.g. `openai:gpt-4o-mini`, `scripted:fixture.json`. */
export interface ChatModel {
  readonly id: string;
  /** Rejects with ModelError when the call fails after retries. */
  chat(req: ChatRequest): Promise<ChatResponse>;
}

/** A model call that failed for good (after retries): says which model and why. */
export class ModelError extends Error {
  constructor(
    readonly modelId: string,
    message: string,
    /** HTTP status when there was one. */
    readonly status?: number,
    /** The request parameter the server named as the problem (`temperature`, `max_tokens`, ...), when it named one. */
    readonly param?: string,
  ) {
    super(`model ${modelId}: ${message}`);
    this.name = "ModelError";
  }
}
