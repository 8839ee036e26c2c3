/**
 * Text for the terminal with the control characters shown, not obeyed: code
 * under test writes the messages, output and tracebacks `recode` prints, and
 * escape sequences in them could clear the screen and print a verdict of
 * their own ("8 passed. Solved.") over the real one, or hide it.
 */

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
