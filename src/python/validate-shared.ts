/**
 * Validation of shared tasks (`isolation: "shared"`, imported official
 * RECODE-H tasks), which run under pytest with the Python the user names
 * (pytest-runtime.ts). The checks are those of validate.ts that apply to a
 * task without recorded values, plus whether that Python has what the task
 * imports.
 */
import { findMathProblems, mathProblemsText } from "../core/math-check";
import { plural } from "../core/plural";
import { baseTestId, importedModules, type SharedTask, sharedCanonicalTarget } from "../core/pytest-task";
import type { RunResult } from "../core/results";
import type { PytestRuntime } from "./pytest-runtime";
import { collectionText, countsText, startProblem } from "./validate";

/** The checks of a shared task, in the order they run. */
export const SHARED_CHECKS = [
  "math renders",
  "start as declared",
  "packages available",
  "canonical passes",
  "starter fails",
  "deterministic x3",
  "interfaces tested",
  "within time limit",
] as const;
export type SharedCheck = (typeof SHARED_CHECKS)[number];

/** One check's outcome; `ok: null` when it did not run (and why, in `detail`). */
export interface SharedCheckOutcome {
  name: SharedCheck;
  ok: boolean | null;
  detail: string;
}

function summary(r: RunResult): string {
  // (pytest marks its report's lines with "E ": not part of the error.)
  if (r.collectionError) return collectionText({ ...r.collectionError, message: r.collectionError.message.replace(/^E\s+/gm, "") });
  return countsText(r, (m) => m.slice(0, 120));
}

function outcomes(r: RunResult): string {
  if (r.collectionError) return "collection-error";
  return r.tests.map((t) => `${t.id}=${t.status}`).join(",");
}

/**
 * Every check of a shared task with one pytest runtime: the formulas render
 * and no raw LaTeX reaches the reader, the starting text is as declared, the
 * Python can import pytest and what canonical.py and test.py import, the
 * reference solution (starting text + canonical.py) passes every test and the
 * starting text fails one, three runs give the same outcomes, every
 * interface's tests are collected and every collected test belongs to an
 * interface, and the slowest reference run stays within `time_limit_s`.
 * When modules are missing the runs are not made (their checks are `null`).
 * Never throws for task problems; throws only when the runtime cannot start.
 */
export async function validateSharedTask(task: SharedTask, rt: PytestRuntime): Promise<SharedCheckOutcome[]> {
  const out: SharedCheckOutcome[] = [];
  const add = (name: SharedCheck, ok: boolean | null, detail: string) => out.push({ name, ok, detail });
  const math = findMathProblems(task);
  add("math renders", math.length === 0, math.length === 0 ? "every formula renders, no LaTeX left in the text" : mathProblemsText(math));
  const start = startProblem(task);
  add("start as declared", start === null, start ?? `starting text: ${task.meta.start ?? "not declared"}`);
  const missing = await rt.missingModules(task);
  add(
    "packages available",
    missing.length === 0,
    missing.length === 0
      ? `${rt.python} has pytest and ${plural(importedModules(task).length, "imported module")}`
      : `${rt.python} cannot import ${missing.join(", ")}`,
  );
  const skip = (names: SharedCheck[]) => {
    for (const n of names) add(n, null, `not run: ${rt.python} lacks ${missing.join(", ")}`);
  };
  if (missing.length > 0) {
    skip(["canonical passes", "starter fails", "deterministic x3", "interfaces tested", "within time limit"]);
    return out;
  }
  const canon: RunResult[] = [];
  const starter: RunResult[] = [];
  for (let i = 0; i < 3; i++) {
    canon.push(await rt.run(task, sharedCanonicalTarget(task)));
    starter.push(await rt.run(task, task.starter));
  }
  const c0 = canon[0] as RunResult;
  const s0 = starter[0] as RunResult;
  add("canonical passes", c0.allPassed, summary(c0));
  if (c0.collectionError) {
    // The reference solution does not load (canonical.py, test.py or the repository): nothing else can be judged.
    for (const n of ["starter fails", "deterministic x3", "interfaces tested", "within time limit"] as const)
      add(n, null, "not run: the reference solution does not load (see canonical passes)");
    return out;
  }
  add("starter fails", !s0.allPassed, s0.allPassed ? "the starting text passes every test" : summary(s0));
  const sameC = canon.every((r) => outcomes(r) === outcomes(c0));
  const sameS = starter.every((r) => outcomes(r) === outcomes(s0));
  add(
    "deterministic x3",
    sameC && sameS,
    sameC && sameS ? "same per-test outcomes in 3 runs" : `outcomes differ between runs (${sameC ? "starter" : "canonical"})`,
  );
  const collected = new Set(c0.tests.map((t) => baseTestId(t.id)));
  const missingTests = Object.keys(task.interfaceOf).filter((id) => !collected.has(id));
  const orphan = [...collected].filter((id) => !(id in task.interfaceOf));
  const ok = missingTests.length === 0 && orphan.length === 0 && collected.size > 0;
  add(
    "interfaces tested",
    ok,
    ok
      ? `${task.meta.interfaces.length} interfaces, ${collected.size} tests`
      : [
          missingTests.length ? `tests in task.json not collected: ${missingTests.join(", ")}` : "",
          orphan.length ? `tests in no interface: ${orphan.join(", ")} (list each under the "tests" of an interface in task.json)` : "",
        ]
          .filter(Boolean)
          .join("; ") || "no tests collected",
  );
  const slowest = Math.max(...canon.map((r) => r.durationMs));
  add(
    "within time limit",
    slowest < task.meta.time_limit_s * 1000,
    `slowest canonical run ${(slowest / 1000).toFixed(2)} s of ${task.meta.time_limit_s} s`,
  );
  return out;
}
