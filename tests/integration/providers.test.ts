import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelError } from "../../src/core/model";
import { checkEndpoint, createOpenAIModel, type OpenAIModelOptions, type RetryInfo } from "../../src/core/providers/openai";
import { type ChatStub, closedPort, startChatStub } from "../helpers/chat-stub-server";

let stub: ChatStub;

beforeAll(async () => {
  stub = await startChatStub({ models: ["stub-model", "qwen2.5-coder:latest"] });
});
afterAll(async () => {
  await stub.close();
});
beforeEach(() => {
  stub.reset();
  stub.setFallback(undefined);
});

const fast = (extra: Partial<OpenAIModelOptions> = {}): OpenAIModelOptions => ({
  baseURL: stub.baseURL,
  model: "stub-model",
  apiKey: "test-key",
  retryBaseMs: 1,
  maxRetryDelayMs: 20,
  timeoutMs: 5000,
  ...extra,
});

const hello = { messages: [{ role: "user" as const, content: "Say hello" }] };

async function modelError(p: Promise<unknown>): Promise<ModelError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ModelError);
    return err as ModelError;
  }
  throw new Error("expected a ModelError, the call succeeded");
}

describe("createOpenAIModel through a real chat-completions server", () => {
  it("returns the reply with usage, sends temperature 0 / top_p 1 and the key", async () => {
    stub.enqueue({ content: "hello there", usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const model = createOpenAIModel(fast());
    expect(model.id).toBe("openai:stub-model");
    const res = await model.chat(hello);
    expect(res.content).toBe("hello there");
    expect(res.usage).toEqual({ promptTokens: 12, completionTokens: 3 });
    expect(res.model).toBe("stub-model");
    expect(res.latencyMs).toBeGreaterThanOrEqual(0);
    const [req] = stub.chatRequests();
    expect(req?.body?.temperature).toBe(0);
    expect(req?.body?.top_p).toBe(1);
    expect(req?.body?.messages).toEqual(hello.messages);
    expect(req?.body?.response_format).toBeUndefined();
    expect(req?.headers.authorization).toBe("Bearer test-key");
    expect(model.totals()).toMatchObject({ calls: 1, failures: 0, promptTokens: 12, completionTokens: 3, retries: 0 });
  });

  it("uses the provider name in the id and records a missing usage block as unreported, not as zero tokens", async () => {
    stub.enqueue({ content: "ok", usage: null });
    const model = createOpenAIModel(fast({ provider: "llamacpp", apiKey: undefined }));
    expect(model.id).toBe("llamacpp:stub-model");
    const res = await model.chat(hello);
    expect(res.usage).toEqual({ promptTokens: 0, completionTokens: 0, unreported: true });
    expect(model.totals()).toMatchObject({ calls: 1, promptTokens: 0, unreported: 1 });
    expect(stub.chatRequests()[0]?.headers.authorization).toBe("Bearer no-key");
  });

  it("retries a 429, honouring Retry-After, then succeeds", async () => {
    stub.enqueue({ status: 429, headers: { "retry-after": "2" } }, { content: "after rate limit" });
    const retries: RetryInfo[] = [];
    const waits: number[] = [];
    const model = createOpenAIModel(
      fast({
        maxRetryDelayMs: 60_000,
        onRetry: (r) => retries.push(r),
        sleep: async (ms) => {
          waits.push(ms);
        },
      }),
    );
    const res = await model.chat(hello);
    expect(res.content).toBe("after rate limit");
    expect(retries).toEqual([{ attempt: 1, delayMs: 2000, status: 429, reason: "HTTP 429" }]);
    expect(waits).toEqual([2000]);
    expect(stub.chatRequests()).toHaveLength(2);
    expect(model.totals().retries).toBe(1);
  });

  it("says how long the call waited before its retries (retryWaitMs), apart from the rest of its time", async () => {
    stub.enqueue({ status: 429, headers: { "retry-after": "2" } }, { content: "after rate limit" });
    const model = createOpenAIModel(fast({ maxRetryDelayMs: 60_000, sleep: (ms) => new Promise((r) => setTimeout(r, ms / 20)) }));
    const res = await model.chat(hello);
    expect(res.retried).toEqual(["HTTP 429"]);
    expect(res.retryWaitMs).toBeGreaterThanOrEqual(95);
    expect(res.latencyMs).toBeGreaterThanOrEqual(res.retryWaitMs ?? 0);
    stub.enqueue({ content: "at once" });
    expect((await model.chat(hello)).retryWaitMs).toBeUndefined();
  });

  it("retries a 500 with backoff, then succeeds", async () => {
    stub.enqueue({ status: 500 }, { status: 503 }, { content: "recovered" });
    const retries: RetryInfo[] = [];
    const model = createOpenAIModel(fast({ onRetry: (r) => retries.push(r) }));
    const res = await model.chat(hello);
    expect(res.content).toBe("recovered");
    expect(retries.map((r) => r.status)).toEqual([500, 503]);
    for (const r of retries) expect(r.delayMs).toBeLessThanOrEqual(20);
  });

  it("gives up on a persistent 500 after maxRetries with the status", async () => {
    stub.setFallback({ status: 500, errorMessage: "engine crashed" });
    const model = createOpenAIModel(fast({ maxRetries: 2 }));
    const err = await modelError(model.chat(hello));
    expect(err.status).toBe(500);
    expect(err.message).toContain("engine crashed");
    expect(err.message).toContain("gave up after 3 attempts");
    expect(stub.chatRequests()).toHaveLength(3);
    expect(model.totals().failures).toBe(1);
  });

  it("fails at once on 401 with a message about the key", async () => {
    stub.enqueue({ status: 401, errorMessage: "Incorrect API key provided" }, { content: "never reached" });
    // Where the key is set, as the caller names it (recode run: the option and the provider's variable).
    const names = { apiKey: "the key (--api-key or RECODE_API_KEY)", timeout: "--timeout <seconds>" };
    const model = createOpenAIModel(fast({ settingNames: names }));
    const err = await modelError(model.chat(hello));
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/API key was rejected/);
    expect(err.message).toContain("check the key (--api-key or RECODE_API_KEY) for http://");
    expect(err.modelId).toBe("openai:stub-model");
    expect(stub.chatRequests()).toHaveLength(1);
  });

  it("fails at once on 404 naming the model and the base URL", async () => {
    stub.enqueue({ status: 404, errorMessage: "model 'nope' not found" });
    const model = createOpenAIModel(fast({ model: "nope", provider: "ollama" }));
    const err = await modelError(model.chat(hello));
    expect(err.status).toBe(404);
    expect(err.message).toContain('"nope"');
    expect(err.message).toContain(stub.baseURL);
    expect(err.message).toContain("ollama pull nope");
  });

  it("retries a malformed JSON body, then reports it clearly if it persists", async () => {
    stub.enqueue({ rawBody: "{not json" }, { content: "fine now" });
    const model = createOpenAIModel(fast());
    expect((await model.chat(hello)).content).toBe("fine now");

    stub.reset();
    stub.setFallback({ rawBody: "<html>proxy error" });
    const err = await modelError(createOpenAIModel(fast({ maxRetries: 1 })).chat(hello));
    expect(err.message).toMatch(/not valid JSON/);
    expect(stub.chatRequests()).toHaveLength(2);
  });

  it("says a web page answered where the API was expected (a base URL without /v1)", async () => {
    stub.reset();
    stub.setFallback({ rawBody: "<!doctype html><html><body>Welcome</body></html>", headers: { "content-type": "text/html" } });
    const err = await modelError(createOpenAIModel(fast({ maxRetries: 0 })).chat(hello));
    expect(err.message).toContain('is not JSON (it begins "<!doctype html><html><body>Welcome</body"); is the base URL the API\'s');
    stub.reset();
  });

  it("reports a dead endpoint as not reachable", async () => {
    const port = await closedPort();
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const model = createOpenAIModel(fast({ baseURL, maxRetries: 1 }));
    const err = await modelError(model.chat(hello));
    expect(err.status).toBeUndefined();
    expect(err.message).toContain(`is the server running at ${baseURL}?`);
  });

  it("retries a dropped connection", async () => {
    stub.enqueue({ drop: true }, { content: "second try" });
    const model = createOpenAIModel(fast());
    expect((await model.chat(hello)).content).toBe("second try");
    expect(stub.chatRequests()).toHaveLength(2);
    // A server that keeps dropping it is running: the message says it closed the connection, not that it is unreachable.
    stub.reset();
    stub.setFallback({ drop: true });
    const err = await modelError(createOpenAIModel(fast({ maxRetries: 0 })).chat(hello));
    expect(err.message).toContain("closed the connection before it answered");
    expect(err.message).not.toContain("is the server running");
    stub.reset();
  });

  it("names a web server's HTML error page instead of quoting it", async () => {
    const page = `<!DOCTYPE HTML>\n<html lang="en">\n<head><title>Error response</title></head>\n<body><h1>Error response</h1>\n<p>Error code: 501</p>\n${"<p>x</p>\n".repeat(40)}</body>\n</html>\n`;
    stub.setFallback({ status: 501, rawBody: page, headers: { "content-type": "text/html" } });
    const err = await modelError(createOpenAIModel(fast({ maxRetries: 0 })).chat(hello));
    expect(err.message).toContain("(HTTP 501)");
    expect(err.message).toContain("an HTML page, not an OpenAI-compatible answer");
    expect(err.message).not.toContain("<p>");
    stub.reset();
  });

  it("times out a slow server, retries, and reports the timeout", async () => {
    stub.enqueue({ delayMs: 2000, content: "too late" }, { content: "in time" });
    const model = createOpenAIModel(fast({ timeoutMs: 150 }));
    expect((await model.chat(hello)).content).toBe("in time");

    stub.reset();
    stub.setFallback({ delayMs: 2000, content: "too late" });
    const err = await modelError(createOpenAIModel(fast({ timeoutMs: 100, maxRetries: 0 })).chat(hello));
    expect(err.message).toMatch(/within 100 ms; raise the timeout,/);
    const named = { apiKey: "the key", timeout: "--timeout <seconds>" };
    const cli = await modelError(createOpenAIModel(fast({ timeoutMs: 100, maxRetries: 0, settingNames: named })).chat(hello));
    expect(cli.message).toMatch(/within 100 ms; raise --timeout <seconds>,/);
  });

  it("asks for a JSON object and, when response_format is rejected, retries once without it", async () => {
    stub.enqueue(
      { status: 400, errorMessage: "response_format is not supported", when: (r) => r.body?.response_format !== undefined },
      { content: '{"ok": true}' },
      { content: '{"again": true}' },
    );
    const model = createOpenAIModel(fast());
    const res = await model.chat({ ...hello, json: true });
    expect(res.content).toBe('{"ok": true}');
    const reqs = stub.chatRequests();
    expect(reqs).toHaveLength(2);
    expect(reqs[0]?.body?.response_format).toEqual({ type: "json_object" });
    expect(reqs[1]?.body?.response_format).toBeUndefined();
    // Later calls skip response_format.
    await model.chat({ ...hello, json: true });
    expect(stub.chatRequests()[2]?.body?.response_format).toBeUndefined();
  });

  it("passes a cancelled signal through as a ModelError without retrying", async () => {
    stub.setFallback({ delayMs: 2000, content: "late" });
    const model = createOpenAIModel(fast());
    const ctrl = new AbortController();
    const p = model.chat({ ...hello, signal: ctrl.signal });
    setTimeout(() => ctrl.abort(), 30);
    const err = await modelError(p);
    expect(err.message).toMatch(/cancelled/);
  });
});

describe("checkEndpoint", () => {
  it("lists models via GET /models", async () => {
    const res = await checkEndpoint(fast());
    expect(res.via).toBe("models");
    expect(res.models).toContain("stub-model");
  });

  it("accepts an Ollama name without the :latest tag", async () => {
    const res = await checkEndpoint(fast({ model: "qwen2.5-coder" }));
    expect(res.via).toBe("models");
  });

  it("rejects a model the server does not list, naming what it has", async () => {
    const err = await modelError(checkEndpoint(fast({ model: "gpt-9" })));
    expect(err.message).toContain('"gpt-9"');
    expect(err.message).toContain("stub-model");
  });

  it("falls back to a 1-token chat when /models is missing", async () => {
    const bare = await startChatStub({ models: null });
    try {
      bare.enqueue({ content: "p" });
      const res = await checkEndpoint(fast({ baseURL: bare.baseURL }));
      expect(res.via).toBe("chat");
      expect(bare.chatRequests()[0]?.body?.max_tokens).toBe(1);
    } finally {
      await bare.close();
    }
  });

  it("says the server is not running for a closed port", async () => {
    const port = await closedPort();
    const err = await modelError(checkEndpoint(fast({ baseURL: `http://127.0.0.1:${port}/v1` })));
    expect(err.message).toMatch(/is the server running at/);
  });

  it("rejects bad options before any request", async () => {
    await expect(checkEndpoint(fast({ baseURL: "localhost:11434" }))).rejects.toThrow(/base URL must be an http\(s\) URL/);
    expect(() => createOpenAIModel(fast({ model: " " }))).toThrow(/model must be a non-empty/);
    expect(() => createOpenAIModel(fast({ retryBaseMs: -1 }))).toThrow(/retryBaseMs/);
  });
});

describe("replies in the shapes servers send", () => {
  const completion = (message: Record<string, unknown>, finish = "stop") =>
    JSON.stringify({
      id: "c1",
      object: "chat.completion",
      created: 1,
      model: "stub-model",
      choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
    });
  const fixture = (name: string) => readFileSync(`tests/fixtures/cases/${name}`, "utf8");

  it("content as a list of parts: the text parts are the answer, the thinking parts the reasoning", async () => {
    stub.enqueue({ rawBody: fixture("10-content-parts.server-response.json") });
    const res = await createOpenAIModel(fast()).chat(hello);
    expect(res.content).toBe("Reflection: ok\nAction: SUBMIT");
    expect(res.reasoning).toBe("The tests only need a submit.");
    expect(res.truncated).toBeUndefined();
  });

  it("reasoning in a field of its own or in <think> blocks is kept apart from the answer", async () => {
    const model = createOpenAIModel(fast());
    stub.enqueue({ rawBody: completion({ content: "Action: SUBMIT", reasoning_content: "Action: REPLACE (a thought, not an action)" }) });
    expect(await model.chat(hello)).toMatchObject({ content: "Action: SUBMIT", reasoning: "Action: REPLACE (a thought, not an action)" });
    stub.enqueue({ rawBody: completion({ content: "<think>\nMaybe ```python\nx = 1\n```\n</think>\n\nReflection: ok\nAction: SUBMIT" }) });
    expect(await model.chat(hello)).toMatchObject({ content: "Reflection: ok\nAction: SUBMIT", reasoning: "Maybe ```python\nx = 1\n```" });
    // A server that put the opening tag in the prompt sends only the closing one.
    stub.enqueue({ rawBody: completion({ content: "thinking hard</think>Action: SUBMIT", reasoning: "" }) });
    expect(await model.chat(hello)).toMatchObject({ content: "Action: SUBMIT", reasoning: "thinking hard" });
    // Only reasoning, no answer: an empty answer.
    stub.enqueue({ rawBody: completion({ content: null, reasoning: "still thinking" }) });
    expect(await model.chat(hello)).toMatchObject({ content: "", reasoning: "still thinking" });
  });

  it("marks a reply cut at the token limit", async () => {
    stub.enqueue({ rawBody: completion({ content: "Action: REPLACE\n```python\ndef f(" }, "length") });
    const res = await createOpenAIModel(fast()).chat(hello);
    expect(res.truncated).toBe(true);
  });

  it("names an unreadable content shape instead of failing inside", async () => {
    stub.enqueue({ rawBody: completion({ content: { text: "x" } }) });
    const err = await modelError(createOpenAIModel(fast({ maxRetries: 0 })).chat(hello));
    expect(err.message).toContain("the message content is an object, not text or a list of parts");
  });
});

describe("models that refuse sampling parameters", () => {
  const refusal = JSON.parse(readFileSync("tests/fixtures/cases/08-o-series-temperature.server-response.json", "utf8"));
  const ok = { rawBody: JSON.stringify(refusal.otherwise.body) };

  it("OpenAI's reasoning models get no temperature or top_p, and max_completion_tokens", async () => {
    stub.setFallback((req) =>
      req.body?.temperature !== undefined || req.body?.top_p !== undefined ? { status: 400, rawBody: JSON.stringify(refusal.body) } : ok,
    );
    const model = createOpenAIModel(fast({ model: "o4-mini" }));
    const res = await model.chat({ ...hello, maxTokens: 50 });
    expect(res.content).toBe("Reflection: ok\nAction: SUBMIT");
    const [req] = stub.chatRequests();
    expect(stub.chatRequests()).toHaveLength(1);
    expect(req?.body).toMatchObject({ max_completion_tokens: 50 });
    expect([req?.body?.temperature, req?.body?.top_p, req?.body?.max_tokens]).toEqual([undefined, undefined, undefined]);
  });

  it("any other model whose 400 names a parameter gets the call again without it, once, and later calls leave it out", async () => {
    stub.setFallback((req) => (req.body?.temperature !== undefined ? { status: 400, rawBody: JSON.stringify(refusal.body) } : ok));
    const model = createOpenAIModel(fast({ model: "my-reasoner", provider: "vllm" }));
    expect((await model.chat(hello)).content).toBe("Reflection: ok\nAction: SUBMIT");
    expect(stub.chatRequests().map((r) => r.body?.temperature)).toEqual([0, undefined]);
    await model.chat(hello);
    expect(stub.chatRequests()).toHaveLength(3);
    expect(stub.chatRequests()[2]?.body?.temperature).toBeUndefined();
  });

  it("a 400 that names the parameter without quotes or a param field is retried the same way", async () => {
    const unquoted = { error: { message: "temperature is not supported with this model", type: "invalid_request_error", param: null } };
    stub.setFallback((req) => (req.body?.temperature !== undefined ? { status: 400, rawBody: JSON.stringify(unquoted) } : ok));
    const model = createOpenAIModel(fast({ model: "my-reasoner", provider: "vllm" }));
    const res = await model.chat(hello);
    expect(res.content).toBe("Reflection: ok\nAction: SUBMIT");
    expect(stub.chatRequests().map((r) => r.body?.temperature)).toEqual([0, undefined]);
  });

  it("says in each reply which parameters the call left out because the server refused them", async () => {
    stub.setFallback((req) => (req.body?.temperature !== undefined ? { status: 400, rawBody: JSON.stringify(refusal.body) } : ok));
    const model = createOpenAIModel(fast({ model: "my-reasoner", provider: "vllm" }));
    expect((await model.chat(hello)).leftOut).toEqual(["temperature"]);
    expect((await model.chat(hello)).leftOut).toEqual(["temperature"]);
    // A call that asks for the server's default sends no temperature anyway: nothing was left out.
    expect((await model.chat({ ...hello, temperature: null })).leftOut).toBeUndefined();
    const o4 = await createOpenAIModel(fast({ model: "o4-mini" })).chat({ ...hello, maxTokens: 50 });
    expect(o4.leftOut).toEqual(["temperature", "top_p", "max_tokens (sent as max_completion_tokens)"]);
  });

  it("a server that refuses temperature and top_p alike, naming temperature each time (case 08): top_p goes too, once", async () => {
    stub.setFallback((req) =>
      req.body?.temperature !== undefined || req.body?.top_p !== undefined ? { status: 400, rawBody: JSON.stringify(refusal.body) } : ok,
    );
    const model = createOpenAIModel(fast({ model: "qwen-coder", provider: "vllm" }));
    const res = await model.chat(hello);
    expect(res.content).toBe("Reflection: ok\nAction: SUBMIT");
    expect(res.leftOut).toEqual(["temperature", "top_p"]);
    expect(stub.chatRequests().map((r) => [r.body?.temperature, r.body?.top_p])).toEqual([
      [0, 1],
      [undefined, 1],
      [undefined, undefined],
    ]);
  });

  it("a 400 about a parameter it already left out is final once the sampling parameters are out, with the server's words", async () => {
    stub.setFallback(() => ({ status: 400, rawBody: JSON.stringify(refusal.body) }));
    const err = await modelError(createOpenAIModel(fast({ model: "my-reasoner" })).chat(hello));
    expect(err.status).toBe(400);
    expect(err.message).toContain("'temperature' does not support 0 with this model");
    expect(stub.chatRequests()).toHaveLength(3);
  });
});
