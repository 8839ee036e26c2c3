import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildReport } from "../../src/core/report";
import { filterRuns, listRuns, type Run, runInputs, runLabel, sharedN, type TaskLine, taskTable } from "../../src/core/runs";
import { restoreTrajectory, type Trajectory } from "../../src/core/trajectory";

// Turn 0: collection error; turn 1: 1 of 3 passed (one skipped); turn 2: 3 of 3 (solved).
const BASE = restoreTrajectory(readFileSync(new URL("../fixtures/trajectories/v4-current.json", import.meta.url), "utf8"));

function episode(o: {
  task: string;
  level?: 0 | 1 | 2 | 3 | 4;
  model?: string;
  maxTurns?: number;
  turns?: number;
  at?: string;
}): Trajectory {
  const t = structuredClone(BASE);
  t.versions.task.id = o.task;
  t.config.level = o.level ?? 4;
  t.config.model = o.model ?? t.config.model;
  t.config.maxTurns = o.maxTurns ?? 10;
  t.turns = t.turns.slice(0, o.turns ?? t.turns.length);
  t.stoppedReason = t.turns.at(-1)?.run.allPassed ? "solved" : "max_turns";
  t.finished = true;
  t.createdAt = o.at ?? "2026-11-01T10:00:00Z";
  return restoreTrajectory(t);
}

const INPUTS = [
  { source: "a/L4/bm25.json", trajectory: episode({ task: "bm25" }) },
  { source: "a/L0/bm25.json", trajectory: episode({ task: "bm25", level: 0, turns: 2 }) },
  { source: "a/L4/gae.json", trajectory: episode({ task: "gae", at: "2026-11-02T09:00:00Z" }) },
  // The same level and task again: counted once, as the report does.
  { source: "copy/L4/gae.json", trajectory: episode({ task: "gae" }) },
  // Another model: another run, newer.
  { source: "b/L4/bm25.json", trajectory: episode({ task: "bm25", model: "ollama:other", maxTurns: 3, at: "2026-11-20T09:00:00Z" }) },
  { source: "broken.json", trajectory: { schemaVersion: 2, turns: "no" } },
];

describe("runs of stored trajectories", () => {
  const { runs, unreadable } = listRuns(INPUTS);
  const [newer, older] = runs as [Run, Run];

  it("groups episodes by configuration, newest first, with levels, tasks and dates", () => {
    expect(runs.map((r) => r.model)).toEqual(["ollama:other", BASE.config.model]);
    const a = older;
    expect(a.levels).toEqual([0, 4]);
    expect(a.tasks).toEqual(["bm25", "gae"]);
    expect(a.episodes.map((e) => e.source)).toEqual(["a/L4/bm25.json", "a/L0/bm25.json", "a/L4/gae.json"]);
    expect([a.firstAt, a.lastAt]).toEqual(["2026-11-01T10:00:00Z", "2026-11-02T09:00:00Z"]);
    expect(runLabel(newer)).toContain("3 turns");
    expect(unreadable).toEqual([expect.stringMatching(/^broken\.json: /)]);
  });

  it("a run's report is the report of its episodes; runs compare at the shared n", () => {
    const a = older;
    const report = buildReport(runInputs([a]));
    expect(report.rows.map((r) => [r.level, r.taskCount, r.solvedCount])).toEqual([
      [0, 1, 0],
      [4, 2, 2],
    ]);
    expect(sharedN(runs)).toBe(3);
    expect(sharedN([a])).toBe(10);
  });

  it("the per-task table holds each episode's first solved turn and best pass rate within n", () => {
    const table = taskTable(older, 10);
    expect(table.map((l) => l.taskId)).toEqual(["bm25", "gae"]);
    const [bm25, gae] = table as [TaskLine, TaskLine];
    expect(bm25.cells[4]).toMatchObject({ solvedAt: 2, passRate: 1 });
    expect(bm25.cells[0]).toMatchObject({ solvedAt: null });
    expect(bm25.cells[0]?.passRate).toBeCloseTo(1 / 3);
    expect(gae.cells[0]).toBeUndefined();
    // Within 2 turns the L4 episode is not solved.
    expect(taskTable(older, 2)[0]?.cells[4]).toMatchObject({ solvedAt: null });
  });

  it("filters by words, setting, profile, researcher and level", () => {
    expect(filterRuns(runs, { search: "other" }).map((r) => r.model)).toEqual(["ollama:other"]);
    expect(filterRuns(runs, { search: "gae" })).toHaveLength(1);
    expect(filterRuns(runs, { search: "copy/L4" })).toHaveLength(0);
    expect(filterRuns(runs, { level: 0 })).toHaveLength(1);
    expect(filterRuns(runs, { setting: "baseline" })).toHaveLength(0);
    expect(filterRuns(runs, { researcher: BASE.config.researcher, search: "" })).toHaveLength(2);
  });
});
