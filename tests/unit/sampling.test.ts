import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest } from "../../src/core/model";
import { parseSampling, samplingText, withSampling } from "../../src/core/sampling";

describe("decoding settings of a seat", () => {
  it("reads key=value lists, `default` leaving the parameter to the server", () => {
    expect(parseSampling("temperature=0.2, top_p=default,max_tokens=4096", "--sampling")).toEqual({
      temperature: 0.2,
      topP: null,
      maxTokens: 4096,
    });
    expect(parseSampling("", "--sampling")).toEqual({});
    expect(samplingText({ temperature: 0.2, topP: null })).toBe("temperature=0.2, top_p=default");
  });

  it("says which setting is wrong and why", () => {
    expect(() => parseSampling("temperature", "--sampling")).toThrow('--sampling: "temperature" is not key=value');
    expect(() => parseSampling("temp=1", "--sampling")).toThrow('--sampling: unknown setting "temp"');
    expect(() => parseSampling("temperature=3", "--sampling")).toThrow('--sampling: temperature must be from 0 to 2 (got "temperature=3")');
    expect(() => parseSampling("top_p=0", "--sampling")).toThrow("--sampling: top_p must be above 0, at most 1");
    expect(() => parseSampling("max_tokens=1.5", "--sampling")).toThrow("--sampling: max_tokens must be a whole number above 0");
    expect(() => parseSampling("temperature=abc", "--sampling")).toThrow("--sampling: temperature must be a number from 0 to 2");
  });

  it("overrides what the caller asks for, and keeps the model's id and meters", async () => {
    const seen: ChatRequest[] = [];
    const model = {
      id: "m:x",
      chat: async (req: ChatRequest) => {
        seen.push(req);
        return { content: "", usage: { promptTokens: 1, completionTokens: 1 }, latencyMs: 0, model: "x" };
      },
      totals: () => ({ calls: seen.length }),
    } satisfies ChatModel & { totals(): { calls: number } };
    const tuned = withSampling(model, { temperature: null, maxTokens: 50 });
    await tuned.chat({ messages: [{ role: "user", content: "hi" }], temperature: 0, topP: 1 });
    expect(seen[0]).toMatchObject({ temperature: null, topP: 1, maxTokens: 50 });
    expect(tuned.id).toBe("m:x");
    expect(tuned.totals()).toEqual({ calls: 1 });
    expect(withSampling(model, {})).toBe(model);
  });
});
