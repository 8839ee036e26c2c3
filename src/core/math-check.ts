/**
 * Checks that the math in a task's texts renders: every `$..$` / `$$..$$` of
 * instruction.md, and of paper.tex after conversion to Markdown, is rendered
 * with KaTeX exactly as the page renders it. Platform-free.
 */
import katex from "katex";
import remarkMath from "remark-math";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { latexToMarkdown } from "./latex";
import type { Task } from "./task";

/** One formula that does not render. `line` is 1-based in the Markdown text checked. */
export interface MathProblem {
  file: "instruction.md" | "paper.tex";
  line: number | null;
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

/**
 * Formulas of the task's instruction and paper that KaTeX cannot render. For
 * paper.tex the line is that of the converted Markdown (close to the source line).
 */
export function findMathProblems(task: Pick<Task, "instruction" | "paper">): MathProblem[] {
  return [...check("instruction.md", task.instruction), ...check("paper.tex", latexToMarkdown(task.paper))];
}
