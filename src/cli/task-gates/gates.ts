/**
 * The validity gates of the task pack that `recode tasks validate` adds to
 * its checks: line coverage of the canonical solution by the task's tests
 * (in each backend) and the tests' mutation score (on one backend). See
 * docs/tasks-gates.md.
 */
import type { Task } from "../../core/task";
import { type CoverageOptions, type CoverageReport, measureCoverageNative, PyodideCoverage } from "../../python/coverage-runner";
import type { PythonRuntime } from "../../python/runtime";
import type { CheckOutcome } from "../../python/validate";
import type { PyodideSourceOptions } from "../../python/worker-core";
import { DEFAULT_MUTANTS, type MutationReport, measureMutation } from "./mutation";

/** Least line coverage a task's tests must reach, in percent. */
export const COVERAGE_MIN = 80;
/** Least mutation score a task's tests must reach, in percent. */
export const MUTATION_MIN = 80;

/** Survivors listed in a check's detail (all of them are in `recode tasks doc`). */
const SURVIVORS_SHOWN = 20;

/** Ranges of consecutive line numbers, e.g. [3, 4, 5, 9] -> "3-5, 9". */
export function lineRanges(lines: readonly number[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const start = lines[i] as number;
    let end = start;
    while (i + 1 < lines.length && lines[i + 1] === end + 1) {
      i += 1;
      end += 1;
    }
    out.push(start === end ? `${start}` : `${start}-${end}`);
    i += 1;
  }
  return out.join(", ");
}

/**
 * A percentage with one decimal (88.89 -> "88.9"), never rounded up to a
 * whole number it does not reach, so that a score just under a threshold
 * never reads as meeting it (79.96 -> "79.9").
 */
export function percentText(p: number): string {
  const text = p.toFixed(1);
  return Number(text) > p && Number.isInteger(Number(text)) ? (Math.floor(p * 10) / 10).toFixed(1) : text;
}

/** The "coverage >= 80%" outcome of a coverage measure (or of the error that stopped it). */
export function coverageOutcome(r: CoverageReport | Error): CheckOutcome {
  if (r instanceof Error) return { name: "coverage >= 80%", ok: false, detail: r.message };
  const ok = r.percent >= COVERAGE_MIN && r.problems.length === 0;
  const missing = r.missing.length ? `; not covered: canonical.py lines ${lineRanges(r.missing)}` : "";
  const problems = r.problems.length ? `; tests that did not pass in the coverage run: ${r.problems.slice(0, 3).join("; ")}` : "";
  return {
    name: "coverage >= 80%",
    ok,
    detail: `${percentText(r.percent)}% (${r.executed.length}/${r.executable.length} lines, ${r.method}, Python ${r.python})${missing}${problems}`,
  };
}

/** One survivor as the reports show it: `canonical.py:12 [comparison < -> <=] if n <= 1:`. */
export function survivorLine(o: { mutant: { line: number; operator: string; description: string; mutated: string } }): string {
  // (A description that begins with its operator's name, "default 2 -> 3", does not say it twice.)
  const { operator, description } = o.mutant;
  const label = description.startsWith(`${operator} `) ? description : `${operator} ${description}`;
  return `canonical.py:${o.mutant.line} [${label}] ${o.mutant.mutated.trim()}`;
}

/** The "mutation score >= 80%" outcome of a mutation measure (or of the error that stopped it); survivors on lines of their own. */
export function mutationOutcome(r: MutationReport | Error): CheckOutcome {
  if (r instanceof Error) return { name: "mutation score >= 80%", ok: false, detail: r.message };
  const survivors = r.outcomes.filter((o) => !o.killed);
  const head = `${percentText(r.score)}% (${r.killed}/${r.outcomes.length} mutants killed, ${r.generated} made, ${r.backend}, ${(r.durationMs / 1000).toFixed(1)} s)`;
  const list = survivors.slice(0, SURVIVORS_SHOWN).map((o) => `\n  survived: ${survivorLine(o)}`);
  const more =
    survivors.length > SURVIVORS_SHOWN
      ? `\n  ... and ${survivors.length - SURVIVORS_SHOWN} more (recode tasks doc <task> --out <file> writes every survivor)`
      : "";
  // (Said once, under the survivors: an author otherwise hunts for a test that cannot exist.)
  const hint = survivors.length
    ? "\n  (a survivor that gives the canonical solution's results on every input, an equivalent mutant, cannot be killed: only the others need a test)"
    : "";
  return { name: "mutation score >= 80%", ok: r.score >= MUTATION_MIN, detail: head + list.join("") + more + hint };
}

/** Options of {@link TaskGates}. */
export interface TaskGateOptions extends CoverageOptions {
  /** Where Pyodide loads package wheels from (coverage under Pyodide). */
  pyodide?: PyodideSourceOptions;
  /** Most mutants per task (default 60). */
  mutants?: number;
}

/**
 * Runs the gates for the validate and doc commands. Holds the Pyodide
 * coverage process (started at the first Pyodide measure); {@link dispose}
 * ends it.
 */
export class TaskGates {
  private pyodideCoverage: PyodideCoverage | null = null;

  constructor(private readonly opts: TaskGateOptions = {}) {}

  /** Coverage of `task`'s canonical solution in `backend`. @throws Error as the coverage runners do. */
  coverage(task: Task, backend: "pyodide" | "native"): Promise<CoverageReport> {
    if (backend === "native") return measureCoverageNative(task, this.opts);
    this.pyodideCoverage ??= new PyodideCoverage({ ...this.opts.pyodide, sandbox: this.opts.sandbox, hide: this.opts.hide });
    return this.pyodideCoverage.measure(task);
  }

  /** Mutation score of `task`'s tests, mutants run on `runtime`. @throws Error as {@link measureMutation} does. */
  mutation(task: Task, runtime: PythonRuntime): Promise<MutationReport> {
    return measureMutation(task, runtime, { cap: this.opts.mutants ?? DEFAULT_MUTANTS, python: this.opts.python });
  }

  /**
   * The gate checks of one task on one runtime: coverage always, the mutation
   * score when `mutation` is set. Both need a passing canonical solution
   * (`prior`, the other checks of the same runtime): without one they fail
   * saying so. Never throws; a gate that cannot run is a failed check.
   */
  async checks(task: Task, runtime: PythonRuntime, prior: readonly CheckOutcome[], mutation: boolean): Promise<CheckOutcome[]> {
    const canonical = prior.find((c) => c.name === "canonical passes");
    if (!canonical?.ok) {
      // (Said as the checks above have it: the canonical solution failed, or could not be checked at all.)
      const why = canonical
        ? 'needs a canonical solution that passes every test (see "canonical passes" above)'
        : `needs a canonical solution that passes every test, which could not be checked (see the failed checks above)`;
      return [
        { name: "coverage >= 80%", ok: false, detail: why },
        ...(mutation ? [{ name: "mutation score >= 80%" as const, ok: false, detail: why }] : []),
      ];
    }
    const out = [coverageOutcome(await this.coverage(task, runtime.backend).catch((e: Error) => e))];
    if (mutation) out.push(mutationOutcome(await this.mutation(task, runtime).catch((e: Error) => e)));
    return out;
  }

  /** End the Pyodide coverage process. */
  dispose(): void {
    this.pyodideCoverage?.dispose();
    this.pyodideCoverage = null;
  }
}
