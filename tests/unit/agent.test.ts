import { describe, expect, it } from "vitest";
import { createAgent, extractPythonCode, MEMORY_SUMMARY_PREFIX, parseStep, taskSystemPrompt } from "../../src/core/agent";
import { type ChatModel, type ChatRequest, type ChatResponse, ModelError } from "../../src/core/model";
import { loadTaskFromFiles, type Task } from "../../src/core/task";

/** A ChatModel that answers from a queue of replies and records every request it received. */
class FakeModel implements ChatModel {
  readonly id = "fake:queue";
  readonly requests: ChatRequest[] = [];
  constructor(private readonly replies: (string | Error | { content: string; truncated?: true; reasoning?: string })[]) {}
  async chat(req: ChatRequest): Promise<ChatResponse> {
    this.requests.push({ ...req, messages: req.messages.map((m) => ({ ...m })) });
    const next = this.replies.shift();
    if (next === undefined) throw new Error(`FakeModel: no reply left for call ${this.requests.length}`);
    if (next instanceof Error) throw next;
    const reply = typeof next === "string" ? { content: next } : next;
    return { ...reply, usage: { promptTokens: 10, completionTokens: 2 }, latencyMs: 0, model: "queue" };
  }
  /** Requests that were memory summary calls (their system prompt asks to condense a history). */
  summaryRequests(): ChatRequest[] {
    return this.requests.filter((r) => r.messages[0]?.content.startsWith("You condense"));
  }
}

const STARTER = "# write smooth_probs here\n";

const SAMPLING_PY = `"""Numeric helpers for samplers."""
import math


def logsumexp(values):
    """log(sum(exp(v))) computed without overflow by shifting by the maximum."""
    m = max(values)
    return m + math.log(sum(math.exp(v - m) for v in values))


def normalize(weights):
    """Scale non-negative weights so that they sum to one."""
    total = sum(weights)
    return [w / total for w in weights]


class Vocab:
    """A fixed list of tokens; a token's id is its position."""

    def __init__(self, tokens):
        self.tokens = list(tokens)
`;

const TEXT_PY = `def tokenize_words(text):
    """Split text into lower-case words on whitespace."""
    return text.lower().split()


@staticmethod
def clean_text(
    text,
):
    """Strip punctuation from the text."""
    s = """
not a top-level def
def fake():
"""
    return text.strip(".,")
`;

/** A small valid task: target smooth/laplace.py, helpers in utils/. */
function makeTask(id = "laplace-smoothing"): Task {
  const meta = {
    id,
    title: "Laplace smoothing",
    paper: { title: "Additive smoothing", authors: ["A. Author"], venue: "Test", year: 2020, url: "https://example.org/p" },
    domain: "nlp",
    target_file_path: "smooth/laplace.py",
    interfaces: [{ name: "smooth_probs", tests: ["TestSmooth.test_basic"], guidance: "add alpha to each count" }],
    time_limit_s: 30,
    license: "MIT",
  };
  return loadTaskFromFiles(id, {
    "task.json": JSON.stringify(meta),
    "instruction.md": "Implement smooth_probs(counts, alpha) returning smoothed probabilities.",
    "paper.tex": "\\section{Method} $p_i = (c_i + \\alpha) / (N + k\\alpha)$",
    "canonical.py": "def smooth_probs(counts, alpha):\n    pass\n",
    "test.py": "import unittest\nclass TestSmooth(unittest.TestCase):\n    def test_basic(self):\n        pass\n",
    "repo/smooth/laplace.py": STARTER,
    "repo/utils/sampling.py": SAMPLING_PY,
    "repo/utils/text.py": TEXT_PY,
    "repo/README.md": "# toy repo\n",
  });
}

/** A reply in the ReCodeAgent format. */
function step(action: string, reflection = "thinking"): string {
  return `Reflection: ${reflection}\nAction: ${action}`;
}

const NEW_CODE = "def smooth_probs(counts, alpha):\n    return [c + alpha for c in counts]\n";

function replaceReply(code = NEW_CODE): string {
  return `Reflection: write it\nAction: REPLACE\n\`\`\`python\n${code}\`\`\``;
}

