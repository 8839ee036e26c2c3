/**
 * A Python source file's text from its bytes, as Python reads it (PEP 263): UTF-8, unless its first or second
 * line declares another encoding (`# -*- coding: latin-1 -*-`). The runtimes take text and hand it to Python as
 * UTF-8, so a declared encoding is decoded here (iconv-lite, which knows Python's codec names) and the
 * declaration then says `utf-8`: the same program. A declaration Python refuses is the file's SyntaxError.
 */
import iconv from "iconv-lite";

/** A coding declaration (PEP 263), on a comment line of its own among the file's first two. */
const DECLARATION = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;

/**
 * What {@link decodePythonSource} gives: the text, or why Python would not compile the file (`message`, a
 * SyntaxError as Python words it, and the 1-based `line` it is about).
 */
export type PythonSource = { text: string } | { error: { line: number; message: string } };

/** A codec name as iconv-lite compares them: lower case, letters and digits. */
const canonical = (name: string) => name.toLowerCase().replace(/[^0-9a-z]/g, "");

/** UTF-8 by its other names (Python's aliases). */
const UTF8 = new Set(["utf8", "utf8sig", "u8", "utf", "cp65001"]);

/**
 * The encodings a declaration may name, by {@link canonical} names: Python's ASCII-compatible text codecs (Python
 * refuses the others for source, "encoding problem: utf-16"), those iconv-lite decodes too.
 */
const SOURCE_ENCODINGS =
  /^(ascii|usascii|646|latin([1-9]|10)?|l([1-9]|10)|iso8859([1-9]|1[0-6])|8859|cp819|cp\d{3,4}|windows125\d|koi8[ru]|mac(roman|cyrillic|greek|iceland|latin2|turkish)|shiftjis|sjis|eucjp|euckr|gbk|gb2312|gb18030|big5|big5hkscs)$/;

/** EBCDIC code pages among the `cp` names: not ASCII-compatible, so no source encoding. */
const EBCDIC = new Set(["cp037", "cp273", "cp424", "cp500", "cp875", "cp1026", "cp1140"]);

/** `bytes` as Latin-1: one character per byte. */
function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return s;
}

/** The 1-based line of `bytes` that holds byte `at`. */
function lineOf(bytes: Uint8Array, at: number): number {
  let line = 1;
  for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line += 1;
  return line;
}

/** The index of the first byte of `bytes` that does not begin a well-formed UTF-8 character (its length when all do). */
function firstBadUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i] as number;
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (n < 0) return i;
    // The second byte's range where the first byte narrows it (no overlong form, no surrogate, nothing past U+10FFFF).
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= n; k++) {
      const d = bytes[i + k];
      if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return bytes.length;
}

/**
 * The text of a Python file's bytes (PEP 263): UTF-8 by default; a declared source encoding is decoded, and the
 * declaration's name becomes `utf-8` in the text. `error`: bytes that are not well-formed UTF-8 in a file that
 * declares no other encoding, or a declaration Python refuses ("unknown encoding", "encoding problem").
 */
export function decodePythonSource(bytes: Uint8Array): PythonSource {
  const head = latin1(bytes.subarray(0, 2048)).split("\n").slice(0, 2);
  let declared: { line: number; name: string; at: number } | null = null;
  for (const [i, line] of head.entries()) {
    const m = DECLARATION.exec(line);
    if (m?.[1]) {
      declared = { line: i, name: m[1], at: (m.index ?? 0) + m[0].length - m[1].length };
      break;
    }
    // Only a comment or blank first line lets the second one declare.
    if (!/^[ \t\f]*(#.*)?\r?$/.test(line)) break;
  }
  const name = declared ? canonical(declared.name) : "utf8";
  if (declared && !UTF8.has(name)) {
    const at = declared.line + 1;
    if (!SOURCE_ENCODINGS.test(name) || EBCDIC.has(name) || !iconv.encodingExists(declared.name)) {
      const known = iconv.encodingExists(declared.name) || /^(utf(16|32|7)|ucs[24])/.test(name);
      const why = known ? `encoding problem: ${declared.name}` : `unknown encoding: ${declared.name}`;
      return {
        error: { line: at, message: `SyntaxError: ${why} (line ${at}: Python reads no source file in it; save the file as UTF-8)` },
      };
    }
    const lines = iconv.decode(Buffer.from(bytes), declared.name).split("\n");
    const line = lines[declared.line] ?? "";
    lines[declared.line] = `${line.slice(0, declared.at)}utf-8${line.slice(declared.at + declared.name.length)}`;
    return { text: lines.join("\n") };
  }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    const at = firstBadUtf8(bytes);
    const line = lineOf(bytes, at);
    const byte = (bytes[at] ?? 0).toString(16).padStart(2, "0");
    return {
      error: {
        line,
        message: `SyntaxError: the file is not UTF-8 text (line ${line}: byte 0x${byte}) and declares no other encoding; Python reads source files as UTF-8 (PEP 263): save it as UTF-8`,
      },
    };
  }
}
