/**
 * The Python runtime: one interface, two backends (Pyodide in a worker,
 * native python3 in Node). A run takes the repo files, the candidate target
 * file and the tests, and returns per-test results (src/core/results.ts).
 */
import type { RunIncident, RunResult, TestResult } from "../core/results";
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
  /** `test`: the host compares checked values with `expected`; `record`: the host records them (`RunResult.recorded`). */
  mode: "test" | "record";
  /** expected.json text (test mode). Stays on the host: the interpreter never receives it. */
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

/**
 * Harness configuration (see harness.py `run_tests`). Holds no recorded value:
 * the host compares checked values itself (assembler.ts).
 * @param only run just these test ids (another attempt after a crash).
 */
export function harnessConfig(req: RunRequest, workdir: string, only?: string[]): Record<string, unknown> {
  return {
    workdir,
    target: req.targetPath,
    tests_file: "test.py",
    output_cap: req.outputCap ?? 20000,
    ...(only ? { only } : {}),
  };
}

import type { RunAssembler, RunStop } from "./assembler";

export { type HarnessEvent, RunAssembler, type RunStop } from "./assembler";

/** How one attempt of a run ended (see {@link runAttempts}). `died`: the interpreter died, so the remaining tests may run in a new one. */
export interface Attempt {
  incident: RunIncident | null;
  stop?: RunStop;
  died: boolean;
}

/**
 * Drive a run through attempts until it is over: when the interpreter dies
 * during a test, that test is an error and the tests not yet run go to a new
 * interpreter (`attempt(limitMs, only)`), within what is left of the time limit.
 * @param t0 when the run started (performance.now(), ms).
 */
export async function runAttempts(
  backend: "pyodide" | "native",
  req: RunRequest,
  asm: RunAssembler,
  t0: number,
  attempt: (limitMs: number, only: string[] | undefined) => Promise<Attempt>,
  signal?: AbortSignal,
): Promise<RunResult> {
  let only: string[] | undefined;
  let crashes: string[] = [];
  for (;;) {
    const a = await attempt(Math.max(req.timeLimitMs - (performance.now() - t0), 1), only);
    if (a.stop?.kind !== "crash" || !a.died || signal?.aborted) {
      const incident = crashes.length && !a.incident ? crashedIncident(crashes) : a.incident;
      return asm.finish(backend, performance.now() - t0, incident, a.stop);
    }
    crashes = [...crashes, a.stop.message];
    const rest = asm.crashed(`the Python interpreter died during this test: ${a.stop.message}`);
    if (rest.length === 0 || req.timeLimitMs - (performance.now() - t0) < 50) {
      return asm.finish(backend, performance.now() - t0, crashedIncident(crashes), rest.length ? a.stop : undefined);
    }
    only = rest;
    asm.beginAttempt(rest);
  }
}

/** The incident of a run whose interpreter died (once or more) and whose remaining tests ran in a new one. */
export function crashedIncident(messages: readonly string[]): RunIncident {
  const times = messages.length === 1 ? "" : ` (${messages.length} times)`;
  return {
    kind: "crashed",
    message: `The Python interpreter died${times}: ${messages[0] ?? "unknown cause"}. The test that was running counts as an error; the remaining tests ran in a new interpreter.`,
    respawned: true,
  };
}
