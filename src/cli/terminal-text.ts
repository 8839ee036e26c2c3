/**
 * Text for the terminal with the control characters shown, not obeyed: code
 * under test writes the messages, output and tracebacks `recode` prints, and
 * escape sequences in them could clear the screen and print a verdict of
 * their own ("8 passed. Solved.") over the real one, or hide it.
 */

/**
 * C0 controls but tab and newline, DEL, C1 controls, the bidirectional overrides, isolates and marks, and the
 * line and paragraph separators (a line break to some terminals, none to others), and the characters that show
 * nothing (zero-width spaces and joiners, the soft hyphen, the byte order mark): a file name with one reads as
 * the task's own.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to show
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * `text` with each control character written as its escape (`\x1b`, `\r`,
 * `\u202e`), so that what reaches the terminal is what was printed.
 * Newlines and tabs stay as they are.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => {
    if (c === "\r") return "\\r";
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/**
 * `value` as one line of JSON (`JSON.stringify`) in which every character {@link printable} would rewrite is a
 * JSON escape (`\u0085`): the line is valid JSON, its strings are what code under test wrote, and nothing in it
 * acts on a terminal. (`printable` over JSON text would write `\x85`, which JSON does not allow.)
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `s` followed by spaces up to `n` characters, for a column of a table (as it is when already that long). */
export function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

/** A list of task ids as messages show it: the first four, and how many in all when there are more. */
export function taskListText(ids: readonly string[]): string {
  return `${ids.slice(0, 4).join(", ")}${ids.length > 4 ? `, ... (${ids.length} tasks)` : ""}`;
}
