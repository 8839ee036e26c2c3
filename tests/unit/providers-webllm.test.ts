import { describe, expect, it } from "vitest";
import { ModelError } from "../../src/core/model";
import { createWebLLMModel, type WebLLMEngineFactory, type WebLLMEngineLike, type WebLLMProgress } from "../../src/core/providers/webllm";

type CreateArgs = Parameters<WebLLMEngineLike["chat"]["completions"]["create"]>[0];

function mockEngine(reply = "from webllm") {
  const calls: CreateArgs[] = [];
  let unloaded = 0;
  const engine: WebLLMEngineLike = {
    chat: {
      completions: {
        create: async (req) => {
          calls.push(req);
          return { choices: [{ message: { content: reply } }], usage: { prompt_tokens: 7, completion_tokens: 2 }, model: "m" };
        },
      },
    },
    unload: async () => {
      unloaded += 1;
    },
  };
  return { engine, calls, unloaded: () => unloaded };
}

describe("createWebLLMModel", () => {
  it("loads once on first use, reports progress 0..1, and chats with temperature 0 / top_p 1", async () => {
    const { engine, calls } = mockEngine();
    let built = 0;
    const factory: WebLLMEngineFactory = async (model, onProgress) => {
      built += 1;
      expect(model).toBe("Tiny-1B");
      onProgress({ progress: 0.25, text: "Fetching param cache[1/4]" });
      onProgress({ progress: 1.5, text: "overshoot" });
      return engine;
    };
    const progress: WebLLMProgress[] = [];
    const m = createWebLLMModel({
      model: "Tiny-1B",
      engineFactory: factory,
      gpuProbe: async () => ({}),
      onProgress: (p) => progress.push(p),
    });
    expect(m.id).toBe("webllm:Tiny-1B");
    expect(built).toBe(0);
    const [a, b] = await Promise.all([
      m.chat({ messages: [{ role: "user", content: "hi" }] }),
      m.chat({ messages: [{ role: "user", content: "json please" }], json: true, maxTokens: 5 }),
    ]);
    expect(built).toBe(1);
    expect(a.content).toBe("from webllm");
    expect(b.usage).toEqual({ promptTokens: 7, completionTokens: 2 });
    expect(calls[0]).toMatchObject({ temperature: 0, top_p: 1, messages: [{ role: "user", content: "hi" }] });
    expect(calls[0]?.response_format).toBeUndefined();
    expect(calls[1]).toMatchObject({ response_format: { type: "json_object" }, max_tokens: 5 });
    expect(progress.map((p) => p.progress)).toEqual([0.25, 1, 1]);
    expect(progress[0]?.text).toContain("Fetching");
    expect(m.totals().calls).toBe(2);
  });

  it("fails with a clear message when WebGPU is absent, without building an engine", async () => {
    let built = 0;
    const m = createWebLLMModel({
      model: "Tiny-1B",
      gpuProbe: async () => null,
      engineFactory: async () => {
        built += 1;
        return mockEngine().engine;
      },
    });
    const err = await m.chat({ messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as Error).message).toContain("WebLLM needs WebGPU; use an OpenAI-compatible endpoint such as Ollama instead");
    expect(built).toBe(0);
  });

  it("uses navigator.gpu by default, which Node does not have", async () => {
    const m = createWebLLMModel({ model: "Tiny-1B", engineFactory: async () => mockEngine().engine });
    await expect(m.load()).rejects.toThrow(/needs WebGPU/);
  });

  it("wraps load failures, allows a later retry, and unloads", async () => {
    const { engine, unloaded } = mockEngine("second time");
    let attempts = 0;
    const m = createWebLLMModel({
      model: "Tiny-1B",
      gpuProbe: async () => ({}),
      engineFactory: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error("out of GPU memory");
        return engine;
      },
    });
    await expect(m.chat({ messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(/could not load the model: out of GPU memory/);
    expect((await m.chat({ messages: [{ role: "user", content: "hi" }] })).content).toBe("second time");
    await m.unload();
    expect(unloaded()).toBe(1);
    expect(m.totals()).toMatchObject({ calls: 1, failures: 1 });
  });

  it("names known models when the id is not in WebLLM's prebuilt list (real library, lazy import)", async () => {
    const m = createWebLLMModel({ model: "No-Such-Model", gpuProbe: async () => ({}) });
    await expect(m.load()).rejects.toThrow(/unknown WebLLM model "No-Such-Model"; pick an id from WebLLM's prebuilt list, e.g. \S+/);
  });

  it("rejects an empty model id", () => {
    expect(() => createWebLLMModel({ model: "" })).toThrow(/model must be a WebLLM model id/);
  });
});
