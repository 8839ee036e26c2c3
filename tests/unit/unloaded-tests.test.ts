/**
 * A run whose tests did not load counts as 0 of the task's recorded tests, in `recode test` and in the page's
 * record of a student's turns (a teacher's view of a turn that did not load read "0/0").
 */
import { describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { makeRunResult } from "../../src/core/results";
import { addRun } from "../../src/core/study";
import { recordedTests, withUnloadedTests } from "../../src/core/unloaded-tests";

const task = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
const broken = makeRunResult([], {
  collectionError: { message: "IndentationError: expected an indented block", file: "passk/estimator.py", line: 3, traceback: "" },
});

describe("tests that did not load", () => {
  it("are the recorded tests, not run, so the counts say how many there are", () => {
    const known = recordedTests(task);
    expect(known?.size).toBeGreaterThan(0);
    const r = withUnloadedTests(broken, task, known);
    expect(r.counts.total).toBe(known?.size);
    expect(r.counts.not_run).toBe(known?.size);
    expect(r.tests.every((t) => t.status === "not_run" && t.message.includes("did not load"))).toBe(true);
    expect(r.allPassed).toBe(false);
  });

  it("a student's turn of such a run is 0 of the recorded tests, not 0 of 0", () => {
    const total = recordedTests(task)?.size ?? 0;
    const turn = addRun(null, task.id, withUnloadedTests(broken, task, recordedTests(task)), 0, "def f(:\n").turns[0];
    expect([turn?.passed, turn?.total, turn?.solved]).toEqual([0, total, false]);
  });

  it("a run that listed its tests, or a task with no recording, is left as it is", () => {
    const ran = makeRunResult([], {});
    expect(withUnloadedTests(ran, task, recordedTests(task))).toBe(ran);
    expect(withUnloadedTests(broken, task, null)).toBe(broken);
  });
});
