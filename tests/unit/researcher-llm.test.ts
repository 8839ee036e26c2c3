import { describe, expect, it } from "vitest";
import { type FeedbackItem, ResearcherError, type ReviewInput } from "../../src/core/feedback";
import type { ChatModel, ChatRequest, ChatResponse } from "../../src/core/model";
import {
  createHumanResearcher,
  createLlmResearcher,
  createReplayResearcher,
  createRulesResearcher,
  extractJsonObject,
  researcherFromSpec,
} from "../../src/core/researchers";
import { makeRunResult, makeTestResult, type RunResult } from "../../src/core/results";
import { loadTaskFromFiles } from "../../src/core/task";

/** A chat model that answers from a list and keeps the requests it got. */
class FakeModel implements ChatModel {
  readonly id = "fake:reviewer";
  readonly requests: ChatRequest[] = [];
  constructor(private readonly replies: string[]) {}
  async chat(req: ChatRequest): Promise<ChatResponse> {
    this.requests.push(structuredClone({ ...req, signal: undefined }));
    const content = this.replies.shift();
    if (content === undefined) throw new Error("no more scripted replies");
    return { content, usage: { promptTokens: 0, completionTokens: 0 }, latencyMs: 0, model: "reviewer" };
  }
}

const task = loadTaskFromFiles("toy", {
  "task.json": JSON.stringify({
    id: "toy",
    title: "Toy scaling",
    paper: { title: "Scaling toys", authors: ["A. Author"], venue: "None", year: 2024, url: "https://example.org/toy" },
    domain: "testing",
    target_file_path: "pkg/mod.py",
    interfaces: [{ name: "scale", tests: ["TestScale.test_values"], guidance: "Multiply every value." }],
    time_limit_s: 10,
    license: "MIT",
  }),
  "instruction.md": "INSTRUCTION: write scale(xs, factor).",
  "paper.tex": "PAPER: \\section{Method} y = f x.",
  "canonical.py": "def scale(xs, factor):\n    return [x * factor for x in xs]  # CANONICAL\n",
  "test.py": "class TestScale:\n    def test_values(self): pass\n",
  "repo/pkg/mod.py": "",
});

const run: RunResult = makeRunResult([
  makeTestResult("TestScale.test_values", "failed", {
    interface: "scale",
    durationMs: 1,
    message: "AssertionError: scale at [0]: expected 2, got 1",
  }),
]);
const input: ReviewInput = { task, code: "def scale(xs, factor):\n    return xs  # CANDIDATE\n", run, turn: 2 };

const item: FeedbackItem = {
  interface: "scale",
  category: "T2",
  description: "The factor is ignored.",
  analysis: "Every value comes back unchanged.",
  actionable_feedback: "Multiply each value by the factor.",
  direct_code_feedback: "```python\ndef scale(xs, factor):\n    return [x * factor for x in xs]\n```",
};

describe("llm researcher", () => {
  it("sends paper, instruction, canonical, candidate and test results at temperature 0 in JSON mode", async () => {
    const model = new FakeModel([JSON.stringify({ items: [item] })]);
    const researcher = createLlmResearcher(model);
    expect(researcher.id).toBe("llm:fake:reviewer");
    const rec = await researcher.review(input);
    expect(rec).toEqual({ researcher: "llm:fake:reviewer", items: [item] });
    expect(model.requests).toHaveLength(1);
    const req = model.requests[0] as ChatRequest;
    expect(req.temperature).toBe(0);
    expect(req.json).toBe(true);
    const prompt = req.messages.map((m) => m.content).join("\n");
    for (const part of [
      "PAPER:",
      "INSTRUCTION:",
      "# CANONICAL",
      "# CANDIDATE",
      "expected 2, got 1",
      "FAILED  TestScale.test_values",
      "turn 2",
    ]) {
      expect(prompt).toContain(part);
    }
    for (const field of ["interface", "category", "description", "analysis", "actionable_feedback", "direct_code_feedback"])
      expect(prompt).toContain(field);
  });

  it("accepts a JSON object inside a ```json fence and normalises a spelled-out category", async () => {
    const reply = `Here is my review:\n\`\`\`json\n${JSON.stringify({ items: [{ ...item, category: "t2 implementation alignment" }] })}\n\`\`\``;
    const rec = await createLlmResearcher(new FakeModel([reply])).review(input);
    expect(rec.items[0]?.category).toBe("T2");
  });

  it("repairs a malformed reply once, sending the error back", async () => {
    const model = new FakeModel(["{items: oops", JSON.stringify({ items: [item] })]);
    const rec = await createLlmResearcher(model).review(input);
    expect(rec.items).toEqual([item]);
    expect(model.requests).toHaveLength(2);
    const repair = (model.requests[1] as ChatRequest).messages;
    expect(repair.at(-2)).toEqual({ role: "assistant", content: "{items: oops" });
    expect(repair.at(-1)?.content).toMatch(/not a JSON object/);
  });

  it("repairs a reply that is JSON but misses fields, naming the field", async () => {
    const { analysis: _drop, ...partial } = item;
    const model = new FakeModel([JSON.stringify({ items: [partial] }), JSON.stringify({ items: [item] })]);
    await createLlmResearcher(model).review(input);
    expect((model.requests[1] as ChatRequest).messages.at(-1)?.content).toContain("items[0].analysis");
  });

  it("rejects with a clear error naming the model after two invalid replies", async () => {
    const model = new FakeModel(["not json", JSON.stringify({ items: [] })]);
    const err = await createLlmResearcher(model)
      .review(input)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResearcherError);
    expect((err as Error).message).toMatch(/researcher llm:fake:reviewer: model fake:reviewer returned invalid feedback twice/);
    expect((err as Error).message).toContain("at least one item");
    expect(model.requests).toHaveLength(2);
  });

  it("extractJsonObject finds the object in surrounding text", () => {
    expect(extractJsonObject('Sure! {"items": []} Hope it helps.')).toEqual({ items: [] });
    expect(() => extractJsonObject("no braces at all")).toThrow(/not a JSON object/);
  });
});

