/**
 * The `reference` protocol profile (src/core/protocol.ts, docs/protocol.md):
 * each point where the official RECODE-H harness differs from the playground.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadTaskDir } from "../../src/cli/task-fs";
import { createAgent, REFERENCE_SUMMARY_PREFIX } from "../../src/core/agent";
import type { EpisodeConfig, EpisodeEnv, TestRunner } from "../../src/core/episode";
import { CATEGORY_NAMES, type FeedbackRecord } from "../../src/core/feedback";
import type { ChatModel, ChatRequest, ChatResponse } from "../../src/core/model";
import { agentFeedback, profileSampling, renderReferenceFeedback, sharesTurn0 } from "../../src/core/protocol";
import { createRulesResearcher } from "../../src/core/researchers";
import { makeRunResult, makeTestResult, type RunResult } from "../../src/core/results";
import { runTaskEpisodes } from "../../src/core/task-episodes";
import { taskRunRequest } from "../../src/python/runtime";
import { repositoryEpisodeStore } from "../../src/store/episode-store";
import { memoryStore, repositoriesOver } from "../../src/store/repositories";

const task = loadTaskDir("tasks", "min-p-sampling");
const leak = JSON.parse(readFileSync("tests/fixtures/cases/15-feedback-code-leak.record.json", "utf8")) as FeedbackRecord;
const failing: RunResult = makeRunResult(
  [makeTestResult("T.test_a", "failed", { interface: "min_p_filter", durationMs: 1, message: "AssertionError: differs" })],
  { backend: "pyodide", durationMs: 1 },
);

/** Answers from a queue and records every request. */
class QueueModel implements ChatModel {
  readonly id = "fake:queue";
  readonly requests: ChatRequest[] = [];
  constructor(private readonly replies: string[]) {}
  async chat(req: ChatRequest): Promise<ChatResponse> {
    this.requests.push(structuredClone({ ...req, signal: undefined }));
    const content = this.replies.shift();
    if (content === undefined) throw new Error("no reply left");
    return { content, usage: { promptTokens: 1, completionTokens: 1 }, latencyMs: 0, model: "queue" };
  }
}

const step = (action: string) => `Reflection: go\nAction: ${action}`;

describe("feedback under the reference profile", () => {
  it("shows the fields as written, never the category, and 'No feedback' at L0", () => {
    const l2 = renderReferenceFeedback(leak, 2);
    expect(l2).toMatch(/^Feedback 0:\nInterface: /);
    expect(l2).toContain(`Analysis: ${leak.items[0]?.analysis}`);
    for (const name of Object.values(CATEGORY_NAMES)) expect(l2).not.toContain(name);
    expect(l2).not.toContain("[code omitted");
    expect(l2).not.toContain("Actionable Feedback:");
    expect(renderReferenceFeedback(leak, 4)).toContain(`Direct code feedback: ${leak.items[0]?.direct_code_feedback}`);
    expect(renderReferenceFeedback(leak, 0)).toBe("No feedback");
    expect(renderReferenceFeedback(null, 3)).toBe("No feedback");
  });

  it("gives the test log to memory_agent only; agent and baseline get the feedback alone", () => {
    const mem = agentFeedback("reference", "memory_agent", leak, failing, 1);
    expect(mem.testLog).toMatch(/^Test run: 1 test, 0 passed, 1 failed/);
    expect(mem.text).toBe(`${mem.testLog}\n\n${mem.feedback}`);
    for (const setting of ["agent", "baseline"] as const) {
      const f = agentFeedback("reference", setting, leak, failing, 1);
      expect(f.testLog).toBe("");
      expect(f.text).toBe(f.feedback);
      expect(f.text).not.toContain("Test run:");
    }
    // The playground: the test log in every setting, and the category.
    expect(agentFeedback("playground", "baseline", leak, failing, 1).text).toMatch(/^Test run: .*\n[\s\S]*T\d/);
  });

  it("shares turn 0 only in memory_agent", () => {
    expect(sharesTurn0("reference", "memory_agent")).toBe(true);
    expect(sharesTurn0("reference", "agent")).toBe(false);
    expect(sharesTurn0("reference", "baseline")).toBe(false);
    for (const s of ["baseline", "agent", "memory_agent"] as const) expect(sharesTurn0("playground", s)).toBe(true);
  });

  it("leaves OpenAI models at the provider's default temperature unless the seat sets one", () => {
    expect(profileSampling("reference", "openai:gpt-4o", {})).toEqual({ temperature: null });
    expect(profileSampling("reference", "openai:gpt-4o", { temperature: 0.3 })).toEqual({ temperature: 0.3 });
    expect(profileSampling("reference", "ollama:qwen", {})).toEqual({});
    expect(profileSampling("playground", "openai:gpt-4o", {})).toEqual({});
  });
});

