/**
 * A real local HTTP server speaking the chat-completions protocol
 * (POST /v1/chat/completions, GET /v1/models) with a programmable queue of
 * replies, for tests of providers, episodes and the `recode run` command.
 * Binds 127.0.0.1 on a free port; call `close()` in afterAll. Every answer
 * carries CORS headers and OPTIONS preflights are answered, so a page served
 * from another origin can call it too.
 *
 * ```ts
 * const stub = await startChatStub();
 * stub.enqueue({ status: 429, headers: { "retry-after": "0" } }, { content: "hello" });
 * const model = createOpenAIModel({ baseURL: stub.baseURL, model: "m" });
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One programmed reply. Fields combine: e.g. `{ delayMs: 50, content: "x" }`. */
export interface StubReply {
  /** Assistant message text (status 200 unless `status` says otherwise). */
  content?: string;
  /** HTTP status; default 200. Non-2xx statuses send an OpenAI-style error body. */
  status?: number;
  /** Error message in the error body (non-2xx); default `stub error <status>`. */
  errorMessage?: string;
  /** Extra response headers, e.g. `{ "retry-after": "1" }`. */
  headers?: Record<string, string>;
  /** Raw body sent verbatim instead of the generated JSON (e.g. malformed JSON). */
  rawBody?: string;
  /** Usage block; `null` leaves it out (llama.cpp / some vLLM builds). Default counts chars/4. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Model name in the response; default the requested model. */
  model?: string;
  /** Wait before answering, in milliseconds. */
  delayMs?: number;
  /** Destroy the socket without answering. */
  drop?: boolean;
  /**
   * Only use this reply when the predicate holds for the request; otherwise the
   * queue is searched further. Default: always.
   */
  when?: (req: RecordedRequest) => boolean;
}

/** A request the stub received. */
export interface RecordedRequest {
  method: string;
  /** Path including query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or null (GET, or an unparsable body: see `rawBody`). */
  body: ChatCompletionBody | null;
  rawBody: string;
}

/** The fields of a chat-completions request body the tests look at. */
export interface ChatCompletionBody {
  model?: string;
  messages?: { role: string; content: string }[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  response_format?: { type: string };
  [key: string]: unknown;
}

/** Options of {@link startChatStub}. */
export interface ChatStubOptions {
  /** Model names GET /v1/models lists; default `["stub-model"]`. `null`: /v1/models answers 404. */
  models?: string[] | null;
  /**
   * Reply when the queue is empty (or nothing in it matches). May be a function of the
   * request. Default: HTTP 500 "chat stub: no reply queued".
   */
  fallback?: StubReply | ((req: RecordedRequest) => StubReply);
}

/** A running stub. */
export interface ChatStub {
  /** `http://127.0.0.1:<port>/v1`, the base URL for OpenAI clients. */
  readonly baseURL: string;
  readonly port: number;
  /** Every request received, oldest first (including GET /v1/models). */
  readonly requests: RecordedRequest[];
  /** Chat-completion requests only. */
  chatRequests(): RecordedRequest[];
  /** Append replies to the queue (consumed by POST /v1/chat/completions in order). */
  enqueue(...replies: StubReply[]): void;
  /** Replies still queued. */
  pending(): number;
  /** Replace the fallback reply. */
  setFallback(fallback: ChatStubOptions["fallback"]): void;
  /** Forget queued replies and recorded requests. */
  reset(): void;
  /** Stop listening and destroy open sockets. */
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** CORS headers on every answer (browsers check them; Node clients ignore them). */
const CORS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers":
    "authorization, content-type, x-stainless-arch, x-stainless-lang, x-stainless-os, x-stainless-package-version, x-stainless-runtime, x-stainless-runtime-version, x-stainless-retry-count, x-stainless-timeout",
  "access-control-max-age": "600",
  "cross-origin-resource-policy": "cross-origin",
};

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...CORS, "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function promptChars(body: ChatCompletionBody | null): number {
  return (body?.messages ?? []).reduce((n, m) => n + (typeof m.content === "string" ? m.content.length : 0), 0);
}

