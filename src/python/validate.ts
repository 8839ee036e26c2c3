/**
 * Task validation: the checks `recode tasks validate` runs on every task, on
 * one Python runtime. Platform-free (takes a PythonRuntime).
 */

import { findDefinition, listDefinitions } from "../core/canonical";
import { findMathProblems, mathProblemsText } from "../core/math-check";
import { codeWithoutCommentsAndStrings } from "../core/python-scan";
import { canonicalDigest, staleRecording, testPyDigest } from "../core/recording";
import { type RunResult, testsTimeMs } from "../core/results";
import type { Task } from "../core/task";
import { formatExpected, type PyValue, parseExpected } from "../core/values";
import { type PythonRuntime, taskRunRequest } from "./runtime";

/** One check's outcome. */
export interface CheckOutcome {
  name: ValidationCheck;
  ok: boolean;
  /** What was found, in one line. */
  detail: string;
  /** The check could not run in this backend (its packages are not available there); not a failure. */
  skipped?: true;
  /** Passed, with something the author should do all the same: the detail is shown as for a failure. */
  advice?: true;
}

/** Whether a backend's checks of a task stopped because the task's packages are not available there. */
export function skippedForPackages(checks: readonly CheckOutcome[]): boolean {
  // (Checks skipped because the tests do not load follow a failed "canonical passes": that failure is the report.)
  return checks.some((c) => c.skipped && c.name === "canonical passes");
}

/** Names of the validation checks, in the order they run. */
export const VALIDATION_CHECKS = [
  "math renders",
  "start as declared",
  "recorded",
  "every test checks a value",
  "error checks hold values too",
  "canonical passes",
  "starter fails",
  "re-record identical",
  "deterministic x3",
  "interfaces tested",
  "feedback keys recorded",
  "within time limit",
  // The gates of src/cli/task-gates (docs/tasks-gates.md), run by `recode tasks validate` after the checks above.
  "coverage >= 80%",
  "mutation score >= 80%",
] as const;
export type ValidationCheck = (typeof VALIDATION_CHECKS)[number];

/** Checks that read the task's files alone, never a run: the same in every backend, so their details name none. */
export const BACKEND_FREE_CHECKS: readonly ValidationCheck[] = [
  "math renders",
  "start as declared",
  "every test checks a value",
  "error checks hold values too",
  "feedback keys recorded",
];

/** What {@link validateTask} found beside its checks. */
export interface ValidationFindings {
  /**
   * The task as the checks' runs judged it: the task itself, or, when its expected.json is stale and the canonical
   * solution records, the task with the values recorded afresh (what the gates after the checks must judge against).
   */
  judged?: Task;
}

/** Whether a recorded value holds errors alone: what `outcome()` gave for calls that all raised, one or a list (docs/task-format.md). */
export function recordsErrorsOnly(v: PyValue): boolean {
  if (v.type === "raised") return true;
  return (v.type === "list" || v.type === "tuple") && v.items.length > 0 && v.items.every((item) => item.type === "raised");
}

/** A collection error in one line, with the file and line it names (a syntax error in test.py, say). */
export function collectionText(e: NonNullable<RunResult["collectionError"]>): string {
  const where = e.file ? ` in ${e.file}${e.line ? `, line ${e.line}` : ""}` : "";
  return `collection error${where}: ${e.message.split("\n").pop()}`;
}

function summary(r: RunResult): string {
  if (r.collectionError) return collectionText(r.collectionError);
  // A run not trusted has every test marked with the same reason: the reason, once.
  if (r.incident?.kind === "tampered") return r.incident.message;
  // (A message cut short says so: a command cut in two reads as the whole command.)
  return countsText(r, (m) => (m.length > 200 ? `${m.slice(0, 199)}…` : m));
}

/**
 * A run's tests in one line, for a check's detail: "1/3 passed, 2 xfail (T.test_x failed: ...)", with the first two
 * tests that do not pass (an expected failure passes: counted, not listed), each message put through `clip`.
 */