describe("agents under the reference profile", () => {
  it("baseline appends the reply's code blocks to the target file, which is never reset", async () => {
    const model = new QueueModel(["Here:\n```python\ndef a():\n    return 1\n```\nand\n```\nB = 2\n```", "no code at all"]);
    const agent = createAgent("baseline", model, { profile: "reference" });
    const one = await agent.runTurn({ task, turn: 0, currentCode: "# start\n", feedback: null });
    expect(one.code).toBe("# start\n\ndef a():\n    return 1\n\nB = 2\n");
    const two = await agent.runTurn({ task, turn: 1, currentCode: one.code, feedback: "No feedback" });
    expect(two.code).toBe(one.code);
    // The playground replaces the file with the last block.
    const pg = createAgent("baseline", new QueueModel(["```python\nX = 1\n```"]));
    expect((await pg.runTurn({ task, turn: 0, currentCode: "# start\n", feedback: null })).code).toBe("X = 1\n");
  });

  it("memory keeps (result, response) pairs and not the feedback; the test log is the first result", async () => {
    const model = new QueueModel([step("BROWSE"), step("SUBMIT"), step("SUBMIT")]);
    const agent = createAgent("memory_agent", model, { profile: "reference" });
    await agent.runTurn({ task, turn: 0, currentCode: task.starter, feedback: null });
    let mem = agent.snapshot().messages;
    expect(mem.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(mem[0]?.content).toBe("No action result yet.");
    expect(mem[2]?.content).toMatch(/^Result of BROWSE:/);
    await agent.runTurn({
      task,
      turn: 1,
      currentCode: task.starter,
      feedback: "Feedback 0:\nInterface: min_p_filter",
      testLog: "Test run: 8 tests, 0 passed",
    });
    mem = agent.snapshot().messages;
    expect(mem).toHaveLength(6);
    expect(mem[4]?.content).toBe("Result of the last submission (unit tests):\nTest run: 8 tests, 0 passed");
    expect(mem.some((m) => m.content.includes("Interface: min_p_filter"))).toBe(false);
    // The feedback is in the step's prompt, with the memory rendered in it.
    const last = model.requests.at(-1)?.messages[1]?.content ?? "";
    expect(last).toContain("Interface: min_p_filter");
    expect(last).toContain("### assistant");
  });

  it("the agent setting keeps its memory across turns too; past 15 messages all but the last 5 are summarised", async () => {
    const replies = [step("BROWSE"), step("BROWSE"), step("SUBMIT"), step("BROWSE"), step("BROWSE"), step("SUBMIT")];
    // Turn 2: two steps, then (16 > 15 messages) the summary call, then the third step.
    replies.push(step("BROWSE"), step("BROWSE"), "summary text", step("SUBMIT"));
    const model = new QueueModel(replies);
    const agent = createAgent("agent", model, { profile: "reference" });
    await agent.runTurn({ task, turn: 0, currentCode: task.starter, feedback: null });
    await agent.runTurn({ task, turn: 1, currentCode: task.starter, feedback: "No feedback" });
    expect(agent.snapshot().messages).toHaveLength(12);
    const out = await agent.runTurn({ task, turn: 2, currentCode: task.starter, feedback: "No feedback" });
    const mem = agent.snapshot().messages;
    const summary = { role: "system", content: `${REFERENCE_SUMMARY_PREFIX}\nsummary text` };
    expect(out.messages).toContainEqual(summary);
    expect(out.modelCalls).toBe(4);
    expect(mem[0]).toEqual(summary);
    expect(mem).toHaveLength(1 + 5 + 2);
  });

  it("RETRIEVE returns 5 hits (the playground: 3)", async () => {
    const helpers = Array.from(
      { length: 8 },
      (_, i) => `def score_${i}(x):\n    """Score documents, variant ${i}."""\n    return x + ${i}\n`,
    ).join("\n");
    const big = { ...task, repo: { ...task.repo, "decoding/scores.py": helpers } };
    const prompts: Record<string, string> = {};
    const hits = async (profile: "reference" | "playground") => {
      const model = new QueueModel([step("RETRIEVE score documents"), step("SUBMIT")]);
      const agent = createAgent("agent", model, { profile });
      const out = await agent.runTurn({ task: big, turn: 0, currentCode: big.starter, feedback: null });
      prompts[profile] = String(model.requests[0]?.messages[0]?.content);
      return out.actions[0]?.result.split(", ").length ?? 0;
    };
    expect(await hits("playground")).toBe(3);
    expect(await hits("reference")).toBe(5);
    // The rules the model reads say as many.
    expect(prompts.playground).toContain("RETRIEVE <query>   show the 3 repository functions");
    expect(prompts.reference).toContain("RETRIEVE <query>   show the 5 repository functions");
  });
});

describe("episodes under the reference profile", () => {
  const rt = (): TestRunner & { runs: number } => {
    const r = {
      runs: 0,
      version: "fake",
      async run(): Promise<RunResult> {
        r.runs += 1;
        return failing;
      },
    };
    return r;
  };
  const env = (runtime: TestRunner, setting: "baseline" | "memory_agent"): EpisodeEnv => ({
    task,
    runtime,
    researcher: createRulesResearcher(),
    createAgent: () => createAgent(setting, new QueueModel(Array(20).fill("```python\nX = 1\n```")), { profile: "reference" }),
    versions: { app: "test", gitCommit: null },
    request: (t, code) => taskRunRequest(t, code),
  });

  it("baseline computes turn 0 at every level; memory_agent shares it; trajectories record the profile", async () => {
    const config: EpisodeConfig = { model: "m", researcher: "rules", setting: "baseline", maxTurns: 2, maxSteps: 3, protocol: "reference" };
    const store = repositoryEpisodeStore(repositoriesOver(memoryStore()).trajectories);
    const r = rt();
    const out = await runTaskEpisodes(env(r, "baseline"), store, config, [0, 2]);
    expect(out.error).toBeNull();
    // Two levels x two turns, turn 0 included in each.
    expect(r.runs).toBe(4);
    expect(out.trajectories.map((t) => [t.config.protocol, t.sharedTurn0])).toEqual([
      ["reference", false],
      ["reference", false],
    ]);
    // Baseline sees the feedback only: "No feedback" at L0.
    expect(out.trajectories[0]?.turns[0]?.feedbackText).toBe("No feedback");

    const shared = rt();
    const mem = await runTaskEpisodes(
      env(shared, "memory_agent"),
      repositoryEpisodeStore(repositoriesOver(memoryStore()).trajectories),
      { ...config, setting: "memory_agent" },
      [0, 2],
    );
    expect(mem.error).toBeNull();
    // Turn 0 once, then turn 1 of each level.
    expect(shared.runs).toBe(3);
    expect(mem.trajectories.map((t) => t.sharedTurn0)).toEqual([true, true]);
    // The page keeps a reference run beside a playground run of the same episode.
    const repo = repositoriesOver(memoryStore()).trajectories;
    const pageStore = repositoryEpisodeStore(repo);
    const play = await runTaskEpisodes(env(rt(), "baseline"), pageStore, { ...config, protocol: "playground" }, [0]);
    const refer = await runTaskEpisodes(env(rt(), "baseline"), pageStore, config, [0]);
    expect([play.error, refer.error]).toEqual([null, null]);
    expect((await repo.list()).records.map((r) => r.trajectory.config.protocol).sort()).toEqual(["playground", "reference"]);
    // memory_agent sees the test log too.
    expect(mem.trajectories[0]?.turns[0]?.feedbackText).toMatch(/^Test run: [\s\S]*\n\nNo feedback$/);
  });
});