let completionCounter = 0;

/** Start a stub on 127.0.0.1 and a free port. */
export async function startChatStub(options: ChatStubOptions = {}): Promise<ChatStub> {
  const queue: StubReply[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let fallback: ChatStubOptions["fallback"] = options.fallback;
  const models = options.models === undefined ? ["stub-model"] : options.models;

  const take = (rec: RecordedRequest): StubReply => {
    const i = queue.findIndex((r) => !r.when || r.when(rec));
    if (i >= 0) return queue.splice(i, 1)[0] as StubReply;
    if (typeof fallback === "function") return fallback(rec);
    return fallback ?? { status: 500, errorMessage: "chat stub: no reply queued" };
  };

  const answer = (res: ServerResponse, rec: RecordedRequest, reply: StubReply): void => {
    if (reply.drop) {
      res.socket?.destroy();
      return;
    }
    const status = reply.status ?? 200;
    const headers = reply.headers ?? {};
    if (reply.rawBody !== undefined) {
      res.writeHead(status, { ...CORS, "content-type": "application/json", ...headers });
      res.end(reply.rawBody);
      return;
    }
    if (status < 200 || status >= 300) {
      sendJson(
        res,
        status,
        { error: { message: reply.errorMessage ?? `stub error ${status}`, type: "stub_error", param: null, code: null } },
        headers,
      );
      return;
    }
    const content = reply.content ?? "";
    const usage =
      reply.usage === null
        ? undefined
        : (reply.usage ?? {
            prompt_tokens: Math.ceil(promptChars(rec.body) / 4),
            completion_tokens: Math.ceil(content.length / 4),
          });
    completionCounter += 1;
    sendJson(
      res,
      status,
      {
        id: `chatcmpl-stub-${completionCounter}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: reply.model ?? rec.body?.model ?? "stub-model",
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop", logprobs: null }],
        ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
      },
      headers,
    );
  };

  const server = createServer(async (req, res) => {
    const rawBody = await readBody(req);
    let body: ChatCompletionBody | null = null;
    if (rawBody) {
      try {
        body = JSON.parse(rawBody) as ChatCompletionBody;
      } catch {
        body = null;
      }
    }
    const path = req.url ?? "/";
    const rec: RecordedRequest = { method: req.method ?? "GET", path, headers: { ...req.headers }, body, rawBody };
    if (req.method === "OPTIONS") {
      // CORS preflight (not recorded): allow whatever headers the client asks for.
      const asked = req.headers["access-control-request-headers"];
      res.writeHead(204, { ...CORS, ...(typeof asked === "string" ? { "access-control-allow-headers": asked } : {}) });
      res.end();
      return;
    }
    requests.push(rec);
    const route = path.split("?")[0];
    if (req.method === "GET" && route === "/v1/models") {
      if (models === null) {
        sendJson(res, 404, { error: { message: "no such route", type: "not_found" } });
      } else {
        sendJson(res, 200, { object: "list", data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "stub" })) });
      }
      return;
    }
    if (req.method === "POST" && route === "/v1/chat/completions") {
      const reply = take(rec);
      if (reply.delayMs && reply.delayMs > 0) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed && !res.socket?.destroyed) answer(res, rec, reply);
        }, reply.delayMs);
        timers.add(timer);
      } else {
        answer(res, rec, reply);
      }
      return;
    }
    sendJson(res, 404, { error: { message: `chat stub: no route ${req.method} ${route}`, type: "not_found" } });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    chatRequests: () => requests.filter((r) => r.path.startsWith("/v1/chat/completions")),
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    pending: () => queue.length,
    setFallback: (f) => {
      fallback = f;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port that refuses connections: bind 127.0.0.1:0, note the port, close. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
