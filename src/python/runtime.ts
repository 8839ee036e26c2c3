/**
 * The Python runtime: one interface, two backends (Pyodide in a worker,
 * native python3 in Node). A run takes the repo files, the candidate target
 * file and the tests, and returns per-test results (src/core/results.ts).
 */
import type { RunIncident, RunResult } from "../core/results";
import { isInsidePath, type Task } from "../core/task";

// The runtime's interface is a port declared in core (src/core/runtime-port.ts); this folder implements it.
export type { PythonRuntime, RunOptions, RunProgress, RunRequest } from "../core/runtime-port";

import type { RunRequest } from "../core/runtime-port";

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

/**
 * Files the harness sees in the run directory: repo, candidate target, tests.
 * @throws Error when a path would leave the run directory (`..`, a leading `/`, ...; see isInsidePath): the
 *   files are written before the run is watched, so such a file would land elsewhere in the interpreter or on the host.
 */
export function runFiles(req: RunRequest): Record<string, string> {
  const files = { ...req.files, [req.targetPath]: req.candidate, "test.py": req.tests };
  const outside = Object.keys(files).filter((p) => !isInsidePath(p));
  if (outside.length > 0)
    throw new Error(`the run's files must stay inside its folder: ${outside.map((p) => JSON.stringify(p)).join(", ")}`);
  return files;
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
    packages: [...req.packages],
    ...(only ? { only } : {}),
  };
}

import type { RunAssembler, RunStop } from "./assembler";

export type { HarnessEvent, RunStop } from "./assembler";

/**
 * How one attempt of a run ended (see {@link runAttempts}). `died`: the interpreter died, so the remaining tests
 * may run in a new one. `waitedMs`: how long the attempt waited before its tests' time began (for an interpreter to
 * be ready, a new one after a death, and to start the harness), which does not count against the time limit.
 */
export interface Attempt {
  incident: RunIncident | null;
  stop?: RunStop;
  died: boolean;
  waitedMs?: number;
}

/**
 * Drive a run through attempts until it is over: when the interpreter dies
 * during a test, that test is an error and the tests not yet run go to a new
 * interpreter (`attempt(limitMs, only)`), within what is left of the time limit.
 * The waits before an attempt's tests start (`Attempt.waitedMs`) are not counted:
 * the first attempt's whole, the new interpreters' up to the time limit again in
 * all (a backend whose interpreter starts slowly gives the tests the same time as
 * one that starts at once, and a run whose every test kills its interpreter still
 * ends: its tests' time, and at most the limit again of new interpreters, after
 * the first start). Tests that no time is left for are `not_run`, and so are they
 * when a new interpreter dies again before it runs any of them.
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
  let startWait = 0;
  let respawnWait = 0;
  // (What the waits were, beside the run's whole time: the first run of an instance waits for Python to be prepared.)
  const waited = (r: RunResult): RunResult =>
    startWait + respawnWait > 0 ? { ...r, waitedMs: Math.min(startWait + respawnWait, r.durationMs) } : r;
  const left = () => req.timeLimitMs - (performance.now() - t0 - startWait - Math.min(respawnWait, req.timeLimitMs));
  for (;;) {
    const a = await attempt(Math.max(left(), 1), only);
    if (only === undefined) startWait = a.waitedMs ?? 0;
    else respawnWait += a.waitedMs ?? 0;
    if (a.stop?.kind !== "crash" || !a.died || signal?.aborted) {
      const incident = crashes.length && !a.incident ? crashedIncident(crashes) : a.incident;
      return waited(asm.finish(backend, performance.now() - t0, incident, a.stop));
    }
    crashes = [...crashes, a.stop.message];
    const rest = asm.crashed(a.stop.message);
    // A death that no test is blamed for (none was running, none ran) leaves the same tests: another attempt
    // would die the same way, so they are not run.
    const noProgress = only !== undefined && rest.length >= only.length;
    if (rest.length === 0 || noProgress || left() < 50) {
      const times = `the interpreter died ${crashes.length === 1 ? "once" : `${crashes.length} times`}`;
      const exhausted: RunStop = {
        kind: "exhausted",
        message: noProgress
          ? `a new interpreter died before any of the tests left ran (${times})`
          : `the time limit was reached (after ${times})`,
      };
      if (!asm.reachedTests) {
        // Died before any test was collected (at the tests' import, the candidate's module level): no test ran, none was left to run again.
        const incident: RunIncident = {
          kind: "crashed",
          message: `The Python interpreter died before the tests started (while they were imported): ${crashes[0] ?? "unknown cause"}. No test ran.`,
          respawned: true,
        };
        return waited(asm.finish(backend, performance.now() - t0, incident));
      }
      const why = rest.length === 0 ? undefined : noProgress ? "no-progress" : "time";
      return waited(asm.finish(backend, performance.now() - t0, crashedIncident(crashes, why), rest.length ? exhausted : undefined));
    }
    only = rest;
    asm.beginAttempt(rest);
  }
}

/**
 * The incident of a run whose interpreter died (once or more) and whose remaining tests ran in a new one.
 * `notRun` says why some of them could not: `"time"`, the time limit had run out; `"no-progress"`, the new
 * interpreter died again before it ran any of them.
 */
export function crashedIncident(messages: readonly string[], notRun?: "time" | "no-progress"): RunIncident {
  const times = messages.length === 1 ? "" : ` (${messages.length} times)`;
  const until =
    notRun === "time"
      ? ", until the time limit was reached (the tests left were not run)"
      : notRun === "no-progress"
        ? ", until it died again before any of them ran (the tests left were not run)"
        : "";
  return {
    kind: "crashed",
    message: `The Python interpreter died${times}: ${messages[0] ?? "unknown cause"}. The test that was running counts as an error; the remaining tests ran in a new interpreter${until}.`,
    respawned: true,
  };
}
