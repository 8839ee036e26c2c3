import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelError } from "../../src/core/model";
import { createOpenAIModel } from "../../src/core/providers";

/** A server whose chat answers start but never finish, or report odd token counts. */
let server: Server;
let base = "";
const open = new Set<import("node:net").Socket>();
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.includes("odd-usage") || req.headers["x-case"] === "odd-usage") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "x",
          object: "chat.completion",
          created: 0,
          model: "m",
          choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
          usage: { prompt_tokens: -5, completion_tokens: "12" },
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "content-length": "100000" });
    res.write('{"id":"x",');
    const t = setInterval(() => res.write(" "), 100);
    res.on("close", () => clearInterval(t));
  });
  server.on("connection", (s) => {
    open.add(s);
    s.on("close", () => open.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  for (const s of open) s.destroy();
  await new Promise((r) => server.close(r));
});

describe("OpenAI-compatible provider against a misbehaving server", () => {
  it("gives up on an answer whose body never finishes", async () => {
    const m = createOpenAIModel({ baseURL: base, model: "m", timeoutMs: 500, maxRetries: 1, retryBaseMs: 1 });
    const err = await m.chat({ messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(String(err.message)).toMatch(/within 500 ms.*gave up after 2 attempts/);
  });

  it("records negative or non-numeric token counts as unreported", async () => {
    const m = createOpenAIModel({
      baseURL: base,
      model: "m",
      fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "x-case": "odd-usage" } }),
    });
    const r = await m.chat({ messages: [{ role: "user", content: "hi" }] });
    expect(r.usage).toEqual({ promptTokens: 0, completionTokens: 0, unreported: true });
  });
});
