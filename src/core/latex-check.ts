/**
 * The check that no raw LaTeX and no broken math reaches the reader: scans
 * the paper as the page shows it (latex-html.ts `renderPaper`) for formulas
 * KaTeX could not set, for LaTeX commands left in the text, and for commands
 * no converter knows that leave nothing in the text. Used by
 * `recode tasks validate` ("math renders", through math-check.ts) and by the
 * tests. Platform-free.
 */
import type { Element, ElementContent, Root } from "hast";
import { classList, renderPaper } from "./latex-html";

/** One thing in the rendered paper that is not what a reader should see. */
export interface RenderProblem {
  /**
   * - `math`: a formula KaTeX could not set (shown as its LaTeX, in red);
   * - `raw-latex`: a LaTeX command left in the text (e.g. `\mycommand`);
   * - `dropped`: a command no converter knows, with no text of its own to keep (`\eg{}`, a style file's
   *   `\method`): the reader sees nothing where it stands;
   * - `unreadable`: the text could not be parsed as LaTeX at all.
   */
  kind: "math" | "raw-latex" | "dropped" | "unreadable";
  /** The formula (as the source writes it, when the tree says where: before the paper's definitions are expanded), the command, or the start of the text. */
  text: string;
  /** What is wrong, in one line (KaTeX's message for `math`). */
  message: string;
  /** The source line (1-based) of the formula or text, where the converter knows it. */
  line?: number;
  /** For `math`: whether the formula is set on its own line (`\[`, `$$`, an environment) rather than inline. */
  display?: boolean;
  /** For `math`: the formula with its delimiters, as the source writes it, where the converter says where it is. */
  written?: string;
}

/** A command (`\name`), or the delimiters of display and inline math, in text. */
const RAW_COMMAND = /\\(?:[A-Za-z@]+\*?|[[\]()])/g;

/** A formula as written without its math delimiters (`$..$`, `$$..$$`, `\(..\)`, `\[..\]`); an environment stays whole. */
function withoutDelimiters(tex: string): string {
  const m = /^(\$\$|\$|\\\(|\\\[)([\s\S]*?)(\$\$|\$|\\\)|\\\])$/.exec(tex.trim());
  return (m ? (m[2] as string) : tex).trim();
}

/**
 * The source line (1-based) of the part of a formula KaTeX's message points at (the characters it underlines,
 * U+0332, as in `\̲f̲o̲o̲`), when they occur as written within the formula's source `[start, end)`:
 * in a formula of several lines (an `align`), the line with the fault rather than the first. Undefined
 * when the message underlines nothing or the text is not found as written.
 */
function badLine(source: string, start: number, end: number, message: string): number | undefined {
  const marked = /((?:(?!\u0332)[\s\S]\u0332)+)/.exec(message);
  const token = marked ? (marked[1] as string).replace(/\u0332/g, "") : "";
  const at = token.trim() ? source.slice(start, end).indexOf(token) : -1;
  return at >= 0 ? source.slice(0, start + at).split("\n").length : undefined;
}

function textOf(nodes: ElementContent[]): string {
  return nodes.map((n) => (n.type === "text" ? n.value : n.type === "element" ? textOf(n.children) : "")).join("");
}

/**
 * Problems in a rendered paper tree (`source`: the LaTeX it was made from, line ends as `\n`, to quote a
 * formula as written): every `.katex-error` (a formula KaTeX
 * could not set; its title holds KaTeX's message), every LaTeX command or math
 * delimiter left in the text outside typeset math and code (`pre`, `code`), LaTeX left in the title or the
 * authors (`Zhu^{1,2}`), an option left at the start of an environment (`[t]`),
 * commands no converter knows that left nothing (marked `span.dropped-cmd` when the tree is made with
 * `lines`), and the converter's "could not be read" note. Each command is reported once,
 * in the order found. Empty when the reader sees no LaTeX.
 */
