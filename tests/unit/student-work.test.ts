import { describe, expect, it } from "vitest";
import { makeRunResult, makeTestResult } from "../../src/core/results";
import { parseStudentWork, studentWork } from "../../src/core/student-work";
import { addRun, raiseLevel } from "../../src/core/study";

describe("student-work files", () => {
  it("carry every draft and every task's turns, and read back as written", () => {
    const p = raiseLevel(addRun(null, "pass-at-k", makeRunResult([makeTestResult("a", "failed")]), 5), 2);
    const work = studentWork(new Map([["min-p-sampling", "x = 1\n"]]), new Map([["pass-at-k", p]]), "Week 3", new Date(0));
    expect(work.tasks).toEqual([
      { taskId: "min-p-sampling", draft: "x = 1\n", progress: null },
      { taskId: "pass-at-k", draft: null, progress: p },
    ]);
    expect(parseStudentWork(JSON.stringify(work), "w.json")).toEqual(work);
  });

  it("name the file and the field of what is wrong", () => {
    const good = studentWork(new Map([["a", "x"]]), new Map(), null, new Date(0));
    const bad = (f: (w: Record<string, unknown>) => void) => {
      const w = structuredClone(good) as unknown as Record<string, unknown>;
      f(w);
      return JSON.stringify(w);
    };
    expect(() => parseStudentWork("{", "w.json")).toThrow(/^w\.json: not valid JSON/);
    expect(() =>
      parseStudentWork(
        bad((w) => (w.format = "x")),
        "w.json",
      ),
    ).toThrow(/w\.json: not a student-work file: format/);
    expect(() =>
      parseStudentWork(
        bad(
          (w) =>
            ((w.tasks as Record<string, unknown>[])[0] = { taskId: "a", draft: null, progress: { version: 1, taskId: "b", turns: [] } }),
        ),
        "w.json",
      ),
    ).toThrow(/tasks\[0\]\.progress\.taskId is "b", not "a"/);
    expect(() =>
      parseStudentWork(
        bad(
          (w) =>
            ((w.tasks as Record<string, unknown>[])[0] = {
              taskId: "a",
              draft: null,
              progress: { version: 1, taskId: "a", turns: [{ at: 1, passed: 0, total: 1, solved: false, level: 7 }] },
            }),
        ),
        "w.json",
      ),
    ).toThrow(/tasks\[0\]\.progress\.turns\[0\]\.level/);
  });
});
