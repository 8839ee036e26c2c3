import { describe, expect, it } from "vitest";
import { ModelError } from "../../src/core/model";
import { createOpenAIModel, retryAfterMs } from "../../src/core/providers/openai";

describe("retryAfterMs", () => {
  it("reads retry-after-ms, seconds and HTTP dates", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250" }))).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "3" }))).toBe(3000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe("createOpenAIModel with a custom fetch", () => {
  it("sends through the given fetch and reads the reply", async () => {
    const urls: string[] = [];
    const fetch = async (input: string | URL | Request) => {
      urls.push(String(input instanceof Request ? input.url : input));
      return new Response(
        JSON.stringify({
          id: "x",
          object: "chat.completion",
          created: 0,
          model: "served-name",
          choices: [{ index: 0, message: { role: "assistant", content: "via fetch" }, finish_reason: "stop" }],
        }),
        { status: 200, headers: { "content-type": "application/json" } },
      );
    };
    const m = createOpenAIModel({ baseURL: "http://proxy.invalid/v1", model: "m", fetch });
    const res = await m.chat({ messages: [{ role: "user", content: "hi" }] });
    expect(res).toMatchObject({ content: "via fetch", model: "served-name", usage: { promptTokens: 0, completionTokens: 0 } });
    expect(urls).toEqual(["http://proxy.invalid/v1/chat/completions"]);
    expect(m.calls()).toHaveLength(1);
  });

  it("reports a reply without choices", async () => {
    const fetch = async () =>
      new Response(JSON.stringify({ id: "x", model: "m", choices: [] }), { status: 200, headers: { "content-type": "application/json" } });
    const m = createOpenAIModel({ baseURL: "http://proxy.invalid/v1", model: "m", fetch });
    const err = await m.chat({ messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as Error).message).toMatch(/no choices\[0\]\.message/);
  });

  it("rejects an empty request", async () => {
    const m = createOpenAIModel({ baseURL: "http://proxy.invalid/v1", model: "m" });
    await expect(m.chat({ messages: [] })).rejects.toThrow(/at least one message/);
  });
});