export function findRenderProblems(tree: Root, source?: string): RenderProblem[] {
  const out: RenderProblem[] = [];
  const seen = new Set<string>();
  // Inside typeset math: a command KaTeX does not allow (\href, \includegraphics without trust) is set as its name, in red.
  const refused = (nodes: ElementContent[]) => {
    for (const n of nodes) {
      if (n.type !== "element" || classList(n).includes("katex-mathml")) continue;
      const style = String(n.properties?.style ?? "").replace(/\s/g, "");
      const t = textOf(n.children);
      if (style.includes("color:#cc0000") && /^\\[A-Za-z]+$/.test(t)) {
        out.push({ kind: "math", text: t, message: `KaTeX does not allow ${t} here; it is shown as its name` });
        continue;
      }
      refused(n.children);
    }
  };
  // The converter marks math and misplaced text with their source line (class src-line-N, latex-html.ts).
  const lineOf = (el: Element, inherited: number | undefined) => {
    const c = classList(el).find((x) => /^src-line-\d+$/.test(x));
    return c ? Number(c.slice("src-line-".length)) : inherited;
  };
  const at = (line: number | undefined) => (line !== undefined ? { line } : {});
  const walk = (nodes: (Root["children"][number] | ElementContent)[], line?: number) => {
    for (const n of nodes) {
      if (n.type === "text") {
        for (const m of n.value.matchAll(RAW_COMMAND)) {
          if (seen.has(m[0])) continue;
          seen.add(m[0]);
          out.push({ kind: "raw-latex", text: m[0], message: `the LaTeX command ${m[0]} is left in the text`, ...at(line) });
        }
        continue;
      }
      if (n.type !== "element") continue;
      const cls = classList(n);
      const here = lineOf(n, line);
      if (cls.includes("katex-error")) {
        const title = String(n.properties?.title ?? "");
        // (The formula as written, where the converter says which characters it spans: `\R` rather than the
        // `\mathbb{R}` a definition made of it.)
        const span = cls.map((c) => /^src-span-(\d+)-(\d+)$/.exec(c)).find((m) => m !== null);
        const written = span && source !== undefined ? withoutDelimiters(source.slice(Number(span[1]), Number(span[2]))) : "";
        const message = title.replace(/^ParseError: /, "").replace(/^KaTeX parse error: /, "") || "KaTeX cannot set this formula";
        const bad = span && source !== undefined ? badLine(source, Number(span[1]), Number(span[2]), message) : undefined;
        const whole = span && source !== undefined ? source.slice(Number(span[1]), Number(span[2])).trim() : "";
        const display = cls.includes("katex-display") || /^(\$\$|\\\[|\\begin)/.test(whole);
        out.push({
          kind: "math",
          text: written || textOf(n.children),
          message,
          display,
          ...(whole ? { written: whole } : {}),
          ...at(bad ?? here),
        });
        continue;
      }
      if (cls.includes("latex-raw")) {
        const text = textOf(n.children);
        out.push({
          kind: "raw-latex",
          text,
          message: `"${text.trim().slice(0, 40)}" is LaTeX the converter could not place (an unbalanced $, { or })`,
          ...at(here),
        });
        continue;
      }
      if (cls.includes("dropped-cmd")) {
        const name = cls.find((c) => c.startsWith("dropped-cmd-"))?.slice("dropped-cmd-".length);
        if (name && !seen.has(`\\${name}`)) {
          seen.add(`\\${name}`);
          out.push({
            kind: "dropped",
            text: `\\${name}`,
            message: `the command \\${name} is not known and is left out of the text (define it in the paper, or write its text)`,
            ...at(here),
          });
        }
        continue;
      }
      if (cls.includes("paper-error")) {
        out.push({ kind: "unreadable", text: "", message: textOf(n.children) });
        continue;
      }
      if (cls.includes("katex")) {
        refused(n.children);
        continue;
      }
      if (n.tagName === "pre" || n.tagName === "code") continue;
      if (cls.includes("paper-title") || cls.includes("paper-authors")) {
        // Plain text made from \title and \author: a \, ^, { or } there is LaTeX the text kept (`Zhu^{1,2}`).
        const text = textOf(n.children);
        const left = /[\\^{}]/.exec(text);
        if (left) {
          const what = cls.includes("paper-title") ? "title" : "authors";
          out.push({
            kind: "raw-latex",
            text: text.slice(Math.max(0, left.index - 20), left.index + 20),
            message: `the paper's ${what} keep LaTeX ("${left[0]}") in their text`,
            ...at(here),
          });
        }
        continue;
      }
      if (cls.includes("environment")) {
        // An option the parser left at the start of an environment it has no signature for (`\begin{myfloat}[t]`).
        const option = /^\s*(\[[^\]\s]{1,20}\])/.exec(textOf(n.children));
        if (option && !seen.has(`env ${option[1]}`)) {
          seen.add(`env ${option[1]}`);
          out.push({
            kind: "raw-latex",
            text: option[1] as string,
            message: `the option ${option[1]} of an environment is left in the text (a placement or a size, not text)`,
            ...at(here),
          });
        }
      }
      walk(n.children, here);
    }
  };
  walk(tree.children);
  return out;
}

/** Problems of a paper's LaTeX as the page renders it ({@link renderPaper}, then {@link findRenderProblems}). */
export function findPaperProblems(tex: string): RenderProblem[] {
  return findRenderProblems(renderPaper(tex, { lines: true }), tex.replace(/\r\n?/g, "\n"));
}
