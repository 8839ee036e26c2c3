/**
 * docs/tasks.md, written by `recode tasks doc` (never by hand): per task its
 * interfaces and tests, starting kind, difficulty, packages, the gates
 * (coverage in each backend, mutation score with every survivor) and the run
 * time of its tests in each backend; and the mutation operators.
 */
import { type Task, venueAndYear } from "../../core/task";
import type { CoverageReport } from "../../python/coverage-runner";
import { type PythonRuntime, taskRunRequest } from "../../python/runtime";
import { COVERAGE_MIN, lineRanges, MUTATION_MIN, percentText, type TaskGates } from "./gates";
import { DEFAULT_MUTANTS, MUTATION_OPERATORS, type MutationReport, OPERATOR_DOCS } from "./mutation";

/** What the document says about one task, as measured. */
export interface TaskFacts {
  id: string;
  /** The loaded task, or null when the folder could not be read (`error` says why). */
  task: Task | null;
  error?: string;
  /** Coverage per backend, or the error that stopped its measure. */
  coverage: Partial<Record<"pyodide" | "native", CoverageReport | Error>>;
  /** Mutation score, or the error that stopped it; absent when not measured. */
  mutation?: MutationReport | Error;
  /** Median wall time of a run of the canonical solution's tests per backend, in milliseconds (or the error). */
  runMs: Partial<Record<"pyodide" | "native", number | Error>>;
  /** Test ids the recording lists (expected.json), in order. */
  tests: string[];
  /** Why the task was not measured, when it was not (e.g. a task with isolation "shared"). */
  note?: string;
}

/** The backend cannot load the task's packages here (a run reports incident kind `packages`): nothing to measure there. */
export class PackagesUnavailable extends Error {}

/** Versions of the interpreters the facts were measured with, e.g. `{pyodide: "3.14.2 (pyodide 314.0.7)"}`. */
export type Interpreters = Partial<Record<"pyodide" | "native", string>>;

/**
 * Median wall time of `runs` runs of `task`'s canonical solution on `runtime`
 * after one warm-up run, in milliseconds.
 * @throws Error when a run does not solve the task (the time of a failing run says nothing).
 */
export async function canonicalRunTime(task: Task, runtime: PythonRuntime, runs = 3): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const r = await runtime.run(taskRunRequest(task, task.canonical));
    if (r.incident?.kind === "packages") throw new PackagesUnavailable(r.incident.message);
    if (!r.allPassed) throw new Error(`the canonical solution does not solve the task on ${runtime.backend}`);
    if (i > 0) times.push(r.durationMs);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

/** Test ids of expected.json's `tests`, or [] when it is missing or unreadable. */
export function recordedTests(task: Task): string[] {
  try {
    const doc = JSON.parse(task.expected ?? "{}") as { tests?: Record<string, unknown> };
    return Object.keys(doc.tests ?? {});
  } catch {
    return [];
  }
}

/**
 * Measure one task for the document: run time and coverage on each of
 * `runtimes`, and the mutation score on `mutationRuntime` (when given). Never
 * throws: what cannot be measured is recorded as its error.
 */
export async function measureTaskFacts(
  task: Task,
  runtimes: readonly PythonRuntime[],
  gates: TaskGates,
  mutationRuntime: PythonRuntime | null,
): Promise<TaskFacts> {
  const facts: TaskFacts = { id: task.id, task, coverage: {}, runMs: {}, tests: recordedTests(task) };
  if (task.meta.isolation === "shared") {
    // No recording: its tests are the ones its interfaces name.
    facts.tests = [...new Set(task.meta.interfaces.flatMap((i) => i.tests))];
    // Its tests import canonical.py and run under pytest (`recode tasks validate` checks them in a section of their own).
    facts.note =
      'isolation "shared": its tests run under pytest beside canonical.py, so the gates, which grade recorded values, do not apply';
    return facts;
  }
  for (const rt of runtimes) {
    facts.runMs[rt.backend] = await canonicalRunTime(task, rt).catch((e: Error) => e);
    // A backend that cannot load the task's packages has nothing to cover either.
    if (facts.runMs[rt.backend] instanceof PackagesUnavailable) continue;
    facts.coverage[rt.backend] = await gates.coverage(task, rt.backend).catch((e: Error) => e);
  }
  if (mutationRuntime) facts.mutation = await gates.mutation(task, mutationRuntime).catch((e: Error) => e);
  return facts;
}

