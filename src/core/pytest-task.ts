/**
 * Tasks with `isolation: "shared"` (imported official RECODE-H tasks): their
 * tests import the canonical module and run under pytest, laid out as the
 * official test.sh lays them out (task.json `pytest`). This module holds what
 * does not need Python: the files of a run, the modules the tests import, and
 * the verdict from pytest's JUnit report. Platform-free.
 */
import { listImports } from "./canonical";
import {
  type CollectionError,
  makeRunResult,
  makeTestResult,
  type RunIncident,
  type RunResult,
  type TestResult,
  type TestStatus,
} from "./results";
import type { PytestRun, Task } from "./task";

/** A task whose tests run under pytest beside the canonical module. */
export type SharedTask = Task & { meta: Task["meta"] & { isolation: "shared"; pytest: PytestRun } };

/** Whether a task shares its interpreter with the canonical solution (its tests run under pytest). */
export function isSharedTask(task: Task): task is SharedTask {
  return task.meta.isolation === "shared" && task.meta.pytest !== undefined;
}

/** `dir/name` for a folder of task.json `pytest` (`.` is repo/ itself). */
function inDir(dir: string, name: string): string {
  return dir === "." ? name : `${dir}/${name}`;
}

/**
 * The target file text that stands for the reference solution of a shared
 * task: the starting text followed by canonical.py, as the official
 * environment check writes it (`init_content` + canonical.py); canonical.py
 * alone when the starting text is empty.
 */
export function sharedCanonicalTarget(task: Task): string {
  const start = task.starter;
  if (start.trim() === "") return task.canonical;
  return `${start}${start.endsWith("\n") ? "" : "\n"}\n${task.canonical}`;
}

/**
 * The files of one run, relative to the repository root: the repository, the
 * candidate at the target path, canonical.py and test.py where test.sh copies
 * them (they replace repository files of the same name, as the copy does).
 */
export function sharedRunFiles(task: SharedTask, candidate: string): Record<string, string> {
  const p = task.meta.pytest;
  return {
    ...task.repo,
    [task.meta.target_file_path]: candidate,
    [inDir(p.canonical_dir, "canonical.py")]: task.canonical,
    [inDir(p.test_dir, "test.py")]: task.tests,
  };
}

/**
 * Top-level modules that canonical.py and test.py import and that the run's
 * own files do not provide (a module or package of that name in a folder on
 * the run's path: PYTHONPATH, the working folder, the folders of test.py and
 * canonical.py), in order of first import; relative imports are left out.
 * Both the standard library and installed packages are in the list: Python
 * tells them apart (pytest-runtime.ts).
 */
export function importedModules(task: SharedTask): string[] {
  const p = task.meta.pytest;
  const roots = [...new Set([...p.pythonpath, p.cwd, p.test_dir, p.canonical_dir])];
  const files = Object.keys(sharedRunFiles(task, task.starter));
  const local = (name: string) =>
    roots.some((root) => {
      const base = root === "." ? "" : `${root}/`;
      return files.some((f) => f === `${base}${name}.py` || f.startsWith(`${base}${name}/`));
    });
  const out: string[] = [];
  for (const source of [task.canonical, task.tests]) {
    for (const imp of listImports(source)) {
      if (imp.module.startsWith(".")) continue;
      const top = imp.module.split(".")[0] as string;
      if (top && !out.includes(top) && !local(top)) out.push(top);
    }
  }
  return out;
}

/** One `<testcase>` of a JUnit report, as pytest_entry.py reads it. */
export interface JunitCase {
  classname: string;
  name: string;
  /** Seconds. */
  time: number;
  /** The first of `failure`, `error`, `skipped` the case holds, else `passed`. */
  outcome: "passed" | "failure" | "error" | "skipped";
  /** The outcome element's `message`. */
  message: string;
  /** The outcome element's text (pytest's report of the failure). */
  text: string;
  stdout: string;
  stderr: string;
}

/** A JUnit report: the suites' counts (summed) and every test case. */
export interface JunitReport {
  totals: { tests: number; errors: number; failures: number; skipped: number };
  cases: JunitCase[];
}

/** What one pytest run left: the report (or why there is none), how it ended, and its console output. */
export interface PytestOutcome {
  report: JunitReport | null;
  /** Why the report could not be read, when it is missing or malformed. */
  reportError: string | null;
  /** pytest's exit code (null when it was killed). */
  exit: number | null;
  /** The run's wall clock ran out: pytest was interrupted (`killed`: and then killed). */
  timedOut: boolean;
  killed: boolean;
  /** The user stopped the run. */
  stopped?: boolean;
  /** The end of pytest's console output. */
  output: string;
  /** The node ids of the tests pytest collected (`tests/test.py::TestNorm::test_zero[2-4]`), when it got that far. */
  collected?: string[] | null;
  /**
   * The node id of the last test pytest began (its setup, call and teardown), `null` when it began none;
   * absent when not known (then every unfinished test counts as a timeout).
   */
  started?: string | null;
}

