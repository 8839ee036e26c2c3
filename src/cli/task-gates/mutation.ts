/**
 * Mutation score of a task's tests: small mutants of the canonical solution
 * (src/python/recode_mutants.py, Python's own `ast`, run with the author's
 * python3; nothing of the source is executed there), each run through the
 * task's tests as the candidate on a real runtime (the native backend's box
 * in `recode tasks validate --native`), so that a verdict is the one a coder
 * would get. A mutant is killed when the run does not solve the task; the
 * score is killed / tested. See docs/tasks-gates.md.
 */
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { type RunResult, testsTimeMs } from "../../core/results";
import type { Task } from "../../core/task";
import { type PythonRuntime, taskRunRequest } from "../../python/runtime";

const GENERATOR = fileURLToPath(new URL("../../python/recode_mutants.py", import.meta.url));

/** The mutation operators, in the order mutants are allotted to them (see recode_mutants.py). */
export const MUTATION_OPERATORS = ["arithmetic", "comparison", "constant", "statement", "arguments", "default"] as const;
/** One mutation operator's name. */
export type MutationOperator = (typeof MUTATION_OPERATORS)[number];

/** What each operator changes, in words (for the documentation the `tasks doc` command writes). */
export const OPERATOR_DOCS: Record<MutationOperator, string> = {
  arithmetic:
    "`+` → `-`, `-` → `+`, `*` → `/`, `/` → `*`, `//` → `/`, `%` → `//`, `**` → `*`, in expressions and augmented assignments (`+=` → `-=`, ...)",
  comparison: "`<` ↔ `<=`, `>` ↔ `>=`, `==` ↔ `!=`, `is` ↔ `is not`, `in` ↔ `not in` (each operator of a chained comparison on its own)",
  constant:
    "an integer literal `n` → `n + 1` and `n - 1` (two mutants); booleans excluded, and a default value that is a plain number is left to `default`",
  statement:
    "a simple statement inside a function (assignment, expression, `return`, `raise`, `assert`, `del`, `break`, `continue`) → `pass`; docstrings excluded",
  arguments: "two neighbouring positional arguments of a call swapped (`f(a, b)` → `f(b, a)`), when their texts differ",
  default:
    'a parameter\'s default value: an integer `n` → `n + 1`, a float `x` → `2 * x` (`0.0` → `1.0`), a boolean negated, a string emptied (an empty one → `"x"`); `None` and other expressions stay',
};

/** One mutant of a canonical solution. */
export interface Mutant {
  operator: MutationOperator;
  /** Line (1-based) of the mutated place in canonical.py. */
  line: number;
  /** Column (0-based, characters) of the mutated place. */
  col: number;
  /** The change in words, e.g. "+ -> -", "dropped `x = y`". */
  description: string;
  /** That line of canonical.py. */
  original: string;
  /** The same line in the mutant. */
  mutated: string;
  /** The whole mutant file. */
  source: string;
}

/** Default number of mutants run per task (`--mutants N` changes it). */
export const DEFAULT_MUTANTS = 60;

/**
 * Every mutant of `source` (a Python file), sorted by line, column and operator.
 * @param python the python3 that parses it (any 3.9+).
 * @throws Error when python3 cannot run or the source does not parse (the message says which).
 */
