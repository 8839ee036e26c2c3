import { describe, expect, it } from "vitest";
import { makeRunResult, makeTestResult } from "../../src/core/results";
import {
  addRun,
  nextLevel,
  raiseLevel,
  summarizeProgress,
  TaskProgressSchema,
  TURN_CODE_CHARS,
  TURN_CODE_KEPT,
} from "../../src/core/study";

const failing = makeRunResult([makeTestResult("t.a", "passed"), makeTestResult("t.b", "failed")]);
const passing = makeRunResult([makeTestResult("t.a", "passed"), makeTestResult("t.b", "xfail")]);

describe("a student's turns on a task", () => {
  it("records each run as a turn at L0, and raises the last turn's level as the student asks for more", () => {
    let p = addRun(null, "dyt", failing, 1000);
    expect(p.turns).toEqual([{ at: 1000, passed: 1, total: 2, solved: false, level: 0 }]);
    p = raiseLevel(p, 2);
    p = raiseLevel(p, 1); // going back down the ladder is free
    expect(p.turns[0]?.level).toBe(2);
    p = addRun(p, "dyt", passing, 2000);
    expect(p.turns.map((t) => [t.solved, t.level])).toEqual([
      [false, 2],
      [true, 0],
    ]);
    expect(TaskProgressSchema.parse(p)).toEqual(p);
  });

  it("keeps the text each of the last turns ran, and reads records made before turns kept it", () => {
    let p = addRun(null, "x", failing, 1, "def f(): return 0\n");
    expect(p.turns[0]?.code).toBe("def f(): return 0\n");
    for (let i = 2; i <= TURN_CODE_KEPT + 1; i++) p = addRun(p, "x", failing, i, `# turn ${i}\n`);
    expect(p.turns).toHaveLength(TURN_CODE_KEPT + 1);
    expect(p.turns[0]?.code).toBeUndefined();
    expect(p.turns[1]?.code).toBe("# turn 2\n");
    expect(p.turns.at(-1)?.code).toBe(`# turn ${TURN_CODE_KEPT + 1}\n`);
    // Too long a text is not kept; the turn is.
    p = addRun(p, "x", failing, 99, "x".repeat(TURN_CODE_CHARS + 1));
    expect(p.turns.at(-1)).toEqual({ at: 99, passed: 1, total: 2, solved: false, level: 0 });
    expect(TaskProgressSchema.parse(p)).toEqual(p);
    expect(
      TaskProgressSchema.parse({ version: 1, taskId: "x", turns: [{ at: 1, passed: 0, total: 1, solved: false, level: 0 }] }).turns[0]
        ?.code,
    ).toBeUndefined();
  });

  it("summarises runs, solved, the levels used, and the help the solution took", () => {
    expect(summarizeProgress(null)).toEqual({ runs: 0, solved: false, lastSolved: false, levels: [], helpToSolve: null });
    let p = addRun(null, "x", failing, 1);
    p = raiseLevel(p, 3);
    p = addRun(p, "x", failing, 2);
    p = raiseLevel(p, 1);
    p = addRun(p, "x", passing, 3);
    p = addRun(p, "x", failing, 4); // after solving: still listed among the levels, not in the help it took
    p = raiseLevel(p, 4);
    // Solved once; the last run's text fails: said apart, so that "solved" is not read as the latest text's.
    expect(summarizeProgress(p)).toEqual({ runs: 4, solved: true, lastSolved: false, levels: [1, 3, 4], helpToSolve: 3 });
    expect(summarizeProgress(addRun(p, "x", passing, 5)).lastSolved).toBe(true);
  });

  it("has no level to record before a run, and climbs one rung at a time up to the cap", () => {
    expect(() => raiseLevel({ version: 1, taskId: "x", turns: [] }, 1)).toThrow(/task x: no run yet/);
    expect(nextLevel(0)).toBe(1);
    expect(nextLevel(3)).toBe(4);
    expect(nextLevel(4)).toBeNull();
    expect(nextLevel(2, 2)).toBeNull();
  });

  it("refuses a stored record of the wrong shape, naming the field", () => {
    const bad = TaskProgressSchema.safeParse({ version: 1, taskId: "x", turns: [{ at: 1, passed: 0, total: 1, solved: false, level: 5 }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["turns", 0, "level"]);
  });
});
