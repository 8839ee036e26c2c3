/**
 * A lexical scan of Python source, outside the interpreter: which lines
 * continue a statement, which are blank or comments, and the code with
 * comments and string contents blanked out. It understands comments, single-
 * and triple-quoted strings, bracket and backslash continuations. It does not
 * check that the source is valid Python; on broken code it gives its best
 * reading.
 */

/** A column-0 line that starts a definition (`def`, `async def`, `class`, a decorator). */
const TOP_DEFINITION = /^(?:async\s+def|def|class)\s+[A-Za-z_]|^@[A-Za-z_]/;

/** What the scan knows about one line. */
export interface LineInfo {
  /** The line starts inside a triple-quoted string, a bracket, or after a backslash continuation. */
  cont: boolean;
  /** Blank (whitespace only) and not a continuation. */
  blank: boolean;
  /** Comment-only line (first non-space character `#`) and not a continuation. */
  comment: boolean;
  /** Columns of leading whitespace (tab counts as 1). */
  indent: number;
}

/** A scanned Python source: its lines, what each line is, and the code without comments and string contents. */
export interface Scan {
  lines: string[];
  info: LineInfo[];
  /** The source with comments and string contents replaced by spaces (same length, newlines kept). */
  codeOnly: string;
}

/**
 * Scan Python source once: which lines continue a statement (inside a
 * triple-quoted string, a bracket, or after a backslash), which are blank or
 * comment-only, their indentation, and the source with comments and string
 * contents blanked out. On broken code it recovers at a column-0 `def`,
 * `class` or decorator line inside an unclosed bracket (such a line cannot
 * be inside an expression in valid code), so one unclosed bracket does not
 * swallow the definitions after it.
 */
export function scan(source: string): Scan {
  const src = source.replace(/\r\n?/g, "\n");
  const lines = src.split("\n");
  const contAtLine: boolean[] = [false];
  const mask: string[] = [];
  let depth = 0;
  let str: { quote: string; triple: boolean } | null = null;
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (c === "\n") {
      // An unterminated single-quoted string ends at the line end (broken code).
      if (str && !str.triple) str = null;
      // Broken code: a top-level definition cannot be inside a bracket, so an unclosed one ends here.
      if (str === null && depth > 0 && TOP_DEFINITION.test(src.slice(i + 1, i + 80))) depth = 0;
      mask.push("\n");
      contAtLine.push(str !== null || depth > 0);
      i += 1;
      continue;
    }
    if (str) {
      if (c === "\\") {
        const next = src[i + 1];
        mask.push(" ");
        if (next === "\n") {
          // escaped newline inside a string: the next line continues it
          mask.push("\n");
          contAtLine.push(true);
        } else if (next !== undefined) mask.push(" ");
        i += 2;
        continue;
      }
      const q = str.quote;
      if (str.triple ? src.startsWith(q + q + q, i) : c === q) {
        const n = str.triple ? 3 : 1;
        mask.push(c.repeat(n));
        i += n;
        str = null;
        continue;
      }
      mask.push(" ");
      i += 1;
      continue;
    }
    if (c === "#") {
      while (i < src.length && src[i] !== "\n") {
        mask.push(" ");
        i += 1;
      }
      continue;
    }
    if (c === "\\" && src[i + 1] === "\n") {
      mask.push(" ", "\n");
      contAtLine.push(true);
      i += 2;
      continue;
    }
    if (c === '"' || c === "'") {
      const triple = src.startsWith(c + c + c, i);
      str = { quote: c, triple };
      const n = triple ? 3 : 1;
      mask.push(c.repeat(n));
      i += n;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth += 1;
    else if ((c === ")" || c === "]" || c === "}") && depth > 0) depth -= 1;
    mask.push(c);
    i += 1;
  }
  const info = lines.map((line, k): LineInfo => {
    const cont = contAtLine[k] ?? false;
    const trimmed = line.trim();
    const indent = line.length - line.trimStart().length;
    return { cont, blank: !cont && trimmed === "", comment: !cont && trimmed.startsWith("#"), indent };
  });
  return { lines, info, codeOnly: mask.join("") };
}

/** The source with comments and the contents of string literals blanked out (same length and lines), for name lookups. */
export function codeWithoutCommentsAndStrings(source: string): string {
  return scan(source).codeOnly;
}

/** Whether `name` occurs as a whole identifier in the code of `source` (comments and strings ignored). */
export function referencesName(source: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\w.])${escaped}(?!\\w)|\\.${escaped}(?!\\w)`).test(codeWithoutCommentsAndStrings(source));
}

/**
 * The names `source` uses as plain identifiers (not after a dot), comments and
 * strings ignored: the names a piece of code needs from its module. Keywords
 * and builtins are included; callers look up only the names they care about.
 */
export function namesUsed(source: string): Set<string> {
  const out = new Set<string>();
  for (const m of codeWithoutCommentsAndStrings(source).matchAll(/(?<![\w.])[A-Za-z_]\w*/g)) out.add(m[0]);
  return out;
}
