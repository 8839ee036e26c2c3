import { describe, expect, it } from "vitest";
import {
  aggregate,
  type EpisodeSummary,
  meanReciprocalRank,
  recallAtN,
  recallCurve,
  scoreEpisode,
  type TurnOutcome,
  testCasePassRate,
  turnOutcome,
} from "../../src/core/metrics";
import type { RunResult } from "../../src/core/results";

const ok = (passed: number, total: number): TurnOutcome => ({
  passed,
  total,
  collectionError: false,
  allPassed: total > 0 && passed === total,
});
const collection: TurnOutcome = { passed: 0, total: 0, collectionError: true, allPassed: false };

function episode(taskId: string, turns: TurnOutcome[], extra: Partial<EpisodeSummary> = {}): EpisodeSummary {
  return {
    model: "m",
    setting: "memory_agent",
    level: 2,
    researcher: "rules",
    taskId,
    turns,
    tokens: { prompt: 100, completion: 10 },
    wallMs: 1000,
    ...extra,
  };
}

// Hand-computed group (n = 10):
// t1 solved at turn 0                                  -> rank 1,   best pass 1
// t2 collection error, 2/4, 4/4 (solved at turn 2)     -> rank 1/3, best pass 1
// t3 1/3, 3/4 (one skipped), collection error: never   -> rank 0,   best pass 0.75
// t4 collection error only: never                      -> rank 0,   best pass 0
const group = [
  episode("t1", [ok(5, 5)]),
  episode("t2", [collection, ok(2, 4), ok(4, 4)]),
  episode("t3", [ok(1, 3), ok(3, 4), collection]),
  episode("t4", [collection]),
];

describe("per-episode scores", () => {
  it("finds the first all-pass turn and the best pass rate", () => {
    expect(scoreEpisode(group[0] as EpisodeSummary)).toEqual({ taskId: "t1", solvedAt: 0, reciprocalRank: 1, passRate: 1 });
    expect(scoreEpisode(group[1] as EpisodeSummary)).toEqual({ taskId: "t2", solvedAt: 2, reciprocalRank: 1 / 3, passRate: 1 });
    expect(scoreEpisode(group[2] as EpisodeSummary)).toEqual({ taskId: "t3", solvedAt: null, reciprocalRank: 0, passRate: 0.75 });
    expect(scoreEpisode(group[3] as EpisodeSummary)).toEqual({ taskId: "t4", solvedAt: null, reciprocalRank: 0, passRate: 0 });
  });

  it("counts only the first n turns", () => {
    expect(scoreEpisode(group[1] as EpisodeSummary, 2)).toEqual({ taskId: "t2", solvedAt: null, reciprocalRank: 0, passRate: 0.5 });
  });

  it("treats an episode without turns as unsolved with pass rate 0", () => {
    expect(scoreEpisode(episode("t0", []))).toEqual({ taskId: "t0", solvedAt: null, reciprocalRank: 0, passRate: 0 });
  });
});