export function countsText(r: RunResult, clip: (message: string) => string): string {
  const c = r.counts;
  const bad = r.tests.filter((t) => t.status !== "passed" && t.status !== "xfail").slice(0, 2);
  const why = bad.map((t) => `${t.id} ${t.status}${t.message ? `: ${clip(t.message)}` : ""}`).join("; ");
  return `${c.passed}/${c.total} passed${c.xfail ? `, ${c.xfail} xfail` : ""}${why ? ` (${why})` : ""}${r.incident ? ` [${r.incident.message}]` : ""}`;
}

function outcomes(r: RunResult): string {
  if (r.collectionError) return `collection-error:${r.collectionError.message}`;
  return r.tests.map((t) => `${t.id}=${t.status}`).join(",");
}

/**
 * First place where two recorded documents differ, or null when they agree
 * (floats within a relative 1e-12, which absorbs last-digit differences
 * between Python versions, e.g. `sum()` of floats before and after 3.12).
 */
export function firstDifference(a: unknown, b: unknown, path: string): string | null {
  if (typeof a === "number" && typeof b === "number") {
    return a === b || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b)) ? null : path || "(root)";
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path || "(root)"} (length)`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    if (ka.join("\u0000") !== kb.join("\u0000")) {
      const gone = ka.filter((k) => !kb.includes(k));
      const added = kb.filter((k) => !ka.includes(k));
      const parts = [gone.length ? `missing ${gone.join(", ")}` : "", added.length ? `new ${added.join(", ")}` : ""].filter(Boolean);
      return `${path || "(root)"} (keys: ${parts.join("; ")})`;
    }
    for (const k of ka) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : path || "(root)";
}

/** The detail of two recordings here that differ: the keys whose values differ, the tests that check them, and what to do. */
function notDeterministic(a: string, b: string): string {
  let keys: string[] = [];
  let tests: string[] = [];
  try {
    const [x, y] = [JSON.parse(a), JSON.parse(b)] as { values: Record<string, unknown>; tests: Record<string, string[]> }[];
    keys = [...new Set([...Object.keys(x?.values ?? {}), ...Object.keys(y?.values ?? {})])]
      .filter((k) => JSON.stringify(x?.values[k]) !== JSON.stringify(y?.values[k]))
      .sort();
    tests = Object.keys(x?.tests ?? {}).filter((id) => x?.tests[id]?.some((k) => keys.includes(k)));
  } catch {
    // (Recordings are this module's own JSON; an unreadable one says no more than that they differ.)
  }
  const which = keys.length > 0 ? `: the values of ${keys.join(", ")}${tests.length ? ` (${tests.join(", ")})` : ""}` : "";
  return `two recordings here differ${which}; values must not depend on chance, time or order: seed every random source (random.Random(seed), numpy.random.default_rng(seed))`;
}

/** expected.json text `text` as recorded before the canonical solution's digest was kept (docs/task-format.md). */
function withoutCanonicalDigest(text: string): string {
  return text.replace(/^ "canonicalSha256": "[0-9a-f]{64}",\n/m, "");
}

/** Whether two expected.json texts hold the same format, tests (with their checks) and tolerances: all but the values. */
function sameButValues(a: string, b: string): boolean {
  try {
    const strip = (t: string) => {
      const { values: _values, ...rest } = JSON.parse(t) as Record<string, unknown>;
      return JSON.stringify(rest);
    };
    return strip(a) === strip(b);
  } catch {
    return false;
  }
}

/**
 * Record expected.json text by running the canonical solution (record mode), with the digest of the test.py
 * it was recorded from (src/core/recording.ts). Throws when recording fails.
 */
export async function recordExpected(task: Task, runtime: PythonRuntime): Promise<string> {
  const r = await runtime.run(taskRunRequest(task, task.canonical, "record"));
  if (r.recorded === null || !r.allPassed) {
    const why = summary(r);
    // The canonical solution is the submission here: a change it did not make is test.py's own.
    const hint =
      r.incident?.kind === "tampered" && why.startsWith("The submission changed")
        ? ' (Recording runs the canonical solution as the submission: when it changes none of this, test.py\'s own code does; docs/task-format.md, "Tests and recorded values", says what test.py may do.)'
        : "";
    throw new Error(`task ${task.id}: recording failed: ${why}${hint}`);
  }
  const file = { ...parseExpected(r.recorded), testPySha256: testPyDigest(task.tests), canonicalSha256: canonicalDigest(task) };
  return `${formatExpected(file)}\n`;
}

/**
 * Run every validation check on one runtime. Never throws for task problems; they are failed checks.
 * `record`: the command that records the task again, as its details give it (default `recode tasks record
 * <id>`, for the built-in tasks; the CLI gives the `--dir` of another folder).
 */
export async function validateTask(
  task: Task,
  runtime: PythonRuntime,
  record = `recode tasks record ${task.id}`,
  findings?: ValidationFindings,
): Promise<CheckOutcome[]> {
  const out: CheckOutcome[] = [];
  const add = (name: ValidationCheck, ok: boolean, detail: string) => out.push({ name, ok, detail });
  const math = findMathProblems(task);
  add("math renders", math.length === 0, math.length === 0 ? "every formula renders" : mathProblemsText(math));
  const start = startProblem(task);
  add("start as declared", start === null, start ?? `starting text: ${task.meta.start ?? "not declared"}`);
  if (task.expected === null) {
    add("recorded", false, `no expected.json: run \`${record}\``);
    return out;
  }
  let tests: ReadonlyMap<string, readonly string[]> | null = null;
  let values: ReadonlyMap<string, PyValue> = new Map();
  try {
    ({ tests, values } = parseExpected(task.expected, `${task.id}/expected.json`));
  } catch (e) {
    add("recorded", false, (e as Error).message);
    return out;
  }
  if (tests === null) {
    add("recorded", false, `expected.json is in the old format (no per-test checks): run \`${record}\``);
    return out;
  }
  const stale = staleRecording(task);
  add("recorded", stale === null, stale === null ? `expected.json present (${tests.size} tests)` : `${stale}: run \`${record}\``);
  // A stale expected.json is one failure, "recorded": the checks after it are made on values recorded here afresh,
  // so that they say what holds of the task as it is now, not that the old values differ.
  let fresh: string | null = null;
  if (stale !== null) fresh = await recordExpected(task, runtime).catch(() => null);
  const judged: Task = fresh === null ? task : { ...task, expected: fresh };
  if (findings) findings.judged = judged;
  if (fresh !== null) ({ tests, values } = parseExpected(fresh));
  const recordedTests = tests ?? new Map<string, readonly string[]>();
  // A test's verdict is the host's only when the host can verify a value it produced (docs/security.md).
  const unchecked = [...recordedTests].filter(([, keys]) => keys.length === 0).map(([id]) => id);
  add(
    "every test checks a value",
    unchecked.length === 0,
    unchecked.length === 0
      ? "every test makes at least one check the host verifies"
      : `tests with no check(): ${unchecked.join(", ")} (their verdict would rest on the interpreter alone)`,
  );
  // Code under test can tell a call made through outcome() from one the test makes itself (it is one frame
  // deeper in the stack): a check whose every call raised is passed by code that raises whenever it is that deep.
  const errorsOnly = [...values].filter(([, v]) => recordsErrorsOnly(v)).map(([key]) => key);
  add(
    "error checks hold values too",
    errorsOnly.length === 0,
    errorsOnly.length === 0
      ? "every check of outcome() puts valid calls beside the invalid ones"
      : `checks that record only errors: ${errorsOnly.slice(0, 8).join(", ")}${errorsOnly.length > 8 ? `, ... (${errorsOnly.length} in all)` : ""} (code under test can tell a call through outcome() from one the test makes itself, by how deep it is in the stack: put valid calls through the same outcome() in each of these checks; docs/task-format.md)`,
  );

  const canon: RunResult[] = [];
  const starter: RunResult[] = [];
  for (let i = 0; i < 3; i++) {
    canon.push(await runtime.run(taskRunRequest(judged, task.canonical)));
    starter.push(await runtime.run(taskRunRequest(judged, task.starter)));
  }
  const c0 = canon[0] as RunResult;
  const s0 = starter[0] as RunResult;
  if (c0.incident?.kind === "packages") {
    // The backend cannot load the task's packages (Pyodide offline has no numpy): nothing more can be checked here.
    out.push({ name: "canonical passes", ok: true, skipped: true, detail: `skipped in this backend: ${c0.incident.message}` });
    return out;
  }
  // (Judged against values recorded from another test.py, a failure says so first: the recording is the cause.)
  add(
    "canonical passes",
    c0.allPassed,
    fresh !== null
      ? `${summary(c0)}; judged against values recorded here afresh (expected.json is stale: see "recorded")`
      : stale !== null && !c0.allPassed
        ? `judged against values recorded from another ${stale.includes("canonical solution") ? "canonical solution" : "test.py"} (see "recorded"): ${summary(c0)}`
        : summary(c0),
  );
  if (c0.collectionError) {
    // The tests do not even load with the canonical solution (a syntax error in test.py, say): nothing else can be judged.
    // (Every check after this one, up to the gates, which the command runs apart.)
    const after = VALIDATION_CHECKS.slice(VALIDATION_CHECKS.indexOf("canonical passes") + 1, VALIDATION_CHECKS.indexOf("coverage >= 80%"));
    for (const name of after) out.push({ name, ok: true, skipped: true, detail: "not run: the tests do not load (see canonical passes)" });
    return out;
  }
  add("starter fails", !s0.allPassed, s0.allPassed ? "the starting text passes every test" : summary(s0));

  let rerecord = "";
  try {
    rerecord = await recordExpected(task, runtime);
    if (fresh !== null) {
      // Compared with expected.json, a stale file differs by its nature ("recorded" says so): two recordings here are compared.
      if (rerecord === fresh)
        out.push({
          name: "re-record identical",
          ok: true,
          skipped: true,
          detail: 'not compared with expected.json, which is stale (see "recorded"); two recordings here agree',
        });
      else add("re-record identical", false, notDeterministic(fresh, rerecord));
    } else if (rerecord === task.expected) add("re-record identical", true, "same file");
    else if (withoutCanonicalDigest(rerecord) === task.expected) {
      // Recorded before expected.json kept the canonical solution's digest: the same recording, less that check.
      out.push({
        name: "re-record identical",
        ok: true,
        advice: true,
        detail: `same values; recorded before expected.json kept the canonical solution's digest (canonicalSha256), so a canonical.py changed since would go unnoticed: run \`${record}\` to keep it`,
      });
    } else {
      // Another numeric library here (numpy, its BLAS) may round the last digits otherwise: that is no stale
      // recording when two recordings here agree, the file's tests, checks and tolerances are the same, and
      // the canonical solution passes the recorded values within their tolerances (checked above).
      const again = await recordExpected(task, runtime);
      const sameHere = again === rerecord;
      const sameShape = sameHere && c0.allPassed && sameButValues(rerecord, task.expected ?? "");
      add(
        "re-record identical",
        sameShape,
        !sameHere
          ? notDeterministic(rerecord, again)
          : sameShape
            ? "same tests, checks and tolerances; values differ only within their tolerances (this machine's numeric libraries round otherwise)"
            : `recording again gives a different expected.json: if test.py or canonical.py changed since it was recorded, run \`${record}\``,
      );
    }
  } catch (e) {
    add("re-record identical", false, (e as Error).message);
  }

  const sameC = canon.every((r) => outcomes(r) === outcomes(c0));
  const sameS = starter.every((r) => outcomes(r) === outcomes(s0));
  add(
    "deterministic x3",
    sameC && sameS,
    sameC && sameS ? "same per-test outcomes in 3 runs" : `outcomes differ between runs (${sameC ? "starter" : "canonical"})`,
  );

  const collected = new Set(c0.tests.map((t) => t.id));
  const unrecorded = [...collected].filter((id) => !recordedTests.has(id));
  const recordedCheck = out.find((c) => c.name === "recorded");
  if (unrecorded.length > 0 && recordedCheck) {
    recordedCheck.ok = false;
    recordedCheck.detail = `tests not in expected.json (test.py changed since it was recorded): ${unrecorded.slice(0, 4).join(", ")}; run \`${record}\``;
  }
  const missing = Object.keys(task.interfaceOf).filter((id) => !collected.has(id));
  const orphan = [...collected].filter((id) => !(id in task.interfaceOf));
  const untested = task.meta.interfaces.filter((i) => !i.tests.some((t) => collected.has(t))).map((i) => i.name);
  const itfOk = missing.length === 0 && orphan.length === 0 && untested.length === 0 && collected.size > 0;
  add(
    "interfaces tested",
    itfOk,
    itfOk
      ? `${task.meta.interfaces.length} interfaces, ${collected.size} tests`
      : [
          untested.length ? `interfaces without a collected test: ${untested.join(", ")}` : "",
          missing.length ? `tests in task.json not collected: ${missing.join(", ")}` : "",
          orphan.length ? `tests in no interface: ${orphan.join(", ")} (list each under the "tests" of an interface in task.json)` : "",
        ]
          .filter(Boolean)
          .join("; ") || "no tests collected",
  );

  const unknown = feedbackKeyProblems(task, recordedTests);
  add(
    "feedback keys recorded",
    unknown.length === 0,
    unknown.length === 0
      ? "every check named by guidance_by_check and knowledge is made by a test of its interface"
      : unknown.slice(0, 4).join("; "),
  );

  // (What the time limit counts: the tests' time, not Python being prepared at an instance's first run.)
  const slowest = Math.max(...canon.map(testsTimeMs));
  const limit = task.meta.time_limit_s * 1000;
  add("within time limit", slowest < limit, `slowest canonical run ${(slowest / 1000).toFixed(2)} s of ${task.meta.time_limit_s} s`);
  return out;
}

