import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { createAgent, fence } from "../../src/core/agent";
import type { AgentSetting } from "../../src/core/agent/types";
import { type EpisodeEnv, runEpisode, runTurn0 } from "../../src/core/episode";
import type { FeedbackLevel } from "../../src/core/feedback";
import { aggregate } from "../../src/core/metrics";
import type { ChatModel, ChatRequest } from "../../src/core/model";
import { createScriptedModel } from "../../src/core/providers";
import { createRulesResearcher } from "../../src/core/researchers";
import { episodeSummary, restoreTrajectory, type Trajectory } from "../../src/core/trajectory";
import { createRuntime } from "../../src/python/node";
import { type PythonRuntime, taskRunRequest } from "../../src/python/runtime";
import { knownBug } from "../helpers/known-bugs";

const TASK_ID = "min-p-sampling";
const task = loadTaskDir(BUILTIN_TASKS, TASK_ID);
const buggy = knownBug(TASK_ID).code;

/** Scripts: turn 0 writes the known-bug version, turn 1 the canonical solution. */
function script(setting: AgentSetting, fixAt = 1) {
  if (setting === "baseline") {
    return {
      rules: [
        { match: "# Turn 0", reply: `Here is my attempt.\n${fence(buggy)}` },
        { match: `/# Turn [${fixAt}-9]/`, reply: fence(task.canonical) },
        { match: "/# Turn \\d/", reply: fence(buggy) },
      ],
    };
  }
  return {
    rules: [
      { match: "Result of REPLACE", reply: "Reflection: the file is written.\nAction: SUBMIT" },
      { match: "# Turn 0", reply: `Reflection: write a first version.\nAction: REPLACE\n${fence(buggy)}` },
      { match: `/# Turn [${fixAt}-9]/`, reply: `Reflection: follow the feedback.\nAction: REPLACE\n${fence(task.canonical)}` },
      { match: "/# Turn \\d/", reply: `Reflection: try again.\nAction: REPLACE\n${fence(buggy)}` },
    ],
  };
}

/** Wraps a model and records every request. */
function recording(model: ChatModel): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    id: model.id,
    requests,
    chat: (req) => {
      requests.push(req);
      return model.chat(req);
    },
  };
}

let runtime: PythonRuntime;
beforeAll(async () => {
  runtime = createRuntime("pyodide");
  await runtime.ready();
});
afterAll(async () => {
  await runtime.dispose();
});

function env(model: ChatModel, setting: AgentSetting): EpisodeEnv {
  return {
    task,
    runtime,
    researcher: createRulesResearcher(),
    createAgent: () => createAgent(setting, model, { maxSteps: 3 }),
    versions: { app: "test", gitCommit: null },
    request: (t, code) => taskRunRequest(t, code),
  };
}

const LEVELS: FeedbackLevel[] = [0, 1, 2, 3, 4];

describe.each(["baseline", "agent", "memory_agent"] as AgentSetting[])("episode, %s setting", (setting) => {
  it("shares turn 0 across levels, gives feedback by level, stops at the first all-pass turn", async () => {
    const model = recording(createScriptedModel(script(setting), `${setting}.json`));
    const e = env(model, setting);
    const config = { model: "scripted:test", researcher: "rules", setting, maxTurns: 10, maxSteps: 3 };
    const turn0 = await runTurn0(e, config);
    const callsAfterTurn0 = model.requests.length;
    expect(turn0.turn.run.allPassed).toBe(false);
    expect(turn0.turn.feedback?.items.length).toBeGreaterThan(0);

    const saves: Trajectory[] = [];
    const results: Trajectory[] = [];
    for (const level of LEVELS) {
      results.push(await runEpisode(e, turn0, level, (t) => void saves.push(structuredClone(t))));
    }
    // Turn 0 is not generated again for any level.
    expect(model.requests.filter((r) => r.messages.at(-1)?.content.includes("# Turn 0")).length).toBe(1);
    expect(model.requests.length).toBeGreaterThan(callsAfterTurn0);

    for (const [i, t] of results.entries()) {
      const level = LEVELS[i] as FeedbackLevel;
      expect(restoreTrajectory(JSON.parse(JSON.stringify(t)))).toEqual(t);
      expect(t.sharedTurn0).toBe(true);
      expect(t.turns[0]?.code).toBe(turn0.turn.code);
      expect(t.turns).toHaveLength(2);
      expect(t.stoppedReason).toBe("solved");
      expect(t.turns[1]?.run.allPassed).toBe(true);
      expect(t.turns[1]?.feedback).toBeNull();
      expect(t.turns[1]?.feedbackText).toBe("");
      const text = t.turns[0]?.feedbackText ?? "";
      // Every level sees the test log of the last submission.
      expect(text).toMatch(/FAILED|ERROR/);
      if (level === 0) expect(text).not.toContain("min_p_sample:");
      if (level >= 1) expect(text).toContain("min_p_sample");
      if (level < 4) expect(text).not.toContain("def min_p_sample");
      if (level === 4) expect(text).toContain("def min_p_sample");
      if (setting !== "baseline") {
        expect(t.turns[1]?.actions.map((a) => a.type)).toEqual(["REPLACE", "SUBMIT"]);
      }
    }
    // The agent received the rendered feedback of its level at turn 1.
    const turn1Prompts = model.requests.map((r) => r.messages.map((m) => m.content).join("\n")).filter((p) => p.includes("# Turn 1"));
    expect(turn1Prompts.some((p) => p.includes("def min_p_sample"))).toBe(true);
    // Saved after every turn.
    expect(saves.length).toBe(LEVELS.length * 2);

    const rows = aggregate(results.map(episodeSummary), 10);
    for (const r of rows) {
      expect(r.recallAtN).toBe(1);
      expect(r.mrr).toBe(0.5);
      expect(r.curve.slice(0, 2)).toEqual([0, 1]);
    }
  });
});

