/**
 * The one episode runner (src/core/task-episodes.ts) over both stores: the
 * run folder of `recode run` and the page's trajectory repository. Every case
 * runs on each, with the same expectations.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { folderEpisodeStore, RunFolder } from "../../src/cli/run-folder";
import { loadTaskDir } from "../../src/cli/task-fs";
import { createAgent } from "../../src/core/agent";
import type { EpisodeConfig, EpisodeEnv, TestRunner } from "../../src/core/episode";
import type { EpisodeStore } from "../../src/core/episode-store";
import type { Researcher } from "../../src/core/feedback";
import type { ChatModel } from "../../src/core/model";
import { createScriptedModel, solverScript } from "../../src/core/providers";
import { createRulesResearcher } from "../../src/core/researchers";
import { makeRunResult, makeTestResult, type RunResult, type TestResult } from "../../src/core/results";
import { runTaskEpisodes, type TaskEpisodeEvent } from "../../src/core/task-episodes";
import { taskRunRequest } from "../../src/python/runtime";
import { repositoryEpisodeStore } from "../../src/store/episode-store";
import { memoryStore, repositoriesOver } from "../../src/store/repositories";

const task = loadTaskDir("tasks", "min-p-sampling");
const target = task.meta.target_file_path;
const CONFIG: EpisodeConfig = { model: "scripted:fix.json", researcher: "rules", setting: "memory_agent", maxTurns: 3, maxSteps: 3 };

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

/** Turn 0 writes the starting text; later turns the canonical solution (or fail, when `broken`). Counts its calls. */
function coder(broken = false): ChatModel & { calls: number } {
  const script = solverScript([{ targetPath: target, first: task.starter, later: task.canonical }]);
  if (broken) script.rules = script.rules.filter((r) => !r.match.startsWith("/# Turn [1-9]"));
  const m = createScriptedModel(script, "fix.json");
  const counted = {
    ...m,
    id: m.id,
    calls: 0,
    chat: async (req: Parameters<ChatModel["chat"]>[0]) => {
      counted.calls++;
      return m.chat(req);
    },
  };
  return counted;
}

function env(runtime: TestRunner, model: ChatModel, researcher: Researcher = createRulesResearcher(), signal?: AbortSignal): EpisodeEnv {
  return {
    task,
    runtime,
    researcher,
    createAgent: () => createAgent(CONFIG.setting, model, { maxSteps: CONFIG.maxSteps }),
    versions: { app: "test", gitCommit: null },
    request: (t, code) => taskRunRequest(t, code),
    signal,
  };
}