export function generateMutants(source: string, python = "python3"): Mutant[] {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PYTHON")));
  const r = spawnSync(python, ["-I", "-X", "utf8", GENERATOR], {
    input: JSON.stringify({ source }),
    encoding: "utf8",
    env,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.error || r.status !== 0) {
    const why = r.error?.message ?? r.stderr.trim().split("\n").slice(-1)[0] ?? `exit code ${r.status}`;
    throw new Error(`mutants: ${python} could not make the mutants (${why})`);
  }
  return (JSON.parse(r.stdout) as { mutants: Mutant[] }).mutants;
}

/**
 * At most `cap` of `all`, chosen deterministically: the cap is shared out
 * evenly among the operators (an operator with fewer mutants than its share
 * gives the rest to the others, in {@link MUTATION_OPERATORS} order), and
 * within an operator the chosen ones are spread evenly over the file (the
 * mutants at positions ⌊(j + ½)·n / q⌋ of its n, for q chosen). The result is
 * sorted by line, column and operator. The same input gives the same choice.
 */
export function selectMutants(all: readonly Mutant[], cap: number): Mutant[] {
  if (all.length <= cap) return [...all];
  const groups = MUTATION_OPERATORS.map((op) => all.filter((m) => m.operator === op));
  const quota = groups.map(() => 0);
  let left = Math.max(0, Math.floor(cap));
  let open = groups.map((_, i) => i).filter((i) => (groups[i]?.length ?? 0) > 0);
  while (left > 0 && open.length > 0) {
    const share = Math.max(1, Math.floor(left / open.length));
    for (const i of open) {
      if (left === 0) break;
      const take = Math.min(share, (groups[i]?.length ?? 0) - (quota[i] ?? 0), left);
      quota[i] = (quota[i] ?? 0) + take;
      left -= take;
    }
    open = open.filter((i) => (quota[i] ?? 0) < (groups[i]?.length ?? 0));
  }
  const chosen: Mutant[] = [];
  groups.forEach((g, i) => {
    const q = quota[i] ?? 0;
    for (let j = 0; j < q; j++) {
      const m = g[Math.floor(((j + 0.5) * g.length) / q)];
      if (m) chosen.push(m);
    }
  });
  return chosen.sort((a, b) => a.line - b.line || a.col - b.col || a.operator.localeCompare(b.operator));
}

/** How one mutant fared. */
export interface MutantOutcome {
  mutant: Mutant;
  /** Killed: the run did not solve the task. */
  killed: boolean;
  /** Why it was killed, in a few words (the first failing test and its status, a collection error, the time limit); "" for a survivor. */
  by: string;
  /** Wall time of its run, in milliseconds. */
  durationMs: number;
}

/** The mutation score of one task. */
export interface MutationReport {
  /** Mutants the operators made (before the cap). */
  generated: number;
  /** Outcomes of the mutants run (at most the cap), sorted by line. */
  outcomes: MutantOutcome[];
  killed: number;
  /** killed / tested in percent (100 when no mutant could be made). */
  score: number;
  /** Time limit of each mutant's run, in milliseconds. */
  timeLimitMs: number;
  /** Backend the mutants ran on. */
  backend: "pyodide" | "native";
  /** Wall time of the whole measure, in milliseconds. */
  durationMs: number;
}

/** Options of {@link measureMutation}. */
export interface MutationOptions {
  /** Most mutants run (default {@link DEFAULT_MUTANTS}). */
  cap?: number;
  /** Runs at once (default: 2 on the native backend, at most the machine's cores; 1 on Pyodide, whose runs queue anyway). */
  concurrency?: number;
  /** python3 that makes the mutants. */
  python?: string;
  /** Called after each mutant's run (done of total), for progress output. */
  onProgress?: (done: number, total: number) => void;
}

function killedBy(r: RunResult): string {
  if (r.collectionError) return `collection error: ${r.collectionError.message.split("\n").pop()?.slice(0, 100) ?? ""}`;
  if (r.incident && (r.incident.kind === "timeout" || r.incident.kind === "terminated")) return "time limit";
  const bad = r.tests.find((t) => t.status !== "passed" && t.status !== "xfail");
  if (bad) return `${bad.id} ${bad.status}`;
  return r.incident ? r.incident.kind : "not solved";
}

/**
 * Make the mutants of `task`'s canonical solution, choose at most `cap`
 * ({@link selectMutants}), and run each through the tests on `runtime`. Each
 * mutant's run gets ten times the slowest of two canonical runs, at least 2 s
 * and at most the task's `time_limit_s`; a mutant that runs out of time is killed.
 * @throws Error when the mutants cannot be made, or the canonical solution does not solve the task on `runtime`.
 */
export async function measureMutation(task: Task, runtime: PythonRuntime, opts: MutationOptions = {}): Promise<MutationReport> {
  const t0 = performance.now();
  const all = generateMutants(task.canonical, opts.python);
  const chosen = selectMutants(all, opts.cap ?? DEFAULT_MUTANTS);
  const canon = [await runtime.run(taskRunRequest(task, task.canonical)), await runtime.run(taskRunRequest(task, task.canonical))];
  if (!canon.every((r) => r.allPassed)) throw new Error("the canonical solution does not solve the task, so mutants cannot be scored");
  const slowest = Math.max(...canon.map(testsTimeMs));
  const timeLimitMs = Math.round(Math.min(task.meta.time_limit_s * 1000, Math.max(2000, 10 * slowest)));
  const concurrency = Math.max(1, opts.concurrency ?? (runtime.backend === "native" ? Math.min(2, availableParallelism()) : 1));
  const outcomes: MutantOutcome[] = new Array(chosen.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      const mutant = chosen[i];
      if (!mutant) return;
      const r = await runtime.run(taskRunRequest(task, mutant.source, "test", { timeLimitMs }));
      outcomes[i] = { mutant, killed: !r.allPassed, by: r.allPassed ? "" : killedBy(r), durationMs: r.durationMs };
      done += 1;
      opts.onProgress?.(done, chosen.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, chosen.length) }, worker));
  const killed = outcomes.filter((o) => o.killed).length;
  return {
    generated: all.length,
    outcomes,
    killed,
    score: outcomes.length === 0 ? 100 : (100 * killed) / outcomes.length,
    timeLimitMs,
    backend: runtime.backend,
    durationMs: performance.now() - t0,
  };
}