/**
 * The test id of a JUnit case: the class path after the test module, then the
 * test's name (`TestNorm.test_zero`, or `test_zero` for a function of the
 * module; parameters stay: `test_scale[2-4]`).
 */
export function junitTestId(classname: string, name: string): string {
  const parts = classname.split(".").filter(Boolean);
  const at = parts.lastIndexOf("test");
  const cls = at >= 0 ? parts.slice(at + 1) : [];
  return [...cls, name].join(".");
}

/**
 * The test id of a pytest node id, as {@link junitTestId} gives it from the JUnit report:
 * `tests/test.py::TestNorm::test_zero[2-4]` -> `TestNorm.test_zero[2-4]`.
 */
export function nodeTestId(nodeId: string): string {
  const open = nodeId.indexOf("[");
  const path = open >= 0 ? nodeId.slice(0, open) : nodeId;
  const params = open >= 0 ? nodeId.slice(open) : "";
  return `${path.split("::").slice(1).join(".")}${params}`;
}

/** The id without pytest's parameters (`test_scale[2-4]` -> `test_scale`): the id task.json names. */
export function baseTestId(id: string): string {
  const open = id.indexOf("[");
  return open >= 0 ? id.slice(0, open) : id;
}

const CAP = 20_000;
/** Characters kept of a collection error's message (its last lines). */
const MESSAGE_CAP = 2000;

function cap(s: string): { text: string; cut: boolean } {
  return s.length > CAP ? { text: `[... ${s.length - CAP} characters cut]\n${s.slice(-CAP)}`, cut: true } : { text: s, cut: false };
}

/** The last line of the candidate file a report text points at (`pkg/mod.py:42: ...`), or null. */
function candidateLine(text: string, targetPath: string): number | null {
  const base = targetPath.split("/").pop() as string;
  const re = new RegExp(`(?:^|[\\s/"'(])${base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"?(?::|, line )(\\d+)`, "gm");
  let line: number | null = null;
  for (const m of text.matchAll(re)) line = Number(m[1]);
  return line;
}

/**
 * The last `File ".../work/<path>", line N` of a pytest report's text that lies in the run's folder (`work/`,
 * in the box and out of it), as the path in the repository and the line; null when none does.
 */
