/**
 * The source lines the host puts under a traceback's frame lines: the
 * interpreter that runs code under test cannot read test.py (its file is
 * removed once the harness has read it), so the host adds test.py's lines, and
 * the lines of a check's caller, from the run's own files. Only where the
 * harness marks a frame of test.py's own code (docs/security.md, "Verdicts":
 * code under test cannot have a line of test.py shown by writing a frame line).
 */

import type { RunRequest } from "./runtime";

/**
 * A traceback line from the harness (`  File "test.py", line 12, in test_x`)
 * with the source line under it, taken from the run's own files (the
 * interpreter sends only where the call was).
 */
export function withSourceLine(caller: string, req: RunRequest): string {
  // (A function's name as code has it, `test_x` or `<module>`: one with a quote or a space in it was written as
  // more of the line, `File "test.py", line 60, in q", line 2, in q`.)
  const m = /^ {2}File "([^"]+)", line (\d+), in [\p{L}\p{N}_.<>]+\n$/u.exec(caller);
  if (!m) return caller;
  const file = m[1] as string;
  const text =
    file === "test.py" ? req.tests : file === req.targetPath ? req.candidate : Object.hasOwn(req.files, file) ? req.files[file] : undefined;
  const line = text === undefined ? undefined : linesOf(req, text)[Number(m[2]) - 1]?.trim();
  return line ? `${caller}    ${line}\n` : caller;
}

/**
 * A traceback from the interpreter with test.py's source line under each of its frames of test.py's own code,
 * as CPython shows it: the interpreter that runs code under test cannot read test.py (its file is removed once
 * the harness has read it), so its tracebacks give test.py's frames without their lines. `testFrames`: the
 * indices (0-based) of the traceback's lines that are such frames, as the harness sends them with it (any
 * other value: none). A line elsewhere that names test.py (code compiled under its name; a file name, function
 * name, source line or exception message of several lines written by code under test) gets no line of test.py.
 */
export function withTestPyLines(traceback: string, req: RunRequest, testFrames: unknown): string {
  if (!Array.isArray(testFrames) || testFrames.length === 0 || !traceback.includes('  File "test.py", line ')) return traceback;
  const marked = new Set(testFrames.filter((i): i is number => Number.isSafeInteger(i)));
  const lines = traceback.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    out.push(line);
    const m = marked.has(i) ? /^ {2}File "test\.py", line (\d+), in [\p{L}\p{N}_.<>]+$/u.exec(line) : null;
    if (m && !(lines[i + 1] ?? "").startsWith("    ")) {
      const source = linesOf(req, req.tests)[Number(m[1]) - 1]?.trim();
      if (source) out.push(`    ${source}`);
    }
  }
  return out.join("\n");
}

/** The lines of each file of a run, split once: a run may make thousands of checks in a file of a million lines. */
const splitFiles = new WeakMap<RunRequest, Map<string, string[]>>();

function linesOf(req: RunRequest, text: string): string[] {
  let files = splitFiles.get(req);
  if (!files) {
    files = new Map();
    splitFiles.set(req, files);
  }
  let lines = files.get(text);
  if (!lines) {
    lines = text.split("\n");
    files.set(text, lines);
  }
  return lines;
}
