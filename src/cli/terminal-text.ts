/**
 * Text for the terminal with the control characters shown, not obeyed: code
 * under test writes the messages, output and tracebacks `recode` prints, and
 * escape sequences in them could clear the screen and print a verdict of
 * their own ("8 passed. Solved.") over the real one, or hide it.
 */

import stringWidth from "string-width";
import { CONTROL, printable } from "../core/printable";

export { printable };

/**
 * `value` as one line of JSON (`JSON.stringify`) in which every character {@link printable} would rewrite is a
 * JSON escape (`\u0085`): the line is valid JSON, its strings are what code under test wrote, and nothing in it
 * acts on a terminal. (`printable` over JSON text would write `\x85`, which JSON does not allow.)
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(CONTROL, jsonEscape);
}

/** `c` as JSON escapes, one per UTF-16 unit (`\udb40\udc41` for a character past U+FFFF). */
function jsonEscape(c: string): string {
  let out = "";
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}

/** `s` followed by spaces up to `n` characters, for a column of a table (as it is when already that long). */
export function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

/** A list of task ids as messages show it: the first four, and how many in all when there are more. */
export function taskListText(ids: readonly string[]): string {
  return `${ids.slice(0, 4).join(", ")}${ids.length > 4 ? `, ... (${ids.length} tasks)` : ""}`;
}

/**
 * The columns to fold `recode`'s text output to: the terminal's, or `COLUMNS` when the output is not a terminal
 * and it is set (a positive integer), else none (a pipe or a file gets the lines as they are).
 */
export function outputColumns(stream: { isTTY?: boolean; columns?: number } = process.stdout): number | null {
  if (stream.isTTY && stream.columns) return stream.columns;
  const env = Number(process.env.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : null;
}

/**
 * `text` with each line wider than `columns` (terminal columns, as `string-width` counts them: two for a wide
 * character) folded there, at its last space that fits where it has one, each continuation indented as its line
 * is and two more spaces; tabs are set as spaces (to the next multiple of 8). `columns` null: `text` as it is.
 * A terminal that wraps a long line puts the rest at its left margin, where a message or output line of the
 * code under test, padded with spaces to the width, read as a line of the log's own ("PASS ...", "Test run: 6
 * tests, 6 passed"); folded, text of a line never starts a line at the margin unless the line did.
 */
export function foldForTerminal(text: string, columns: number | null): string {
  if (columns === null) return text;
  const width = Math.max(20, Math.floor(columns));
  const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return text
    .split("\n")
    .map((raw) => {
      const line = raw.includes("\t") ? expandTabs(raw) : raw;
      if (line.length <= width && stringWidth(line) <= width) return line;
      const indent = `${/^ */.exec(line)?.[0] ?? ""}  `.slice(0, Math.floor(width / 2));
      const out: string[] = [];
      let parts: { s: string; w: number }[] = [];
      let used = 0;
      for (const { segment } of graphemes.segment(line)) {
        const w = stringWidth(segment);
        if (used + w > width && parts.some((p) => p.s !== " ")) {
          // At the last space past the line's start that leaves text before it, else here.
          const lead = out.length === 0 ? 0 : indent.length;
          let at = -1;
          for (let i = parts.length - 1; i > lead; i--) {
            if (parts[i]?.s === " " && parts.slice(lead, i).some((p) => p.s !== " ")) {
              at = i;
              break;
            }
          }
          const keep = at > 0 ? parts.slice(0, at) : parts;
          const rest = at > 0 ? parts.slice(at + 1) : [];
          out.push(
            keep
              .map((p) => p.s)
              .join("")
              .trimEnd(),
          );
          parts = [...[...indent].map((c) => ({ s: c, w: 1 })), ...rest];
          used = parts.reduce((n, p) => n + p.w, 0);
        }
        parts.push({ s: segment, w });
        used += w;
      }
      out.push(parts.map((p) => p.s).join(""));
      return out.join("\n");
    })
    .join("\n");
}

/** `line` with each tab set as the spaces up to the next multiple of 8 columns. */
function expandTabs(line: string): string {
  let out = "";
  for (const ch of line) out += ch === "\t" ? " ".repeat(8 - (stringWidth(out) % 8)) : ch;
  return out;
}
