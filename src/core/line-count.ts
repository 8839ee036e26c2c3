/**
 * The number of lines of a text as an editor counts them: a final newline ends
 * the last line, it does not start another ("a\nb\n" has 2 lines; "" has 1).
 * The page's transcript and `recode show` say a turn's code has this many.
 */
export function lineCount(text: string): number {
  return text.replace(/\n$/, "").split("\n").length;
}
