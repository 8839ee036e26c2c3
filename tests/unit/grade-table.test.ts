import { describe, expect, it } from "vitest";
import { type Graded, gradeCsv, gradeTable } from "../../src/cli/grade-table";
import { makeRunResult, makeTestResult } from "../../src/core/results";

const graded = (path: string, result: ReturnType<typeof makeRunResult>): Graded => ({ path, result, problem: null, backend: "native" });

describe("the closing table of recode test", () => {
  it("says a run's time limit and a test's own time limit apart", () => {
    // An imported task's per-test limit (test.sh's --timeout): the run ended in time, two tests did not.
    const perTest = makeRunResult([makeTestResult("a", "timeout"), makeTestResult("b", "timeout"), makeTestResult("c", "passed")]);
    const whole = makeRunResult([makeTestResult("a", "timeout"), makeTestResult("b", "not_run")], {
      incident: { kind: "timeout", message: "Time limit of 1.0 s reached", respawned: false },
    });
    const rows = [graded("per-test.py", perTest), graded("whole.py", whole)];
    const table = gradeTable("t", rows);
    expect(table).toMatch(/per-test\.py .*2 tests over the per-test time limit/);
    expect(table).toMatch(/whole\.py .*time limit reached/);
    expect(gradeCsv("t", rows)).toContain("t,per-test.py,not solved,1,3,2 tests over the per-test time limit");
  });
});