/**
 * Check keys that task.json names in `guidance_by_check` or `knowledge[].checks`
 * but that no test of that interface makes (per the recorded `tests` of
 * expected.json), one line each, e.g. `interfaces[2].knowledge[0].checks[1]:
 * norm_rando is not a check of a normalize_advantages test`. Empty when all are.
 */
export function feedbackKeyProblems(task: Task, tests: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  task.meta.interfaces.forEach((itf, i) => {
    const made = new Set(itf.tests.flatMap((id) => tests.get(id) ?? []));
    const bad = (where: string, key: string) => {
      if (!made.has(key)) out.push(`interfaces[${i}].${where}: ${key} is not a check of a ${itf.name} test`);
    };
    for (const key of Object.keys(itf.guidance_by_check ?? {})) bad(`guidance_by_check.${key}`, key);
    (itf.knowledge ?? []).forEach((k, j) => {
      for (const [c, key] of k.checks.entries()) bad(`knowledge[${j}].checks[${c}]`, key);
    });
  });
  return out;
}

/** Whether two Python blocks hold the same code: comments, the text of strings and whitespace aside. */
function sameCode(a: string, b: string): boolean {
  const bare = (t: string) => codeWithoutCommentsAndStrings(t).replace(/\s+/g, "");
  return bare(a) === bare(b);
}

