/**
 * A reply cut at the model's token limit (issue "Any model's replies"): nothing of it is applied, and the
 * agent is told, in the turn when steps are left (agent.test.ts) and at the next turn when the cut reply
 * was the turn's last (the baseline's one reply, or an agent's last step).
 */
import { describe, expect, it } from "vitest";
import { loadTaskDir } from "../../src/cli/task-fs";
import { createAgent } from "../../src/core/agent";
import type { EpisodeConfig, EpisodeEnv, TestRunner } from "../../src/core/episode";
import type { ChatModel, ChatRequest, ChatResponse } from "../../src/core/model";
import { createRulesResearcher } from "../../src/core/researchers";
import { makeRunResult, makeTestResult, type RunResult } from "../../src/core/results";
import { runTaskEpisodes } from "../../src/core/task-episodes";
import { taskRunRequest } from "../../src/python/runtime";
import { repositoryEpisodeStore } from "../../src/store/episode-store";
import { memoryStore, repositoriesOver } from "../../src/store/repositories";

const task = loadTaskDir("tasks", "min-p-sampling");
const failing: RunResult = makeRunResult(
  [makeTestResult("T.test_a", "failed", { interface: "min_p_filter", durationMs: 1, message: "AssertionError: differs" })],
  { backend: "pyodide", durationMs: 1 },
);
const runtime: TestRunner = { version: "fake", run: async () => failing };

/** Replies in order; the one at `cutAt` (0-based call) is cut at the token limit. Records every request. */
class CutModel implements ChatModel {
  readonly id = "fake:cut";
  readonly requests: ChatRequest[] = [];
  constructor(
    private readonly reply: string,
    private readonly cutAt: number,
  ) {}
  async chat(req: ChatRequest): Promise<ChatResponse> {
    const n = this.requests.length;
    this.requests.push(structuredClone({ ...req, signal: undefined }));
    const truncated = n === this.cutAt;
    return {
      content: truncated ? "```python\ndef min_p_filter(probs, p_ba" : this.reply,
      truncated,
      usage: { promptTokens: 1, completionTokens: 1 },
      latencyMs: 0,
      model: "cut",
    };
  }
}

const REPLIES = { baseline: "```python\nX = 1\n```", agent: "Reflection: go\nAction: SUBMIT" } as const;

describe.each(["playground", "reference"] as const)("a reply cut at the token limit (%s profile)", (protocol) => {
  it.each(["baseline", "agent"] as const)("%s: the turn after it tells the agent that nothing of the reply was used", async (setting) => {
    // Turn 0 is one call; the cut reply is turn 1's only call (the baseline's reply, or an agent's only step).
    const model = new CutModel(REPLIES[setting], 1);
    const env: EpisodeEnv = {
      task,
      runtime,
      researcher: createRulesResearcher(),
      createAgent: () => createAgent(setting, model, { profile: protocol, maxSteps: 1 }),
      versions: { app: "test", gitCommit: null },
      request: (t, code) => taskRunRequest(t, code),
    };
    const config: EpisodeConfig = { model: "m", researcher: "rules", setting, maxTurns: 3, maxSteps: 1, protocol };
    const out = await runTaskEpisodes(env, repositoryEpisodeStore(repositoriesOver(memoryStore()).trajectories), config, [2]);
    expect(out.error).toBeNull();
    const turns = out.trajectories[0]?.turns ?? [];
    expect(turns[1]?.actions[0]?.result).toContain("truncated");
    const text = (r: ChatRequest | undefined) => JSON.stringify(r?.messages ?? []);
    expect(text(model.requests[1])).not.toContain("cut at the token limit");
    expect(text(model.requests[2])).toContain("Your last reply was cut at the token limit");
  });
});
