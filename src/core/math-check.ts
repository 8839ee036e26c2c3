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
 * `line` is 1-based in the file: for paper.tex the line of the fault KaTeX
 * points at (within a formula of several lines, such as an `align`), else the
 * line the converter read the formula or the misplaced text from, else the
 * first line where a command occurs as written; null when none is known.
 */
export interface MathProblem {
  file: "instruction.md" | "paper.tex";
  line: number | null;
  /** The formula, or the command left in the text. */
  formula: string;
  message: string;
}

interface MathNode {
  type: string;
  value?: string;
  position?: { start: { line: number } };
  children?: MathNode[];
}

function formulas(markdown: string): { value: string; display: boolean; line: number | null }[] {
  const tree = unified().use(remarkParse).use(remarkMath).parse(markdown) as MathNode;
  const out: { value: string; display: boolean; line: number | null }[] = [];
  const walk = (n: MathNode) => {
    if ((n.type === "math" || n.type === "inlineMath") && typeof n.value === "string") {
      out.push({ value: n.value, display: n.type === "math", line: n.position?.start.line ?? null });
    }
    for (const c of n.children ?? []) walk(c);
  };
  walk(tree);
  return out;
}

function check(file: MathProblem["file"], markdown: string): MathProblem[] {
  const problems: MathProblem[] = [];
  for (const f of formulas(markdown)) {
    try {
      katex.renderToString(f.value, { displayMode: f.display, throwOnError: true, strict: false });
    } catch (e) {
      problems.push({
        file,
        line: f.line,
        formula: f.value.slice(0, 120),
        message: (e as Error).message.replace(/^KaTeX parse error: /, ""),
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
    }),
  );
  return [...check("instruction.md", task.instruction), ...paper];
}

/**
 * The detail of the "math renders" check of `recode tasks validate`: every
 * problem, one per line, as `file, line N: message in $formula$`; each problem
 * is listed (a task author fixes them all before the check passes), none is
 * summarised away. "" for no problems.
 */
export function mathProblemsText(problems: readonly MathProblem[]): string {
  const one = (m: MathProblem) => `${m.file}${m.line ? `, line ${m.line}` : ""}: ${m.message} in $${m.formula}$`;
  if (problems.length <= 1) return problems.map(one).join("");
  return `${problems.length} problems:\n${problems.map((m) => `  ${one(m)}`).join("\n")}`;
}
