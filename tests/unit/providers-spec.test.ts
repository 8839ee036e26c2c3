import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkModelSpec, KNOWN_PROVIDERS, modelFromSpec, parseModelSpec } from "../../src/core/providers";
import { type ChatStub, startChatStub } from "../helpers/chat-stub-server";

let stub: ChatStub;
beforeAll(async () => {
  stub = await startChatStub({ models: ["qwen2.5-coder:7b"] });
});
afterAll(async () => {
  await stub.close();
});

describe("parseModelSpec", () => {
  it("keeps colons in the model name", () => {
    expect(parseModelSpec("ollama:qwen2.5-coder:7b")).toEqual({ provider: "ollama", model: "qwen2.5-coder:7b" });
    expect(parseModelSpec(" OpenAI:gpt-4o-mini ")).toEqual({ provider: "openai", model: "gpt-4o-mini" });
  });

  it("rejects malformed specs and unknown providers, listing the known ones", () => {
    expect(() => parseModelSpec("gpt-4o")).toThrow(/must look like <provider>:<model>/);
    expect(() => parseModelSpec("ollama:")).toThrow(/must look like <provider>:<model>/);
    expect(() => parseModelSpec("anthropic:claude")).toThrow(
      `unknown model provider "anthropic" in "anthropic:claude"; known providers: ${KNOWN_PROVIDERS.join(", ")}`,
    );
  });
});

describe("modelFromSpec", () => {
  it("builds ids per provider", () => {
    expect(modelFromSpec("ollama:qwen2.5-coder:7b").id).toBe("ollama:qwen2.5-coder:7b");
    expect(modelFromSpec("vllm:Qwen/Qwen2.5-7B").id).toBe("vllm:Qwen/Qwen2.5-7B");
    expect(modelFromSpec("llamacpp:local").id).toBe("llamacpp:local");
    expect(modelFromSpec("openai:gpt-4o-mini", { apiKey: "sk-x" }).id).toBe("openai:gpt-4o-mini");
    expect(modelFromSpec("webllm:Tiny-1B").id).toBe("webllm:Tiny-1B");
    expect(modelFromSpec("scripted:demo.json", { script: ["x"] }).id).toBe("scripted:demo.json");
  });

  it("needs an OpenAI key, and a script for scripted", () => {
    expect(() => modelFromSpec("openai:gpt-4o-mini")).toThrow("set OPENAI_API_KEY or pass --api-key");
    expect(() => modelFromSpec("openai:gpt-4o-mini", { apiKey: "  " })).toThrow(/OPENAI_API_KEY/);
    expect(() => modelFromSpec("scripted:demo.json")).toThrow(/needs a script: pass options.script/);
    expect(() => modelFromSpec("scripted:bad", { script: { rules: [{ match: "" }] } as never })).toThrow(/script "bad": rules\[0\]/);
  });

  it("talks to the given base URL with the default decoding", async () => {
    stub.enqueue({ content: "from ollama" });
    const m = modelFromSpec("ollama:qwen2.5-coder:7b", { baseURL: stub.baseURL, retryBaseMs: 1 });
    const res = await m.chat({ messages: [{ role: "user", content: "hi" }] });
    expect(res.content).toBe("from ollama");
    expect(stub.chatRequests().at(-1)?.body).toMatchObject({ model: "qwen2.5-coder:7b", temperature: 0, top_p: 1 });
  });

  it("probes OpenAI-compatible specs and skips the others", async () => {
    await expect(checkModelSpec("ollama:qwen2.5-coder:7b", { baseURL: stub.baseURL })).resolves.toMatchObject({ via: "models" });
    await expect(checkModelSpec("scripted:x")).resolves.toBeNull();
    await expect(checkModelSpec("ollama:llama3", { baseURL: stub.baseURL })).rejects.toThrow(
      /does not list model "llama3".*ollama pull llama3/,
    );
  });
});
