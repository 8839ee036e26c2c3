/**
 * Paper text to HTML (core/latex-html.ts, unified-latex + KaTeX) and the check
 * that no raw LaTeX or broken math reaches the reader (core/latex-check.ts).
 * The first block keeps the cases of the hand-written converter this replaced,
 * with HTML in place of Markdown.
 */
import type { Element, ElementContent, Root } from "hast";
import { toHtml } from "hast-util-to-html";
import { describe, expect, it } from "vitest";
import { findPaperProblems, findRenderProblems } from "../../src/core/latex-check";
import { latexToHast, paperInfo, renderPaper } from "../../src/core/latex-html";

const html = (tex: string) => toHtml(latexToHast(tex));

/** Visible text of a rendered tree, without the MathML and markup KaTeX adds. */
function text(tree: Root): string {
  const walk = (ns: (Root["children"][number] | ElementContent)[]): string =>
    ns
      .map((n) => {
        if (n.type === "text") return n.value;
        if (n.type !== "element") return "";
        const cls = ((n as Element).properties?.className as string[] | undefined) ?? [];
        return cls.includes("katex-mathml") ? "" : walk(n.children);
      })
      .join("");
  return walk(tree.children);
}

describe("paper LaTeX to HTML (the cases of the former converter)", () => {
  it("converts sections, subsections and run-in paragraphs", () => {
    const h = html("\\section{Method}\nText.\n\\subsection{Details}\n\\paragraph{Note.} More.");
    // Sections sit under the task title (h2 of the page).
    expect(h).toContain("<h3>Method</h3>");
    expect(h).toContain("<h4>Details</h4>");
    expect(h).toMatch(/<b>Note\.<\/b>\s+More\./);
  });

  it("converts text styles, including nested braces (braces group, they are not printed)", () => {
    const h = html("A \\textbf{bold {x}} and \\emph{soft} and \\texttt{min\\_p}.");
    expect(h).toContain('<b class="textbf">bold x</b>');
    expect(h).toContain('<em class="emph">soft</em>');
    expect(h).toContain('<span class="texttt">min_p</span>');
  });

  it("keeps inline math and display math for KaTeX, and typesets both", () => {
    const h = html("Let $p_i \\ge 0$ hold.\n\\[ \\sum_i p_i = 1 \\]");
    expect(h).toMatch(/<span class="math math-inline">p_\{?i\}? \\ge 0<\/span>/);
    expect(h).toMatch(/<div class="math math-display">\\sum_\{?i\}? ?p_\{?i\}? = 1<\/div>/);
    const tree = renderPaper("Let $p_i \\ge 0$ hold.\n\\[ \\sum_i p_i = 1 \\]");
    expect(toHtml(tree)).toContain('class="katex-display"');
    expect(findRenderProblems(tree)).toEqual([]);
  });

  it("sets equation environments as display math without their labels", () => {
    const h = html("\\begin{equation}\\label{eq:x}\n x = y ~ z\n\\end{equation}\n\\begin{equation*} a \\end{equation*}");
    expect(h).toContain('<div class="math math-display">x = y ~ z</div>');
    expect(h).toContain('<div class="math math-display">a</div>');
    expect(h).not.toContain("label");
  });

  it("sets align as aligned, without \\nonumber", () => {
    const h = html("\\begin{align*}\na &= b \\\\\nc &= d \\nonumber\n\\end{align*}");
    expect(h).toMatch(/\\begin\{aligned\}a&#x26;= b \\\\ c&#x26;= d ?\\end\{aligned\}/);
    expect(h).not.toContain("nonumber");
    expect(findPaperProblems("\\begin{align*}\na &= b \\\\\nc &= d \\nonumber\n\\end{align*}")).toEqual([]);
  });

  it("converts itemize and enumerate, nested", () => {
    const h = html("\\begin{itemize}\n\\item one\n\\item two\n\\begin{enumerate}\n\\item inner\n\\end{enumerate}\n\\end{itemize}");
    expect(h).toMatch(/<ul class="itemize"><li><p>one<\/p><\/li><li><p>two ?<\/p><ol class="enumerate"><li><p>inner<\/p><\/li><\/ol>/);
  });

  it("turns citations into [key], ties into spaces and drops comments", () => {
    const tree = renderPaper("As in~\\cite{nguyen2024, other}. % hidden remark\n% a whole comment line\n50\\% kept");
    expect(text(tree).replace(/\u00a0/g, " ")).toBe("As in [nguyen2024, other]. 50% kept");
  });

  it("does not touch commands inside math", () => {
    expect(html("$\\textbf{x}~y$")).toBe('<span class="math math-inline">\\textbf{x}~y</span>');
  });

  it("shows indented text as text, not as code", () => {
    expect(html("    indented text")).toBe("indented text");
  });

  it("never throws on unbalanced input, and the check reports what was left", () => {
    expect(() => renderPaper("\\textbf{never closed and $x")).not.toThrow();
    const problems = findPaperProblems("\\textbf{never closed and $x");
    expect(problems.map((p) => p.kind)).toEqual(["raw-latex", "raw-latex"]);
    expect(problems.map((p) => p.text)).toEqual(["{", "$"]);
  });

  it("keeps escaped percent signs and drops what follows a comment sign", () => {
    expect(html("a \\% b % c").trim()).toBe("a % b");
  });
});

const PAPER = String.raw`\documentclass{article}
\usepackage{amsmath,amssymb}
\newcommand{\R}{\mathbb{R}}
\newcommand{\norm}[1]{\left\lVert #1 \right\rVert}
\newcommand{\method}{\textsc{MinP}}
\DeclareMathOperator*{\argmax}{arg\,max}
\def\eps{\epsilon}
\title{A Study of \method}
\author{Ada Lovelace\thanks{Work done at home.} \\ Analytical Engines \and Charles Babbage \\ \texttt{cb@example.org}}
\begin{document}
\maketitle
\begin{abstract} We study $x \in \R$ with \method. \end{abstract}
\section{Method}\label{sec:m}
See Fig.~\ref{fig:a}, Eq.~\eqref{eq:n} and \citep[p.~2]{lovelace1843}; $\norm{x}$, $\argmax_x f$, $\eps$.
\begin{equation}\label{eq:n} n = \norm{v} \quad (\text{see } \eqref{eq:n}) \end{equation}
\begin{figure}[t]\centering\includegraphics[width=0.5\linewidth]{fig.pdf}\caption{The map $f: \R \to \R$.}\label{fig:a}\end{figure}
\begin{algorithm}\caption{Step}\begin{algorithmic}[1]
\Require $x$ \State $y \gets f(x)$ \If{$y > 0$} \State \Return $y$ \EndIf
\end{algorithmic}\end{algorithm}
\begin{table}\begin{tabular}{lc}\toprule a & $b$ \\ \midrule \multicolumn{2}{c}{\emph{total}} \\ \bottomrule\end{tabular}\end{table}
\begin{gather} a = 1 \\ b = 2 \end{gather}
\begin{eqnarray} c &=& 3 \end{eqnarray}
\begin{theorem}[Bound] It holds.\end{theorem}
\begin{description}\item[Input] logits \end{description}
Erd\H{o}s and G\"odel, 50\% of \$5, \marginpar{\unknownmacro aside}.
\bibliographystyle{plain}\bibliography{refs}
\end{document}`;

describe("whole papers (official latex.txt files)", () => {
  it("expands the paper's own definitions in text and math and reads title and authors", () => {
    const h = html(PAPER);
    expect(h).toContain('<h2 class="paper-title">A Study of MinP</h2>');
    expect(h).toContain('<p class="paper-authors">Ada Lovelace · Charles Babbage</p>');
    expect(h).toContain("x \\in \\mathbb{R}");
    expect(h).toContain("\\left\\lVert x \\right\\rVert");
    expect(h).toContain("\\operatorname*{arg\\,max}");
    expect(h).toContain("\\epsilon");
    expect(paperInfo(PAPER)).toEqual({ title: "A Study of MinP", authors: ["Ada Lovelace", "Charles Babbage"] });
  });

  it("renders citations, references, figures, algorithms, tables, theorems and accents, with nothing raw left", () => {
    const tree = renderPaper(PAPER);
    const t = text(tree).replace(/\u00a0/g, " ");
    expect(t).toContain("See Fig. (fig:a), Eq. (eq:n) and [lovelace1843]");
    expect(t).toContain("[figure: fig.pdf]");
    expect(t).toContain("Require:");
    expect(t).toContain("end if");
    expect(t).toContain("total");
    expect(t).toContain("Theorem (Bound).");
    expect(t).toContain("Erdős and Gödel, 50% of $5");
    expect(t).toContain("aside");
    expect(t).not.toContain("bibliography");
    expect(findRenderProblems(tree)).toEqual([]);
  });

  it("leaves out affiliation marks and float placements, splits authors at \\quad, writes \\& and algorithm words, with nothing raw left", () => {
    const paper = String.raw`\documentclass{article}
\title{Transformers without Normalization \& More}
\author{Jiachen Zhu$^{1,2}$ \quad Xinlei Chen$^{1}$ \and Kaiming He\thanks{Equal contribution.} \and Yann LeCun\textsuperscript{2}\\ NYU \quad Meta}
\begin{document}
\maketitle
\begin{algorithm}[H]
\caption{Loop}
\begin{algorithmic}
\FOR{$t = 1$ \TO $T$}
\IF{$a$ \AND \NOT $b$} \STATE \RETURN \TRUE \ENDIF
\ENDFOR
\end{algorithmic}
\end{algorithm}
\begin{table*}[t]\centering\begin{tabular}{cc} a & b \end{tabular}\caption{Tab}\end{table*}
\begin{wrapfigure}{r}{0.5\textwidth}\includegraphics{y.png}\end{wrapfigure}
\begin{subfigure}[b]{0.3\textwidth} sub \end{subfigure}
Old {\em emphasis}.
\end{document}
`;
    expect(paperInfo(paper)).toEqual({
      title: "Transformers without Normalization & More",
      authors: ["Jiachen Zhu", "Xinlei Chen", "Kaiming He", "Yann LeCun"],
    });
    const tree = renderPaper(paper);
    const t = text(tree).replace(/\u00a0/g, " ");
    expect(t).toContain("Jiachen Zhu · Xinlei Chen · Kaiming He · Yann LeCun");
    expect(t).toMatch(/for\s*t\s*=\s*1\s+to\s+T\s/);
    expect(t).toMatch(/if\s*a\s+and\s+not\s+b\s/);
    expect(t).toMatch(/return\s+true/);
    for (const left of ["[H]", "[t]", "[b]", "r0.5", "0.3", "^{"]) expect(t).not.toContain(left);
    expect(toHtml(tree)).toContain('<i class="textit">emphasis</i>');
    expect(findPaperProblems(paper)).toEqual([]);
  });

  it("the check names LaTeX left in the authors and an option left at the start of an environment it does not know", () => {
    const paper = String.raw`\documentclass{article}
\author{Zhu$_{a}^{b}$}
\begin{document}\maketitle
\begin{myfloat}[t] body \end{myfloat}
\end{document}
`;
    expect(findPaperProblems(paper).map((p) => [p.kind, p.text])).toEqual([
      ["raw-latex", "Zhu_{a}^{b}"],
      ["raw-latex", "[t]"],
    ]);
  });
});

describe("the rendered-output check", () => {
  it("reports formulas KaTeX cannot set, with KaTeX's message", () => {
    const problems = findPaperProblems("Text $\\fracc{1}{2}$ and \\[ \\unknowncommand \\] end.");
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatchObject({ kind: "math", text: "\\fracc{1}{2}" });
    expect(problems[0]?.message).toContain("Undefined control sequence: \\fracc");
    expect(problems[1]).toMatchObject({ kind: "math", text: "\\unknowncommand" });
    // KaTeX sets a command it does not allow (no trust) as its name, in red, without an error.
    expect(findPaperProblems("$\\href{javascript:alert(1)}{y}$")).toEqual([
      { kind: "math", text: "\\href", message: "KaTeX does not allow \\href here; it is shown as its name" },
    ]);
  });

  it("quotes a formula KaTeX cannot set as the paper writes it, before its definitions are expanded", () => {
    const tex =
      "\\newcommand{\\R}{\\mathbb{R}}\r\nLet $x \\in \\R^{\\badcmd}$ hold.\r\n\\begin{equation}\n\\R \\frac{1}{\n\\end{equation}\nand \\[ \\R \\undefinedthing \\]\n";
    expect(findPaperProblems(tex).map((p) => [p.text, p.line])).toEqual([
      ["x \\in \\R^{\\badcmd}", 2],
      ["\\begin{equation}\n\\R \\frac{1}{\n\\end{equation}", 3],
      ["\\R \\undefinedthing", 6],
    ]);
  });

  it("reports LaTeX commands left in the text, but not in code or typeset math", () => {
    expect(findPaperProblems("Go to \\url{\\foo}.")).toEqual([
      { kind: "raw-latex", text: "\\foo", message: "the LaTeX command \\foo is left in the text" },
    ]);
    expect(findPaperProblems("\\begin{verbatim}\n\\foo{x}\n\\end{verbatim}\n$\\alpha$")).toEqual([]);
    const tree: Root = {
      type: "root",
      children: [
        { type: "element", tagName: "p", properties: {}, children: [{ type: "text", value: "left \\emph{x} and \\[" }] },
        { type: "element", tagName: "code", properties: {}, children: [{ type: "text", value: "\\n" }] },
      ],
    };
    expect(findRenderProblems(tree).map((p) => p.text)).toEqual(["\\emph", "\\["]);
  });
});

describe("text commands papers use that the parser does not know", () => {
  /** Convert `tex` and wait a turn: an error the converter raised late would surface as an uncaught one. */
  async function settled(tex: string): Promise<string> {
    const late: unknown[] = [];
    const onLate = (e: unknown) => late.push(e);
    process.on("uncaughtException", onLate);
    try {
      const out = html(tex);
      await new Promise((r) => setTimeout(r, 10));
      expect(late.map((e) => (e as Error).message)).toEqual([]);
      return out;
    } finally {
      process.off("uncaughtException", onLate);
    }
  }

  it("sets superscripts, subscripts and struck-out text, and raises nothing later", async () => {
    expect(await settled("x\\textsuperscript{2} and H\\textsubscript{2}O, \\sout{old}.")).toBe(
      'x<sup>2</sup> and H<sub>2</sub>O, <del class="sout">old</del>.',
    );
  });

  it("writes out abbreviations and symbols instead of dropping them", async () => {
    const h = await settled(
      "As in Smith \\etal{}, \\eg{} here, \\ie{} there, \\cf{} [1], \\wrt{} x, A \\vs{} B, \\etc{} Done \\checkmark, not \\xmark; \\LaTeX{} and \\TeX{}, a \\textless{} b \\textgreater{} c, p\\dag{}, q\\ddag.",
    );
    expect(h).toBe(
      "As in Smith et al., e.g. here, i.e. there, cf. [1], w.r.t. x, A vs. B, etc. Done ✓, not ✗; LaTeX and TeX, a &#x3C; b > c, p†, q‡.",
    );
  });

  it("keeps a table cell's text from \\multirow, writes \\nicefrac as a fraction and \\enquote in quotes", async () => {
    const h = await settled(
      "\\begin{tabular}{cc}\\multirow{2}{*}{Row} & b \\\\ c & d\\end{tabular}\nHalf is \\nicefrac{1}{2}, \\enquote{quoted}, \\texorpdfstring{$x$}{x}.",
    );
    expect(h).toContain(">Row </td>");
    expect(h).not.toContain("2*Row");
    expect(h).toContain("Half is 1/2, “quoted”, ");
    expect(h).toContain('<span class="math math-inline">x</span>.');
  });

  it("drops spacing commands with their lengths, and the date", async () => {
    const h = await settled("A \\vskip 2pt B \\hskip -1.5em C\\kern3pt D, \\today, \\indent E \\noindent F.");
    expect(h.replace(/\s+/g, " ")).toBe("A B CD, , E F.");
  });
});

describe("commands the reader would not see", () => {
  it("reports a command no converter knows and whose text is lost, with its line, once; not one whose argument's text stays", () => {
    const tex =
      "We use \\method{} here, \\S 2, \\ldots\nand \\foo{kept}, \\bar {kept2}, \\eg{} and \\textbf{b}.\nAgain \\method, then \\ours.";
    expect(findPaperProblems(tex)).toEqual([
      {
        kind: "dropped",
        text: "\\method",
        message: "the command \\method is not known and is left out of the text (define it in the paper, or write its text)",
        line: 1,
      },
      {
        kind: "dropped",
        text: "\\ours",
        message: "the command \\ours is not known and is left out of the text (define it in the paper, or write its text)",
        line: 3,
      },
    ]);
    // The page shows no marker, only the text around it.
    const page = toHtml(renderPaper(tex));
    expect(page).not.toContain("dropped");
    expect(page).toContain("We use  here, §2, …");
    // Defined in the paper, it is expanded: nothing to report.
    expect(findPaperProblems(`\\newcommand{\\method}{MinP}\n${tex}`).map((p) => p.text)).toEqual(["\\ours"]);
  });
});
