/**
 * Star imports of a run's own files in test.py, found from the text alone.
 *
 * `from <module> import *` binds every public name of the module into test.py.
 * When the module is a file of the run (the target file, or a repository file
 * that can import it), those names are the candidate's: a class of theirs
 * built on `unittest.TestCase` becomes a test class of test.py, and a name of
 * theirs replaces test.py's own helper or import of the same name. The harness
 * refuses both as changes to test.py, which reads as an accusation against an
 * honest candidate, so a task whose test.py does this is refused when it is
 * loaded instead, with the line to change.
 */
import { namesUsed, scan } from "./python-scan";

/** One star import of a run file in test.py. */
export interface RunFileStarImport {
  /** 1-based line of test.py where the `from` is. */
  line: number;
  /** The module, dotted (`tsnorm.revin`). */
  module: string;
  /** Names that the module's text defines at its top level and test.py uses (sorted), for the message. */
  names: string[];
}

/**
 * The module names of a repository's Python files, with the file each comes
 * from: `pkg/mod.py` is `pkg.mod`, `pkg/__init__.py` is `pkg` (paths relative
 * to repo/, which is the run's import root).
 */
export function runModules(repoPaths: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const path of repoPaths) {
    if (!path.endsWith(".py")) continue;
    const parts = path.slice(0, -3).split("/");
    if (parts[parts.length - 1] === "__init__") parts.pop();
    if (parts.length === 0 || !parts.every((p) => /^[A-Za-z_]\w*$/.test(p))) continue;
    out.set(parts.join("."), path);
  }
  return out;
}

/** The names a module's text binds at its top level: `def`, `class` and plain assignments at column 0. */
function topLevelNames(source: string): Set<string> {
  const out = new Set<string>();
  const { lines, info } = scan(source);
  lines.forEach((line, k) => {
    if (info[k]?.cont) return;
    const def = /^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)/.exec(line);
    if (def) out.add(def[1] as string);
    const assign = /^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)/.exec(line);
    if (assign) out.add(assign[1] as string);
  });
  return out;
}

/**
 * test.py's star imports of the run's own modules (`from pkg.mod import *`
 * where `pkg/mod.py` is a repository file), in order. `sources` maps each
 * repository path to the text whose names test.py would take (the canonical
 * solution for the target file). Star imports of other modules (`math`,
 * `numpy`) are not listed. A star import is module-level only in Python, but
 * it is found anywhere in the text outside comments and strings.
 */
export function runFileStarImports(tests: string, sources: Record<string, string>): RunFileStarImport[] {
  const modules = runModules(Object.keys(sources));
  const { codeOnly } = scan(tests);
  const used = namesUsed(tests);
  const found: RunFileStarImport[] = [];
  // (The scan keeps a backslash continuation's newline and blanks its backslash.)
  const gap = String.raw`[ \t\n]`;
  const pattern = new RegExp(
    String.raw`(?:^|;)[ \t]*(from${gap}+([A-Za-z_]\w*(?:${gap}*\.${gap}*[A-Za-z_]\w*)*)${gap}+import${gap}*\*)`,
    "gm",
  );
  for (const m of codeOnly.matchAll(pattern)) {
    const module = (m[2] as string).replace(/\s/g, "");
    const path = modules.get(module);
    if (path === undefined) continue;
    const at = (m.index ?? 0) + m[0].indexOf(m[1] as string);
    const line = codeOnly.slice(0, at).split("\n").length;
    const names = [...topLevelNames(sources[path] ?? "")].filter((n) => !n.startsWith("_") && used.has(n)).sort();
    found.push({ line, module, names });
  }
  return found;
}

/** The problem to report for one star import of a run file (without its place, which the caller gives). */
export function runFileStarImportProblem(s: RunFileStarImport): string {
  const shown = s.names.length > 0 ? s.names.join(", ") : "the names test.py uses";
  return (
    `from ${s.module} import * takes every name of a file of the run into test.py, where the candidate's names ` +
    "(a TestCase class of theirs, a helper with the name of one of test.py's) would be taken for changes to test.py; " +
    `import the names test.py uses instead: from ${s.module} import ${shown}`
  );
}
