/**
 * What the parts of the rules researcher share for one review: the task, the
 * candidate file read once, and the L4 direct code of an interface or of the
 * whole file (RECODE-H.md, "Feedback hierarchy").
 */

import { isWholeFile } from "../apply-code";
import { importText, listStatements, namesUsed, type PyImport, type PyStatement } from "../canonical";
import { directCodeOf } from "../direct-code";
import { oneLine } from "../markdown-text";
import type { RunResult } from "../results";
import type { Task, TaskInterface } from "../task";

/** One review's shared view. */
export interface ReviewContext {
  task: Task;
  /** The candidate target file. */
  code: string;
  run: RunResult;
  /** task.meta.target_file_path. */
  target: string;
  /** Interface names, in task.json order. */
  interfaces: string[];
  /** The candidate's top-level statements. */
  candidate: PyStatement[];
  /** Names the candidate binds at top level (definitions, assignments, imports). */
  defined: Set<string>;
  /** An error message (the code under test's text) cut to the researcher's cap, on one line ({@link oneLine}). */
  short(s: string): string;
  /** The task.json entry of an interface, if `name` is one. */
  itf(name: string): TaskInterface | undefined;
}

/** Build the shared view of one review. `messageCap`: characters kept of a quoted message. */
export function reviewContext(task: Task, code: string, run: RunResult, messageCap: number): ReviewContext {
  const candidate = listStatements(code);
  return {
    task,
    code,
    run,
    target: task.meta.target_file_path,
    interfaces: task.meta.interfaces.map((i) => i.name),
    candidate,
    defined: new Set(candidate.flatMap((s) => s.names)),
    short: (s) => oneLine(s.length <= messageCap ? s : `${s.slice(0, messageCap)}...`),
    itf: (name) => task.meta.interfaces.find((i) => i.name === name),
  };
}

const fence = (code: string) => `\`\`\`python\n${code.replace(/\s+$/, "")}\n\`\`\``;

/**
 * The imports of canonical.py (top level) whose names the candidate file uses
 * but never binds: what a file that lost its imports lacks. In canonical
 * order; star imports are left out.
 */
export function missingImports(ctx: ReviewContext): PyImport[] {
  const used = namesUsed(ctx.code);
  return listStatements(ctx.task.canonical)
    .flatMap((s) => s.imports)
    .filter((i) => i.name !== "*" && used.has(i.local) && !ctx.defined.has(i.local));
}

/**
 * The L4 text for interface `name`: one sentence saying how to apply it, then
 * the self-contained canonical code (its imports and the helpers it needs,
 * see {@link directCodeOf}) in a fenced python block. The whole file when
 * canonical.py has no top-level definition `name`. `fileImports`: imports the
 * rest of the file lacks (see {@link missingImports}), carried in the same
 * block so that one paste fixes every NameError they cause.
 */
export function directCodeText(ctx: ReviewContext, name: string, fileImports: readonly PyImport[] = []): string {
  const dc = directCodeOf(ctx.task.canonical, name, ctx.interfaces);
  if (!dc) return wholeFileText(ctx);
  const key = (i: PyImport) => `${i.module}\u0000${i.name ?? ""}\u0000${i.local}`;
  const carried = new Set(dc.imports.map(key));
  const more = fileImports.filter((i) => !carried.has(key(i)));
  let code = dc.code;
  if (more.length > 0) {
    // One import block in canonical order: the definition's own imports and the file's, merged.
    const order = listStatements(ctx.task.canonical)
      .flatMap((s) => s.imports)
      .map(key);
    const all = [...dc.imports, ...more].sort((a, b) => order.indexOf(key(a)) - order.indexOf(key(b)));
    const body = dc.imports.length > 0 ? dc.code.slice(dc.code.indexOf("\n\n\n") + 3) : dc.code;
    code = `${importText(all)}\n\n\n${body}`;
  }
  const extra = [dc.imports.length > 0 || more.length > 0 ? "the imports" : "", dc.helpers.length > 0 ? "the helpers" : ""]
    .filter(Boolean)
    .join(" and ");
  const needs = more.length > 0 ? `it and the rest of your file need` : "it needs";
  const lead = extra
    ? `Corrected \`${name}\` with ${extra} ${needs}: put these in place of your definitions of the same names, add the imports, and keep the rest of ${ctx.target}.`
    : `Corrected \`${name}\`: put it in place of your definition and keep the rest of ${ctx.target}.`;
  return `${lead}\n\n${fence(code)}`;
}

/**
 * The L4 text for the whole target file: the canonical solution, opening with
 * a module docstring (one naming the file is added when canonical.py has
 * none) so that it reads as a whole file (see {@link isWholeFile}).
 */
export function wholeFileText(ctx: ReviewContext): string {
  const canonical = ctx.task.canonical.replace(/\s+$/, "");
  const code = isWholeFile(canonical) ? canonical : `"""${ctx.target}: the whole file."""\n\n${canonical}`;
  return `The whole of ${ctx.target}: replace the file with it.\n\n${fence(code)}`;
}
