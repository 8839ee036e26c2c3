/**
 * The Python runtime: one interface, two backends (Pyodide in a worker,
 * native python3 in Node). A run takes the repo files, the candidate target
 * file and the tests, and returns per-test results (src/core/results.ts).
 */
import type { CollectionError, RunIncident, RunResult, TestResult, TestStatus } from "../core/results";
import { countTests, makeTestResult } from "../core/results";
import type { Task } from "../core/task";

/** One run of a task's unit tests. */
export interface RunRequest {
  /** Repository files keyed by path relative to the repo root (context files). */
  files: Record<string, string>;
  /** Path of the target file relative to the repo root. */
  targetPath: string;
  /** Text of the target file to test (candidate code, or canonical when recording). */
  candidate: string;
  /** test.py source. */
  tests: string;
  /** `test`: compare with `expected`; `record`: record values from the code that runs. */
  mode: "test" | "record";
  /** expected.json text (test mode). */
  expected: string | null;
  /** Packages to load before the run (e.g. ["numpy"]). */
  packages: string[];
  /** Wall clock for the whole run, in milliseconds. */
  timeLimitMs: number;
  /** Characters kept per stream (stdout, stderr) per test. Default 20000. */
  outputCap?: number;
  /** Test id -> interface name, to label results. */
  interfaceOf?: Record<string, string>;
}

/** Live progress of a run, for UIs. */
export type RunProgress =
  | { type: "collected"; tests: string[] }
  | { type: "test-start"; id: string }
  | { type: "test-result"; result: TestResult };

/** Per-call options of {@link PythonRuntime.run}. */
export interface RunOptions {
  /** Abort = Stop: the interrupt first, then terminate and respawn. */
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
}

/** A Python interpreter that runs task tests. */
export interface PythonRuntime {
  readonly backend: "pyodide" | "native";
  /** Resolves when the interpreter is loaded and can run; rejects with a clear error if it cannot start. */
  ready(): Promise<void>;
  /** Interpreter version string, e.g. "3.14.2 (pyodide 314.0.7)". Valid after ready(). */
  readonly version: string;
  /**
   * Run the tests. Never rejects for problems in the candidate code (they are
   * results); rejects only when the runtime itself cannot run (disposed,
   * failed to start).
   */
  run(req: RunRequest, opts?: RunOptions): Promise<RunResult>;
  /** Stop the interpreter and free it. */
  dispose(): Promise<void>;
}

/** Build a run request for a task and a candidate target file. */
export function taskRunRequest(
  task: Task,
  candidate: string,
  mode: "test" | "record" = "test",
  overrides: Partial<RunRequest> = {},
): RunRequest {
  return {
    files: task.repo,
    targetPath: task.meta.target_file_path,
    candidate,
    tests: task.tests,
    mode,
    expected: task.expected,
    packages: task.meta.packages,
    timeLimitMs: task.meta.time_limit_s * 1000,
    interfaceOf: task.interfaceOf,
    ...overrides,
  };
}

/** Files the harness sees in the run directory: repo, candidate target, tests. */
export function runFiles(req: RunRequest): Record<string, string> {
  return { ...req.files, [req.targetPath]: req.candidate, "test.py": req.tests };
}

