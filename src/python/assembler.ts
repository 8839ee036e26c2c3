/**
 * The host's verdict on a run: builds a RunResult from the harness's event
 * stream (harness.py), checking the stream and the checked values itself.
 *
 * Trust rules (docs/security.md, "Verdicts"):
 * - Checked values are compared here, with the recorded values the
 *   interpreter never holds (`expected.json`, src/core/values.ts).
 * - A test counts as passed only when the interpreter says so AND every check
 *   the recording says it makes arrived, in that test, and matched.
 * - The stream must be consistent: one collection, the recorded tests, each
 *   test started once and finished before the next starts, checks inside a
 *   test, nothing after the end, an end only once every test has reported.
 *   An inconsistent stream, or a harness report that the framework was
 *   changed, makes the run "not trusted": every test counts as an error.
 *
 * Works with a partial stream: when the interpreter had to be killed, the test
 * that was running becomes `timeout` (or `error` for a crash), and the tests
 * not started are `not_run` unless another attempt runs them
 * ({@link RunAssembler.beginAttempt}).
 */

import { plural } from "../core/plural";
import type { CollectionError, Mismatch, RunIncident, RunResult, SubTestResult, TestResult, TestStatus } from "../core/results";
import { countTests, makeTestResult, mismatchPlace, runSolved, STOPPED_BY_USER } from "../core/results";
import {
  checkedTextLimit,
  compareValues,
  DEFAULT_TOLERANCE,
  type ExpectedFile,
  formatExpected,
  type PyValue,
  parseExpected,
  parseValueJson,
} from "../core/values";
import { callAt, callsOf, otherItemsThatDiffer, withPlacesShown } from "./check-calls";
import { FORGED_LINE } from "./forged-line";
import { MAX_EVENT_LINE } from "./line-splitter";
import type { RunProgress, RunRequest } from "./runtime";
import { withSourceLine, withTestPyLines } from "./source-lines";

/** Event emitted by harness.py (one JSON line each). */
export type HarnessEvent =
  | { type: "collected"; tests: string[] }
  /** `testFrames`: see {@link withTestPyLines} (test.py's frames of the import that failed). */
  | ({ type: "collection-error"; timeout?: boolean; testFrames?: unknown } & CollectionError)
  | { type: "module-skipped"; message: string }
  | { type: "test-start"; id: string }
  /** What the running test wrote to a stream, as it wrote it (kept for a test whose result never comes). */
  | { type: "output"; stream: "stdout" | "stderr"; text: string }
  | {
      type: "check";
      key: string;
      value: string;
      rtol: number;
      atol: number;
      subtest: string | null;
      caller?: string;
      /** JSON text: the outcome() call the value is (a string), or those its items are (a list), or null. */
      calls?: string | null;
    }
  /** What unittest reported for the running test (or one of its subTests), sent as it reports it. */
  | { type: "test-outcome"; id: string; status: string }
  /** `testFrames` (here, in each subTest and in a fixture's or an interrupt's event): see {@link withTestPyLines}. */
  | ({ type: "test-result"; testFrames?: unknown } & Omit<TestResult, "interface" | "mismatch">)
  | {
      type: "fixture";
      name: string;
      phase: "setup" | "teardown";
      status: "error" | "skipped";
      tests: string[];
      message: string;
      traceback: string;
      testFrames?: unknown;
    }
  | {
      type: "interrupted";
      id: string | null;
      line?: number | null;
      traceback?: string;
      testFrames?: unknown;
      /** What the stopped test printed until the interrupt (capped as a result's output). */
      stdout?: string;
      stderr?: string;
      stdoutTruncated?: boolean;
      stderrTruncated?: boolean;
      /**
       * Set when no KeyboardInterrupt stopped the suite but another exception unittest lets out of a class or
       * module fixture (`SystemExit: 1` from `sys.exit(1)` in a `setUpClass`), as its one-line message.
       */
      raised?: unknown;
    }
  /** A class or module fixture that does something starts (its covered tests); "fixture-end": it ended. */
  | { type: "fixture-start"; name: string; tests: string[] }
  | { type: "fixture-end" }
  | { type: "tampered"; what: string[] }
  | { type: "end"; poisoned: string | null };

/** Outcomes ranked as the harness ranks them (harness.py `_RANK`): a test's result is its worst outcome. */
const OUTCOME_RANK: Record<string, number> = { passed: 0, xfail: 1, skipped: 2, xpass: 3, failed: 4, error: 5 };
const rankOf = (status: unknown): number | undefined =>
  typeof status === "string" && Object.hasOwn(OUTCOME_RANK, status) ? OUTCOME_RANK[status] : undefined;

/** Statuses the harness reports for a test, and for one of its subTests. */
const RESULT_STATUSES = new Set<string>(["passed", "failed", "error", "skipped", "xfail", "xpass"]);
const SUBTEST_STATUSES = new Set<string>(["failed", "error", "skipped"]);

/** What is wrong with a test-result event's status or subTests (null when nothing is). */
function resultProblem(ev: Record<string, unknown>): string | null {
  if (typeof ev.status !== "string" || !RESULT_STATUSES.has(ev.status))
    return `an unknown status (${JSON.stringify(ev.status)?.slice(0, 40)})`;
  if (ev.subtests === undefined) return null;
  if (!Array.isArray(ev.subtests)) return "subTests that are not a list";
  for (const x of ev.subtests) {
    if (
      !isRecord(x) ||
      typeof x.params !== "string" ||
      typeof x.message !== "string" ||
      typeof x.traceback !== "string" ||
      typeof x.status !== "string" ||
      !SUBTEST_STATUSES.has(x.status)
    )
      return "a malformed subTest entry";
  }
  return null;
}

