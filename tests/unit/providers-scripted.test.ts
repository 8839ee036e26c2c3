import { describe, expect, it } from "vitest";
import { type ChatMessage, ModelError } from "../../src/core/model";
import { createScriptedModel, loadScript } from "../../src/core/providers/scripted";

const user = (content: string, system?: string): { messages: ChatMessage[] } => ({
  messages: [...(system ? [{ role: "system" as const, content: system }] : []), { role: "user" as const, content }],
});

describe("scripted model: plain list", () => {
  it("replays replies in order with id scripted:<name> and chars/4 usage", async () => {
    const m = createScriptedModel(["first", "second reply"], "list.json");
    expect(m.id).toBe("scripted:list.json");
    const a = await m.chat(user("12345678"));
    expect(a.content).toBe("first");
    expect(a.usage).toEqual({ promptTokens: 2, completionTokens: 2 });
    expect((await m.chat(user("x"))).content).toBe("second reply");
    expect(m.totals()).toMatchObject({ calls: 2, promptTokens: 3, completionTokens: 5 });
    expect(m.unused()).toEqual([]);
  });

  it("fails clearly when the list is used up, showing the prompt start", async () => {
    const m = createScriptedModel(["only"], "short.json");
    await m.chat(user("a"));
    const err = await m.chat(user(`Fix the code please ${"z".repeat(300)}`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    const msg = (err as ModelError).message;
    expect(msg).toContain('script "short.json"');
    expect(msg).toContain("all 1 responses are used");
    expect(msg).toContain('"Fix the code please');
    expect(msg.length).toBeLessThan(400);
  });
});

describe("scripted model: rules", () => {
  it("scripts a multi-turn run over two tasks by task id and turn text", async () => {
    const m = createScriptedModel(
      {
        rules: [
          { match: "task: alpha", in: "all", replies: ["alpha v0", "alpha v1"] },
          { match: "/task: beta\\b/", in: "system", replies: ["beta v0"] },
          { match: "/^review/i", reply: { items: [] }, times: 2 },
        ],
        responses: ["fallback"],
      },
      "episodes.json",
    );
    const alpha = (turnText: string) => ({
      messages: [
        { role: "system" as const, content: "You write research code." },
        { role: "user" as const, content: "task: alpha\nWrite it." },
        { role: "assistant" as const, content: "..." },
        { role: "user" as const, content: turnText },
      ],
    });
    expect((await m.chat(alpha("turn 0"))).content).toBe("alpha v0");
    expect((await m.chat(user("Review this code"))).content).toBe('{"items":[]}');
    expect((await m.chat(alpha("turn 1: feedback ..."))).content).toBe("alpha v1");
    expect((await m.chat(user("go", "task: beta"))).content).toBe("beta v0");
    expect(m.unused()).toEqual(["responses[0]"]);
    // alpha's replies are spent: the ordered responses answer next, then nothing does.
    expect((await m.chat(alpha("turn 2"))).content).toBe("fallback");
    expect((await m.chat(user("REVIEW again"))).content).toBe('{"items":[]}');
    const err = await m.chat(user("review a third time")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as Error).message).toMatch(
      /no rule of 3 matched .* all 1 responses are used; the last user message starts: "review a third time"/,
    );
  });

  it("matches the last user message by default, not earlier ones", async () => {
    const m = createScriptedModel({ rules: [{ match: "needle", reply: "found" }] }, "r");
    const err = await m
      .chat({
        messages: [
          { role: "user", content: "needle" },
          { role: "user", content: "hay" },
        ],
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toContain("there are no responses");
    expect((await m.chat(user("a needle here"))).content).toBe("found");
  });

  it("lists rules that were never used", async () => {
    const m = createScriptedModel(
      {
        rules: [
          { match: "a", reply: "x" },
          { match: "b", replies: ["1", "2"] },
        ],
      },
      "u",
    );
    await m.chat(user("b"));
    expect(m.unused()).toEqual(["rules[0] (never matched)", "rules[1] (1 of 2 replies left)"]);
  });
});

describe("loadScript", () => {
  it("parses both forms", () => {
    expect(loadScript('["a", {"k": 1}]', "s")).toEqual(["a", { k: 1 }]);
    expect(loadScript('{"rules": [{"match": "x", "reply": "y"}]}', "s")).toEqual({
      rules: [{ match: "x", in: "last", reply: "y" }],
      responses: [],
    });
  });

  it("reports JSON syntax errors with the script name", () => {
    expect(() => loadScript("{oops", "bad.json")).toThrow(/script "bad.json": not valid JSON/);
  });

  it("reports the field and problem", () => {
    expect(() => loadScript('{"rules": [{"match": "x"}]}', "s.json")).toThrow(
      /script "s.json": rules\[0\]: a rule needs exactly one of `reply` or `replies`/,
    );
    expect(() => loadScript('{"rules": [{"match": "/(/", "reply": "y"}]}', "s.json")).toThrow(
      /rules\[0\]\.match: invalid regular expression/,
    );
    expect(() => loadScript('{"rules": [{"match": "x", "replies": ["a"], "times": 2}]}', "s.json")).toThrow(
      /rules\[0\]\.times: `times` goes with `reply`/,
    );
    expect(() => loadScript('{"rules": [{"match": "x", "reply": "y", "when": 1}]}', "s.json")).toThrow(/rules\[0\]/);
    expect(() => loadScript('{"responses": [42]}', "s.json")).toThrow(/responses\[0\]: a reply is a string/);
    expect(() => loadScript("{}", "s.json")).toThrow(/at least one rule or response/);
    expect(() => loadScript("7", "s.json")).toThrow(/a script is a list of replies or an object/);
    expect(() => loadScript("[]", "s.json")).toThrow(/at least one reply/);
  });
});
