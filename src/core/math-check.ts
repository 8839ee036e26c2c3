/**
 * Checks that the math in a task's texts renders: every `$..$` / `$$..$$` of
 * instruction.md is rendered with KaTeX exactly as the page renders it, and
 * paper.tex is rendered as the page renders it (latex-html.ts) and scanned
 * for formulas KaTeX cannot set and LaTeX left in the text (latex-check.ts).
 * Platform-free.
 */
import katex from "katex";
import remarkMath from "remark-math";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { findPaperProblems } from "./latex-check";
import type { Task } from "./task";

/**
 * One formula that does not render, or (paper.tex) LaTeX left in the text.
 * `line` is 1-based in the file: the line of the fault KaTeX points at
 * (within a formula of several lines, such as an `align` or a `$$` block),
 * else the line where the formula starts (a fault at its end: a group left
 * open), or, in paper.tex, the line the converter read the misplaced text
 * from, else the first line where a command occurs as written; null when
 * none is known.
 */
export interface MathProblem {
  file: "instruction.md" | "paper.tex";
  line: number | null;
  /** The formula, or the command left in the text. */
  formula: string;
  message: string;
  /** Where `formula` stands: in math (display or inline), or in the text (a command left in it, a stray brace). */
  place: "display" | "inline" | "text";
  /** The formula with its delimiters as the file writes them (`$$...$$`, `\\[...\\]`, an environment), where known. */
  written?: string;
}

interface MathNode {
  type: string;
  value?: string;
  /** A `$$` block's text after its opening fence, on the fence's line: remark-math keeps it apart, and it is not shown. */
  meta?: string | null;
  position?: { start: { line: number; offset?: number }; end: { offset?: number } };
  children?: MathNode[];
}

/** A formula of the Markdown: `line` where it starts, `valueLine` where its value starts (the line after a `$$` fence). */
interface Formula {
  value: string;
  display: boolean;
  line: number | null;
  valueLine: number | null;
  written?: string;
  /** Text after an opening `$$` on its line (not shown), when there is some. */
  lost?: string;
}

/** Why text after an opening `$$` is not shown, and how to write the formula instead. */
export const LOST_AFTER_FENCE =
  "a line that starts with $$ opens a display block, and the text after $$ on that line is not shown: put $$ on lines of their own around the formula, or write it on one line as $$...$$";

function formulas(markdown: string): Formula[] {
  const tree = unified().use(remarkParse).use(remarkMath).parse(markdown) as MathNode;
  const out: Formula[] = [];
  const walk = (n: MathNode) => {
    if ((n.type === "math" || n.type === "inlineMath") && typeof n.value === "string") {
      const [from, to] = [n.position?.start.offset, n.position?.end.offset];
      const written = from !== undefined && to !== undefined ? markdown.slice(from, to) : undefined;
      const line = n.position?.start.line ?? null;
      // (A block's value starts on the line after its opening fence; whatever follows `$$` there is not in it.)
      const valueLine = line === null ? null : line + (n.type === "math" ? 1 : 0);
      const lost = n.type === "math" && n.meta?.trim() ? n.meta.trim() : undefined;
      out.push({ value: n.value, display: n.type === "math", line, valueLine, written, ...(lost ? { lost } : {}) });
    }
    for (const c of n.children ?? []) walk(c);
  };
  walk(tree);
  return out;
}

function check(file: MathProblem["file"], markdown: string): MathProblem[] {
  const problems: MathProblem[] = [];
  for (const f of formulas(markdown)) {
    if (f.lost !== undefined) {
      // (What is left of the formula may render, or not: the text lost is the fault either way.)
      problems.push({ file, line: f.line, formula: f.lost.slice(0, 120), message: LOST_AFTER_FENCE, place: "display", written: f.written });
      continue;
    }
    try {
      katex.renderToString(f.value, { displayMode: f.display, throwOnError: true, strict: false });
    } catch (e) {
      // The line of the character KaTeX points at; a fault at the end of the input (a group left open) is
      // the formula's, given at its first line, as for paper.tex.
      const at = (e as { position?: unknown }).position;
      const inside = typeof at === "number" && at < f.value.trimEnd().length && f.valueLine !== null;
      problems.push({
        file,
        line: inside ? (f.valueLine as number) + f.value.slice(0, at).split("\n").length - 1 : f.line,
        formula: f.value.slice(0, 120),
        message: (e as Error).message.replace(/^KaTeX parse error: /, ""),
        place: f.display ? "display" : "inline",
        written: f.written,
      });
    }
  }
  return problems;
}

/** 1-based line of the first occurrence of `text` (or of its first 40 characters) in `source`, or null. */
function lineIn(source: string, text: string): number | null {
  for (const probe of [text, text.slice(0, 40)]) {
    const at = probe.trim() ? source.indexOf(probe.trim()) : -1;
    if (at >= 0) return source.slice(0, at).split("\n").length;
  }
  return null;
}

/**
 * Formulas of the task's instruction and paper that KaTeX cannot render, and
 * LaTeX commands the paper's reader would see as text.
 */
export function findMathProblems(task: Pick<Task, "instruction" | "paper">): MathProblem[] {
  const paper = findPaperProblems(task.paper).map(
    (p): MathProblem => ({
      file: "paper.tex",
      line: p.line ?? lineIn(task.paper, p.text),
      formula: p.text.slice(0, 120),
      message: p.message,
      place: p.kind === "math" ? (p.display ? "display" : "inline") : "text",
      written: p.written,
    }),
  );
  return [...check("instruction.md", task.instruction), ...paper];
}

/**
 * The detail of the "math renders" check of `recode tasks validate`: every
 * problem, one per line, as `file, line N: message in $formula$` (`$$...$$` for
 * a display formula, `at \\cmd` for a command in the text); each problem
 * is listed (a task author fixes them all before the check passes), none is
 * summarised away. "" for no problems.
 */
export function mathProblemsText(problems: readonly MathProblem[]): string {
  // (KaTeX underlines the offending characters with U+0332, which a terminal shows as clutter: its message
  // already gives their position.)
  const oneLine = (t: string) => {
    const flat = t.replace(/\s*\n\s*/g, " ");
    return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat;
  };
  const quoted = (m: MathProblem) =>
    m.place === "text"
      ? `at ${oneLine(m.formula)}`
      : `in ${oneLine(m.written ?? (m.place === "display" ? `$$${m.formula}$$` : `$${m.formula}$`))}`;
  const one = (m: MathProblem) =>
    `${m.file}${m.line ? `, line ${m.line}` : ""}: ${m.message.replaceAll("\u0332", "")}${m.formula ? ` ${quoted(m)}` : ""}`;
  if (problems.length <= 1) return problems.map(one).join("");
  return `${problems.length} problems:\n${problems.map((m) => `  ${one(m)}`).join("\n")}`;
}
