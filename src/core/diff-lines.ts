/** A line diff of two texts (the `diff` package): added, removed and context lines, and hunk heads. The page's diff view and `recode show` draw it. */
import { structuredPatch } from "diff";

/** One line of a diff, with its kind ("+" added, "-" removed, " " kept, "@" a hunk's head). */
export interface DiffLine {
  kind: "+" | "-" | " " | "@";
  text: string;
  /** Where it is: its line in the editor's text and in the corrected one (unique within a diff). */
  at: string;
}

/** The lines that change from `before` to `after`, with two lines of context around each change (lines are 1-based). */
export function diffLines(before: string, after: string): DiffLine[] {
  const patch = structuredPatch("editor", "corrected", before, after, "", "", { context: 2 });
  const out: DiffLine[] = [];
  for (const h of patch.hunks) {
    out.push({ kind: "@", text: `lines ${h.oldStart}-${h.oldStart + Math.max(0, h.oldLines - 1)}`, at: `@${h.oldStart}/${h.newStart}` });
    let oldLine = h.oldStart;
    let newLine = h.newStart;
    for (const line of h.lines) {
      const k = line[0];
      if (k !== "+" && k !== "-" && k !== " ") continue;
      out.push({ kind: k, text: line.slice(1), at: `${k}${oldLine}/${newLine}` });
      if (k !== "+") oldLine++;
      if (k !== "-") newLine++;
    }
  }
  return out;
}
