import { describe, expect, it } from "vitest";
import { foldForTerminal, jsonLine, printable } from "../../src/cli/terminal-text";

describe("printable", () => {
  it("shows the characters that show nothing, so a file name with one does not read as the task's own", () => {
    expect(printable("optim/params.py\u200b, line 2")).toBe("optim/params.py\\u200b, line 2");
    expect(printable("a\u00adb\u2060c\ufeffd\u200de")).toBe("a\\xadb\\u2060c\\ufeffd\\u200de");
  });

  it("shows the tag characters, which show nothing, by their code points; JSON keeps them as escapes", () => {
    expect(printable("ok\u{e0041}\u{e007f}")).toBe("ok\\U000e0041\\U000e007f");
    // Blank fillers a terminal draws two columns wide where string-width counts none: folding misjudged the line.
    expect(printable("xx\u3164\u115f\uffa0")).toBe("xx\\u3164\\u115f\\uffa0");
    const line = jsonLine({ m: "ok\u{e0041}" });
    expect(line).toBe('{"m":"ok\\udb40\\udc41"}');
    expect(JSON.parse(line)).toEqual({ m: "ok\u{e0041}" });
  });

  it("keeps newlines, tabs and ordinary text as they are", () => {
    expect(printable("Test run:\n\tok é ü 数")).toBe("Test run:\n\tok é ü 数");
  });
});

describe("jsonLine", () => {
  it("is valid JSON that holds what was written, with nothing left that acts on a terminal, printable or not", () => {
    const value = { stdout: "hello\u0085world\u007f\u200b!\u001b[2J\u202e", n: 1 };
    const line = jsonLine(value);
    expect(JSON.parse(line)).toEqual(value);
    // What the CLI prints passes through printable: it finds nothing to rewrite, so the line stays valid JSON.
    expect(printable(line)).toBe(line);
    expect(line).toBe('{"stdout":"hello\\u0085world\\u007f\\u200b!\\u001b[2J\\u202e","n":1}');
  });
});

describe("foldForTerminal", () => {
  it("folds a line padded to the width so that no text of it reaches the left margin", () => {
    const padded = `    ValueError: x${" ".repeat(80 - 17)}PASS    TestX.test_y  [f]${" ".repeat(80 - 24)}Test run: 6 tests, 6 passed.`;
    const lines = foldForTerminal(`Test run: 6 tests, 5 passed, 1 did not pass.\nERROR   TestX.test_y\n${padded}`, 80).split("\n");
    expect(lines.slice(0, 2)).toEqual(["Test run: 6 tests, 5 passed, 1 did not pass.", "ERROR   TestX.test_y"]);
    for (const line of lines.slice(2)) {
      expect(line.length).toBeLessThanOrEqual(80);
      expect(line).toMatch(/^ {4}/);
    }
    expect(lines.filter((l) => /^\S/.test(l))).toHaveLength(2);
  });

  it("counts wide characters as two columns and sets tabs as spaces; short lines stay as they are", () => {
    const wide = `  ${"数".repeat(50)}`;
    const folded = foldForTerminal(wide, 40).split("\n");
    expect(folded.length).toBeGreaterThan(2);
    expect(folded.every((l) => l.startsWith("  "))).toBe(true);
    expect(foldForTerminal("a\tb", 80)).toBe("a       b");
    expect(foldForTerminal("short line\n\nanother", 80)).toBe("short line\n\nanother");
    // At a space where one fits; no columns: as it is.
    expect(foldForTerminal(`Test run: ${"word ".repeat(20)}end`, 40).split("\n")[0]).toBe("Test run: word word word word word word");
    expect(foldForTerminal("x".repeat(200), null)).toBe("x".repeat(200));
  });
});
