/** A Python file's text from its bytes as Python reads it (PEP 263), with python3 as the oracle for declared encodings. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodePythonSource } from "../../src/cli/python-source";

const dir = mkdtempSync(join(tmpdir(), "recode-source-"));
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))));

/** The value of `s` when python3 runs the file's bytes, and when it runs the decoded text as UTF-8. */
function pythonReads(file: Buffer, text: string): [string, string] {
  const run = (b: Buffer, name: string) => {
    const path = join(dir, name);
    writeFileSync(path, b);
    const code = `import json; ns = {}; exec(compile(open(${JSON.stringify(path)}, "rb").read(), "f.py", "exec"), ns); print(json.dumps(ns["s"]))`;
    return JSON.parse(execFileSync("python3", ["-c", code], { encoding: "utf8" })) as string;
  };
  return [run(file, "bytes.py"), run(Buffer.from(text, "utf8"), "text.py")];
}

describe("decodePythonSource", () => {
  it("reads UTF-8 as it is", () => {
    const text = '# Zoë\ns = "naïve"\n';
    expect(decodePythonSource(Buffer.from(text, "utf8"))).toEqual({ text });
  });

  it.each([
    ["latin-1", "# -*- coding: latin-1 -*-\n", [0xe9, 0x85, 0xa0]],
    ["cp1252", "#!/usr/bin/env python3\n# vim: set fileencoding=cp1252 :\n", [0xe9, 0x80, 0x93]],
    ["iso-8859-15", "# coding=iso-8859-15\n", [0xa4, 0xe9]],
  ])("decodes a file that declares %s as Python does, and its declaration then says utf-8", (_name, head, raw) => {
    const file = bytes(head, 's = "', raw, '"\n');
    const got = decodePythonSource(file);
    if (!("text" in got)) throw new Error("not decoded");
    expect(got.text).toMatch(/coding[:=] ?utf-8/);
    const [fromBytes, fromText] = pythonReads(file, got.text);
    expect(fromText).toBe(fromBytes);
  });

  it("takes a declaration on the second line only after a comment or blank first line", () => {
    const late = decodePythonSource(bytes("x = 1\n# coding: latin-1\n", 's = "', [0xe9], '"\n'));
    expect(late).toMatchObject({ error: { line: 3, message: expect.stringContaining("not UTF-8 text (line 3: byte 0xe9)") } });
  });

  it("says where bytes that are not UTF-8 begin, in a file that declares no other encoding", () => {
    expect(decodePythonSource(bytes("x = 1\n# Ren", [0xe9], "\n"))).toEqual({
      error: {
        line: 2,
        message:
          "SyntaxError: the file is not UTF-8 text (line 2: byte 0xe9) and declares no other encoding; Python reads source files as UTF-8 (PEP 263): save it as UTF-8",
      },
    });
    // An overlong form and an encoded surrogate are not UTF-8 either.
    expect(decodePythonSource(bytes("a\n\nb = '", [0xc0, 0xaf], "'\n"))).toMatchObject({
      error: { line: 3, message: expect.stringContaining("byte 0xc0") },
    });
    expect(decodePythonSource(bytes("s = '", [0xed, 0xa0, 0x80], "'\n"))).toMatchObject({
      error: { line: 1, message: expect.stringContaining("byte 0xed") },
    });
  });

  // (utf-7 is left out: Python compiles it, this reader refuses it, the safe side.)
  it.each([
    "latin-1",
    "cp1252",
    "iso-8859-15",
    "koi8-r",
    "shift_jis",
    "euc-jp",
    "gbk",
    "big5",
    "mac-roman",
    "utf-8-sig",
    "cp65001",
    "ascii",
    "cp437",
    "latin10",
    "utf-16",
    "binary",
    "cesu8",
    "cp037",
    "no-such-codec",
    "ucs2",
    "rot13",
    "base64",
  ])("a file that declares %s compiles here when it compiles in python3", (name) => {
    const file = Buffer.from(`# -*- coding: ${name} -*-\ns = 'x'\n`, "latin1");
    const path = join(dir, "declared.py");
    writeFileSync(path, file);
    let python = true;
    try {
      execFileSync("python3", ["-c", `compile(open(${JSON.stringify(path)}, "rb").read(), "f.py", "exec")`], { stdio: "pipe" });
    } catch {
      python = false;
    }
    const got = decodePythonSource(file);
    expect("text" in got, JSON.stringify(got)).toBe(python);
    if (!("text" in got)) expect(got.error.message).toMatch(/^SyntaxError: (unknown encoding|encoding problem): /);
  });
});
