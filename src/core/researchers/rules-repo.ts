/**
 * The task's repository as the rules researcher sees it: which repository
 * helpers the canonical solution imports, where they are defined, and whether
 * the candidate re-implements one that an interface uses (RECODE-H.md,
 * "Feedback hierarchy": T4 repository integration).
 */
import { codeWithoutCommentsAndStrings, listStatements, namesUsed, type PyStatement } from "../canonical";
import { directCodeOf } from "../direct-code";
import type { Task } from "../task";

/** A repository helper the canonical solution imports. */
export interface RepoHelper {
  /** Name bound in canonical.py. */
  local: string;
  /** Name in the repository module. */
  name: string;
  /** Repository file defining it, relative to repo/. */
  file: string;
}

/** Repository file of a Python module path (relative imports resolved from the target file), or null when the module is not in the task's repository. */
export function repoFileOfModule(task: Task, module: string): string | null {
  let path = module;
  if (path.startsWith(".")) {
    const base = task.meta.target_file_path.split("/").slice(0, -1);
    const dots = /^\.+/.exec(path)?.[0].length ?? 1;
    const rest = path.slice(dots);
    const dir = base.slice(0, Math.max(0, base.length - (dots - 1)));
    path = [...dir, ...(rest ? rest.split(".") : [])].join(".");
  }
  const p = path.split(".").join("/");
  for (const cand of [`${p}.py`, `${p}/__init__.py`])
    if (Object.hasOwn(task.repo, cand) && cand !== task.meta.target_file_path) return cand;
  return null;
}

/** Functions, classes and constants of the task's repository that canonical.py imports by name. */
export function repoHelpers(task: Task): RepoHelper[] {
  const out: RepoHelper[] = [];
  for (const s of listStatements(task.canonical)) {
    for (const imp of s.imports) {
      if (imp.name === null || imp.name === "*") continue;
      const file = repoFileOfModule(task, imp.module);
      if (file) out.push({ local: imp.local, name: imp.name, file });
    }
  }
  return out;
}

/** Whether the module text `text` binds `name` at its top level (a definition, an assignment or an import). */
export function definesName(text: string, name: string): boolean {
  return listStatements(text).some((s) => s.names.includes(name));
}

/** The repository file (not the target file) that defines `name` at top level, or null. */
export function repoDefines(task: Task, name: string): string | null {
  for (const [file, text] of Object.entries(task.repo)) {
    if (file === task.meta.target_file_path || !file.endsWith(".py")) continue;
    if (listStatements(text).some((s) => s.kind !== "import" && s.names.includes(name))) return file;
  }
  return null;
}

/** Code of a statement with comments, string contents, quotes and whitespace removed: two copies of one helper compare equal. */
function normalized(text: string): string {
  return codeWithoutCommentsAndStrings(text).replace(/["'\s]/g, "");
}

/**
 * Names that the code of `start` uses, directly or through the module's own
 * definitions (transitively), not looking inside the definitions of the names
 * in `opaque` (e.g. the other interfaces: what they call is theirs).
 */
export function reachedNames(statements: readonly PyStatement[], start: string, opaque: ReadonlySet<string> = new Set()): Set<string> {
  const reached = namesUsed(start);
  const own = statements.filter(
    (s) => (s.kind === "def" || s.kind === "class" || s.kind === "assign") && !s.names.some((n) => opaque.has(n)),
  );
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of own) {
      if (!s.names.some((n) => reached.has(n))) continue;
      for (const n of namesUsed(s.text))
        if (!reached.has(n)) {
          reached.add(n);
          grew = true;
        }
    }
  }
  return reached;
}

/**
 * Repository helpers that the canonical code of interface `name` uses and
 * that the candidate re-implements: the candidate file defines the helper's
 * name itself (a def, class or assignment, which takes the place of the
 * repository's), its definition of `name` reaches it, and its code differs from
 * the repository's. A copy that is the same code is not counted: it behaves
 * the same.
 */
export function reimplementedHelpers(task: Task, candidate: string, name: string): RepoHelper[] {
  const interfaces = task.meta.interfaces.map((i) => i.name);
  const direct = directCodeOf(task.canonical, name, interfaces);
  if (!direct) return [];
  const used = new Set(direct.imports.map((i) => i.local));
  const statements = listStatements(candidate);
  const mine = statements.filter((s) => (s.kind === "def" || s.kind === "class") && s.names.includes(name)).pop();
  if (!mine) return [];
  const reached = reachedNames(statements, mine.text, new Set(interfaces.filter((n) => n !== name)));
  return repoHelpers(task).filter((h) => {
    if (!used.has(h.local) || !reached.has(h.local)) return false;
    // The candidate's binding of the name that Python keeps: the last one.
    const theirs = statements.filter((s) => s.kind !== "other" && s.names.includes(h.local)).pop();
    if (!theirs || theirs === mine || theirs.kind === "import") return false;
    const original = listStatements(task.repo[h.file] ?? "")
      .filter((s) => s.kind !== "import" && s.names.includes(h.name))
      .pop();
    return !original || normalized(original.text).replace(h.name, "") !== normalized(theirs.text).replace(h.local, "");
  });
}
