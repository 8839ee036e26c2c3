import { describe, expect, it } from "vitest";
import { latexToMarkdown, stripComments } from "../../src/core/latex";

describe("latexToMarkdown", () => {
  it("converts sections, subsections and paragraphs", () => {
    const md = latexToMarkdown("\\section{Method}\nText.\n\\subsection{Details}\n\\paragraph{Note.} More.");
    expect(md).toContain("## Method");
    expect(md).toContain("### Details");
    expect(md).toContain("**Note.** More.");
  });

  it("converts text styles, including nested braces", () => {
    const md = latexToMarkdown("A \\textbf{bold {x}} and \\emph{soft} and \\texttt{min\\_p}.");
    expect(md).toBe("A **bold {x}** and *soft* and `min_p`.\n");
  });

  it("keeps inline math and turns display math into $$ blocks", () => {
    const md = latexToMarkdown("Let $p_i \\ge 0$ hold.\n\\[ \\sum_i p_i = 1 \\]");
    expect(md).toContain("Let $p_i \\ge 0$ hold.");
    expect(md).toMatch(/\$\$\n\\sum_i p_i = 1\n\$\$/);
  });

  it("renders equation environments as $$ and drops labels", () => {
    const md = latexToMarkdown("\\begin{equation}\\label{eq:x}\n x = y ~ z\n\\end{equation}\n\\begin{equation*} a \\end{equation*}");
    expect(md).toContain("$$\nx = y ~ z\n$$");
    expect(md).toContain("$$\na\n$$");
    expect(md).not.toContain("label");
  });

  it("renders align as aligned inside $$", () => {
    const md = latexToMarkdown("\\begin{align*}\na &= b \\\\\nc &= d \\nonumber\n\\end{align*}");
    expect(md).toContain("$$\n\\begin{aligned}\na &= b \\\\\nc &= d\n\\end{aligned}\n$$");
  });

  it("converts itemize and enumerate, nested", () => {
    const md = latexToMarkdown(
      "\\begin{itemize}\n\\item one\n\\item two\n\\begin{enumerate}\n\\item inner\n\\end{enumerate}\n\\end{itemize}",
    );
    expect(md).toContain("- one\n- two");
    expect(md).toContain("  1. inner");
  });

  it("turns citations into [key], ties into spaces and drops comments", () => {
    const md = latexToMarkdown("As in~\\cite{nguyen2024, other}. % hidden remark\n% a whole comment line\n50\\% kept");
    expect(md).toBe("As in [nguyen2024, other].\n50% kept\n");
  });

  it("does not touch commands inside math", () => {
    const md = latexToMarkdown("$\\textbf{x}~y$");
    expect(md).toBe("$\\textbf{x}~y$\n");
  });

  it("strips leading indentation so text does not become a code block", () => {
    expect(latexToMarkdown("    indented text")).toBe("indented text\n");
  });

  it("passes unbalanced input through without throwing", () => {
    expect(() => latexToMarkdown("\\textbf{never closed and $x")).not.toThrow();
  });
});

describe("stripComments", () => {
  it("keeps escaped percent signs", () => {
    expect(stripComments("a \\% b % c")).toBe("a \\% b");
  });
});