describe("baseline", () => {
  it("takes the last python block of one reply as the whole target file", async () => {
    const model = new FakeModel(["Plan:\n```python\nold = 1\n```\nFinal:\n```python\ndef smooth_probs(c, a):\n    return c\n```\nDone."]);
    const agent = createAgent("baseline", model);
    const task = makeTask();
    const out = await agent.runTurn({ task, turn: 0, currentCode: task.starter, feedback: null });
    expect(out.code).toBe("def smooth_probs(c, a):\n    return c\n");
    expect(out.modelCalls).toBe(1);
    expect(out.actions).toEqual([{ type: "REPLACE", argument: out.code, result: expect.stringContaining("2 lines") }]);
    expect(out.tokens).toEqual({ prompt: 10, completion: 2 });
    expect(out.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const req = model.requests[0];
    expect(req?.temperature).toBe(0);
    expect(req?.topP).toBe(1);
    expect(req?.messages[0]?.role).toBe("system");
    expect(req?.messages[0]?.content).toContain("Implement smooth_probs");
    expect(req?.messages[0]?.content).toContain("smooth/laplace.py");
    expect(req?.messages[1]?.content).toContain("# write smooth_probs here");
  });

  it("uses the whole reply when it has no fenced block, and sends the feedback on later turns", async () => {
    const model = new FakeModel(["def f():\n    return 1"]);
    const agent = createAgent("baseline", model);
    const out = await agent.runTurn({ task: makeTask(), turn: 2, currentCode: "x = 1\n", feedback: "FAILED TestSmooth.test_basic" });
    expect(out.code).toBe("def f():\n    return 1\n");
    expect(model.requests[0]?.messages[1]?.content).toContain("FAILED TestSmooth.test_basic");
    expect(model.requests[0]?.messages[1]?.content).toContain("x = 1");
  });

  it("prefers a python block over an untagged one", () => {
    expect(extractPythonCode("```python\na = 1\n```\n```\nnot code\n```")).toBe("a = 1\n");
    expect(extractPythonCode("```\nb = 2\n```")).toBe("b = 2\n");
  });
});

describe("ReCodeAgent actions", () => {
  it("READ returns a repo file, and the target file returns the current code", async () => {
    const model = new FakeModel([step("READ utils/sampling.py"), step("READ smooth/laplace.py"), step("SUBMIT")]);
    const agent = createAgent("agent", model);
    const out = await agent.runTurn({ task: makeTask(), turn: 0, currentCode: "CURRENT = 7\n", feedback: null });
    expect(out.actions.map((a) => a.type)).toEqual(["READ", "READ", "SUBMIT"]);
    expect(out.actions[0]?.argument).toBe("utils/sampling.py");
    // The second call saw the first file's text; the third saw the current code of the target.
    expect(model.requests[1]?.messages.at(-1)?.content).toContain("def logsumexp(values):");
    expect(model.requests[2]?.messages.at(-1)?.content).toContain("CURRENT = 7");
    expect(out.code).toBe("CURRENT = 7\n");
    expect(out.modelCalls).toBe(3);
    expect(out.tokens).toEqual({ prompt: 30, completion: 6 });
  });

  it("READ accepts a unique base name and a repo/ prefix", async () => {
    const model = new FakeModel([step("READ text.py"), step("READ `repo/README.md`"), step("SUBMIT")]);
    const out = await createAgent("agent", model).runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
    expect(out.actions.map((a) => [a.type, a.argument])).toEqual([
      ["READ", "utils/text.py"],
      ["READ", "README.md"],
      ["SUBMIT", ""],
    ]);
  });

  it("BROWSE lists the repository files", async () => {
    const model = new FakeModel([step("BROWSE"), step("SUBMIT")]);
    const out = await createAgent("agent", model).runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
    expect(out.actions[0]).toMatchObject({ type: "BROWSE", result: "listed 4 files" });
    const obs = model.requests[1]?.messages.at(-1)?.content ?? "";
    for (const p of ["README.md", "smooth/laplace.py", "utils/sampling.py", "utils/text.py"]) expect(obs).toContain(p);
  });

  it("RETRIEVE returns the top 3 definitions with their source", async () => {
    const model = new FakeModel([step("RETRIEVE normalize weights so they sum to one"), step("SUBMIT")]);
    const out = await createAgent("agent", model).runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
    expect(out.actions[0]?.type).toBe("RETRIEVE");
    expect(out.actions[0]?.result).toMatch(/^top \d: utils\/sampling\.py::normalize/);
    const obs = model.requests[1]?.messages.at(-1)?.content ?? "";
    expect(obs).toContain("return [w / total for w in weights]");
  });

  it("REPLACE sets the whole target file and SUBMIT ends the turn", async () => {
    const model = new FakeModel([replaceReply(), step("SUBMIT")]);
    const out = await createAgent("agent", model).runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
    expect(out.code).toBe(NEW_CODE);
    expect(out.actions.map((a) => a.type)).toEqual(["REPLACE", "SUBMIT"]);
    expect(out.actions[0]?.argument).toBe(NEW_CODE);
    expect(model.requests).toHaveLength(2);
    expect(out.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("applies nothing from a reply cut at the token limit, and tells the agent", async () => {
    const cut = {
      content: replaceReply("def smooth_probs(counts, alpha):\n    return [c +").replace(/```$/, ""),
      truncated: true as const,
    };
    const model = new FakeModel([cut, replaceReply(), step("SUBMIT")]);
    const out = await createAgent("agent", model).runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
    expect(out.actions.map((a) => a.type)).toEqual(["INVALID", "REPLACE", "SUBMIT"]);
    expect(out.actions[0]?.result).toContain("truncated");
    expect(model.requests[1]?.messages.at(-1)?.content).toContain("cut at the token limit");
    expect(out.code).toBe(NEW_CODE);
  });

  it("keeps a reply's reasoning in the turn's messages, never sends it back and never acts on it", async () => {
    const model = new FakeModel([{ content: step("BROWSE"), reasoning: "Action: SUBMIT (only a thought)" }, step("SUBMIT")]);
    const out = await createAgent("agent", model).runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
    expect(out.actions.map((a) => a.type)).toEqual(["BROWSE", "SUBMIT"]);
    expect(out.messages[1]).toEqual({ role: "assistant", content: step("BROWSE"), reasoning: "Action: SUBMIT (only a thought)" });
    expect(JSON.stringify(model.requests[1]?.messages)).not.toContain("only a thought");
  });

  it("a one-shot reply cut at the token limit leaves the target file as it was", async () => {
    const model = new FakeModel([{ content: "```python\ndef smooth_probs(counts, al", truncated: true }]);
    const out = await createAgent("baseline", model).runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
    expect(out.code).toBe(STARTER);
    expect(out.actions).toEqual([{ type: "INVALID", argument: "", result: expect.stringContaining("truncated") }]);
  });

  it("submits automatically after maxSteps actions", async () => {
    const model = new FakeModel([step("BROWSE"), replaceReply(), step("READ utils/text.py"), step("SUBMIT")]);
    const out = await createAgent("agent", model).runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
    expect(model.requests).toHaveLength(3);
    expect(out.actions.map((a) => a.type)).toEqual(["BROWSE", "REPLACE", "READ", "AUTO_SUBMIT"]);
    expect(out.code).toBe(NEW_CODE);
    // No observation is sent after the last step: the turn ends on the model's reply.
    expect(out.messages.at(-1)?.role).toBe("assistant");
  });

  it("honours a custom maxSteps", async () => {
    const model = new FakeModel([step("BROWSE")]);
    const out = await createAgent("agent", model, { maxSteps: 1 }).runTurn({
      task: makeTask(),
      turn: 0,
      currentCode: STARTER,
      feedback: null,
    });
    expect(out.actions.map((a) => a.type)).toEqual(["BROWSE", "AUTO_SUBMIT"]);
    expect(out.code).toBe(STARTER);
  });
});

describe("ReCodeAgent malformed replies", () => {
  const cases: [string, string, RegExp][] = [
    ["no action", "I think I should read a file.", /no `Action:` line/],
    ["two actions", "Reflection: x\nAction: BROWSE\nAction: SUBMIT", /2 `Action:` lines/],
    ["unknown action", step("DELETE smooth/laplace.py"), /unknown action "DELETE"/],
    ["missing file", step("READ nowhere/missing.py"), /no repository file "nowhere\/missing.py"/],
    ["REPLACE without code", step("REPLACE"), /REPLACE needs the whole target file/],
    ["REPLACE of another file", `Reflection: x\nAction: REPLACE utils/text.py\n\`\`\`python\nx = 1\n\`\`\``, /writes only the target file/],
  ];
  for (const [name, reply, problem] of cases) {
    it(`${name}: gets a correction and uses a step`, async () => {
      const model = new FakeModel([reply, step("SUBMIT")]);
      const out = await createAgent("agent", model).runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
      expect(out.actions).toHaveLength(2);
      expect(out.actions[0]?.type).toBe("INVALID");
      expect(out.actions[0]?.result).toMatch(problem);
      expect(out.actions[1]?.type).toBe("SUBMIT");
      const correction = model.requests[1]?.messages.at(-1);
      expect(correction?.role).toBe("user");
      expect(correction?.content).toMatch(/could not be used/);
      expect(correction?.content).toContain("Steps left in this turn: 2");
      expect(out.code).toBe(STARTER);
    });
  }

  it("three malformed replies end the turn with an automatic submission", async () => {
    const model = new FakeModel(["nothing", "still nothing", "no"]);
    const out = await createAgent("agent", model).runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
    expect(out.actions.map((a) => a.type)).toEqual(["INVALID", "INVALID", "INVALID", "AUTO_SUBMIT"]);
  });

  it("ignores Action lines inside code blocks", () => {
    const parsed = parseStep("Reflection: r\nAction: REPLACE\n```python\n# Action: SUBMIT\nx = 1\n```");
    expect(parsed).toMatchObject({ ok: true, action: "REPLACE", code: "# Action: SUBMIT\nx = 1\n", reflection: "r" });
  });
});

describe("memory across turns", () => {
  it("`agent` starts each turn from the task, the current code and the feedback", async () => {
    const model = new FakeModel([replaceReply(), step("SUBMIT"), step("SUBMIT")]);
    const agent = createAgent("agent", model);
    const task = makeTask();
    const t0 = await agent.runTurn({ task, turn: 0, currentCode: STARTER, feedback: null });
    await agent.runTurn({ task, turn: 1, currentCode: t0.code, feedback: "1 failed: TestSmooth.test_basic" });
    const turn1 = model.requests[2]?.messages ?? [];
    expect(turn1.map((m) => m.role)).toEqual(["system", "user"]);
    expect(turn1[1]?.content).toContain("# Turn 1");
    expect(turn1[1]?.content).toContain("1 failed: TestSmooth.test_basic");
    expect(turn1[1]?.content).toContain("return [c + alpha for c in counts]");
    expect(turn1.some((m) => m.content.includes("Reflection: write it"))).toBe(false);
    expect(agent.snapshot().messages).toEqual([]);
  });

  it("`memory_agent` carries the conversation over", async () => {
    const model = new FakeModel([replaceReply(), step("SUBMIT"), step("SUBMIT")]);
    const agent = createAgent("memory_agent", model);
    const task = makeTask();
    const t0 = await agent.runTurn({ task, turn: 0, currentCode: STARTER, feedback: null });
    await agent.runTurn({ task, turn: 1, currentCode: t0.code, feedback: "1 failed" });
    const turn1 = model.requests[2]?.messages ?? [];
    expect(turn1.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    expect(turn1[2]?.content).toContain("Reflection: write it");
    expect(turn1[5]?.content).toContain("# Turn 1");
    expect(agent.snapshot()).toMatchObject({ taskId: task.id, lastTurn: 1 });
    expect(agent.snapshot().messages).toHaveLength(7);
  });

  it("summarises older messages past the threshold, keeping the task message and the last 5", async () => {
    // Each turn: the turn message, then reply, observation, reply, observation, reply = 6 messages.
    const turnReplies = () => [step("BROWSE"), step("READ utils/text.py"), step("BROWSE")];
    const model = new FakeModel([...turnReplies(), ...turnReplies(), step("BROWSE"), "SUMMARY TEXT", step("BROWSE"), step("SUBMIT")]);
    const agent = createAgent("memory_agent", model);
    const task = makeTask();
    await agent.runTurn({ task, turn: 0, currentCode: STARTER, feedback: null });
    await agent.runTurn({ task, turn: 1, currentCode: STARTER, feedback: "fb1" });
    expect(agent.snapshot().messages).toHaveLength(13);
    expect(model.summaryRequests()).toHaveLength(0);
    const before = model.requests.length;
    const out = await agent.runTurn({ task, turn: 2, currentCode: STARTER, feedback: "fb2" });
    // Turn 2: a call at 14 messages, then 16 > 15 -> summarise to 1 + 1 + 5 = 7 before the next call.
    expect(model.summaryRequests()).toHaveLength(1);
    const summaryReq = model.summaryRequests()[0];
    expect(summaryReq?.temperature).toBe(0);
    // What was summarised: the 10 messages between the task message and the last 5.
    expect(summaryReq?.messages[1]?.content.match(/^### (user|assistant)$/gm)).toHaveLength(10);
    expect(summaryReq?.messages[1]?.content).toContain("# Turn 0");
    const after = model.requests.slice(before).filter((r) => !model.summaryRequests().includes(r));
    expect(after.map((r) => r.messages.length)).toEqual([14, 7, 9]);
    const lastCall = after[1]?.messages ?? [];
    expect(lastCall[0]?.role).toBe("system");
    expect(lastCall[0]?.content).toBe(taskSystemPrompt(task, "memory_agent"));
    expect(lastCall[1]?.content).toBe(`${MEMORY_SUMMARY_PREFIX}\nSUMMARY TEXT`);
    // The last 5 verbatim: turn 2's opening message is among them.
    expect(lastCall.slice(2).map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(lastCall[2]?.content).toContain("Result of READ utils/text.py");
    expect(lastCall.slice(2).some((m) => m.content.includes("# Turn 2"))).toBe(true);
    expect(out.messages.some((m) => m.content.startsWith(MEMORY_SUMMARY_PREFIX))).toBe(true);
    expect(out.modelCalls).toBe(4);
    expect(out.tokens).toEqual({ prompt: 40, completion: 8 });
    expect(out.modelCalls).toBe(4);
    expect(out.tokens).toEqual({ prompt: 40, completion: 8 });
    expect(out.actions.map((a) => a.type)).toEqual(["BROWSE", "BROWSE", "SUBMIT"]);
    expect(agent.snapshot().messages).toHaveLength(10);
  });

  it("turn 0 starts a new episode, and restore() seeds the state after a shared turn 0", async () => {
    const model = new FakeModel([step("SUBMIT"), step("SUBMIT"), step("SUBMIT")]);
    const a = createAgent("memory_agent", model);
    const task = makeTask();
    await a.runTurn({ task, turn: 0, currentCode: STARTER, feedback: null });
    const seed = a.snapshot();
    await a.runTurn({ task, turn: 0, currentCode: STARTER, feedback: null });
    expect(a.snapshot().messages).toHaveLength(3);
    const b = createAgent("memory_agent", model);
    b.restore(seed);
    await b.runTurn({ task, turn: 1, currentCode: STARTER, feedback: "fb" });
    expect(model.requests[2]?.messages).toHaveLength(4);
  });

  it("refuses to continue another task's memory", async () => {
    const model = new FakeModel([step("SUBMIT")]);
    const agent = createAgent("memory_agent", model);
    await agent.runTurn({ task: makeTask(), turn: 0, currentCode: STARTER, feedback: null });
    await expect(agent.runTurn({ task: makeTask("other-task"), turn: 1, currentCode: "", feedback: "x" })).rejects.toThrow(
      /memory of task "laplace-smoothing".*"other-task"/,
    );
  });
});

describe("errors", () => {
  it("passes a ModelError through unchanged and keeps the memory as it was", async () => {
    const err = new ModelError("fake:queue", "HTTP 500", 500);
    const model = new FakeModel([step("SUBMIT"), step("BROWSE"), err]);
    const agent = createAgent("memory_agent", model);
    const task = makeTask();
    await agent.runTurn({ task, turn: 0, currentCode: STARTER, feedback: null });
    const before = agent.snapshot();
    await expect(agent.runTurn({ task, turn: 1, currentCode: STARTER, feedback: "fb" })).rejects.toBe(err);
    expect(agent.snapshot()).toEqual(before);
    await expect(createAgent("baseline", new FakeModel([err])).runTurn({ task, turn: 0, currentCode: "", feedback: null })).rejects.toBe(
      err,
    );
  });

  it("stops when the signal is aborted", async () => {
    const ctrl = new AbortController();
    ctrl.abort(new Error("stopped by user"));
    const model = new FakeModel([step("SUBMIT")]);
    await expect(
      createAgent("agent", model).runTurn({ task: makeTask(), turn: 0, currentCode: "", feedback: null, signal: ctrl.signal }),
    ).rejects.toThrow("stopped by user");
    expect(model.requests).toHaveLength(0);
  });

  it("rejects bad input and options with messages that name the field", async () => {
    const agent = createAgent("agent", new FakeModel([]));
    const task = makeTask();
    await expect(agent.runTurn({ task, turn: -1, currentCode: "", feedback: null })).rejects.toThrow(/field turn/);
    await expect(agent.runTurn({ task, turn: 0, currentCode: "", feedback: "x" })).rejects.toThrow(
      /field feedback: must be null at turn 0/,
    );
    await expect(agent.runTurn({ task, turn: 1, currentCode: 3 as unknown as string, feedback: null })).rejects.toThrow(
      /field currentCode/,
    );
    expect(() => createAgent("agent", new FakeModel([]), { maxSteps: 0 })).toThrow(/maxSteps/);
    expect(() => createAgent("memory_agent", new FakeModel([]), { memoryThreshold: 5, keepRecent: 5 })).toThrow(/memoryThreshold/);
    expect(() => createAgent("tools" as never, new FakeModel([]))).toThrow(/unknown setting "tools"/);
  });
});
