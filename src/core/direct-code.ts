/**
 * The code of an L4 direct code correction (RECODE-H.md, "Feedback
 * hierarchy": L4 adds the direct code correction): the canonical definition
 * of one interface together with everything of canonical.py it needs to run
 * on its own: the imports it uses and the module's own helpers (functions,
 * classes and constants that are not interfaces), found transitively. Put in
 * place of the candidate's definitions with {@link applyDirectCode}, it runs
 * whatever the rest of the candidate file holds.
 */
import { importText, listStatements, namesUsed, type PyImport, type PyStatement } from "./canonical";

/** What {@link directCodeOf} found, besides the text. */
export interface DirectCode {
  /** The code: imports, then helpers in canonical order, then the definition; top-level blocks two blank lines apart. */
  code: string;
  /** The imports it carries (only the names the code uses). */
  imports: PyImport[];
  /** Names of the canonical's own helpers it carries (functions, classes, constants), in canonical order. */
  helpers: string[];
}

/**
 * The self-contained canonical code of the top-level definition `name` of
 * `canonical`, or null when canonical.py has no top-level `def` / `class`
 * `name`. `interfaces` are the task's interface names: another interface is
 * never carried along as a helper (its own item corrects it).
 */
export function directCodeOf(canonical: string, name: string, interfaces: readonly string[]): DirectCode | null {
  const statements = listStatements(canonical);
  const target = statements.filter((s) => (s.kind === "def" || s.kind === "class") && s.names[0] === name).pop();
  if (!target) return null;
  const others = new Set(interfaces.filter((n) => n !== name));
  const candidates = statements.filter(
    (s) =>
      s !== target && (s.kind === "def" || s.kind === "class" || s.kind === "assign") && !s.names.some((n) => n === name || others.has(n)),
  );
  const needed = namesUsed(target.text);
  const carried = new Set<PyStatement>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of candidates) {
      if (carried.has(s) || !s.names.some((n) => needed.has(n))) continue;
      carried.add(s);
      for (const n of namesUsed(s.text)) needed.add(n);
      grew = true;
    }
  }
  const wanted = (i: PyImport) => needed.has(i.local) || i.name === "*" || i.module === "__future__";
  // One import statement per canonical statement that is needed, blank lines between groups kept.
  let head = "";
  let prevEnd = -1;
  const imports: PyImport[] = [];
  for (const s of statements) {
    const parts = s.imports.filter(wanted);
    if (parts.length === 0) continue;
    head += `${head === "" ? "" : s.startLine > prevEnd + 1 ? "\n\n" : "\n"}${importText(parts)}`;
    prevEnd = s.endLine;
    imports.push(...parts);
  }
  const helpers = candidates.filter((s) => carried.has(s));
  const blocks = [...helpers.map((s) => s.text), target.text];
  return {
    code: `${head ? `${head}\n\n\n` : ""}${blocks.join("\n\n\n")}`,
    imports,
    helpers: helpers.flatMap((s) => s.names),
  };
}