const folders: string[] = [];
afterEach(() => {
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

/** The two stores, each with a way to damage a stored episode in place. */
const STORES: Record<string, () => { store: EpisodeStore; damage: (level: number) => Promise<void>; kept: () => Promise<number> }> = {
  "run folder": () => {
    const root = mkdtempSync(join(tmpdir(), "recode-episodes-"));
    folders.push(root);
    const folder = new RunFolder(root);
    const path = (level: number) => folder.episodePath(CONFIG.model, CONFIG.setting, level, task.id);
    return {
      store: folderEpisodeStore(folder),
      damage: async (level) => writeFileSync(path(level), readFileSync(path(level), "utf8").replace('"turns"', '"turnz"')),
      kept: async () => readdirSync(dirname(path(0))).filter((f) => f.includes(".corrupt-")).length,
    };
  },
  "page repository": () => {
    const kv = memoryStore();
    const repo = repositoriesOver(kv).trajectories;
    return {
      store: repositoryEpisodeStore(repo),
      damage: async (level) => {
        const [entry] = (await kv.entries("trajectories")).filter(
          (e) => (e.value as { trajectory: { config: { level: number } } }).trajectory.config.level === level,
        );
        const rec = entry?.value as { trajectory: Record<string, unknown> };
        rec.trajectory.turns = "broken";
        await kv.put("trajectories", entry?.key as string, rec);
      },
      kept: async () => (await kv.unreadable()).length,
    };
  },
};

describe.each(Object.keys(STORES))("the episode runner over the %s", (name) => {
  const make = STORES[name] as (typeof STORES)[string];

  it("runs turn 0 once for all levels, saves after every turn, and keeps finished episodes on a second run", async () => {
    const { store } = make();
    const rt = fakeRuntime();
    const events: TaskEpisodeEvent[] = [];
    const out = await runTaskEpisodes(env(rt, coder()), store, CONFIG, [4, 0], (e) => events.push(e));
    expect(out.error).toBeNull();
    expect(out.cancelled).toBe(false);
    expect(out.trajectories.map((t) => [t.config.level, t.stoppedReason, t.turns.length])).toEqual([
      [0, "solved", 2],
      [4, "solved", 2],
    ]);
    // Turn 0 ran once (1 test run) and each level ran turn 1 (2 more).
    expect(rt.runs).toBe(3);
    expect(events.filter((e) => e.type === "turn0-start")).toHaveLength(1);
    expect(events.filter((e) => e.type === "saved")).toHaveLength(4);
    const byLevel = new Map(out.trajectories.map((t) => [t.config.level, t]));
    expect(byLevel.get(4)?.turns[0]?.feedbackText).toContain("Code correction:");
    expect(byLevel.get(0)?.turns[0]?.feedbackText).not.toContain("Researcher feedback");

    const again: TaskEpisodeEvent[] = [];
    const second = await runTaskEpisodes(env(rt, coder()), store, CONFIG, [0, 4], (e) => again.push(e));
    expect(second.trajectories).toEqual(out.trajectories);
    expect(rt.runs).toBe(3);
    expect(again.filter((e) => e.type === "level-skip")).toHaveLength(2);
  });

  it("refuses to continue stored episodes with other turn or step limits, saying which", async () => {
    const { store } = make();
    const rt = fakeRuntime();
    await runTaskEpisodes(env(rt, coder()), store, CONFIG, [0]);
    const runs = rt.runs;
    const other = await runTaskEpisodes(env(rt, coder()), store, { ...CONFIG, maxTurns: 10 }, [0]);
    // Only what differs is named, and where the stored episode can be deleted.
    expect(other.error).toBe(
      "L0 on min-p-sampling is stored with 3 turns (this run: 10); run with the stored settings to resume it, or delete it first (Results, Delete the runs shown)",
    );
    expect(rt.runs).toBe(runs);
    const both = await runTaskEpisodes(env(rt, coder()), store, { ...CONFIG, maxTurns: 10, maxSteps: 5 }, [0]);
    expect(both.error).toContain("stored with 3 turns (this run: 10), 3 steps per turn (this run: 5);");
  });

  it("a task whose packages cannot be loaded ends in an error before any model is asked, and runs once they can", async () => {
    const { store } = make();
    const numpyTask = { ...task, meta: { ...task.meta, packages: ["numpy"] } };
    const rt = fakeRuntime();
    let offline = true;
    const runtime: TestRunner = {
      version: rt.version,
      run: async (req, opts) =>
        offline
          ? makeRunResult([], {
              incident: { kind: "packages", message: "package numpy could not be loaded from /wheels", respawned: false },
            })
          : rt.run(req, opts),
    };
    const model = coder();
    const e = { ...env(runtime, model), task: numpyTask };
    const first = await runTaskEpisodes(e, store, CONFIG, [0, 4]);
    expect(first.error).toBe(
      "the task's packages could not be loaded, so no model was asked: package numpy could not be loaded from /wheels",
    );
    expect(model.calls).toBe(0);
    expect(first.trajectories.map((t) => [t.config.level, t.stoppedReason, t.turns.length])).toEqual([
      [0, "error", 0],
      [4, "error", 0],
    ]);
    // Once the packages load, the episodes run (an episode that ended in an error runs again).
    offline = false;
    const second = await runTaskEpisodes(e, store, CONFIG, [0, 4]);
    expect(second.error).toBeNull();
    expect(second.trajectories.map((t) => t.stoppedReason)).toEqual(["solved", "solved"]);
    // One run asks for the packages, then turn 0 and each level's turn 1.
    expect(rt.runs).toBe(4);
  });

  it("a task that lists no packages is not run before the model is asked", async () => {
    const { store } = make();
    const rt = fakeRuntime();
    await runTaskEpisodes(env(rt, coder()), store, CONFIG, [0]);
    expect(rt.runs).toBe(2);
  });

  it("a model failure ends the episode in an error, saved; running again resumes from the last saved turn", async () => {
    const { store } = make();
    const rt = fakeRuntime();
    const first = await runTaskEpisodes(env(rt, coder(true)), store, CONFIG, [2]);
    expect(first.error).toMatch(/^L2: .*fix\.json/);
    expect(first.trajectories[0]?.stoppedReason).toBe("error");
    expect(first.trajectories[0]?.turns).toHaveLength(1);

    const second = await runTaskEpisodes(env(rt, coder()), store, CONFIG, [2]);
    expect(second.error).toBeNull();
    expect(second.trajectories[0]?.stoppedReason).toBe("solved");
    expect(second.trajectories[0]?.turns.map((x) => x.index)).toEqual([0, 1]);
    // The saved episode resumed: no new turn-0 test run.
    expect(rt.runs).toBe(2);
  });

  it("an episode that ended in an error keeps the wall time of its saved turns, not of the attempt that failed", async () => {
    const { store } = make();
    const broken = coder(true);
    // The failing call takes a while: its time is not a turn's.
    const slow: ChatModel = {
      id: broken.id,
      chat: async (req) => {
        await new Promise((r) => setTimeout(r, 30));
        return broken.chat(req);
      },
    };
    const saved: number[] = [];
    const first = await runTaskEpisodes(env(fakeRuntime(), slow), store, CONFIG, [0], (e) => {
      if (e.type === "saved" && e.trajectory.stoppedReason !== "error") saved.push(e.trajectory.wallMs);
    });
    expect(first.trajectories[0]?.stoppedReason).toBe("error");
    expect(saved).toHaveLength(1);
    expect(first.trajectories[0]?.wallMs).toBe(saved[0]);
  });

  it("a stop keeps what was saved and reports cancelled", async () => {
    const { store } = make();
    const ctl = new AbortController();
    const out = await runTaskEpisodes(env(fakeRuntime(), coder(), undefined, ctl.signal), store, CONFIG, [0, 4], (e) => {
      if (e.type === "saved") ctl.abort();
    });
    expect(out.cancelled).toBe(true);
    expect(out.trajectories).toHaveLength(1);
    expect(out.trajectories[0]?.finished).toBe(false);
    const read = await store.readEpisode({ ...CONFIG, taskId: task.id, level: 0 });
    expect(read.value?.trajectory.turns).toHaveLength(1);
  });

  it("a turn-0 failure is kept as an errored episode per level", async () => {
    const { store } = make();
    const empty = createScriptedModel({ rules: [{ match: "zzz", reply: "x" }] }, "empty");
    const out = await runTaskEpisodes(env(fakeRuntime(), empty), store, CONFIG, [0, 4]);
    expect(out.error).toMatch(/^turn 0 failed: .*empty/);
    expect(out.trajectories.map((t) => [t.config.level, t.stoppedReason, t.turns.length, t.error?.slice(0, 13)])).toEqual([
      [0, "error", 0, "turn 0 failed"],
      [4, "error", 0, "turn 0 failed"],
    ]);
  });

  it("when the review of turn 0 fails, the coder's turn is kept and the next try only redoes the review", async () => {
    const { store } = make();
    const rt = fakeRuntime();
    const failing: Researcher = {
      id: "rules",
      review: async () => {
        throw new Error("researcher unreachable");
      },
    };
    const model = coder();
    const first = await runTaskEpisodes(env(rt, model, failing), store, CONFIG, [1]);
    expect(first.error).toMatch(/^turn 0 failed: the researcher could not review turn 0: researcher unreachable/);
    const callsAfterTurn0 = model.calls;
    expect(rt.runs).toBe(1);

    const second = await runTaskEpisodes(env(rt, model), store, CONFIG, [1]);
    expect(second.error).toBeNull();
    expect(second.trajectories[0]?.stoppedReason).toBe("solved");
    // Turn 0's code and test run were reused: no new turn-0 test run; only turn 1 asked the coder again.
    expect(rt.runs).toBe(2);
    expect(second.trajectories[0]?.turns[0]?.code).toBe(task.starter);
    expect(model.calls).toBeGreaterThan(callsAfterTurn0);
  });

  it("when the review of a later turn fails, the coder's turn is kept and the next try only redoes its review", async () => {
    const { store } = make();
    const rt = fakeRuntime();
    const rules = createRulesResearcher();
    let down = true;
    const flaky: Researcher = {
      id: "rules",
      review: async (input) => {
        if (input.turn === 1 && down) throw new Error("researcher unreachable");
        return rules.review(input);
      },
    };
    // Turns 0 and 1 submit the starting text (both fail), turn 2 the canonical solution.
    const replace = (code: string) => `Reflection: x.\nAction: REPLACE\n\`\`\`python\n${code}\n\`\`\``;
    const esc = target.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    const script = {
      rules: [
        { match: "Result of REPLACE", reply: "Reflection: written.\nAction: SUBMIT" },
        { match: `/# Turn [01][\\s\\S]*${esc}/`, reply: replace(task.starter) },
        { match: `/# Turn [2-9][\\s\\S]*${esc}/`, reply: replace(task.canonical) },
      ],
    };
    const m = createScriptedModel(script, "fix.json");
    const turnsAsked: number[] = [];
    const model: ChatModel = {
      ...m,
      id: m.id,
      chat: async (req) => {
        const last = req.messages.at(-1)?.content ?? "";
        const turn = /# Turn (\d+)/.exec(typeof last === "string" ? last : "")?.[1];
        if (turn !== undefined) turnsAsked.push(Number(turn));
        return m.chat(req);
      },
    };
    const first = await runTaskEpisodes(env(rt, model, flaky), store, CONFIG, [2]);
    const t1 = first.trajectories[0];
    expect(t1?.stoppedReason).toBe("error");
    expect(t1?.error).toMatch(/researcher unreachable/);
    // The coder's turn 1 and its test run are kept, marked as not reviewed.
    expect(t1?.turns.map((t) => [t.index, t.run.allPassed, t.reviewError ?? null])).toEqual([
      [0, false, null],
      [1, false, "researcher unreachable"],
    ]);
    expect(rt.runs).toBe(2);
    expect(turnsAsked.filter((t) => t === 1)).toHaveLength(1);

    down = false;
    const second = await runTaskEpisodes(env(rt, model, flaky), store, CONFIG, [2]);
    const t2 = second.trajectories[0];
    expect(second.error).toBeNull();
    expect(t2?.stoppedReason).toBe("solved");
    // Turn 1 was reviewed, not written again: one more test run (turn 2's), and the coder asked for turn 1 once.
    expect(rt.runs).toBe(3);
    expect(turnsAsked.filter((t) => t === 1)).toHaveLength(1);
    expect(t2?.turns[1]?.reviewError).toBeUndefined();
    expect(t2?.turns[1]?.feedback).not.toBeNull();
    expect(t2?.turns[1]?.feedbackText).not.toBe("");
    expect(t2?.turns.map((t) => t.index)).toEqual([0, 1, 2]);
  });

  it("L0 alone asks the researcher for no review; a level added later has turn 0 reviewed, not written again", async () => {
    const { store } = make();
    const rt = fakeRuntime();
    let reviews = 0;
    const counting = (fail: boolean): Researcher => ({
      id: "rules",
      review: async (input) => {
        reviews += 1;
        if (fail) throw new Error("researcher unreachable");
        return createRulesResearcher().review(input);
      },
    });
    const model = coder();
    const l0 = await runTaskEpisodes(env(rt, model, counting(true)), store, CONFIG, [0]);
    expect(l0.error).toBeNull();
    expect(reviews).toBe(0);
    expect(l0.trajectories[0]?.turns[0]?.feedback).toBeNull();
    const runsAfterL0 = rt.runs;
    const turn0Code = l0.trajectories[0]?.turns[0]?.code;

    const l2 = await runTaskEpisodes(env(rt, model, counting(false)), store, CONFIG, [0, 2]);
    expect(l2.error).toBeNull();
    const t2 = l2.trajectories.find((t) => t.config.level === 2);
    // Turn 0 of L2 is the stored one, reviewed now: the same code, no new turn-0 test run.
    expect(t2?.turns[0]?.code).toBe(turn0Code);
    expect(t2?.turns[0]?.feedback).not.toBeNull();
    expect(t2?.turns[0]?.feedbackText).not.toBe("");
    expect(rt.runs - runsAfterL0).toBe((t2?.turns.length ?? 0) - 1);
  });

  it("an unreadable stored episode is set aside (kept), reported, and the episode runs again", async () => {
    const { store, damage, kept } = make();
    const rt = fakeRuntime();
    await runTaskEpisodes(env(rt, coder()), store, CONFIG, [0]);
    await damage(0);
    const events: TaskEpisodeEvent[] = [];
    const out = await runTaskEpisodes(env(rt, coder()), store, CONFIG, [0], (e) => events.push(e));
    expect(out.error).toBeNull();
    expect(out.trajectories[0]?.stoppedReason).toBe("solved");
    const problems = events.filter((e) => e.type === "problem");
    expect(problems).toHaveLength(1);
    expect((problems[0] as { message: string }).message).toMatch(/turns/);
    expect(await kept()).toBe(1);
  });

  it("a save that fails ends the work with the cause, and what was saved before stays", async () => {
    const { store } = make();
    let saves = 0;
    const full: EpisodeStore = {
      ...store,
      writeEpisode: async (t, m) => {
        saves += 1;
        if (saves > 1) throw new Error("cannot write: the disk is full; what was saved before is kept");
        await store.writeEpisode(t, m);
      },
    };
    const out = await runTaskEpisodes(env(fakeRuntime(), coder()), full, CONFIG, [0]);
    expect(out.storageFailed).toBe(true);
    expect(out.error).toMatch(/^L0: cannot write: the disk is full/);
    const read = await store.readEpisode({ ...CONFIG, taskId: task.id, level: 0 });
    expect(read.value?.trajectory.turns).toHaveLength(1);
  });
});
