/**
 * Test-run results: what one submission of a candidate target file produced.
 * Shared by the Python runtimes, the page, the CLI and (later) metrics.
 */

/**
 * Outcomes of one unit test, declared in vocabulary.ts. As CPython's unittest
 * reports them, plus `timeout`:
 * - `passed`, `failed` (an assertion), `error` (any other exception, or a
 *   fixture of its class or module that raised), `skipped`;
 * - `xfail`: an expected failure (`@unittest.expectedFailure` that failed);
 * - `xpass`: an unexpected success (the same decorator, and the test passed);
 * - `timeout`: the run's wall clock ran out (or the user stopped it) during it.
 */
export { TEST_STATUSES, type TestStatus } from "./vocabulary";

/**
 * The message of the test that was running when the user stopped the run. Its status is `timeout` (the
 * verdict and the metrics treat a stop as the time limit); the page labels it "stopped".
 */
export const STOPPED_BY_USER = "stopped by the user while this test ran";

import type { TestStatus } from "./vocabulary";

/** Outcome of one failing, erroring or skipped subTest of a test (`with self.subTest(i=1): ...`). */
export interface SubTestResult {
  /** The subTest's message and parameters as unittest prints them, e.g. `(i=2)` or `[first] (i=2)`. */
  params: string;
  status: "failed" | "error" | "skipped";
  /** One-line message (exception type and text, or the skip reason). */
  message: string;
  /** Traceback limited to task files, capped like output. */
  traceback: string;
}

/** Structured difference found by a value check (`recode_check.check`). */
export interface Mismatch {
  /** Key of the recorded value in expected.json. */
  key: string;
  /**
   * What differs: type, length, shape, dtype, keys or value; `raised` for a check of `recode_check.outcome`
   * where one side raised (the other returned, or raised another built-in class).
   */
  kind: "type" | "length" | "shape" | "dtype" | "keys" | "value" | "raised";
  /** Element path inside the value, e.g. `[2][0]`; empty for the whole value. */
  where: string;
  /** Short reprs of the two sides. */
  expected: string;
  actual: string;
  /** One-line explanation, e.g. `expected 0.25, got 0.3 (abs diff 0.05; ...)`. */
  detail: string;
  /**
   * The call of `recode_check.outcome` the differing value came from, as the test made it, e.g.
   * `sigmoid('a')` (the callable's name and the arguments' short reprs, at most 120 characters;
   * values of other than built-in types as `<TypeName>`); absent when the value was not made by
   * `outcome`, or by a run before this field. Written in the interpreter under test: for messages alone.
   */
  call?: string;
}

/** Where a mismatch is, as messages say it after the check's key: ` at [3], for sigmoid('a')`, or empty. */
export function mismatchPlace(m: Mismatch): string {
  return `${m.where ? ` at ${m.where}` : ""}${m.call ? `, for ${m.call}` : ""}`;
}

/** Result of one unit test. */
export interface TestResult {
  /** `Class.method` of the unittest case. */
  id: string;
  /** Interface (task.json `interfaces[].name`) the test belongs to, or null. */
  interface: string | null;
  status: TestStatus;
  /** Wall time of the test in milliseconds. */
  durationMs: number;
  /** One-line failure message (exception type and text); empty when passed. */
  message: string;
  /** Traceback limited to task files, paths relative to the repo root. */
  traceback: string;
  /** 1-based line in the candidate target file where it failed, or null. */
  line: number | null;
  /** Captured output, each capped; a cut is marked in the text and the flags. */
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  mismatch: Mismatch | null;
  /** Every subTest of this test that failed, raised or was skipped, in order (empty when none did). */
  subtests: SubTestResult[];
}

/** Import or syntax failure before any test ran (RECODE-H: counts as 0 passed). */
export interface CollectionError {
  message: string;
  /** File relative to the repo root, or null when unknown. */
  file: string | null;
  line: number | null;
  traceback: string;
}