function lastRunFileLine(text: string): { file: string; line: number } | null {
  let found: { file: string; line: number } | null = null;
  for (const m of text.matchAll(/File "[^"]*?\/work\/([^"]+)", line (\d+)/g)) found = { file: m[1] as string, line: Number(m[2]) };
  return found;
}

/**
 * A failure's message in one line of at most 300 characters: its first line, and when that says no more than
 * the exception's name ("AssertionError: ", as numpy's assertions begin) the lines after it (numpy's
 * tolerance, mismatched elements and differences).
 */
function failureMessage(message: string): string {
  const lines = message
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  let text = lines[0] ?? "";
  if (/^[\w.]*:?$/.test(text) || /:$/.test(text)) text = [text, ...lines.slice(1, 6)].join(" ");
  return text.slice(0, 300);
}

/**
 * A case's status. A per-test timeout is a failure whose message is the time limit's own ("Failed: Timeout
 * >3s", from pytest-timeout or its stand-in, recode_pytest_timeout.py) in a test that ran that long (its time
 * in the report at least 90% of the limit the message names): a test's own `pytest.fail("Timeout >3s")`,
 * raised at once, is a failure.
 */
function statusOf(c: JunitCase): TestStatus {
  if (c.outcome === "passed") return "passed";
  if (c.outcome === "skipped") return "skipped";
  const limit = /^Failed: Timeout >(\d+(?:\.\d+)?)s\s*$/.exec(c.message.split("\n")[0] ?? "");
  if (c.outcome === "failure" && limit && c.time >= 0.9 * Number(limit[1])) return "timeout";
  return c.outcome === "failure" ? "failed" : "error";
}

/**
 * The verdict on one pytest run, as the official harness gives it: solved
 * when the JUnit report has errors == failures == skipped == 0 (pytest counts
 * an expected failure as skipped), with at least one test, and the run
 * finished within its time limit. Every case becomes a test result
 * (`failure` -> failed, `error` -> error, `skipped` -> skipped, a per-test
 * timeout -> timeout); a collection failure becomes the run's collection
 * error; no report at all (pytest missing, a usage error) a collection error
 * quoting pytest's output. The task's tests the report does not hold are reported, each collected case by
 * its own id (`test_scale[2-4]`; by the ids task.json names when pytest was stopped before it collected):
 * when the wall clock ran out (or the user stopped the run), the one pytest began last (`started`) is
 * `timeout`; when code under test ended pytest's session (a KeyboardInterrupt, `pytest.exit`, a signal:
 * pytest then reports the tests it finished), it is `error`; the others are `not_run` (every one `timeout` or
 * `error` when `started` is not known).
 */
export function pytestVerdict(task: Task, outcome: PytestOutcome, durationMs: number): RunResult {
  const target = task.meta.target_file_path;
  const incident: RunIncident | null = outcome.timedOut
    ? {
        kind: outcome.killed ? "terminated" : "timeout",
        message: outcome.stopped
          ? `Stopped by the user${outcome.killed ? "; pytest did not stop, so it was killed" : ""}.`
          : `Time limit of ${task.meta.time_limit_s} s reached; pytest was interrupted${outcome.killed ? " and, as it did not stop, killed" : ""}.`,
        respawned: outcome.killed,
      }
    : null;
  // pytest stopped by the time limit before it wrote its report finished no test known here: an empty report,
  // whose tests are all timeouts below.
  const report: JunitReport | null =
    outcome.report ?? (outcome.timedOut ? { totals: { tests: 0, errors: 0, failures: 0, skipped: 0 }, cases: [] } : null);
  if (!report) {
    const tail = outcome.output.trim().split("\n").slice(-12).join("\n");
    const collectionError: CollectionError = {
      message: `pytest wrote no report${outcome.exit !== null ? ` (exit code ${outcome.exit})` : ""}${outcome.reportError ? `: ${outcome.reportError}` : ""}${tail ? `\n${tail}` : ""}`,
      file: null,
      line: null,
      traceback: cap(outcome.output).text,
    };
    return makeRunResult([], { backend: "native", collectionError, incident, durationMs });
  }
  let collectionError: CollectionError | null = null;
  const tests: TestResult[] = [];
  for (const c of report.cases) {
    // pytest leaves a nameless case for the test an interrupt stopped: it is counted below, as not finished.
    if (c.name === "") continue;
    if (c.outcome === "error" && (c.message === "collection failure" || (c.classname === "" && /^(?:[\w.]+\.)?test$/.test(c.name)))) {
      // Where it broke: the target file when it is named, else the last file of the run's folder pytest names
      // (canonical.py, test.py or a repository file: the task's own files).
      const inTarget = candidateLine(c.text, target);
      const elsewhere = inTarget === null ? lastRunFileLine(c.text) : null;
      collectionError ??= {
        // (Without pytest's "E" markers of the error's lines: `E   SyntaxError: ...` says `SyntaxError: ...`.)
        message: (
          c.text
            .trim()
            .split("\n")
            .slice(-3)
            .map((l) => l.replace(/^E(?: {1,7}|$)/, ""))
            .join("\n") || c.message
        ).slice(0, MESSAGE_CAP),
        file: inTarget !== null ? target : (elsewhere?.file ?? null),
        line: inTarget ?? elsewhere?.line ?? null,
        traceback: cap(c.text).text,
      };
      continue;
    }
    const id = junitTestId(c.classname, c.name);
    const out = cap(c.stdout);
    const err = cap(c.stderr);
    const status = statusOf(c);
    tests.push(
      makeTestResult(id, status, {
        interface: task.interfaceOf[baseTestId(id)] ?? null,
        durationMs: Math.round(c.time * 1000),
        message: status === "passed" ? "" : failureMessage(c.message),
        traceback: cap(c.text).text,
        line: status === "passed" || status === "skipped" ? null : candidateLine(c.text, target),
        stdout: out.text,
        stderr: err.text,
        stdoutTruncated: out.cut,
        stderrTruncated: err.cut,
      }),
    );
  }
  // Each test pytest collected and did not finish (each case of a parametrised test); when pytest was stopped
  // before it collected, each test task.json names that has no case in the report. Not only at the time limit:
  // code under test can end pytest's session itself (a KeyboardInterrupt, `pytest.exit`, a SIGINT it sends
  // itself), and pytest then writes a report of the tests it finished, with nothing wrong in it.
  if (outcome.timedOut || collectionError === null) {
    const reported = new Set(tests.map((t) => t.id));
    const seen = new Set(tests.map((t) => baseTestId(t.id)));
    const unfinished = outcome.collected
      ? [...new Set(outcome.collected.map(nodeTestId))].filter((id) => id && !reported.has(id))
      : Object.keys(task.interfaceOf).filter((id) => !seen.has(id));
    const running = outcome.started === undefined ? undefined : outcome.started === null ? null : nodeTestId(outcome.started);
    const why = outcome.stopped
      ? "the run was stopped"
      : outcome.timedOut
        ? "the run's time limit ran out"
        : `pytest ended its session${outcome.exit !== null ? ` (exit code ${outcome.exit})` : ""}`;
    for (const id of unfinished) {
      const ran = running === undefined || id === running;
      const status = !ran ? "not_run" : outcome.timedOut ? "timeout" : "error";
      tests.push(
        makeTestResult(id, status, {
          interface: task.interfaceOf[baseTestId(id)] ?? null,
          message: !ran
            ? `not run: ${why} before this test started`
            : outcome.timedOut
              ? `${why} before this test finished`
              : `${why} before this test finished: code under test stopped it (a KeyboardInterrupt, pytest.exit or a signal)`,
        }),
      );
    }
  }
  const r = makeRunResult(tests, { backend: "native", collectionError, incident, durationMs });
  const t = report.totals;
  // The official rule reads the report's counts; the cases must agree with them.
  r.allPassed = r.allPassed && incident === null && t.errors === 0 && t.failures === 0 && t.skipped === 0;
  return r;
}