/**
 * Whether the starting text of the target file is what task.json `start`
 * says: `empty` holds no definition (comments, a docstring and imports at
 * most), `stubs` defines every interface (no function as canonical.py has it: a stub gives
 * the signature, not the code), `partial` some but not all.
 * Returns the problem in words, or null (also when `start` is not declared).
 */
export function startProblem(task: Task): string | null {
  const kind = task.meta.start;
  if (!kind) return null;
  const defined = new Set(listDefinitions(task.starter).map((d) => d.name));
  const names = task.meta.interfaces.map((i) => i.name);
  const have = names.filter((n) => defined.has(n));
  const where = `the starting text of ${task.meta.target_file_path}`;
  if (kind === "empty" && defined.size > 0) return `start is "empty" but ${where} defines ${[...defined].slice(0, 3).join(", ")}`;
  if (kind === "stubs" && have.length < names.length)
    return `start is "stubs" but ${where} lacks ${names.filter((n) => !defined.has(n)).join(", ")}`;
  if (kind === "stubs") {
    // A stub holds the signature, not the code: a function the starting text defines as canonical.py does is the solution.
    const solved = names.filter((n) => {
      const [start, canonical] = [findDefinition(task.starter, n), findDefinition(task.canonical, n)];
      return start?.kind === "def" && canonical?.kind === "def" && sameCode(start.text, canonical.text);
    });
    if (solved.length > 0)
      return `start is "stubs" but ${where} defines ${solved.join(", ")} as canonical.py does (a stub gives the signature, not the code)`;
  }
  if (kind === "partial" && (have.length === 0 || have.length === names.length))
    return `start is "partial" but ${where} defines ${have.length === 0 ? "no interface" : "every interface"}`;
  return null;
}
