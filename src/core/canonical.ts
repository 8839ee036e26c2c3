/**
 * Reading Python source outside the interpreter: top-level `def` / `class`
 * blocks of a file, found by indentation. The researcher uses it to quote the
 * canonical solution of one interface (RECODE-H.md, "Feedback hierarchy": the
 * L4 direct code correction) without running canonical.py beside candidate code.
 *
 * The scan understands comments, single- and triple-quoted strings (so a
 * docstring or a string containing "def" is not a definition), bracket and
 * backslash continuations (multi-line signatures), decorators and the comment
 * lines directly above a definition. It does not check that the source is
 * valid Python; on broken code it still returns its best reading.
 */

/** One top-level definition of a Python file. */
export interface PyDefinition {
  /** The defined name (`def name` / `class name`). */
  name: string;
  kind: "def" | "class";
  /** 1-based first line of the block: the first comment line directly above, else the first decorator, else the `def`/`class` line. */
  startLine: number;
  /** 1-based line of the `def` / `class` keyword. */
  defLine: number;
  /** 1-based last line of the block (its last non-blank line; trailing column-0 comments are not part of it). */
  endLine: number;
  /** The block's text (lines startLine..endLine joined with "\n"). */
  text: string;
}

interface LineInfo {
  /** The line starts inside a triple-quoted string, a bracket, or after a backslash continuation. */
  cont: boolean;
  /** Blank (whitespace only) and not a continuation. */
  blank: boolean;
  /** Comment-only line (first non-space character `#`) and not a continuation. */
  comment: boolean;
  /** Columns of leading whitespace (tab counts as 1). */
  indent: number;
}

interface Scan {
  lines: string[];
  info: LineInfo[];
  /** The source with comments and string contents replaced by spaces (same length, newlines kept). */
  codeOnly: string;
}

function scan(source: string): Scan {
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

const DEF_RE = /^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)/;

/**
 * All top-level definitions of a Python file, in source order. A name defined
 * twice appears twice (the later one is what Python keeps).
 */
export function listDefinitions(source: string): PyDefinition[] {
  const { lines, info } = scan(source);
  const isTop = (k: number) => {
    const li = info[k] as LineInfo;
    return !li.cont && !li.blank && !li.comment && li.indent === 0;
  };
  const tops: number[] = [];
  for (let k = 0; k < lines.length; k++) if (isTop(k)) tops.push(k);
  const defs: PyDefinition[] = [];
  let decoratorStart: number | null = null;
  for (let t = 0; t < tops.length; t++) {
    const k = tops[t] as number;
    const line = lines[k] as string;
    if (line.startsWith("@")) {
      if (decoratorStart === null) decoratorStart = k;
      continue;
    }
    const m = DEF_RE.exec(line);
    if (!m) {
      decoratorStart = null;
      continue;
    }
    let start = decoratorStart ?? k;
    decoratorStart = null;
    while (start > 0 && (info[start - 1] as LineInfo).comment && (info[start - 1] as LineInfo).indent === 0) start -= 1;
    const nextTop = tops[t + 1] ?? lines.length;
    let end = nextTop - 1;
    while (end > k) {
      const li = info[end] as LineInfo;
      if (li.blank || (li.comment && li.indent === 0)) end -= 1;
      else break;
    }
    defs.push({
      name: m[1] as string,
      kind: line.startsWith("class") ? "class" : "def",
      startLine: start + 1,
      defLine: k + 1,
      endLine: end + 1,
      text: lines.slice(start, end + 1).join("\n"),
    });
  }
  return defs;
}

/**
 * Top-level `def` / `class` blocks of a Python file, keyed by name: each value
 * is the block's source text with its decorators and the comment lines directly
 * above it (no blank line between). Nested definitions stay inside their
 * enclosing block. When a name is defined twice, the later block wins.
 */
export function extractDefinitions(source: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of listDefinitions(source)) out[d.name] = d.text;
  return out;
}

/** The top-level definition named `name` (the later one if defined twice), or null. */
export function findDefinition(source: string, name: string): PyDefinition | null {
  const all = listDefinitions(source).filter((d) => d.name === name);
  return all[all.length - 1] ?? null;
}

/** Name of the top-level definition whose block contains the 1-based `line`, or null (module level, or out of range). */
export function definitionAt(source: string, line: number): string | null {
  for (const d of listDefinitions(source)) if (line >= d.startLine && line <= d.endLine) return d.name;
  return null;
}

/**
 * Replace the top-level definition `name` (its whole block, see {@link PyDefinition})
 * with `replacement`. Throws an Error naming the definition when the source has none.
 */
export function replaceDefinition(source: string, name: string, replacement: string): string {
  const d = findDefinition(source, name);
  if (!d) {
    const known = listDefinitions(source).map((x) => x.name);
    throw new Error(`replaceDefinition: no top-level def or class named "${name}" (found: ${known.join(", ") || "none"})`);
  }
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const repl = replacement.replace(/\r\n?/g, "\n").replace(/\n+$/, "").split("\n");
  lines.splice(d.startLine - 1, d.endLine - d.startLine + 1, ...repl);
  return lines.join("\n");
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

/** A name a module imports: `from module import name [as local]` or `import module [as local]`. */
export interface PyImport {
  /** Dotted module path as written (`decoding.vocab`; relative imports keep their dots). */
  module: string;
  /** Imported name for `from` imports; null for `import module`. */
  name: string | null;
  /** Name bound in the importing module. */
  local: string;
}

/** The import statements of a Python file (any indentation), comments and strings ignored. */
export function listImports(source: string): PyImport[] {
  const code = codeWithoutCommentsAndStrings(source);
  // Join bracket and backslash continuations into logical lines.
  const logical: string[] = [];
  let cur = "";
  let depth = 0;
  for (const raw of code.split("\n")) {
    const line = raw.replace(/\\\s*$/, " ");
    cur += ` ${line}`;
    for (const ch of line) {
      if ("([{".includes(ch)) depth += 1;
      else if (")]}".includes(ch) && depth > 0) depth -= 1;
    }
    if (depth === 0 && !/\\\s*$/.test(raw)) {
      logical.push(cur.trim());
      cur = "";
    }
  }
  if (cur.trim()) logical.push(cur.trim());
  const out: PyImport[] = [];
  for (const stmt of logical.flatMap((l) => l.split(";").map((s) => s.trim()))) {
    const from = /^from\s+([\w.]+)\s+import\s+\(?([^)]*)\)?$/.exec(stmt);
    if (from) {
      for (const part of (from[2] as string).split(",")) {
        const m = /^\s*([A-Za-z_]\w*|\*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
        if (m) out.push({ module: from[1] as string, name: m[1] as string, local: (m[2] ?? m[1]) as string });
      }
      continue;
    }
    const imp = /^import\s+(.+)$/.exec(stmt);
    if (imp) {
      for (const part of (imp[1] as string).split(",")) {
        const m = /^\s*([\w.]+)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
        if (m) out.push({ module: m[1] as string, name: null, local: (m[2] ?? (m[1] as string).split(".")[0]) as string });
      }
    }
  }
  return out;
}
