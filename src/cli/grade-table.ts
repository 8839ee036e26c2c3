/**
 * What `recode test` says of several graded files at the end: the closing table of its text output, and the same
 * rows as CSV (`--csv`) for a gradebook.
 */
import { stringify } from "csv-stringify/browser/esm/sync";
import { plural } from "../core/plural";
import type { RunResult } from "../core/results";

/**
 * One graded file: the run's result (null when the file could not be read), why it is not judged (or null), the
 * header's backend label, and (a file that could not be read) why, in a few words for the closing table.
 */
export interface Graded {
  path: string;
  result: RunResult | null;
  problem: string | null;
  backend: string;
  unreadable?: string;
}

/** What happened to the interpreter, in a few words for the closing table. */
const INCIDENT_WORDS: Record<NonNullable<RunResult["incident"]>["kind"], string> = {
  timeout: "time limit reached",
  terminated: "time limit reached, Python replaced",
  crashed: "Python crashed",
  poisoned: "Python replaced after a MemoryError or RecursionError",
  packages: "packages not loaded",
  tampered: "not trusted: it changed the test framework",
};

/** Why a file was not solved or not judged, in a few words for the closing table ("" when solved); a collection error's line cut at `cap` characters. */
function tableReason(g: Graded, cap = 80): string {
  if (g.unreadable) return `cannot be read: ${g.unreadable}`;
  const r = g.result;
  if (!r || r.allPassed) return "";
  if (g.problem) return "see its block above";
  // (What happened to the interpreter first: a run not trusted as test.py was imported has a collection error too.)
  if (r.incident) return INCIDENT_WORDS[r.incident.kind];
  const e = r.collectionError;
  if (e) {
    const last = e.message.trim().split("\n").at(-1) ?? "";
    return `does not load: ${last.length > cap ? `${last.slice(0, cap - 1)}…` : last}`;
  }
  // (No incident: the run ended in time, and the tests over time were stopped by a limit of their own, such as
  // an imported task's `--timeout` from test.sh.)
  return r.counts.timeout > 0 ? `${plural(r.counts.timeout, "test")} over the per-test time limit` : "";
}

/** A file's verdict: `solved`, `not solved`, or `not judged` (the file or the task's files are at fault). */
function verdict(g: Graded): "solved" | "not solved" | "not judged" {
  return g.problem ? "not judged" : g.result?.allPassed ? "solved" : "not solved";
}

/** How many of a judged file's tests passed (an expected failure counts, as it does for solved), of how many. */
function passedOf(g: Graded): { passed: number; total: number } | null {
  return g.result && !g.problem ? { passed: g.result.counts.passed + g.result.counts.xfail, total: g.result.counts.total } : null;
}

/**
 * The graded files as CSV text, for a gradebook (`recode test --csv`): a header line, then one line per file in
 * the order graded; lines end with `\n`. Columns: `task` (its id), `file` (the path as given, a newline in it
 * written `\\n` as the text's table writes it), `verdict`
 * (`solved`, `not solved` or `not judged`), `passed` and `total` (tests; empty when not judged; an expected
 * failure counts as passed), `reason` (why not solved or not judged, in a few words, as the closing table says
 * it; for a file not judged, the whole reason). A field that starts as a spreadsheet formula would is written
 * with a leading `'` (a file's name and a reason hold text the student chose).
 */
export function gradeCsv(taskId: string, graded: readonly Graded[]): string {
  const rows = graded.map((g) => {
    const n = passedOf(g);
    return [
      taskId,
      // (A newline in a name written out, as the text's table writes it: no cell starts a line of its own.)
      g.path.replace(/\n/g, "\\n"),
      verdict(g),
      n?.passed ?? "",
      n?.total ?? "",
      g.problem && !g.unreadable ? g.problem : tableReason(g, Number.POSITIVE_INFINITY),
    ];
  });
  return stringify([["task", "file", "verdict", "passed", "total", "reason"], ...rows], { escape_formulas: true });
}

/** The closing table of several graded files: one line per file (its verdict, how many tests passed, its path), and how many were solved. */
export function gradeTable(taskId: string, graded: readonly Graded[]): string {
  const passed = (g: Graded) => {
    const n = passedOf(g);
    return n ? `${n.passed} of ${n.total} passed` : "";
  };
  const width = Math.max(...graded.map((g) => passed(g).length));
  const rows = graded.map((g) => {
    const why = tableReason(g);
    return `  ${verdict(g).padEnd(10)}  ${passed(g).padEnd(width)}  ${g.path.replace(/\n/g, "\\n")}${why ? `  (${why})` : ""}`;
  });
  const solved = graded.filter((g) => !g.problem && g.result?.allPassed).length;
  const judged = graded.filter((g) => !g.problem).length;
  const notJudgedCount = graded.length - judged;
  return `Graded ${plural(graded.length, "file")} against ${taskId}:\n${rows.join("\n")}\n${solved} of ${plural(graded.length, "file")} solved${notJudgedCount ? `, ${notJudgedCount} not judged` : ""}.\n`;
}

/** The exit code of a grading: 2 when any file was not judged, else 1 when any was not solved, else 0. */
export function exitCode(graded: readonly Graded[]): number {
  if (graded.some((g) => g.problem)) return 2;
  return graded.every((g) => g.result?.allPassed) ? 0 : 1;
}
