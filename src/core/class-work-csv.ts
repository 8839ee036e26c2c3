/**
 * A class's work as a CSV table for a gradebook: the class-work view's table (src/ui/tasks/ClassWorkView.tsx) as a
 * file, one row per student's work file and three columns per task.
 */

import { stringify } from "csv-stringify/browser/esm/sync";
import type { StudentWork } from "./student-work";
import { summarizeProgress } from "./study";

/** One opened work file: the file's name and what it holds. */
export interface OpenedWork {
  work: StudentWork;
  source: string;
}

/**
 * The CSV text (header line, then one line per work file, in the order given; lines end with `\n`). Columns:
 * `student` (the name the student gave, empty when none), `file`, `exported_at` (ISO 8601), then per task of
 * `tasks`: `<task>` (`solved`, `attempted` or `not run`), `<task> runs` (count) and `<task> levels` (the feedback
 * levels asked for on failing runs, `L1 L2`), as the student's page recorded them.
 */
export function classWorkCsv(works: readonly OpenedWork[], tasks: readonly string[]): string {
  const head = ["student", "file", "exported_at", ...tasks.flatMap((t) => [t, `${t} runs`, `${t} levels`])];
  const lines: string[][] = [head];
  for (const { work, source } of works) {
    const cells = [work.student ?? "", source, work.exportedAt];
    for (const id of tasks) {
      const s = summarizeProgress(work.tasks.find((t) => t.taskId === id)?.progress ?? null);
      cells.push(s.runs === 0 ? "not run" : s.solved ? "solved" : "attempted", String(s.runs), s.levels.map((l) => `L${l}`).join(" "));
    }
    lines.push(cells);
  }
  // (A field that starts as a spreadsheet formula would, `=`, `+`, `-`, `@`, a tab or a carriage return, is led
  // by `'` so that it stays text: a student's name is the student's to write.)
  return stringify(lines, { escape_formulas: true });
}