/** Something happened to the interpreter itself during the run. */
export interface RunIncident {
  /**
   * - `timeout`: the wall clock ran out and the interrupt stopped the code.
   * - `terminated`: the interrupt did not stop it; the instance was killed.
   * - `crashed`: the interpreter died (fatal error, stack overflow, worker exit).
   * - `poisoned`: MemoryError/RecursionError left it suspect; replaced after the run.
   * - `packages`: a required package could not be loaded.
   * - `tampered`: the submission changed the test framework, the value checks
   *   or the harness during the run; its test results are not trusted (every
   *   test counts as an error).
   */
  kind: "timeout" | "terminated" | "crashed" | "poisoned" | "packages" | "tampered";
  message: string;
  /** Whether a fresh instance replaced the old one. */
  respawned: boolean;
}

/** Counts by status; `total` is the number of collected tests. */
export type TestCounts = { total: number } & Record<TestStatus, number>;

/** Everything one run of the tests produced. */
export interface RunResult {
  backend: "pyodide" | "native";
  tests: TestResult[];
  collectionError: CollectionError | null;
  counts: TestCounts;
  /** Whether the run solved the task: see {@link runSolved}. */
  allPassed: boolean;
  /** Wall time of the whole run in milliseconds (host side). */
  durationMs: number;
  /**
   * Of `durationMs`, the milliseconds spent before the tests began and on new interpreters after a death: an
   * interpreter starting, the task's packages loading, Python prepared for runs (at an instance's first run), the
   * last run undone. Not counted against the time limit. Absent where the backend has no such wait (native), and
   * in results stored before it was kept.
   */
  waitedMs?: number;
  incident: RunIncident | null;
  /** Record mode: expected.json text recorded from the code that ran. */
  recorded: string | null;
}

/**
 * The milliseconds of a run that count against its time limit: its whole time less the waits before its tests
 * began (`RunResult.waitedMs`: Python being prepared, a new interpreter after a death).
 */
export function testsTimeMs(r: Pick<RunResult, "durationMs" | "waitedMs">): number {
  return Math.max(0, r.durationMs - (r.waitedMs ?? 0));
}

/** Count tests by status. */
export function countTests(tests: readonly TestResult[]): TestCounts {
  const counts: TestCounts = {
    total: tests.length,
    passed: 0,
    failed: 0,
    error: 0,
    skipped: 0,
    xfail: 0,
    xpass: 0,
    timeout: 0,
    not_run: 0,
  };
  for (const t of tests) counts[t.status] += 1;
  return counts;
}

/**
 * Tests that count as passing: `passed` and `xfail` (an expected failure that
 * failed is what the test asks for). Used for the verdict and for the
 * test-case pass rate.
 */
export function passingCount(counts: TestCounts): number {
  return counts.passed + (counts.xfail ?? 0);
}

/**
 * Whether a run solved the task (a turn is "all-pass"): the tests were
 * collected, there was at least one, and every test passed or is `xfail`; none
 * failed, raised, timed out, was not run, was skipped or passed unexpectedly
 * (`xpass`).
 *
 * Source: RECODE-H's harness counts a turn as solved when its JUnit report has
 * no errors, failures or skips (RECODE-H.md, "The official harness"); the
 * statuses it has no word for follow CPython's `TestResult.wasSuccessful()`,
 * which accepts expected failures and rejects unexpected successes. See
 * docs/metrics.md.
 */
export function runSolved(counts: TestCounts, collectionError: CollectionError | null | boolean): boolean {
  return !collectionError && counts.total > 0 && passingCount(counts) === counts.total;
}

/** A test result with empty details, e.g. for a test that never ran. `extra` overrides any field. */
export function makeTestResult(id: string, status: TestStatus, extra: Partial<TestResult> = {}): TestResult {
  return {
    id,
    interface: null,
    status,
    durationMs: 0,
    message: "",
    traceback: "",
    line: null,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stderrTruncated: false,
    mismatch: null,
    subtests: [],
    ...extra,
  };
}

/** A run result over `tests` with counts and `allPassed` derived from them ({@link runSolved}); `extra` overrides any field. */
export function makeRunResult(tests: TestResult[], extra: Partial<RunResult> = {}): RunResult {
  const counts = countTests(tests);
  const collectionError = extra.collectionError ?? null;
  return {
    backend: "native",
    tests,
    collectionError,
    counts,
    allPassed: runSolved(counts, collectionError),
    durationMs: 0,
    incident: null,
    recorded: null,
    ...extra,
  };
}
