/**
 * Applying a direct code correction (RECODE-H.md, "Feedback hierarchy": the
 * L4 code) to a target file the way a coder pastes it: the correction's
 * definitions replace the file's definitions of the same names, its imports
 * are added, its other definitions are put in, and the rest of the file stays.
 */
import { importText, listStatements, type PyImport, type PyStatement } from "./canonical";

const importKey = (i: PyImport) => `${i.module}\u0000${i.name ?? ""}`;

/** One change to the source, by 0-based line index: remove `remove` lines at `at`, then put `lines` there. */
interface Edit {
  at: number;
  remove: number;
  lines: string[];
  /** Order among edits at the same line (lower first). */
  order: number;
}

/** Whether a correction is a whole target file: it opens with a module docstring. */
export function isWholeFile(code: string): boolean {
  return listStatements(code)[0]?.kind === "docstring";
}

/**
 * The target file `source` after applying the correction `code` (plain
 * Python, no fence):
 * - a correction that opens with a module docstring is a whole file and
 *   replaces `source`;
 * - each top-level `def`, `class` or assignment of the correction replaces the
 *   file's last top-level statement binding the same name, or, when the file
 *   has none, is put right before the next correction statement the file
 *   already has (so constants and helpers come before the definition that uses
 *   them), else after the previous one, else at the end;
 * - each import the file lacks is added after the file's last top-level import
 *   (a `__future__` import, and any import when the file has none, after the
 *   module docstring, else at the top);
 * - the file's own top-level definitions of a name the correction imports (its
 *   own version of a repository helper) are removed, so the import is what
 *   the name means.
 * Top-level blocks are kept two blank lines apart; the result ends with one
 * newline. An empty correction leaves `source` as it is.
 */
export function applyDirectCode(source: string, code: string): string {
  const fix = code.replace(/\r\n?/g, "\n").replace(/\s+$/, "").replace(/^\n+/, "");
  if (fix.trim() === "") return source;
  if (isWholeFile(fix)) return `${fix}\n`;
  const src = source.replace(/\r\n?/g, "\n").replace(/\s+$/, "");
  const fixStatements = listStatements(fix);
  if (src.trim() === "") return `${fix}\n`;
  const lines = src.split("\n");
  const have = listStatements(src);
  const edits: Edit[] = [];
  let order = 0;
  const lastBinding = (names: string[]): PyStatement | undefined =>
    have.filter((s) => s.kind !== "import" && s.kind !== "other" && s.names.some((n) => names.includes(n))).pop();

  // Definitions: replace, or put in next to their neighbours in the correction.
  const blocks = fixStatements.filter((s) => s.kind === "def" || s.kind === "class" || s.kind === "assign");
  const replaced = new Set<PyStatement>();
  const anchors = blocks.map((s) => lastBinding(s.names));
  blocks.forEach((s, k) => {
    const old = anchors[k];
    const text = s.text.split("\n");
    if (old && !replaced.has(old)) {
      replaced.add(old);
      edits.push({ at: old.startLine - 1, remove: old.endLine - old.startLine + 1, lines: text, order: order++ });
      return;
    }
    const next = anchors.slice(k + 1).find((a) => a !== undefined);
    const prev = anchors
      .slice(0, k)
      .filter((a) => a !== undefined)
      .pop();
    if (next) edits.push({ at: next.startLine - 1, remove: 0, lines: [...text, "", ""], order: order++ });
    else if (prev) edits.push({ at: prev.endLine, remove: 0, lines: ["", "", ...text], order: order++ });
    else edits.push({ at: lines.length, remove: 0, lines: ["", "", ...text], order: order++ });
  });

  // Imports the file lacks.
  const bound = new Map<string, string>();
  for (const s of have) for (const i of s.imports) bound.set(i.local, importKey(i));
  const wanted = fixStatements.flatMap((s) => s.imports);
  // The file's own definitions of a name the correction imports take the import's place: they go.
  for (const own of have.filter(
    (s) => s.kind !== "import" && s.kind !== "other" && s.names.some((n) => wanted.some((i) => i.local === n)),
  )) {
    if (replaced.has(own)) continue;
    replaced.add(own);
    let end = own.endLine;
    while (end < lines.length && (lines[end] as string).trim() === "") end += 1;
    edits.push({ at: own.startLine - 1, remove: end - own.startLine + 1, lines: [], order: order++ });
  }
  const missing = wanted.filter((i) => bound.get(i.local) !== importKey(i));
  if (missing.length > 0) {
    const lastImport = have.filter((s) => s.kind === "import").pop();
    const doc = have[0]?.kind === "docstring" ? have[0] : undefined;
    const future = missing.filter((i) => i.module === "__future__");
    const rest = missing.filter((i) => i.module !== "__future__");
    const top = doc ? doc.endLine : 0;
    // After the docstring, a blank line before; at the top of the file, a blank line after.
    const spaced = (text: string[]) => (doc ? ["", ...text] : [...text, ""]);
    if (future.length > 0) edits.push({ at: top, remove: 0, lines: spaced(importText(future).split("\n")), order: -2 });
    if (rest.length > 0) {
      if (lastImport) edits.push({ at: lastImport.endLine, remove: 0, lines: importText(rest).split("\n"), order: -1 });
      else edits.push({ at: top, remove: 0, lines: spaced(importText(rest).split("\n")), order: -1 });
    }
  }

  edits.sort((a, b) => b.at - a.at || b.order - a.order);
  for (const e of edits) lines.splice(e.at, e.remove, ...e.lines);
  return `${lines.join("\n").replace(/\s+$/, "")}\n`;
}