/** Harness configuration (see harness.py `run_tests`). */
export function harnessConfig(req: RunRequest, workdir: string): Record<string, unknown> {
  let expected: unknown = {};
  if (req.mode === "test" && req.expected) expected = JSON.parse(req.expected);
  return {
    workdir,
    target: req.targetPath,
    tests_file: "test.py",
    mode: req.mode,
    expected,
    output_cap: req.outputCap ?? 20000,
  };
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

/** Event emitted by harness.py. */
export type HarnessEvent =
  | { type: "collected"; tests: string[] }
  | ({ type: "collection-error"; timeout?: boolean } & CollectionError)
  | { type: "test-start"; id: string }
  | ({ type: "test-result" } & Omit<TestResult, "interface">)
  | { type: "recorded"; expected: string }
  | { type: "interrupted"; id: string | null; line?: number | null; traceback?: string }
  | { type: "tampered"; what: string[] }
  | { type: "end"; poisoned: string | null };

/**
 * Builds a RunResult from harness events. Works with a partial stream: when
 * the interpreter had to be killed, the test that was running becomes
 * `timeout` (or `error` for a crash) and the tests not started are `skipped`.
 */
export class RunAssembler {
  private collected: string[] = [];
  private results = new Map<string, TestResult>();
  private current: string | null = null;
  private collectionError: CollectionError | null = null;
  private recorded: string | null = null;
  private interrupted = false;
  private collectionTimeout = false;
  private currentStart = 0;
  /** Where the code was when the interrupt stopped it. */
  private stoppedAt: { line: number | null; traceback: string } | null = null;
  /** Protected objects the submission changed during the run (see harness.py `Guard`). */
  tampered: string[] = [];
  poisoned: string | null = null;
  ended = false;

  constructor(
    private readonly req: RunRequest,
    private readonly onProgress?: (p: RunProgress) => void,
  ) {}

  /**
   * Feed one line of the event stream (JSON text). A line that is not a
   * harness event, a second collection, or anything after `end` can only come
   * from the submission writing to the stream: it is ignored and the run is
   * marked as tampered with.
   */
  pushLine(line: string): HarnessEvent | null {
    let ev: HarnessEvent | null = null;
    try {
      ev = JSON.parse(line) as HarnessEvent;
    } catch {
      /* not an event */
    }
    if (!ev || typeof ev !== "object" || typeof (ev as { type?: unknown }).type !== "string") {
      this.markStreamTampered();
      return null;
    }
    if (this.ended || (ev.type === "collected" && this.collected.length > 0)) {
      // Only the submission can write a second collection or anything after the end.
      this.markStreamTampered();
      return null;
    }
    this.push(ev);
    return ev;
  }

  private markStreamTampered(): void {
    if (!this.tampered.includes("the event stream")) this.tampered = [...this.tampered, "the event stream"];
  }

  /** Feed one event. */
  push(ev: HarnessEvent): void {
    switch (ev.type) {
      case "collected":
        this.collected = ev.tests;
        this.onProgress?.({ type: "collected", tests: ev.tests });
        break;
      case "collection-error": {
        const { type: _t, timeout, ...err } = ev;
        this.collectionError = err;
        this.collectionTimeout = Boolean(timeout);
        break;
      }
      case "test-start":
        this.current = ev.id;
        this.currentStart = now();
        this.onProgress?.({ type: "test-start", id: ev.id });
        break;
      case "test-result": {
        const { type: _t, ...rest } = ev;
        const result: TestResult = { ...rest, interface: this.req.interfaceOf?.[ev.id] ?? null };
        this.results.set(ev.id, result);
        this.current = null;
        this.onProgress?.({ type: "test-result", result });
        break;
      }
      case "recorded":
        this.recorded = ev.expected;
        break;
      case "interrupted":
        this.interrupted = true;
        this.current = ev.id;
        this.stoppedAt = { line: ev.line ?? null, traceback: ev.traceback ?? "" };
        break;
      case "tampered":
        this.tampered = ev.what;
        break;
      case "end":
        this.poisoned = ev.poisoned;
        this.ended = true;
        break;
    }
  }

  /** Whether the harness stopped because the time limit interrupt arrived. */
  get wasInterrupted(): boolean {
    return this.interrupted || this.collectionTimeout;
  }

  /**
   * Final result. `stop` says why the run ended early, if it did:
   * `timeout` (clock ran out), `crash` (interpreter died; `message` says how).
   */
  finish(
    backend: "pyodide" | "native",
    durationMs: number,
    incident: RunIncident | null,
    stop?: { kind: "timeout" | "crash" | "stopped" | "raised"; message: string },
  ): RunResult {
    if (!stop && this.interrupted) {
      // The harness saw a KeyboardInterrupt the host did not send: the code raised it.
      stop = { kind: "raised", message: "KeyboardInterrupt raised by the code" };
    }
    const tests: TestResult[] = [];
    const limitS = (this.req.timeLimitMs / 1000).toFixed(1);
    let hit: string | null = null;
    for (const id of this.collected) {
      const done = this.results.get(id);
      if (done) {
        tests.push(done);
        continue;
      }
      let status: TestStatus = "skipped";
      let message = "not run";
      if (stop && hit === null && (id === this.current || this.current === null)) {
        hit = id;
        if (stop.kind === "timeout") {
          status = "timeout";
          message = `time limit of ${limitS} s reached while this test ran`;
        } else if (stop.kind === "stopped") {
          status = "timeout";
          message = "stopped by the user while this test ran";
        } else {
          // crash, or a KeyboardInterrupt the code raised itself
          status = "error";
          message = stop.message;
        }
      } else if (stop) {
        const why = {
          crash: "the interpreter crashed",
          stopped: "stopped by the user",
          timeout: "the time limit was reached",
          raised: "the code raised KeyboardInterrupt",
        }[stop.kind];
        message = `not run: ${why} in ${hit ?? "an earlier test"}`;
      }
      const extra =
        hit === id
          ? {
              durationMs: this.currentStart ? now() - this.currentStart : 0,
              line: this.stoppedAt?.line ?? null,
              traceback: this.stoppedAt?.traceback ?? "",
            }
          : {};
      tests.push(makeTestResult(id, status, { interface: this.req.interfaceOf?.[id] ?? null, message, ...extra }));
    }
    let collectionError = this.collectionError;
    if (!collectionError && this.collected.length === 0 && stop) {
      collectionError = {
        message: stop.kind === "timeout" ? `time limit of ${limitS} s reached while importing the tests` : stop.message,
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
    if (this.tampered.length > 0) {
      const what = this.tampered.join(", ");
      for (const [i, t] of tests.entries()) {
        tests[i] = { ...t, status: "error", message: `not trusted: the submission changed ${what} during the run` };
      }
      incident = {
        kind: "tampered",
        message: `The submission changed ${what} during the run; its results are not trusted.`,
        respawned: incident?.respawned ?? false,
      };
    }
    const counts = countTests(tests);
    return {
      backend,
      tests,
      collectionError,
      counts,
      allPassed: collectionError === null && counts.total > 0 && counts.passed === counts.total,
      durationMs,
      incident,
      recorded: this.recorded,
    };
  }
}