describe("Recall@n, MRR, pass rate, curve", () => {
  it("match hand-computed values at n = 10", () => {
    expect(recallAtN(group)).toBe(0.5);
    expect(meanReciprocalRank(group)).toBeCloseTo((1 + 1 / 3) / 4, 12);
    expect(testCasePassRate(group)).toBeCloseTo((1 + 1 + 0.75 + 0) / 4, 12);
    expect(recallCurve(group)).toEqual([0.25, 0.25, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);
  });

  it("match hand-computed values at n = 2", () => {
    expect(recallAtN(group, 2)).toBe(0.25);
    expect(meanReciprocalRank(group, 2)).toBe(0.25);
    expect(testCasePassRate(group, 2)).toBeCloseTo((1 + 0.5 + 0.75 + 0) / 4, 12);
    expect(recallCurve(group, 2)).toEqual([0.25, 0.25]);
  });

  it("are 0 for no episodes", () => {
    expect(recallAtN([])).toBe(0);
    expect(meanReciprocalRank([])).toBe(0);
    expect(testCasePassRate([])).toBe(0);
    expect(recallCurve([], 3)).toEqual([0, 0, 0]);
  });
});

describe("aggregate", () => {
  it("groups per model x setting x level (x researcher) with sums and sorted rows", () => {
    const rows = aggregate([
      ...group,
      episode("t1", [ok(0, 2), ok(2, 2)], { level: 0, tokens: { prompt: 7, completion: 3 }, wallMs: 5 }),
      episode("t1", [ok(2, 2)], { model: "a-model", setting: "baseline" }),
    ]);
    expect(rows.map((r) => [r.model, r.setting, r.level])).toEqual([
      ["a-model", "baseline", 2],
      ["m", "memory_agent", 0],
      ["m", "memory_agent", 2],
    ]);
    const l2 = rows[2];
    expect(l2).toMatchObject({
      researcher: "rules",
      taskCount: 4,
      solvedCount: 2,
      n: 10,
      recallAtN: 0.5,
      tokens: { prompt: 400, completion: 40 },
      wallMs: 4000,
    });
    expect(l2?.mrr).toBeCloseTo(1 / 3, 12);
    expect(l2?.passRate).toBeCloseTo(0.6875, 12);
    expect(l2?.curve).toHaveLength(10);
    expect(rows[1]).toMatchObject({
      taskCount: 1,
      recallAtN: 1,
      mrr: 0.5,
      passRate: 1,
      curve: [0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
      tokens: { prompt: 7, completion: 3 },
    });
  });

  it("sums the calls that had no token counts, so that reports can say the sums are a lower bound", () => {
    const [row] = aggregate([
      episode("t1", [ok(2, 2)], { tokens: { prompt: 5, completion: 1, unreported: 2 } }),
      episode("t2", [ok(2, 2)], { tokens: { prompt: 5, completion: 1 } }),
    ]);
    expect(row?.tokens).toEqual({ prompt: 10, completion: 2, unreported: 2 });
  });

  it("honours n for every metric", () => {
    const [row] = aggregate(group, 3);
    expect(row).toMatchObject({ n: 3, recallAtN: 0.5, curve: [0.25, 0.25, 0.5] });
  });

  it("rejects the same task twice in a group", () => {
    expect(() => aggregate([episode("t1", [ok(1, 1)]), episode("t1", [ok(1, 1)])])).toThrow(
      /summaries\[1\]: task t1 appears twice for model m, setting memory_agent, level L2, researcher rules \(also summaries\[0\]\)/,
    );
  });

  it("rejects inconsistent or malformed summaries, naming the field", () => {
    const skippedMarkedPass = episode("t9", [{ passed: 3, total: 4, collectionError: false, allPassed: true }]);
    expect(() => aggregate([skippedMarkedPass])).toThrow(
      "summaries[0] (task t9, model m): turns[0].allPassed: is true but 3/4 passed means false",
    );
    expect(() => aggregate([episode("t9", [{ passed: 5, total: 4, collectionError: false, allPassed: false }])])).toThrow(
      /turns\[0\]\.passed: 5 passed is more than the 4 tests collected/,
    );
    expect(() => aggregate([episode("t9", [], { level: 7 as never })])).toThrow(/level: expected a feedback level 0..4, got 7/);
    expect(() => aggregate([episode("t9", [], { setting: "solo" as never })])).toThrow(
      /setting: expected one of baseline, agent, memory_agent/,
    );
    expect(() => aggregate(group, 0)).toThrow(/n \(turns counted\) must be a positive integer, got 0/);
  });
});

describe("turnOutcome", () => {
  const base: RunResult = {
    backend: "native",
    tests: [],
    collectionError: null,
    counts: { total: 3, passed: 3, failed: 0, error: 0, skipped: 0, xfail: 0, xpass: 0, timeout: 0, not_run: 0 },
    allPassed: true,
    durationMs: 10,
    incident: null,
    recorded: null,
  };
  it("maps counts and collection errors", () => {
    expect(turnOutcome(base)).toEqual({ passed: 3, total: 3, collectionError: false, allPassed: true });
    expect(turnOutcome({ ...base, counts: { ...base.counts, passed: 2, skipped: 1 }, allPassed: false })).toEqual({
      passed: 2,
      total: 3,
      collectionError: false,
      allPassed: false,
    });
    expect(
      turnOutcome({
        ...base,
        counts: { total: 0, passed: 0, failed: 0, error: 0, skipped: 0, xfail: 0, xpass: 0, timeout: 0, not_run: 0 },
        allPassed: false,
        collectionError: { message: "SyntaxError", file: "x.py", line: 1, traceback: "" },
      }),
    ).toEqual({ passed: 0, total: 0, collectionError: true, allPassed: false });
    expect(turnOutcome({ ...base, counts: { ...base.counts, total: 0, passed: 0 }, allPassed: false })).toMatchObject({ allPassed: false });
  });
});
