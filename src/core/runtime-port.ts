/**
 * The Python runtime as the domain sees it (a port): one run request, one
 * result, and the interface both backends implement (src/python: Pyodide in a
 * worker or box, native python3). Declared here so that core code depends on
 * no backend.
 */
import type { RunResult, TestResult } from "./results";

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
  /** What the running test wrote, as it wrote it (its first writes only: the result carries the whole output). */
  | { type: "output"; id: string; stream: "stdout" | "stderr"; text: string }
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
  /** Whether the interpreter started from a saved start snapshot (Pyodide; false otherwise). Valid after ready(). */
  readonly startedFromSnapshot?: boolean;
  /**
   * Run the tests. Never rejects for problems in the candidate code (they are
   * results); rejects only when the runtime itself cannot run (disposed,
   * failed to start).
   */
  run(req: RunRequest, opts?: RunOptions): Promise<RunResult>;
  /** Stop the interpreter and free it. */
  dispose(): Promise<void>;
}
