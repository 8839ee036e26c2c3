/**
 * A Python source file's text from its bytes, as Python reads it (PEP 263): UTF-8, unless its first or second
 * line declares another encoding (`# -*- coding: latin-1 -*-`). The runtimes take text and hand it to Python as
 * UTF-8, so a declared encoding is decoded here (iconv-lite, which knows Python's codec names) and the
 * declaration then says `utf-8`: the same program.
 */
import iconv from "iconv-lite";

/** A coding declaration (PEP 263), on a comment line of its own among the file's first two. */
const DECLARATION = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;

/** What {@link decodePythonSource} gives: the text, or where the bytes stop being text of the file's encoding. */
export type PythonSource = { text: string } | { undecodable: { line: number; byte: number } };

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
 * The text of a Python file's bytes (PEP 263): UTF-8 by default; a declared encoding that this runtime can decode
 * is decoded, and the declaration's name becomes `utf-8` in the text (one this runtime does not know is read as
 * UTF-8). `undecodable`: the 1-based line and the first byte where UTF-8 bytes are not well formed.
 */
export function decodePythonSource(bytes: Uint8Array): PythonSource {
  const head = latin1(bytes.subarray(0, 2048)).split("\n").slice(0, 2);
  let declared: { line: number; name: string; at: number } | null = null;
  for (const [i, line] of head.entries()) {
    const m = DECLARATION.exec(line);
    if (m?.[1]) {
      declared = { line: i, name: m[1].toLowerCase().replace(/_/g, "-"), at: (m.index ?? 0) + m[0].length - m[1].length };
      break;
    }
    // Only a comment or blank first line lets the second one declare.
    if (!/^[ \t\f]*(#.*)?\r?$/.test(line)) break;
  }
  if (!declared || /^utf-?8(-sig)?$/.test(declared.name) || !iconv.encodingExists(declared.name)) {
    // (An encoding this runtime does not know is read as UTF-8, as a file without a declaration is.)
    try {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
    } catch {
      const at = firstBadUtf8(bytes);
      return { undecodable: { line: lineOf(bytes, at), byte: bytes[at] ?? 0 } };
    }
  }
  const lines = iconv.decode(Buffer.from(bytes), declared.name).split("\n");
  const line = lines[declared.line] ?? "";
  lines[declared.line] = `${line.slice(0, declared.at)}utf-8${line.slice(declared.at + declared.name.length)}`;
  return { text: lines.join("\n") };
}
