/**
 * Text of the code under test (its messages, its source lines) put into Markdown that a researcher writes and
 * the page renders, so that it cannot make Markdown blocks of its own (a heading that says every test passed, a
 * list, a quote) or end a code span it is quoted in. The page shows no image and, in feedback, no link
 * (src/ui/tasks/Markdown.tsx), whatever the text.
 */

import { printable } from "./printable";

/** Line breaks of every kind CommonMark or a reader sees. */
const BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;

/**
 * `text` on one line, each line break shown as ` ⏎ `: inside a sentence, it cannot start a block. Other control
 * characters are written out ({@link printable}), and a `<` that would open an HTML tag is shown as `‹`: below L4
 * the feedback's HTML is read as text, block tags as line breaks (`stripCode`), and `boom<p># All tests passed`
 * made a heading; a message's `<class 'int'>` was dropped there as a tag.
 */
export function oneLine(text: string): string {
  return printable(text.replace(BREAKS, " ⏎ ")).replace(/<(?=[A-Za-z/!?])/g, "‹");
}

/**
 * `text` as one Markdown code span, on one line ({@link oneLine}): in single backticks when it holds none, else
 * fenced by a run of backticks longer than any in it, padded with a space where it begins or ends with a
 * backtick or a space (CommonMark takes one such space off each side). "" for empty text.
 */
export function codeSpan(text: string): string {
  const line = oneLine(text);
  if (line === "") return "";
  const longest = Math.max(0, ...[...line.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = longest > 0 && /^[` ]|[` ]$/.test(line) ? " " : "";
  return `${fence}${pad}${line}${pad}${fence}`;
}