describe("human researcher", () => {
  it("awaits the form and validates it", async () => {
    const seen: ReviewInput[] = [];
    const human = createHumanResearcher(async (i) => {
      seen.push(i);
      return [item];
    });
    expect(human.id).toBe("human");
    expect(await human.review(input)).toEqual({ researcher: "human", items: [item] });
    expect(seen[0]?.turn).toBe(2);
  });

  it("rejects an invalid form, naming the item and field", async () => {
    const human = createHumanResearcher(async () => [{ ...item, description: "" }]);
    await expect(human.review(input)).rejects.toThrow(/researcher human: the feedback form is not valid: item \[0\]\.description/);
  });
});

describe("replay researcher", () => {
  it("returns the stored record for the task and turn without a model call", async () => {
    const stored = { researcher: "llm:openai:gpt-4o-mini", items: [item] };
    const replay = createReplayResearcher([{ taskId: "toy", turn: 2, record: stored }]);
    expect(replay.id).toBe("replay");
    expect(await replay.review(input)).toEqual(stored);
  });

  it("says which record is missing", async () => {
    const replay = createReplayResearcher([{ taskId: "toy", turn: 1, record: { researcher: "rules", items: [item] } }]);
    await expect(replay.review(input)).rejects.toThrow(
      /researcher replay: no stored feedback for task toy turn 2 \(stored turns for this task: 1\)/,
    );
  });

  it("validates stored records up front", () => {
    const bad = { researcher: "rules", items: [{ ...item, category: "T7" }] } as never;
    expect(() => createReplayResearcher([{ taskId: "toy", turn: 0, record: bad }])).toThrow(
      /replay record for task toy turn 0: not a valid feedback record: items\[0\]\.category/,
    );
    const rec = { researcher: "rules", items: [item] };
    expect(() =>
      createReplayResearcher([
        { taskId: "toy", turn: 0, record: rec },
        { taskId: "toy", turn: 0, record: rec },
      ]),
    ).toThrow(/two stored records for task toy turn 0/);
  });
});

describe("researcherFromSpec", () => {
  it("builds rules and llm researchers", () => {
    expect(researcherFromSpec("rules").id).toBe(createRulesResearcher().id);
    const specs: string[] = [];
    const r = researcherFromSpec("llm:scripted:fixture.json", {
      model: (s) => {
        specs.push(s);
        return new FakeModel([]);
      },
    });
    expect(specs).toEqual(["scripted:fixture.json"]);
    expect(r.id).toBe("llm:fake:reviewer");
  });

  it("explains bad specs", () => {
    expect(() => researcherFromSpec("oracle")).toThrow(/unknown researcher spec "oracle": use "rules" or "llm:<provider>:<model>"/);
    expect(() => researcherFromSpec("llm:")).toThrow(/name the model after "llm:"/);
    expect(() => researcherFromSpec("llm:openai:gpt-4o-mini")).toThrow(/no model factory/);
    expect(() => researcherFromSpec("human")).toThrow(/needs a feedback form callback/);
  });
});