const EVENT_TYPES = new Set<string>([
  "collected",
  "collection-error",
  "module-skipped",
  "test-start",
  "output",
  "check",
  "test-outcome",
  "test-result",
  "fixture",
  "fixture-start",
  "fixture-end",
  "interrupted",
  "tampered",
  "end",
]);

/** Why a run ended early, as the backend saw it. */
export interface RunStop {
  /**
   * `timeout`: the clock ran out; `stopped`: the user; `crash`: the interpreter died; `raised`: the code raised
   * KeyboardInterrupt; `exhausted`: the interpreter died, and the tests left could not run in a new one (no test
   * was running then; `message` says why: the time limit ran out, or the new one died before any of them ran).
   */
  kind: "timeout" | "crash" | "stopped" | "raised" | "exhausted";
  message: string;
}

interface CheckSeen {
  key: string;
  value: string;
  rtol: number;
  atol: number;
  subtest: string | null;
  caller: string;
  /** The outcome() call the value is (a string), or those its items are, in order (see {@link callsOf}). */
  calls: string | string[] | null;
}

/** Parsed expected.json files, by text (a task's file is parsed once, not once per run). */
const expectedCache = new Map<string, ExpectedFile>();

/**
 * What one run's event stream may hold. Beyond these the run is not trusted
 * and the rest of the stream is dropped: the page must never be made to hold
 * or draw more than this by what the code under test writes.
 */
export const STREAM_LIMITS = {
  /** Characters of all event lines of a run (large checked arrays included). */
  chars: MAX_EVENT_LINE,
  /** Event lines of a run. */
  lines: 200_000,
  /** Tests in a collection. */
  tests: 2000,
  /** Characters of a test id. */
  idChars: 300,
  /** Characters of one reason a run is not trusted (it may quote what the code wrote). */
  reasonChars: 300,
  /** Reasons kept (the others are counted). */
  reasons: 5,
} as const;