const BACKENDS = ["pyodide", "native"] as const;

function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function coverageCell(r: CoverageReport | Error | undefined): string {
  if (r === undefined) return "-";
  if (r instanceof Error) return "error";
  return `${percentText(r.percent)}%${r.percent < COVERAGE_MIN ? ` (below ${COVERAGE_MIN}%)` : ""}`;
}

function mutationCell(r: MutationReport | Error | undefined): string {
  if (r === undefined) return "-";
  if (r instanceof Error) return "error";
  return `${percentText(r.score)}% (${r.killed}/${r.outcomes.length})${r.score < MUTATION_MIN ? ` (below ${MUTATION_MIN}%)` : ""}`;
}

/** The gates a task's measures fall below (coverage per backend, the mutation score), as words; [] when none. */
export function gatesBelow(f: TaskFacts): string[] {
  const out: string[] = [];
  for (const b of BACKENDS) {
    const c = f.coverage[b];
    if (c && !(c instanceof Error) && c.percent < COVERAGE_MIN) out.push(`coverage ${b} ${percentText(c.percent)}%`);
  }
  const m = f.mutation;
  if (m && !(m instanceof Error) && m.score < MUTATION_MIN) out.push(`mutation score ${percentText(m.score)}%`);
  return out;
}

function msCell(v: number | Error | undefined): string {
  if (v === undefined) return "-";
  if (v instanceof PackagesUnavailable) return "no packages";
  if (v instanceof Error) return "error";
  return `${Math.round(v)} ms`;
}

/** A backend with the Python it ran, e.g. `native, Python 3.11.7 (native python3, bubblewrap)`; the backend alone when unknown. */
export function backendLabel(backend: string, version: string | undefined): string {
  return version ? `${backend}, Python ${version}` : backend;
}

function taskSection(f: TaskFacts, interpreters: Interpreters): string[] {
  const t = f.task;
  if (!t) return [`## ${f.id}`, "", `The task folder could not be read: ${f.error ?? "unknown error"}`, ""];
  const m = t.meta;
  const out = [`## ${f.id}: ${m.title}`, ""];
  out.push(
    m.paper
      ? `- Paper: ${m.paper.authors.join(", ")}, "${m.paper.title}", ${venueAndYear(m.paper)} (${m.paper.url})`
      : "- Paper: none (a course task)",
    `- Domain: ${m.domain}`,
    `- Difficulty: ${m.difficulty ?? "not declared"}; start: ${m.start ?? "not declared"}`,
    `- Packages: ${m.packages.length ? m.packages.join(", ") : "none (standard library only)"}`,
    `- Target file: \`${m.target_file_path}\`; time limit ${m.time_limit_s} s`,
    "",
    "| interface | tests |",
    "| --- | --- |",
  );
  for (const itf of m.interfaces) out.push(`| \`${itf.name}\` | ${itf.tests.map((id) => `\`${id}\``).join(", ")} |`);
  out.push(
    "",
    m.isolation === "shared"
      ? `${f.tests.length} test functions (run under pytest, which runs a parametrised one once per case).`
      : `${f.tests.length} recorded tests.`,
    "",
  );
  if (f.note) {
    out.push(`Not measured: ${f.note}.`, "");
    return out;
  }
  out.push("| backend | run time (median) | coverage | lines not covered |", "| --- | --- | --- | --- |");
  for (const b of BACKENDS) {
    const c = f.coverage[b];
    if (c === undefined && f.runMs[b] === undefined) continue;
    const run = f.runMs[b];
    if (run instanceof PackagesUnavailable) {
      out.push(`| ${backendLabel(b, interpreters[b])} | not measured: ${cell(run.message)} | - | - |`);
      continue;
    }
    const missing = c === undefined ? "-" : c instanceof Error ? cell(c.message) : c.missing.length ? lineRanges(c.missing) : "none";
    const how = c && !(c instanceof Error) ? ` (${c.method}, ${c.executed.length}/${c.executable.length} lines)` : "";
    out.push(`| ${backendLabel(b, interpreters[b])} | ${msCell(f.runMs[b])} | ${coverageCell(c)}${how} | ${missing} |`);
  }
  out.push("");
  const mu = f.mutation;
  if (mu instanceof Error) out.push(`Mutation score: not measured (${mu.message}).`, "");
  else if (mu) {
    const survivors = mu.outcomes.filter((o) => !o.killed);
    out.push(
      `Mutation score: ${percentText(mu.score)}%, ${mu.killed} of ${mu.outcomes.length} mutants killed (${mu.generated} made; run on ${mu.backend}, at most ${(mu.timeLimitMs / 1000).toFixed(1)} s each).`,
      "",
    );
    if (survivors.length) {
      out.push("Survivors (each a change the tests do not notice; judge whether it is equivalent or a gap in the tests):", "");
      for (const s of survivors) {
        const m = s.mutant;
        out.push(`- canonical.py:${m.line}, ${m.operator}, ${m.description}: \`${m.mutated.trim()}\``);
      }
      out.push("");
    }
  }
  return out;
}

