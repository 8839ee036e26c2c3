/**
 * Text of the code under test shown with its control characters written out, not obeyed: in a terminal an escape
 * sequence could print a verdict of its own over the real one, and anywhere a bidirectional override reorders
 * what follows it, and characters that show nothing hide or pad a message (the page and `recode` show such text).
 */

/**
 * C0 controls but tab and newline, DEL, C1 controls, the bidirectional overrides, isolates and marks, and the
 * line and paragraph separators (a line break to some terminals, none to others), and the characters that show
 * nothing (zero-width spaces and joiners, the soft hyphen, the byte order mark, the tag characters, the Hangul
 * fillers, which a terminal draws as two blank columns where string-width counts none): a file name with one
 * reads as the task's own.
 */
export const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to show
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]/gu;

/**
 * `text` with each control character written as its escape (`\x1b`, `\r`,
 * `\u202e`), so that what is shown is what was printed.
 * Newlines and tabs stay as they are.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => {
    if (c === "\r") return "\\r";
    const code = c.codePointAt(0) ?? 0;
    if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
    return code < 0x10000 ? `\\u${code.toString(16).padStart(4, "0")}` : `\\U${code.toString(16).padStart(8, "0")}`;
  });
}