function expectedFor(text: string): ExpectedFile {
  let file = expectedCache.get(text);
  if (!file) {
    file = parseExpected(text);
    if (expectedCache.size >= 8) expectedCache.delete(expectedCache.keys().next().value as string);
    expectedCache.set(text, file);
  }
  return file;
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

/**
 * A field of an event as a reason may show it, whatever its shape: a string or a number as it is (a
 * string cut at 100 characters), anything else by its kind alone (`String()` of a list nested thousands
 * deep overflows the stack).
 */
function shown(v: unknown): string {
  if (typeof v === "string") return v.length > 100 ? `${v.slice(0, 100)}...` : v;
  if (typeof v === "number" || typeof v === "boolean" || v === null || v === undefined) return String(v);
  if (v instanceof Error) return shown(v.message);
  return Array.isArray(v) ? "a list" : `a ${typeof v}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Builds the host's RunResult from harness events; see the module comment. */
export class RunAssembler {
  private collected: string[] = [];
  private readonly collectedSet = new Set<string>();
  private readonly results = new Map<string, TestResult>();
  private readonly started = new Set<string>();
  /** Tests whose result a class or module set-up fixture gave (they never ran). */
  private readonly byFixture = new Set<string>();
  private current: string | null = null;
  private currentStart = 0;
  private checks: CheckSeen[] = [];
  /** Keys of {@link checks}, to find a repeated one without a scan. */
  private checkKeys = new Set<string>();
  private collectionError: CollectionError | null = null;
  private collectionTimeout = false;
  private interrupted = false;
  /** What stopped the suite when it was not a KeyboardInterrupt (the "interrupted" event's `raised`), or null. */
  private raisedInstead: string | null = null;
  /** Set when the host sent the interrupt (the clock ran out, or the user stopped): why, and the test running then. */
  private sent: { kind: "timeout" | "stopped"; test: string | null; fixture: { name: string; tests: string[] } | null } | null = null;
  /** The class or module fixture running now (between "fixture-start" and "fixture-end"), and the tests it covers. */
  private fixtureRunning: { name: string; tests: string[] } | null = null;
  /** What the running test has written so far ("output" events), for a test whose result never comes. */
  private printed = { stdout: "", stderr: "", stdoutTruncated: false, stderrTruncated: false };
  private printedChars = { stdout: 0, stderr: 0 };
  private stoppedAt: Pick<TestResult, "line" | "traceback" | "stdout" | "stderr" | "stdoutTruncated" | "stderrTruncated"> | null = null;
  private readonly expected: ExpectedFile | null;
  private readonly recording: {
    tests: Record<string, string[]>;
    values: Record<string, PyValue>;
    tolerances: Map<string, readonly [number, number]>;
    xfail: Set<string>;
    errors: string[];
  } | null;
  /** Test ids this attempt may run (null: all). */
  private only: Set<string> | null = null;
  private attemptCollected = false;
  private readonly crashes = new Map<string, string>();
  /** Why the stream is not trusted (empty when it is). */
  private readonly inconsistent: string[] = [];
  /** Protected objects the submission changed during the run (harness.py `Guard`). */
  tampered: string[] = [];
  poisoned: string | null = null;
  ended = false;
  /** The expected.json could not be read: every check fails with this message. */
  private expectedError: string | null = null;

  constructor(
    private readonly req: RunRequest,
    private readonly onProgress?: (p: RunProgress) => void,
  ) {
    let expected: ExpectedFile | null = null;
    if (req.mode === "test" && req.expected) {
      try {
        expected = expectedFor(req.expected);
      } catch (e) {
        this.expectedError = `expected.json cannot be read: ${(e as Error).message}`;
      }
    }
    this.expected = expected;
    this.recording = req.mode === "record" ? { tests: {}, values: {}, tolerances: new Map(), xfail: new Set(), errors: [] } : null;
  }

  /** Start another attempt after a crash: the harness runs again with `only` these tests. */
  beginAttempt(only: string[]): void {
    this.only = new Set(only);
    this.attemptCollected = false;
    this.ended = false;
    this.current = null;
  }

  /** Mark the stream untrusted because of what happened after its end (see the backends). */
  distrustEnd(why: string): void {
    this.distrust(why);
  }

  private distrust(why: string): void {
    const text = why.length > STREAM_LIMITS.reasonChars ? `${why.slice(0, STREAM_LIMITS.reasonChars)}...` : why;
    if (this.inconsistent.includes(text)) return;
    if (this.inconsistent.length < STREAM_LIMITS.reasons) this.inconsistent.push(text);
    else this.moreReasons += 1;
  }

  /** Reasons past {@link STREAM_LIMITS}.reasons. */
  private moreReasons = 0;
  /** Characters and lines of the stream so far; past the limits the rest is dropped. */
  private streamChars = 0;
  private streamLines = 0;
  private overflowed = false;

  /**
   * Feed one line of the event stream (JSON text). Returns the event, or null
   * for a line that is not a well-formed event (the run is then not trusted:
   * only the code under test writes such lines).
   */
  pushLine(line: string): HarnessEvent | null {
    if (this.overflowed) return null;
    this.streamChars += line.length;
    this.streamLines += 1;
    if (this.streamChars > STREAM_LIMITS.chars || this.streamLines > STREAM_LIMITS.lines) {
      this.overflowed = true;
      this.distrust(`the event stream grew past ${STREAM_LIMITS.lines} lines or ${STREAM_LIMITS.chars / 1024 / 1024} MB`);
      return null;
    }
    if (line === FORGED_LINE) {
      // Put in by the channel's verifier (event-auth.ts): never from the harness, whose lines carry their MAC.
      this.distrust("a line on the event channel that the harness did not write (code under test wrote to the channel)");
      return null;
    }
    let ev: unknown = null;
    try {
      ev = JSON.parse(line);
    } catch {
      /* not an event */
    }
    if (!isRecord(ev) || typeof ev.type !== "string" || !EVENT_TYPES.has(ev.type)) {
      this.distrust("a line on the event stream that is not a harness event");
      return null;
    }
    if (this.ended) {
      this.distrust(`a "${ev.type}" event after the end of the run`);
      return null;
    }
    try {
      this.push(ev as HarnessEvent);
    } catch (e) {
      // A field of a shape no harness event has (a list nested thousands deep where a name goes): not trusted.
      this.distrust(`a "${ev.type}" event the host could not read (${e instanceof RangeError ? "nested too deeply" : shown(e)})`);
      return null;
    }
    return ev as HarnessEvent;
  }

  /** Feed one event. */
  push(ev: HarnessEvent): void {
    switch (ev.type) {
      case "collected":
        this.onCollected(ev.tests);
        return;
      case "collection-error": {
        if (this.attemptCollected || this.collected.length > 0) {
          this.distrust("a collection error after the tests were collected");
          return;
        }
        const { type: _t, timeout, testFrames, ...err } = ev;
        this.collectionError = {
          message: String(err.message ?? ""),
          file: err.file ?? null,
          line: err.line ?? null,
          traceback: withTestPyLines(String(err.traceback ?? ""), this.req, testFrames),
        };
        this.collectionTimeout = Boolean(timeout);
        return;
      }
      case "module-skipped":
        if (this.attemptCollected || this.collected.length > 0) {
          this.distrust("a module skip after the tests were collected");
          return;
        }
        this.onModuleSkipped(ev.message);
        return;
      case "test-start":
        this.onStart(ev.id);
        return;
      case "output":
        this.onOutput(ev);
        return;
      case "check":
        this.onCheck(ev);
        return;
      case "test-outcome":
        this.onOutcome(ev);
        return;
      case "test-result":
        this.onResult(ev);
        return;
      case "fixture":
        this.onFixture(ev);
        return;
      case "fixture-start": {
        const tests = Array.isArray(ev.tests)
          ? ev.tests.filter((t): t is string => typeof t === "string" && this.collectedSet.has(t))
          : null;
        if (this.current !== null || this.fixtureRunning !== null || typeof ev.name !== "string" || tests === null) {
          this.distrust("a fixture that started while a test or another fixture ran, or a malformed one");
          return;
        }
        this.fixtureRunning = { name: ev.name, tests };
        return;
      }
      case "fixture-end":
        if (this.fixtureRunning === null) this.distrust("the end of a fixture that had not started");
        this.fixtureRunning = null;
        return;
      case "interrupted":
        this.interrupted = true;
        if (typeof ev.raised === "string" && ev.raised) this.raisedInstead = ev.raised.slice(0, 300);
        if (ev.id !== null && ev.id !== this.current) this.distrust("an interrupt reported for a test that was not running");
        this.stoppedAt = {
          line: ev.line ?? null,
          traceback: withTestPyLines(String(ev.traceback ?? ""), this.req, ev.testFrames),
          stdout: String(ev.stdout ?? ""),
          stderr: String(ev.stderr ?? ""),
          stdoutTruncated: ev.stdoutTruncated === true,
          stderrTruncated: ev.stderrTruncated === true,
        };
        return;
      case "tampered":
        this.tampered = [...new Set([...this.tampered, ...(Array.isArray(ev.what) ? ev.what.map(String) : ["the harness"])])];
        return;
      case "end":
        this.poisoned = typeof ev.poisoned === "string" ? ev.poisoned : null;
        this.ended = true;
        // (A change the guard found ends the run where it found it, the running test's result unsent: that change is the reason.)
        if (this.current !== null && !this.interrupted && this.tampered.length === 0)
          this.distrust("the run ended while a test had not reported");
        if (!this.interrupted && this.tampered.length === 0 && this.attemptCollected) {
          // (A fixture that did not finish accounts for its own tests: finish() gives them its error.)
          const open = this.attemptTests().filter((id) => !this.results.has(id) && !this.fixtureRunning?.tests.includes(id));
          if (open.length > 0)
            this.distrust(`the run ended before ${plural(open.length, "test")} reported (${open.slice(0, 3).join(", ")})`);
        }
        return;
    }
  }

  private onOutput(ev: Record<string, unknown>): void {
    if ((ev.stream !== "stdout" && ev.stream !== "stderr") || typeof ev.text !== "string") {
      this.distrust("a malformed output event");
      return;
    }
    // Written by a stream a test kept after its end: nobody's output now.
    if (this.current === null) return;
    const cap = this.req.outputCap ?? 20000;
    const stream = ev.stream;
    // Counted in characters (code points), as the harness counts them, not in UTF-16 units.
    const chars = Array.from(ev.text);
    const room = cap - this.printedChars[stream];
    if (chars.length > room) this.printed[`${stream}Truncated`] = true;
    if (room > 0) {
      const text = chars.length > room ? chars.slice(0, room).join("") : ev.text;
      this.printed[stream] += text;
      this.printedChars[stream] += Math.min(room, chars.length);
      this.onProgress?.({ type: "output", id: this.current, stream, text });
    }
  }

  /** The running test's output so far, as a result's fields (the cut noted as the harness notes it). */
  private printedFields(): Pick<TestResult, "stdout" | "stderr" | "stdoutTruncated" | "stderrTruncated"> {
    const cap = this.req.outputCap ?? 20000;
    const note = `\n[output cut at ${cap} characters]`;
    const p = this.printed;
    return {
      stdout: p.stdoutTruncated ? p.stdout + note : p.stdout,
      stderr: p.stderrTruncated ? p.stderr + note : p.stderr,
      stdoutTruncated: p.stdoutTruncated,
      stderrTruncated: p.stderrTruncated,
    };
  }

  /**
   * The run stopped inside a fixture (see {@link fixtureRunning}): the tests it covers are `status` with
   * `message`, whatever they reported (a teardown is part of its tests' verdict, as in CPython), and are not
   * run again. Returns the fixture's name, or null when none was running.
   */
  private fixtureStopped(status: TestStatus, message: string): string | null {
    const f = this.fixtureRunning;
    if (f === null) return null;
    this.fixtureRunning = null;
    for (const id of f.tests) {
      this.started.add(id);
      const r = this.results.get(id);
      this.setResult({
        ...(r ?? makeTestResult(id, status, { interface: this.req.interfaceOf?.[id] ?? null })),
        status,
        message,
        mismatch: null,
      });
    }
    return f.name;
  }

  private attemptTests(): string[] {
    return this.only ? this.collected.filter((id) => this.only?.has(id)) : this.collected;
  }

  private onCollected(tests: unknown, synthetic = false): void {
    if (this.attemptCollected) {
      this.distrust("a second collection in one run");
      return;
    }
    if (!Array.isArray(tests) || tests.some((t) => typeof t !== "string")) {
      this.distrust("a malformed collection");
      return;
    }
    if (tests.length > STREAM_LIMITS.tests || tests.some((t: string) => t.length > STREAM_LIMITS.idChars)) {
      this.distrust(
        `a collection of more than ${STREAM_LIMITS.tests} tests, or with a test id longer than ${STREAM_LIMITS.idChars} characters`,
      );
      return;
    }
    this.attemptCollected = true;
    const ids = tests as string[];
    if (new Set(ids).size !== ids.length) this.distrust("the same test collected twice");
    if (this.only) {
      const unexpected = ids.filter((id) => !this.only?.has(id));
      if (unexpected.length > 0) this.distrust(`tests collected that this attempt did not ask for (${unexpected.slice(0, 3).join(", ")})`);
      return;
    }
    this.collected = ids;
    for (const id of ids) this.collectedSet.add(id);
    if (this.recording) for (const id of ids) this.recording.tests[id] = [];
    // Tests the recording has must all be collected (code under test cannot hide one); tests it lacks
    // (test.py changed since) run, and any check they make has no recorded value.
    const known = this.expected?.tests;
    if (known && !synthetic) {
      const missing = [...known.keys()].filter((id) => !this.collectedSet.has(id));
      if (missing.length > 0) {
        this.distrust(`recorded tests were not collected (${missing.slice(0, 3).join(", ")}); record the task again if test.py changed`);
      }
    }
    this.onProgress?.({ type: "collected", tests: ids });
  }

  /**
   * The whole test module skipped as it was imported. As CPython's discover reports it, one test,
   * `ModuleSkipped.test`; for a recorded task, each recorded test, skipped with the same message, so that the run
   * counts the task's tests (a test-case pass rate of 0 of 6, not 0 of 1).
   */
  private onModuleSkipped(message: unknown): void {
    const recorded = this.recording || this.only ? [] : [...(this.expected?.tests?.keys() ?? [])];
    const ids = recorded.length > 0 ? recorded : ["ModuleSkipped.test"];
    this.onCollected(ids, true);
    for (const id of ids) {
      this.setResult(makeTestResult(id, "skipped", { interface: this.req.interfaceOf?.[id] ?? null, message: String(message) }));
    }
  }

  private onStart(id: unknown): void {
    if (typeof id !== "string" || !this.collectedSet.has(id) || (this.only && !this.only.has(id))) {
      this.distrust(`a test started that was not collected (${shown(id)})`);
      return;
    }
    if (this.started.has(id)) {
      this.distrust(`test ${id} started twice`);
      return;
    }
    if (this.current !== null) {
      this.distrust(`test ${id} started while ${this.current} was running`);
      return;
    }
    this.started.add(id);
    this.current = id;
    this.printed = { stdout: "", stderr: "", stdoutTruncated: false, stderrTruncated: false };
    this.printedChars = { stdout: 0, stderr: 0 };
    this.worstOutcome = -1;
    this.currentStart = now();
    this.checks = [];
    this.checkKeys = new Set();
    this.onProgress?.({ type: "test-start", id });
  }

  private onCheck(ev: Extract<HarnessEvent, { type: "check" }>): void {
    if (this.current === null) {
      this.distrust(`a check (${shown(ev.key)}) outside any test`);
      return;
    }
    if (typeof ev.key !== "string" || typeof ev.value !== "string" || typeof ev.rtol !== "number" || typeof ev.atol !== "number") {
      this.distrust("a malformed check");
      return;
    }
    if (this.checkKeys.has(ev.key)) {
      // (Where the second one was made, as the harness saw it: test.py's line, for a task author's loop.)
      const at = typeof ev.caller === "string" ? /File "([^"]+)", line (\d+)/.exec(ev.caller) : null;
      this.distrust(
        `check ${ev.key} made twice in ${this.current}${at ? ` (${at[1]}, line ${at[2]})` : ""}: each check of a test needs its own key (in a loop or a subTest, put the case in the key)`,
      );
      return;
    }
    this.checkKeys.add(ev.key);
    this.checks.push({
      key: ev.key,
      value: ev.value,
      rtol: ev.rtol,
      atol: ev.atol,
      subtest: typeof ev.subtest === "string" ? ev.subtest : null,
      caller: typeof ev.caller === "string" ? withSourceLine(ev.caller, this.req) : "",
      calls: callsOf(ev.calls),
    });
  }

  /** The worst outcome unittest reported for the running test so far (its rank, see {@link OUTCOME_RANK}), or -1. */
  private worstOutcome = -1;

  private onOutcome(ev: Extract<HarnessEvent, { type: "test-outcome" }>): void {
    const rank = rankOf(ev.status);
    if (typeof ev.id !== "string" || ev.id !== this.current || rank === undefined) {
      this.distrust(`an outcome for ${shown(ev.id)}, which was not the running test`);
      return;
    }
    this.worstOutcome = Math.max(this.worstOutcome, rank);
  }

  private onResult(ev: Extract<HarnessEvent, { type: "test-result" }>): void {
    if (typeof ev.id !== "string" || ev.id !== this.current) {
      this.distrust(`a result for ${shown(ev.id)}, which was not the running test`);
      return;
    }
    const problem = resultProblem(ev);
    if (problem) {
      // Only the code under test writes such a result: the run is not trusted, and the test is an error.
      this.distrust(`a result for ${ev.id} with ${problem}`);
      this.current = null;
      this.setResult(
        makeTestResult(ev.id, "error", { interface: this.req.interfaceOf?.[ev.id] ?? null, message: `not trusted: ${problem}` }),
      );
      return;
    }
    if (this.sent && !this.recording) {
      const limitS = (this.req.timeLimitMs / 1000).toFixed(1);
      const why = this.sent.kind === "timeout" ? `the time limit of ${limitS} s was reached` : "the run was stopped by the user";
      const during = ev.id === this.sent.test;
      this.current = null;
      this.setResult(
        makeTestResult(ev.id, during ? "timeout" : "not_run", {
          interface: this.req.interfaceOf?.[ev.id] ?? null,
          durationMs: Number(ev.durationMs) || 0,
          message: during ? `${why} while this test ran; it went on after the interrupt` : `not run: ${why} before this test started`,
          stdout: String(ev.stdout ?? ""),
          stderr: String(ev.stderr ?? ""),
          stdoutTruncated: ev.stdoutTruncated === true,
          stderrTruncated: ev.stderrTruncated === true,
        }),
      );
      return;
    }
    // The result must be the worst outcome unittest reported while the test ran: a milder one was written
    // by code that rewrote the harness's record after the fact (or a result with no outcome at all).
    const worst = this.worstOutcome;
    this.worstOutcome = -1;
    const rank = rankOf(ev.status);
    if (rank !== undefined && rank !== worst) {
      const said = Object.keys(OUTCOME_RANK).find((k) => OUTCOME_RANK[k] === worst);
      this.distrust(
        worst < 0
          ? `a result for ${ev.id} that unittest never reported`
          : `a result "${String(ev.status)}" for ${ev.id}, after unittest reported "${said}"`,
      );
      this.current = null;
      this.setResult(
        makeTestResult(ev.id, "error", {
          interface: this.req.interfaceOf?.[ev.id] ?? null,
          message: "not trusted: its result is not what unittest reported",
        }),
      );
      return;
    }
    const status = ev.status as TestStatus;
    const base = makeTestResult(ev.id, status, {
      interface: this.req.interfaceOf?.[ev.id] ?? null,
      durationMs: Number(ev.durationMs) || 0,
      message: String(ev.message ?? ""),
      traceback: withTestPyLines(String(ev.traceback ?? ""), this.req, ev.testFrames),
      line: typeof ev.line === "number" ? ev.line : null,
      stdout: String(ev.stdout ?? ""),
      stderr: String(ev.stderr ?? ""),
      stdoutTruncated: Boolean(ev.stdoutTruncated),
      stderrTruncated: Boolean(ev.stderrTruncated),
      subtests: Array.isArray(ev.subtests)
        ? (ev.subtests as (SubTestResult & { testFrames?: unknown })[]).map(({ testFrames, ...sub }) => ({
            ...sub,
            traceback: withTestPyLines(String(sub.traceback ?? ""), this.req, testFrames),
          }))
        : [],
    });
    this.current = null;
    this.setResult(this.recording ? this.recordChecks(base) : this.verifyChecks(base));
  }

  private setResult(result: TestResult): void {
    this.results.set(result.id, result);
    this.onProgress?.({ type: "test-result", result });
  }

  /** Record mode: keep the values the canonical solution produced. */
  private recordChecks(t: TestResult): TestResult {
    const rec = this.recording;
    if (!rec) return t;
    const problems: string[] = [];
    for (const c of this.checks) {
      if (c.key in rec.values) {
        problems.push(`key ${c.key} is recorded twice; every check needs its own key`);
        continue;
      }
      try {
        const value = parseValueJson(c.value);
        if (value.type === "other") {
          problems.push(`cannot record ${c.key}: values of type ${value.typeName} are not supported`);
          continue;
        }
        rec.values[c.key] = value;
        rec.tests[t.id]?.push(c.key);
        if (c.rtol !== DEFAULT_TOLERANCE[0] || c.atol !== DEFAULT_TOLERANCE[1]) rec.tolerances.set(c.key, [c.rtol, c.atol]);
      } catch (e) {
        problems.push(`cannot record ${c.key}: ${(e as Error).message}`);
      }
    }
    if (t.status === "xfail") rec.xfail.add(t.id);
    if (problems.length === 0) return t;
    rec.errors.push(...problems);
    return { ...t, status: "error", message: `RecordError: ${problems[0]}` };
  }

  /** Test mode: compare every check with the recording, and require the recorded ones. */
  private verifyChecks(t: TestResult): TestResult {
    if (!this.expected && !this.expectedError) return t;
    // An expected failure counts as passing only where the recording has one (code under test can mark any test).
    if ((t.status === "xfail" || t.status === "xpass") && this.expected?.tests && !this.expected.expectedFailures?.has(t.id)) {
      this.distrust(`${t.id} reported as an expected failure, which the recording does not have`);
    }
    let first: { mismatch: Mismatch; check: CheckSeen } | null = null;
    const subtests: SubTestResult[] = [...t.subtests];
    for (const c of this.checks) {
      const mismatch = this.compare(c);
      if (!mismatch) continue;
      if (c.subtest) {
        subtests.push({ params: c.subtest, status: "failed", message: mismatchMessage(mismatch), traceback: c.caller });
      }
      first ??= { mismatch, check: c };
    }
    if (this.expected?.tests && !this.expected.tests.has(t.id) && (t.status === "passed" || t.status === "xpass" || t.status === "xfail")) {
      // The host cannot verify a test the recording does not know: test.py changed since it was recorded.
      return {
        ...t,
        status: "error",
        message: `${t.id} is not in expected.json: test.py changed since the task was recorded; record it again (recode tasks record)`,
        subtests,
      };
    }
    const wanted = this.expected?.tests?.get(t.id) ?? [];
    const missing = wanted.filter((k) => !this.checks.some((c) => c.key === k));
    if (first && t.status !== "xfail") {
      const m = first.mismatch;
      const where = first.check.subtest ? `subTest ${first.check.subtest}: ` : "";
      return {
        ...t,
        // A check that fails raises inside the test (as recode_check does under plain unittest): in a test marked
        // as an expected failure, that is the failure it expects, as CPython counts it.
        status: t.status === "xpass" ? "xfail" : "failed",
        message: `${t.status === "xpass" ? "expected failure: " : ""}${where}${mismatchMessage(m)}`,
        traceback: checkTraceback(first.check, m),
        line: null,
        mismatch: m,
        subtests,
      };
    }
    if (missing.length > 0 && (t.status === "passed" || t.status === "xpass")) {
      return {
        ...t,
        status: "failed",
        message: `AssertionError: check ${missing.slice(0, 3).join(", ")} did not report a value (the recording says this test makes it)`,
        line: null,
        subtests,
      };
    }
    return { ...t, subtests };
  }

  private compare(c: CheckSeen): Mismatch | null {
    const unread = (detail: string, kind: Mismatch["kind"] = "value"): Mismatch => ({
      key: c.key,
      kind,
      where: "",
      expected: "",
      actual: "",
      detail,
    });
    if (this.expectedError) return unread(this.expectedError);
    const recorded = this.expected?.values.get(c.key);
    if (recorded === undefined) return unread(`no recorded value for key ${c.key}: record the task again`);
    const limit = checkedTextLimit(recorded);
    if (c.value.length > limit) {
      return unread(
        `the checked value is far larger than the recorded one (${c.value.length} characters of JSON, at most ${limit}); it was not read`,
      );
    }
    let actual: PyValue;
    try {
      // (A place where a call raised is shown only when it names a file the candidate may see.)
      actual = withPlacesShown(
        parseValueJson(c.value),
        (file) => file === this.req.targetPath || (file !== "test.py" && Object.hasOwn(this.req.files, file)),
      );
    } catch (e) {
      return unread(`the checked value could not be read: ${(e as Error).message}`, "type");
    }
    // The recording's tolerances, never the ones the interpreter under test sends (legacy files have none recorded).
    const [rtol, atol] = this.expected?.tests ? (this.expected.tolerances?.get(c.key) ?? DEFAULT_TOLERANCE) : [c.rtol, c.atol];
    if (!Number.isFinite(rtol) || !Number.isFinite(atol)) {
      return unread("the check's tolerances are not finite numbers");
    }
    const mismatch = compareValues(c.key, recorded, actual, rtol, atol);
    if (!mismatch) return null;
    const call = callAt(c.calls, mismatch.where);
    const withCall = call ? { ...mismatch, call } : mismatch;
    // A list of outcome() calls says every call that differs, not only the first (one fix per run otherwise).
    const more = Array.isArray(c.calls) ? otherItemsThatDiffer(c.key, recorded, actual, rtol, atol, mismatch.where) : [];
    if (more.length === 0) return withCall;
    const named = more.slice(0, 5).map((i) => `[${i}]${c.calls?.[i] ? ` ${c.calls[i]}` : ""}`);
    const rest = more.length > 5 ? `, and ${more.length - 5} more` : "";
    return { ...withCall, detail: `${mismatch.detail}; also ${more.length === 1 ? "differs" : "differ"}: ${named.join(", ")}${rest}` };
  }

  private onFixture(ev: Extract<HarnessEvent, { type: "fixture" }>): void {
    const tests = Array.isArray(ev.tests) ? ev.tests.map(String) : [];
    if (tests.some((id) => !this.collectedSet.has(id))) {
      this.distrust(`a fixture (${shown(ev.name)}) covering tests that were not collected`);
      return;
    }
    if (this.current !== null) {
      this.distrust(`a fixture (${shown(ev.name)}) reported while ${this.current} was running`);
      return;
    }
    const message = String(ev.message ?? "");
    const traceback = withTestPyLines(String(ev.traceback ?? ""), this.req, ev.testFrames);
    if (ev.phase === "setup") {
      // The tests never ran; a later report for the same fixture (its cleanup raised too) can only make it worse.
      const status: TestStatus = ev.status === "skipped" ? "skipped" : "error";
      for (const id of tests) {
        if (this.started.has(id) && !(this.byFixture.has(id) && status === "error")) continue;
        // A second report (a class cleanup that raised after a set-up that raised or skipped): both are said,
        // the set-up's first, as CPython lists both.
        const before = this.byFixture.has(id) ? this.results.get(id) : undefined;
        this.started.add(id);
        this.byFixture.add(id);
        this.setResult(
          makeTestResult(id, status, {
            interface: this.req.interfaceOf?.[id] ?? null,
            message: before?.message ? `${before.message}; then ${message}` : message,
            traceback: before?.traceback ? `${before.traceback}\n${traceback}` : traceback,
          }),
        );
      }
      return;
    }
    // A teardown step (tearDownClass, tearDownModule, their cleanups) that raised or skipped: the tests it covers
    // that passed are not passed (a skip there is one unittest counts, as RECODE-H counts every skip; a skip
    // raised by code under test there left test.py's check in that step undone).
    if (ev.status !== "error" && ev.status !== "skipped") return;
    const status: TestStatus = ev.status;
    for (const id of tests) {
      const r = this.results.get(id);
      if (r && (r.status === "passed" || r.status === "xfail")) this.setResult({ ...r, status, message, traceback });
    }
  }

  /** Whether the harness stopped because the time limit interrupt arrived. */
  /**
   * The host sent the interrupt now (`timeout`: the time limit; `stopped`:
   * the user). Whatever the code does next, the test running now ends as
   * `timeout`, and a test that reports after it counts as not run: code that
   * catches the interrupt cannot pass a test past the time limit.
   */
  interruptSent(kind: "timeout" | "stopped"): void {
    if (!this.sent) this.sent = { kind, test: this.current, fixture: this.fixtureRunning ?? this.fixtureAtSend };
  }

  /**
   * Called as the interrupt goes out, before {@link interruptSent} (which waits for the events already sent):
   * a fixture running now is the interrupt's, even if code that caught it ends the fixture before then.
   */
  interruptSending(): void {
    this.fixtureAtSend ??= this.fixtureRunning;
  }

  private fixtureAtSend: { name: string; tests: string[] } | null = null;

  get wasInterrupted(): boolean {
    return this.interrupted || this.collectionTimeout;
  }

  /** Whether the harness got as far as the tests: it reported them collected, or why they could not be. */
  get reachedTests(): boolean {
    return this.collected.length > 0 || this.collectionError !== null;
  }

  /**
   * The interpreter died during this attempt (`reason`: how): the test that
   * was running, or the tests of the fixture that was, are errors. Returns
   * the tests still to run (collected, not started), for another attempt in
   * a fresh interpreter (a later attempt that died before its tests were
   * collected again leaves all it was given, and runAttempts then stops).
   */
  crashed(reason: string): string[] {
    this.fixtureStopped("error", `the Python interpreter died while ${this.fixtureRunning?.name} ran: ${reason}`);
    const message = `the Python interpreter died during this test: ${reason}`;
    if (this.current !== null) {
      this.crashes.set(this.current, message);
      this.setResult(
        makeTestResult(this.current, "error", {
          interface: this.req.interfaceOf?.[this.current] ?? null,
          message,
          durationMs: now() - this.currentStart,
          ...this.printedFields(),
        }),
      );
      this.current = null;
    }
    if (this.tampered.length > 0 || this.inconsistent.length > 0) return [];
    // (A later attempt that died before it collected ran none of the tests it was given: all of them are left.)
    if (!this.attemptCollected && !this.only) return [];
    return this.attemptTests().filter((id) => !this.started.has(id));
  }

  /**
   * Final result. `stop` says why the run ended early, if it did.
   * @param incident what happened to the interpreter, if anything.
   */
  finish(backend: "pyodide" | "native", durationMs: number, incident: RunIncident | null, stop?: RunStop): RunResult {
    if (!stop && this.interrupted) {
      // The harness saw a KeyboardInterrupt the host did not send: the code raised it.
      stop = { kind: "raised", message: `${this.raisedInstead ?? "KeyboardInterrupt"} raised by the code` };
    }
    const tests: TestResult[] = [];
    const limitS = (this.req.timeLimitMs / 1000).toFixed(1);
    let hit: string | null = null;
    if (this.fixtureRunning !== null && this.current === null && (stop || this.ended)) {
      const name = this.fixtureRunning.name;
      const [status, message]: [TestStatus, string] = !stop
        ? ["error", `${name} did not finish (it raised SystemExit or another exception that ends the run)`]
        : stop.kind === "timeout"
          ? ["timeout", `time limit of ${limitS} s reached while ${name} ran`]
          : stop.kind === "stopped"
            ? ["timeout", `stopped by the user while ${name} ran`]
            : ["error", `${stop.message || "the run stopped"} while ${name} ran`];
      hit = this.fixtureStopped(status, message);
    }
    // The interrupt came while a fixture ran, and the fixture went on (it caught it): its tests count as timed out.
    const caught = this.sent?.fixture;
    if (hit === null && caught && !this.recording) {
      this.fixtureRunning = caught;
      const why = this.sent?.kind === "stopped" ? "stopped by the user" : `time limit of ${limitS} s reached`;
      hit = this.fixtureStopped("timeout", `${why} while ${caught.name} ran; it went on after the interrupt`);
    }
    for (const id of this.collected) {
      const done = this.results.get(id);
      if (done) {
        tests.push(done);
        continue;
      }
      let status: TestStatus = "not_run";
      let message = "not run";
      if (stop && stop.kind !== "exhausted" && hit === null && (id === this.current || this.current === null)) {
        hit = id;
        if (stop.kind === "timeout") {
          status = "timeout";
          message = `time limit of ${limitS} s reached while this test ran`;
        } else if (stop.kind === "stopped") {
          status = "timeout";
          message = STOPPED_BY_USER;
        } else {
          status = "error";
          message = stop.message;
        }
      } else if (stop) {
        const why = {
          crash: "the interpreter crashed",
          stopped: "stopped by the user",
          timeout: "the time limit was reached",
          raised: `the code raised ${this.raisedInstead?.split(":")[0] ?? "KeyboardInterrupt"}`,
        };
        message = stop.kind === "exhausted" ? `not run: ${stop.message}` : `not run: ${why[stop.kind]} in ${hit ?? "an earlier test"}`;
      }
      const extra =
        hit === id
          ? {
              durationMs: this.currentStart ? now() - this.currentStart : 0,
              line: null,
              traceback: "",
              ...(id === this.current ? this.printedFields() : {}),
              ...this.stoppedAt,
            }
          : {};
      let result = makeTestResult(id, status, { interface: this.req.interfaceOf?.[id] ?? null, message, ...extra });
      // A test stopped after a check already failed failed at that check (as it would where check() raises at
      // once); its message says what stopped it then, and the line where it was stopped stays marked.
      if (id === this.current && !this.recording) {
        const verified = this.verifyChecks({ ...result, status: "passed" });
        if (verified.status === "failed" && verified.mismatch) {
          result = { ...verified, message: `${verified.message}\n(then: ${result.message})`, line: result.line ?? null };
        }
      }
      tests.push(result);
    }
    let collectionError = this.collectionError;
    if (collectionError && this.collectionTimeout) {
      // The harness says an interrupt stopped the import; the host knows whose it was: the user's, the clock's,
      // or, when the host sent none, the code's own.
      const whose = this.sent?.kind ?? (stop?.kind === "stopped" || stop?.kind === "timeout" ? stop.kind : null);
      if (whose === "stopped") collectionError = { ...collectionError, message: "stopped by the user while importing the tests" };
      else if (whose === null)
        collectionError = { ...collectionError, message: "KeyboardInterrupt raised by the code while importing the tests" };
    }
    if (!collectionError && this.collected.length === 0 && stop) {
      collectionError = {
        message:
          stop.kind === "timeout"
            ? `time limit of ${limitS} s reached while importing the tests`
            : stop.kind === "stopped"
              ? "stopped by the user before any test started"
              : stop.message,
        file: null,
        line: null,
        traceback: "",
      };
    } else if (!collectionError && this.collected.length === 0 && this.ended && this.tampered.length > 0) {
      // The harness ran no test: the submission changed the test framework while test.py imported it.
      collectionError = {
        message: `the tests were not run: the submission changed ${this.tampered.slice(0, 5).join(", ")} while test.py imported it`,
        file: null,
        line: null,
        traceback: "",
      };
    } else if (!collectionError && this.collected.length === 0) {
      collectionError = {
        message: this.ended ? "no unit tests were collected from test.py" : "the tests did not start",
        file: this.ended ? "test.py" : null,
        line: null,
        traceback: "",
      };
    }
    const why = [
      ...(this.tampered.length ? [`the submission changed ${this.tampered.slice(0, 5).join(", ")} during the run`] : []),
      ...this.inconsistent,
      ...(this.moreReasons > 0 ? [`${plural(this.moreReasons, "more reason")}`] : []),
    ];
    if (why.length > 0) {
      const text = why.join("; ");
      for (const [i, t] of tests.entries()) tests[i] = { ...t, status: "error", message: `not trusted: ${text}`, mismatch: null };
      incident = {
        kind: "tampered",
        message: `${text[0]?.toUpperCase() ?? ""}${text.slice(1)}; the run's results are not trusted.`,
        respawned: incident?.respawned ?? false,
      };
    }
    const counts = countTests(tests);
    let recorded: string | null = null;
    if (this.recording && this.recording.errors.length === 0 && why.length === 0) {
      const rec = this.recording;
      recorded = formatExpected({
        tests: new Map(Object.entries(rec.tests)),
        values: new Map(Object.entries(rec.values)),
        tolerances: rec.tolerances,
        expectedFailures: rec.xfail,
      });
    }
    return {
      backend,
      tests,
      collectionError,
      counts,
      allPassed: runSolved(counts, collectionError),
      durationMs,
      incident,
      recorded,
    };
  }
}

/** The one-line message of a failed check, as unittest would show the AssertionError. */
export function mismatchMessage(m: Mismatch): string {
  return `AssertionError: ${m.key}${mismatchPlace(m)}: ${m.detail}`;
}

function checkTraceback(c: CheckSeen, m: Mismatch): string {
  const head = c.caller ? `Traceback (most recent call last):\n${c.caller}` : "";
  return `${head}${mismatchMessage(m)}\n`;
}