describe("episode protocol details", () => {
  it("memory_agent carries turn 0 into turn 1; agent does not", async () => {
    for (const setting of ["agent", "memory_agent"] as AgentSetting[]) {
      const model = recording(createScriptedModel(script(setting), "memory.json"));
      const e = env(model, setting);
      const turn0 = await runTurn0(e, { model: "m", researcher: "rules", setting, maxTurns: 10, maxSteps: 3 });
      await runEpisode(e, turn0, 2, () => {});
      const turn1 = model.requests.find((r) => r.messages.at(-1)?.content.includes("# Turn 1"));
      const sawTurn0 = turn1?.messages.some((m) => m.content.includes("# Turn 0")) ?? false;
      expect(sawTurn0).toBe(setting === "memory_agent");
    }
  });

  it("submits automatically after max steps", async () => {
    const model = createScriptedModel(
      {
        rules: [
          { match: "# Turn 0", reply: `Reflection: write.\nAction: REPLACE\n${fence(task.canonical)}` },
          { match: "Result of", reply: "Reflection: look around.\nAction: BROWSE" },
        ],
      },
      "auto.json",
    );
    const turn0 = await runTurn0(env(model, "agent"), { model: "m", researcher: "rules", setting: "agent", maxTurns: 3, maxSteps: 3 });
    expect(turn0.turn.actions.map((a) => a.type)).toEqual(["REPLACE", "BROWSE", "BROWSE", "AUTO_SUBMIT"]);
    expect(turn0.turn.run.allPassed).toBe(true);
  });

  it("stops at the turn limit and gives no feedback after the last turn", async () => {
    const model = createScriptedModel(script("baseline", 99), "never.json");
    const e = env(model, "baseline");
    const turn0 = await runTurn0(e, { model: "m", researcher: "rules", setting: "baseline", maxTurns: 3, maxSteps: 3 });
    const t = await runEpisode(e, turn0, 3, () => {});
    expect(t.turns).toHaveLength(3);
    expect(t.stoppedReason).toBe("max_turns");
    expect(t.turns[1]?.feedback).not.toBeNull();
    expect(t.turns[2]?.feedback).toBeNull();
    expect(t.turns[2]?.feedbackText).toBe("");
    const rows = aggregate([episodeSummary(t)], 10);
    expect(rows[0]?.recallAtN).toBe(0);
    expect(rows[0]?.mrr).toBe(0);
    expect(rows[0]?.passRate).toBeGreaterThan(0);
  });

  it("records a failing model as an error and resumes from the last finished turn", async () => {
    let fail = true;
    const inner = createScriptedModel(script("baseline"), "flaky.json");
    const flaky: ChatModel = {
      id: "flaky",
      chat: async (req) => {
        if (fail && req.messages.at(-1)?.content.includes("# Turn 1")) throw new Error("endpoint went away");
        return inner.chat(req);
      },
    };
    const e = env(flaky, "baseline");
    const turn0 = await runTurn0(e, { model: "m", researcher: "rules", setting: "baseline", maxTurns: 5, maxSteps: 3 });
    let saved: { trajectory: Trajectory; memory: ReturnType<ReturnType<typeof createAgent>["snapshot"]> } | null = null;
    const t = await runEpisode(e, turn0, 1, (trajectory, memory) => {
      saved = { trajectory: structuredClone(trajectory), memory };
    });
    expect(t.stoppedReason).toBe("error");
    expect(t.error).toContain("endpoint went away");
    expect(t.turns).toHaveLength(1);
    fail = false;
    const resumed = await runEpisode(e, turn0, 1, () => {}, saved ?? undefined);
    expect(resumed.stoppedReason).toBe("solved");
    expect(resumed.turns).toHaveLength(2);
    expect(resumed.turns[0]?.code).toBe(turn0.turn.code);
  });
});
