/**
 * Reading Python source outside the interpreter: the top-level statements of a
 * file (definitions, imports, assignments), found by indentation with the scan
 * of {@link scan}. The researcher uses it to quote the canonical solution of
 * one interface (RECODE-H.md, "Feedback hierarchy": the L4 direct code
 * correction) without running canonical.py beside candidate code.
 *
 * It understands comments, strings (a docstring or a string containing "def"
 * is not a definition), bracket and backslash continuations (multi-line
 * signatures), decorators and the comment lines directly above a definition.
 * It does not check that the source is valid Python; on broken code it still
 * returns its best reading.
 */
import { type LineInfo, scan } from "./python-scan";

export { codeWithoutCommentsAndStrings, namesUsed, referencesName } from "./python-scan";

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

/** One top-level statement of a Python file. */
export interface PyStatement {
  /**
   * `def` / `class` (with decorators), `import` (`import m`, `from m import n`),
   * `assign` (`NAME = ...`, `a, b = ...`, `NAME: T = ...`), `docstring` (a
   * string literal as the module's first statement), `other` (anything else).
   */
  kind: "def" | "class" | "import" | "assign" | "docstring" | "other";
  /** Names the statement binds in the module (empty for docstring and other). */
  names: string[];
  /** 1-based first line: comment lines directly above a def, class or assignment are part of it, and decorators. */
  startLine: number;
  /** 1-based line of the statement's first keyword or target (after decorators and comments). */
  headLine: number;
  /** 1-based last line (its last non-blank line; trailing column-0 comments are not part of it). */
  endLine: number;
  /** Lines startLine..endLine joined with "\n". */
  text: string;
  /** The names an import statement binds; empty for other kinds. */
  imports: PyImport[];
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

const DEF_RE = /^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)/;
const IMPORT_RE = /^(?:import\s+[\w.]|from\s+[\w.]+\s+import\b)/;
const STRING_START = /^(?:[rRbBuUfF]{0,2})["']/;

/** Targets of an assignment statement (code without strings), or null when it is not one. */
function assignedNames(code: string): string[] | null {
  const plain = /^((?:[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*\s*=(?!=)\s*)+)/.exec(code);
  if (plain) {
    return (plain[1] as string)
      .split("=")
      .flatMap((part) => part.split(","))
      .map((s) => s.trim())
      .filter((s) => /^[A-Za-z_]\w*$/.test(s));
  }
  const annotated = /^([A-Za-z_]\w*)\s*:(?!=)/.exec(code);
  return annotated ? [annotated[1] as string] : null;
}

/**
 * The top-level statements of a Python file, in source order. A statement runs
 * from its first line to the line before the next top-level statement (its
 * body, continuation lines and nested blocks), without trailing blank lines
 * and column-0 comments.
 */
export function listStatements(source: string): PyStatement[] {
  const { lines, info, codeOnly } = scan(source);
  const codeLines = codeOnly.split("\n");
  const isTop = (k: number) => {
    const li = info[k] as LineInfo;
    return !li.cont && !li.blank && !li.comment && li.indent === 0;
  };
  const tops: number[] = [];
  for (let k = 0; k < lines.length; k++) if (isTop(k)) tops.push(k);
  const out: PyStatement[] = [];
  let decoratorStart: number | null = null;
  for (let t = 0; t < tops.length; t++) {
    const k = tops[t] as number;
    const line = lines[k] as string;
    if (line.startsWith("@")) {
      decoratorStart ??= k;
      continue;
    }
    const nextTop = tops[t + 1] ?? lines.length;
    let end = nextTop - 1;
    while (end > k) {
      const li = info[end] as LineInfo;
      // A whitespace-only line ends no statement, also inside an unclosed bracket of broken code.
      if (li.blank || (lines[end] as string).trim() === "" || (li.comment && li.indent === 0)) end -= 1;
      else break;
    }
    const code = codeLines.slice(k, end + 1).join("\n");
    const def = DEF_RE.exec(line);
    let kind: PyStatement["kind"];
    let names: string[] = [];
    let imports: PyImport[] = [];
    if (def) {
      kind = line.startsWith("class") ? "class" : "def";
      names = [def[1] as string];
    } else if (IMPORT_RE.test(code)) {
      kind = "import";
      imports = listImports(lines.slice(k, end + 1).join("\n"));
      names = imports.map((i) => i.local);
    } else if (STRING_START.test(line)) {
      kind = out.length === 0 ? "docstring" : "other";
    } else {
      const targets = assignedNames(code.replace(/\s*\n\s*/g, " "));
      kind = targets ? "assign" : "other";
      names = targets ?? [];
    }
    let start = def ? (decoratorStart ?? k) : k;
    decoratorStart = null;
    if (kind === "def" || kind === "class" || kind === "assign") {
      while (start > 0 && (info[start - 1] as LineInfo).comment && (info[start - 1] as LineInfo).indent === 0) start -= 1;
    }
    out.push({
      kind,
      names,
      startLine: start + 1,
      headLine: k + 1,
      endLine: end + 1,
      text: lines.slice(start, end + 1).join("\n"),
      imports,
    });
  }
  return out;
}

/**
 * All top-level definitions of a Python file, in source order. A name defined
 * twice appears twice (the later one is what Python keeps).
 */
export function listDefinitions(source: string): PyDefinition[] {
  return listStatements(source)
    .filter((s) => s.kind === "def" || s.kind === "class")
    .map((s) => ({
      name: s.names[0] as string,
      kind: s.kind as "def" | "class",
      startLine: s.startLine,
      defLine: s.headLine,
      endLine: s.endLine,
      text: s.text,
    }));
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

/** The import statements of a Python file (any indentation), comments and strings ignored. */
export function listImports(source: string): PyImport[] {
  const code = scan(source).codeOnly;
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

/**
 * Python text of import statements binding `imports`: one `import m [as x]`
 * line per module import, and one `from m import a, b as c` line per module
 * for `from` imports, in the order the modules first appear.
 */
export function importText(imports: readonly PyImport[]): string {
  const order: (string | string[])[] = [];
  const fromNames = new Map<string, string[]>();
  for (const imp of imports) {
    if (imp.name === null) {
      const bound = imp.module.split(".")[0];
      order.push(imp.local === bound ? `import ${imp.module}` : `import ${imp.module} as ${imp.local}`);
      continue;
    }
    let names = fromNames.get(imp.module);
    if (!names) {
      names = [imp.module];
      fromNames.set(imp.module, names);
      order.push(names);
    }
    names.push(imp.local === imp.name ? imp.name : `${imp.name} as ${imp.local}`);
  }
  return order.map((o) => (typeof o === "string" ? o : `from ${o[0]} import ${o.slice(1).join(", ")}`)).join("\n");
}
