import { describe, expect, it } from "vitest";
import { loadTaskDir } from "../../src/cli/task-fs";
import type { TestRunner } from "../../src/core/episode";
import { createScriptedModel, solverScript } from "../../src/core/providers";
import { createRulesResearcher } from "../../src/core/researchers";
import { makeRunResult, makeTestResult, type RunResult, type TestResult } from "../../src/core/results";
import { memoryStore, repositoriesOver } from "../../src/store/repositories";
import { type AgentRunEvent, type AgentRunOptions, runAgentProtocol } from "../../src/ui/agent/runner";

const task = loadTaskDir("tasks", "min-p-sampling");
const target = task.meta.target_file_path;

/** Tests "pass" when the candidate is the canonical solution (a stand-in for Python, counting its runs). */
function fakeRuntime(): TestRunner & { runs: number } {
  const rt = {
    runs: 0,
    version: "3.14 (fake)",
    async run(req: { candidate: string }): Promise<RunResult> {
      rt.runs += 1;
      const pass = req.candidate.trim() === task.canonical.trim();
      const test = (i: number): TestResult =>
        makeTestResult(`T.test_${i}`, pass ? "passed" : "failed", {
          interface: "min_p_filter",
          durationMs: 1,
          message: pass ? "" : "AssertionError: differs",
        });
      return makeRunResult([test(1), test(2)], { backend: "pyodide", durationMs: 2 });
    },
  };
  return rt;
}

/** Turn 0 writes the starting text; later turns the canonical solution (or fail, when `broken`). */
function coder(broken = false) {
  const script = solverScript([{ targetPath: target, first: task.starter, later: task.canonical }]);
  // Broken: no rule for the later turns, so turn 1 fails with a model error.
  if (broken) script.rules = script.rules.filter((r) => !r.match.startsWith("/# Turn [1-9]"));
  return createScriptedModel(script, "fix.json");
}

const OPTS: AgentRunOptions = { setting: "memory_agent", levels: [4, 0], maxTurns: 3, maxSteps: 3, researcher: "rules" };

function deps(repos: ReturnType<typeof repositoriesOver>, runtime: TestRunner, broken = false, signal = new AbortController().signal) {
  const events: AgentRunEvent[] = [];
  return {
    events,
    d: {
      task,
      runtime,
      repo: repos.trajectories,
      coder: { spec: "scripted:fix.json", model: coder(broken) },
      researcher: createRulesResearcher(),
      versions: { app: "test", gitCommit: null },
      signal,
      onEvent: (e: AgentRunEvent) => events.push(e),
    },
  };
}

describe("the agent protocol in the page", () => {
  it("runs turn 0 once for all levels, saves after every turn, and keeps finished episodes on a second run", async () => {
    const repos = repositoriesOver(memoryStore());
    const rt = fakeRuntime();
    const { d, events } = deps(repos, rt);
    const out = await runAgentProtocol(OPTS, d);
    expect(out.error).toBeNull();
    expect(out.cancelled).toBe(false);
    expect(out.trajectories.map((t) => [t.config.level, t.stoppedReason, t.turns.length])).toEqual([
      [0, "solved", 2],
      [4, "solved", 2],
    ]);
    // Turn 0 ran once (1 test run) and each level ran turn 1 (2 more).
    expect(rt.runs).toBe(3);
    expect(events.filter((e) => e.type === "turn0-start")).toHaveLength(1);
    // Saved after turn 0 and after turn 1, per level.
    expect(events.filter((e) => e.type === "saved")).toHaveLength(4);
    const stored = await repos.trajectories.list();
    expect(stored.records.map((r) => r.trajectory.stoppedReason)).toEqual(["solved", "solved"]);
    expect(stored.records.every((r) => r.memory !== null)).toBe(true);
    // The L4 turn 0 feedback text carries code, the L0 one does not.
    const byLevel = new Map(out.trajectories.map((t) => [t.config.level, t]));
    expect(byLevel.get(4)?.turns[0]?.feedbackText).toContain("Code correction:");
    expect(byLevel.get(0)?.turns[0]?.feedbackText).not.toContain("Researcher feedback");

    const again = deps(repos, rt);
    const second = await runAgentProtocol(OPTS, again.d);
    expect(second.trajectories).toHaveLength(2);
    expect(rt.runs).toBe(3);
    expect(again.events.filter((e) => e.type === "level-skip")).toHaveLength(2);
  });

  it("refuses to continue stored episodes with other turn or step limits, saying which", async () => {
    const repos = repositoriesOver(memoryStore());
    const rt = fakeRuntime();
    await runAgentProtocol(OPTS, deps(repos, rt).d);
    const runs = rt.runs;
    const other = await runAgentProtocol({ ...OPTS, maxTurns: 10 }, deps(repos, rt).d);
    expect(other.error).toMatch(/L0 on min-p-sampling is stored with 3 turns and 3 steps/);
    expect(rt.runs).toBe(runs);
  });

  it("a model failure ends the episode with stoppedReason error, saved; running again resumes from the last saved turn", async () => {
    const repos = repositoriesOver(memoryStore());
    const rt = fakeRuntime();
    const first = await runAgentProtocol({ ...OPTS, levels: [2] }, deps(repos, rt, true).d);
    expect(first.error).toMatch(/^L2: .*fix\.json/);
    const saved = (await repos.trajectories.list()).records[0];
    expect(saved?.trajectory.stoppedReason).toBe("error");
    expect(saved?.trajectory.turns).toHaveLength(1);

    const second = await runAgentProtocol({ ...OPTS, levels: [2] }, deps(repos, rt).d);
    expect(second.error).toBeNull();
    const t = second.trajectories[0];
    expect(t?.stoppedReason).toBe("solved");
    expect(t?.turns.map((x) => x.index)).toEqual([0, 1]);
    // Turn 0 was reused from storage: no new turn-0 test run.
    expect(rt.runs).toBe(2);
  });

  it("a stop keeps what was saved and reports cancelled", async () => {
    const repos = repositoriesOver(memoryStore());
    const ctl = new AbortController();
    const rt = fakeRuntime();
    const { d } = deps(repos, rt, false, ctl.signal);
    const out = await runAgentProtocol(OPTS, {
      ...d,
      onEvent: (e) => {
        if (e.type === "saved") ctl.abort();
      },
    });
    expect(out.cancelled).toBe(true);
    const stored = (await repos.trajectories.list()).records;
    expect(stored).toHaveLength(1);
    expect(stored[0]?.trajectory.finished).toBe(false);
    expect(stored[0]?.trajectory.turns).toHaveLength(1);
  });

  it("a turn-0 failure is reported and kept as an errored episode per level", async () => {
    const repos = repositoriesOver(memoryStore());
    const { d } = deps(repos, fakeRuntime());
    const out = await runAgentProtocol(OPTS, {
      ...d,
      coder: { spec: "scripted:empty", model: createScriptedModel({ rules: [{ match: "zzz", reply: "x" }] }, "empty") },
    });
    expect(out.error).toMatch(/^Turn 0 failed: .*empty/);
    const stored = (await repos.trajectories.list()).records;
    expect(stored.map((r) => [r.trajectory.config.level, r.trajectory.stoppedReason, r.trajectory.turns.length])).toEqual([
      [0, "error", 0],
      [4, "error", 0],
    ]);
  });
});
