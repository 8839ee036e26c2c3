import { describe, expect, it } from "vitest";
import { jsonLine, printable } from "../../src/cli/terminal-text";

describe("printable", () => {
  it("shows the characters that show nothing, so a file name with one does not read as the task's own", () => {
    expect(printable("optim/params.py\u200b, line 2")).toBe("optim/params.py\\u200b, line 2");
    expect(printable("a\u00adb\u2060c\ufeffd\u200de")).toBe("a\\xadb\\u2060c\\ufeffd\\u200de");
  });

  it("shows the tag characters, which show nothing, by their code points; JSON keeps them as escapes", () => {
    expect(printable("ok\u{e0041}\u{e007f}")).toBe("ok\\U000e0041\\U000e007f");
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
