/**
 * A Python runtime shared by the tests of one describe block, a run of a test.py of a test's own, and the status
 * of a test in a run's result.
 */
import { afterAll, beforeAll } from "vitest";
import type { RunResult } from "../../src/core/results";
import { createRuntime } from "../../src/python/node";
import type { PythonRuntime, RunRequest } from "../../src/python/runtime";

/**
 * A runtime of `backend` started before the enclosing describe block's tests (beforeAll) and disposed after them
 * (afterAll). Returns the function that gives it inside a test; it throws when called before the start.
 */
export function sharedRuntime(backend: "pyodide" | "native", interruptGraceMs = 700): () => PythonRuntime {
  let rt: PythonRuntime | undefined;
  beforeAll(async () => {
    rt = createRuntime(backend, { interruptGraceMs });
    await rt.ready();
  });
  afterAll(async () => {
    await rt?.dispose();
  });
  return () => {
    if (!rt) throw new Error("the shared runtime is used before its beforeAll ran");
    return rt;
  };
}

/** The status of the test `id` ("Class.test_name") in `r`, or undefined when the run has no such test. */
export function statusOf(r: RunResult, id: string): string | undefined {
  return r.tests.find((t) => t.id === id)?.status;
}

/** A run of `candidate` as `target.py` against a test.py of the test's own (and its recording, if any); 20 s time limit. */
export function targetRequest(candidate: string, tests: string, expected: string | null = null, packages: string[] = []): RunRequest {
  return { files: {}, targetPath: "target.py", candidate, tests, mode: "test", expected, packages, timeLimitMs: 20_000 };
}