/**
 * The Markdown of docs/tasks.md for `facts` (one section per task, in the
 * given order), measured with `interpreters`; `mutants` is the cap used;
 * `gatesDoc` the link to docs/tasks-gates.md from where the file is written.
 */
export function tasksMarkdown(
  facts: readonly TaskFacts[],
  interpreters: Interpreters,
  mutants: number = DEFAULT_MUTANTS,
  gatesDoc = "tasks-gates.md",
): string {
  const out = [
    "# Tasks",
    "",
    "Written by `npx recode tasks doc` (do not edit by hand). For every task: its interfaces and tests, the starting",
    "kind of the target file (task.json `start`), difficulty, packages, the run time of the canonical solution's tests",
    `in each backend, and the validity gates of [tasks-gates.md](${gatesDoc}): line coverage of the canonical`,
    `solution by the tests (at least ${COVERAGE_MIN}%) in each backend, and the tests' mutation score (at least ${MUTATION_MIN}%,`,
    `at most ${mutants} mutants per task) with every surviving mutant. Run times are the median of three runs after a`,
    'warm-up on the machine that wrote this file. "no packages": that backend could not load the task\'s packages there',
    "(Pyodide loads numpy from a package source; see the README), so nothing was measured in it.",
    "",
    "| task | difficulty | start | packages | interfaces | tests | coverage pyodide | coverage native | mutation score | run pyodide | run native |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const f of facts) {
    const m = f.task?.meta;
    if (!m) {
      out.push(`| [${f.id}](#${f.id}) | could not be read | | | | | | | | | |`);
      continue;
    }
    out.push(
      `| [${f.id}](#${anchor(`${f.id}: ${m.title}`)}) | ${m.difficulty ?? "-"} | ${m.start ?? "-"} | ${m.packages.join(", ") || "-"} | ${m.interfaces.length} | ${f.tests.length} | ${coverageCell(f.coverage.pyodide)} | ${coverageCell(f.coverage.native)} | ${mutationCell(f.mutation)} | ${msCell(f.runMs.pyodide)} | ${msCell(f.runMs.native)} |`,
    );
  }
  out.push("");
  for (const f of facts) out.push(...taskSection(f, interpreters));
  out.push("## Mutation operators", "");
  out.push(
    "Mutants are made from canonical.py with Python's `ast` (src/python/recode_mutants.py); each changes one place",
    "and leaves the rest of the text as it is. Mutants that equal the original or another mutant, or that do not",
    "compile, are left out; annotations, f-strings and docstrings are never mutated.",
    "",
    "| operator | change |",
    "| --- | --- |",
  );
  for (const op of MUTATION_OPERATORS) out.push(`| ${op} | ${OPERATOR_DOCS[op]} |`);
  out.push(
    "",
    `When a task has more mutants than the cap (${mutants} here, \`--mutants N\`), the cap is shared out evenly among the`,
    "operators (an operator with fewer mutants gives the rest to the others) and each operator's share is spread",
    "evenly over the file; the choice depends on nothing but the file.",
    "",
  );
  return out.join("\n");
}

/** GitHub's anchor of a heading. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}
