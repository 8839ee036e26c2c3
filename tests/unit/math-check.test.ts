import { describe, expect, it } from "vitest";
import { findMathProblems, LOST_AFTER_FENCE, mathProblemsText } from "../../src/core/math-check";

describe("findMathProblems", () => {
  it("accepts inline and display math in Markdown and LaTeX", () => {
    const instruction = "Compute $x^2$ and\n\n$$\n\\frac{a}{b}\n$$\n";
    const paper = "\\section{M}\nWe use $\\alpha$ and\n\\begin{equation}\ny = \\sum_i x_i\n\\end{equation}\n";
    expect(findMathProblems({ instruction, paper })).toEqual([]);
  });

  it("names the file and line of a formula that does not render", () => {
    const instruction = "Intro.\n\n$$a = \\frac{1}{2}, \\qquad\nb = \\sqrt{c}$$ (note $d$)\n";
    const problems = findMathProblems({ instruction, paper: "" });
    expect(problems).toHaveLength(1);
    // (An opening `$$` with text after it starts a block, and that text is not shown.)
    expect(problems[0]).toMatchObject({ file: "instruction.md", line: 3, message: LOST_AFTER_FENCE });
    const bad = findMathProblems({ instruction: "x $\\fracc{1}{2}$", paper: "\\[ \\unknowncommand \\]" });
    expect(bad.map((p) => p.file)).toEqual(["instruction.md", "paper.tex"]);
    expect(bad[0]?.message).toContain("\\fracc");
  });

  it("gives the paper's own line of a formula the parser re-printed, and of a stray brace", () => {
    const head = "\\section{A}\nSome text $x+1$ here, {grouped}.\n\nMore text.\nline5\n";
    for (const [bad, line] of [
      ["}", 6],
      ["$\\frac{1}{2$", 6],
      ["$x^1^2$", 6],
      // The line inside the environment that KaTeX points at.
      ["\\begin{equation}\nx^1^2\n\\end{equation}", 7],
    ] as const) {
      const problems = findMathProblems({ instruction: "", paper: `${head}${bad}\nafter\n` });
      expect(
        problems.map((p) => p.line),
        bad,
      ).toEqual([line]);
    }
  });

  it("in a formula of several lines, names the line KaTeX points at", () => {
    const paper = [
      "\\section{A}",
      "\\begin{align}",
      "a &= b \\\\",
      "c &= \\frac{1}{2} \\\\",
      "d &= \\foo{x} + 1",
      "\\end{align}",
      "\\begin{equation}",
      "  e = mc^2",
      "  + \\left( x",
      "\\end{equation}",
    ].join("\n");
    const problems = findMathProblems({ instruction: "", paper });
    // \foo on line 5; a missing \right points at the end of the input, so the formula's first line.
    expect(problems.map((p) => [p.line, p.message.slice(0, 30)])).toEqual([
      [5, "Undefined control sequence: \\f"],
      [7, "Expected '\\right', got 'EOF' a"],
    ]);
  });

  it("in instruction.md, names the line of the formula's fault, not of its opening fence", () => {
    const instruction = [
      "Intro.",
      "",
      "$$",
      "a = b",
      "+ \\nope{c}",
      "$$",
      "",
      "Also $x +",
      "\\nada{y}$ and",
      "",
      "$$",
      "\\frac{1}{2",
      "$$",
    ].join("\n");
    const problems = findMathProblems({ instruction, paper: "" });
    // \nope on line 5 (the fence is line 3), \nada on line 9 (the inline formula starts on line 8); a group
    // left open points at the end of the input: the formula's first line, its fence.
    expect(problems.map((p) => [p.line, p.message.slice(0, 33)])).toEqual([
      [5, "Undefined control sequence: \\nope"],
      [9, "Undefined control sequence: \\nada"],
      [11, "Unexpected end of input in a macr"],
    ]);
  });

  it("in instruction.md, text after an opening $$ on its line, which is not shown, is a problem: the formula rendered or not", () => {
    const instruction = [
      "Intro.",
      "",
      "$$n = n_A + n_B",
      "$$",
      "",
      "- item",
      "  $$\\bar x = 1, \\qquad",
      "    M = 2.$$",
      "",
      "$$ a = b $$ and $$",
      "c",
      "$$",
    ].join("\n");
    const problems = findMathProblems({ instruction, paper: "" });
    expect(problems.map((p) => [p.line, p.formula, p.message])).toEqual([
      [3, "n = n_A + n_B", LOST_AFTER_FENCE],
      [7, "\\bar x = 1, \\qquad", LOST_AFTER_FENCE],
    ]);
    expect(mathProblemsText(problems)).toContain("instruction.md, line 3: a line that starts with $$ opens a display block");
  });

  it("lists each problem as the file writes it: its delimiters, a command in the text, one line each", () => {
    const instruction = "Text.\n\n$$a = \\frac{1}{2$$\n\nand $x^1^2$.\n";
    const paper = "\\section{A}\nSome \\method{} here.\n\\[ \\nope \\]\n\\begin{equation}\nx^1^2\n\\end{equation}\n";
    const text = mathProblemsText(findMathProblems({ instruction, paper }));
    const lines = text.split("\n");
    expect(lines[0]).toBe("5 problems:");
    expect(lines).toHaveLength(6);
    expect(lines[1]).toMatch(/^ {2}instruction\.md, line 3: .* in \$\$a = \\frac\{1\}\{2\$\$$/);
    expect(lines[2]).toMatch(/^ {2}instruction\.md, line 5: Double superscript .* in \$x\^1\^2\$$/);
    expect(text).toMatch(/paper\.tex, line 2: the command \\method is not known .* at \\method\n/);
    expect(text).toContain(" in \\[ \\nope \\]");
    expect(text).toContain(" in \\begin{equation} x^1^2 \\end{equation}");
    // KaTeX's underlining (U+0332) is left out: its message gives the position.
    expect(text).not.toContain("\u0332");
    expect(mathProblemsText([])).toBe("");
  });
});
