/**
 * The tests a run of a task should have had when its tests did not load (a
 * collection error): the recorded tests, listed as not run, so that a run's
 * counts say how many tests the file got none of ("0 of 6"), in `recode test`
 * and in the page's record of a student's turns alike.
 */
import { countTests, makeTestResult, type RunResult } from "./results";
import type { Task } from "./task";
import { parseExpected } from "./values";

/** The ids of the tests expected.json records (its keys, in its order), or null for none or an unreadable file. */
export function recordedTests(task: Task): ReadonlyMap<string, unknown> | null {
  if (task.expected === null) return null;
  try {
    return parseExpected(task.expected).tests;
  } catch {
    return null;
  }
}

/**
 * A run whose tests did not load (a collection error), with the recorded tests (`known`) listed as `not_run`, so that
 * its counts say how many tests the file got none of ("0 of 6"). A run that listed tests is returned as it is.
 */
export function withUnloadedTests(r: RunResult, task: Task, known: ReadonlyMap<string, unknown> | null): RunResult {
  if (r.collectionError === null || r.tests.length > 0 || known === null) return r;
  const tests = [...known.keys()].map((id) =>
    makeTestResult(id, "not_run", {
      interface: task.interfaceOf[id] ?? null,
      message: "not run: the tests did not load (see the collection error)",
    }),
  );
  return { ...r, tests, counts: countTests(tests) };
}
