/**
 * How a {@link Report} is laid out in words, the same on the page's Results
 * tab and in `recode report`: the table lines (one per model x setting x
 * researcher x conditions, feedback levels L0-L4 as columns), the condition
 * columns, and the notes under the table.
 */

import { stringify } from "csv-stringify/browser/esm/sync";
import { plural } from "./plural";
import type { ConditionField, Conditions, Report, ReportRow } from "./report";

/** Column heading of each condition field. */
export const CONDITION_HEADINGS: Record<ConditionField, string> = {
  protocol: "protocol",
  backend: "backend",
  maxSteps: "actions per turn",
  sampling: "sampling",
};

/** Cell text of one condition (`sampling` "" reads as the protocol's decoding). */
export function conditionText(c: Conditions, field: ConditionField): string {
  if (field === "sampling") return c.sampling || "protocol (temperature 0, top-p 1)";
  return String(c[field]);
}

/** One line of the results table: the rows of one model x setting x researcher x conditions, one per level. */
export interface ReportGroup {
  model: string;
  setting: string;
  researcher: string;
  conditions: Conditions;
  /** The group's rows, in level order. */
  rows: ReportRow[];
  /** Tasks of the line: the most any of its levels has. */
  taskCount: number;
}

/** The rows of a report, grouped into table lines (report order kept). */
export function groupRows(rows: readonly ReportRow[]): ReportGroup[] {
  const groups = new Map<string, ReportGroup>();
  for (const r of rows) {
    const key = JSON.stringify([r.model, r.setting, r.researcher, r.protocol, r.backend, r.maxSteps, r.sampling]);
    let g = groups.get(key);
    if (!g) {
      const conditions = { protocol: r.protocol, backend: r.backend, maxSteps: r.maxSteps, sampling: r.sampling };
      g = { model: r.model, setting: r.setting, researcher: r.researcher, conditions, rows: [], taskCount: 0 };
      groups.set(key, g);
    }
    g.rows.push(r);
    g.taskCount = Math.max(g.taskCount, r.taskCount);
  }
  return [...groups.values()];
}

/** A note under the table: a sentence and the entries it is about. */
export interface ReportNote {
  kind: "unfinished" | "errored" | "belowN" | "duplicates" | "unreadable";
  text: string;
  items: string[];
}

/** The notes of a report (none when nothing needs saying), in a fixed order. */
export function reportNotes(r: Report): ReportNote[] {
  const notes: ReportNote[] = [];
  if (r.unfinished.length) {
    notes.push({
      kind: "unfinished",
      text: `${plural(r.unfinished.length, "episode")} ${r.unfinished.length === 1 ? "has not finished; it counts with the turns it has. Run it again to resume." : "have not finished; they count with the turns they have. Run them again to resume."}`,
      items: r.unfinished.map((e) => `${e.episode}: ${e.turns} of ${plural(e.maxTurns, "turn")} (${e.source})`),
    });
  }
  if (r.errored.length) {
    const none = r.errored.filter((e) => e.turns === 0).length;
    notes.push({
      kind: "errored",
      text:
        `${plural(r.errored.length, "episode")} ended in an error${none ? ` (${none} without any turn: turn 0 failed)` : ""}; ` +
        (r.errored.length === 1
          ? "it counts as not solved after its last turn. Run it again to retry it."
          : "they count as not solved after their last turn. Run them again to retry them."),
      items: r.errored.map((e) => `${e.episode}, after ${plural(e.turns, "turn")}: ${e.error} (${e.source})`),
    });
  }
  if (r.belowN.length) {
    notes.push({
      kind: "belowN",
      text: `${plural(r.belowN.length, "episode")} ${r.belowN.length === 1 ? "has" : "have"} a turn limit below n = ${r.n}; ${r.belowN.length === 1 ? "unless solved, it counts" : "those not solved count"} as not solved after the last turn.`,
      items: r.belowN.map((e) => `${e.episode}: ${plural(e.maxTurns, "turn")} (${e.source})`),
    });
  }
  if (r.duplicates.length) {
    notes.push({
      kind: "duplicates",
      text: `${plural(r.duplicates.length, "episode")} ${r.duplicates.length === 1 ? "is" : "are"} the same measurement as one already counted and ${r.duplicates.length === 1 ? "is" : "are"} left out (the same model, setting, level, researcher, task and conditions appear in more than one input: the first read counts; report each episode once, e.g. name a run folder once and do not run one configuration twice into two folders).`,
      items: r.duplicates.map((e) => `${e.source}: the same as ${e.kept}`),
    });
  }
  if (r.unreadable.length) {
    notes.push({
      kind: "unreadable",
      text: `${plural(r.unreadable.length, "file")} could not be read and ${r.unreadable.length === 1 ? "is" : "are"} left out:`,
      items: [...r.unreadable],
    });
  }
  return notes;
}

/** CSV (as `recode report --format csv` and the page's Results write it): one line per model x setting x researcher x conditions x level; `n` is the turn limit that Recall@n and the curve columns (`recall_at_1` to `recall_at_<n>`) use. */
export function reportCsv(d: Report): string {
  const head = [
    "model",
    "setting",
    "researcher",
    "protocol",
    "backend",
    "max_steps",
    "sampling",
    "level",
    "tasks",
    "solved",
    "n",
    "recall_at_n",
    "mrr",
    "pass_rate",
    "prompt_tokens",
    "completion_tokens",
    "unreported_calls",
    "wall_ms",
    "errored",
    "unfinished",
  ];
  const lines: (string | number | null)[][] = [[...head, ...Array.from({ length: d.n }, (_, i) => `recall_at_${i + 1}`)]];
  for (const r of d.rows) {
    lines.push([
      r.model,
      r.setting,
      r.researcher,
      r.protocol,
      r.backend,
      r.maxSteps,
      r.sampling,
      r.level,
      r.taskCount,
      r.solvedCount,
      d.n,
      r.recallAtN,
      r.mrr,
      r.passRate,
      r.tokens.prompt,
      r.tokens.completion,
      r.tokens.unreported ?? 0,
      Math.round(r.wallMs),
      r.errored,
      r.unfinished,
      ...r.curve,
    ]);
  }
  // (A name from a run folder that starts as a spreadsheet formula would is led by `'`: it stays text.)
  return stringify(lines, { escape_formulas: true });
}
