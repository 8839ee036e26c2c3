/**
 * The waits before retried model calls (a server's 429 with Retry-After, backoff after a 5xx) are recorded on their
 * own in each turn's timings (`retryWaitMs`), not as the agent's time (`agentMs`).
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

/** WAIT_MS: how long each call waits, as a provider does before a retry, and says so in its reply. */
const WAIT_MS = 150;

/** Every call waits, then answers `reply`; the calls of `waitingCalls` (0-based) say they waited. */
class WaitingModel implements ChatModel {
  readonly id = "fake:waiting";
  calls = 0;
  constructor(
    private readonly reply: string,
    private readonly waitingCalls: ReadonlySet<number>,
  ) {}
  async chat(_req: ChatRequest): Promise<ChatResponse> {
    const n = this.calls++;
    const waits = this.waitingCalls.has(n);
    if (waits) await new Promise((r) => setTimeout(r, WAIT_MS));
    return {
      content: this.reply,
      usage: { promptTokens: 1, completionTokens: 1 },
      latencyMs: waits ? WAIT_MS : 0,
      model: "waiting",
      ...(waits ? { retried: ["HTTP 429"], retryWaitMs: WAIT_MS } : {}),
    };
  }
}

describe("a turn whose model calls waited to be retried", () => {
  it.each(["baseline", "memory_agent"] as const)("%s: the waits are the turn's retryWaitMs, not its agentMs", async (setting) => {
    const reply = setting === "baseline" ? "```python\nX = 1\n```" : "Reflection: go\nAction: SUBMIT";
    // Turn 0's call waits; turn 1's does not.
    const model = new WaitingModel(reply, new Set([0]));
    const env: EpisodeEnv = {
      task,
      runtime,
      researcher: createRulesResearcher(),
      createAgent: () => createAgent(setting, model, { maxSteps: 1 }),
      versions: { app: "test", gitCommit: null },
      request: (t, code) => taskRunRequest(t, code),
    };
    const config: EpisodeConfig = { model: "m", researcher: "rules", setting, maxTurns: 2, maxSteps: 1 };
    const out = await runTaskEpisodes(env, repositoryEpisodeStore(repositoriesOver(memoryStore()).trajectories), config, [1]);
    expect(out.error).toBeNull();
    const [first, second] = out.trajectories[0]?.turns ?? [];
    expect(first?.timings.retryWaitMs).toBe(WAIT_MS);
    expect(first?.timings.agentMs).toBeLessThan(WAIT_MS);
    expect(second?.timings.retryWaitMs).toBeUndefined();
    // The episode's wall time still counts the wait.
    expect(out.trajectories[0]?.wallMs).toBeGreaterThanOrEqual(WAIT_MS);
  });
});
