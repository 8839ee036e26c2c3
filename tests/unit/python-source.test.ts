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
    expect(late).toEqual({ undecodable: { line: 3, byte: 0xe9 } });
  });

  it("says where bytes that are not UTF-8 begin, in a file that declares no other encoding", () => {
    expect(decodePythonSource(bytes("x = 1\n# Ren", [0xe9], "\n"))).toEqual({ undecodable: { line: 2, byte: 0xe9 } });
    // An overlong form and an encoded surrogate are not UTF-8 either.
    expect(decodePythonSource(bytes("a\n\nb = '", [0xc0, 0xaf], "'\n"))).toMatchObject({ undecodable: { line: 3, byte: 0xc0 } });
    expect(decodePythonSource(bytes("s = '", [0xed, 0xa0, 0x80], "'\n"))).toMatchObject({ undecodable: { line: 1, byte: 0xed } });
  });

  it("reads a file that names an encoding this runtime does not know as UTF-8", () => {
    const text = '# coding: no-such-codec\ns = "é"\n';
    expect(decodePythonSource(Buffer.from(text, "utf8"))).toEqual({ text });
  });
});
