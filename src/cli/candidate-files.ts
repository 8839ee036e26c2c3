/**
 * The candidate files `recode test` grades: the files a command line names (a folder standing for the `.py` files
 * in it), each read safely (a regular file, no link followed, no read that waits, a size cap) and as Python reads
 * source (python-source.ts).
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CollectionError } from "../core/results";
import { CommandInputError } from "./command-error";
import { decodePythonSource } from "./python-source";

/** A candidate file that cannot be read (`reason`: "no such file", ...). */
export class CandidateReadError extends CommandInputError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`cannot read the candidate file ${path}: ${reason}`);
  }
}

/** A candidate file to grade: its path as given, and its text or why it cannot be read. */
export type Candidate =
  | { path: string; text: string }
  | { path: string; error: string; reason: string }
  | { path: string; invalid: CollectionError };

const FILE_ERRORS: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "it is a folder, not a file",
  EACCES: "permission denied",
  // (O_NOFOLLOW: a link is not followed, to a classmate's file or any file of the grader's.)
  ELOOP: "it is a symbolic link; grade the file itself (copy it in)",
};

/** Largest candidate file read, in bytes. */
export const MAX_CANDIDATE_BYTES = 2 * 1024 * 1024;

/**
 * The bytes of a candidate file: a regular file, not a link (to a classmate's file, or a file of the grader's), not a
 * pipe or device (whose read would wait or never end), at most {@link MAX_CANDIDATE_BYTES}.
 * @throws CandidateReadError saying which of these it is not, or why it cannot be read.
 */
function candidateBytes(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    // (A name that is not UTF-8 reaches Node with U+FFFD in place of its bytes, a name no file has.)
    if (code === "ENOENT" && path.includes("\uFFFD"))
      throw new CandidateReadError(path, "its name is not UTF-8 text, so it cannot be opened by name; rename the file");
    throw new CandidateReadError(path, FILE_ERRORS[code] ?? (e as Error).message);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new CandidateReadError(path, FILE_ERRORS.EISDIR as string);
    if (!st.isFile()) throw new CandidateReadError(path, "it is not a regular file (a pipe, a socket or a device)");
    const tooBig = new CandidateReadError(path, `it is larger than ${MAX_CANDIDATE_BYTES / 1024 / 1024} MB`);
    if (st.size > MAX_CANDIDATE_BYTES) throw tooBig;
    const bytes = readFileSync(fd);
    if (bytes.length > MAX_CANDIDATE_BYTES) throw tooBig;
    return bytes;
  } catch (e) {
    if (e instanceof CandidateReadError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? "";
    throw new CandidateReadError(path, FILE_ERRORS[code] ?? (e as Error).message);
  } finally {
    closeSync(fd);
  }
}

/**
 * The candidate file's text (Python's reading of its bytes: python-source.ts), or, for bytes that are not text of
 * the file's encoding, the collection error Python gives such a file (the file does not compile: a verdict).
 * @throws CommandInputError when the file cannot be read.
 */
function readCandidate(path: string, target: string): { text: string } | { invalid: CollectionError } {
  const source = decodePythonSource(candidateBytes(path));
  if ("text" in source) return source;
  const { line, message } = source.error;
  return { invalid: { message, file: target, line, traceback: "" } };
}

/**
 * The files the command line names: each argument a file, or a folder that stands for the `.py` files directly in
 * it (sorted by name). `several`: more than one argument, or a folder (the text output then ends with a table of
 * every file, and a file that cannot be read is reported and the others graded). Throws CommandInputError for a
 * folder with no `.py` file.
 */
export function candidateFiles(args: string[]): { paths: string[]; several: boolean } {
  const paths: string[] = [];
  let folder = false;
  for (const arg of args) {
    let isDir = false;
    try {
      isDir = statSync(arg).isDirectory();
    } catch {
      // A missing file: said as the file is read.
    }
    if (!isDir) {
      paths.push(arg);
      continue;
    }
    folder = true;
    // Every entry but folders: a link, a pipe or a device named .py is that file's "not judged" (readCandidate).
    const inside = readdirSync(arg, { withFileTypes: true })
      .filter((e) => e.name.endsWith(".py") && !e.isDirectory())
      .map((e) => e.name)
      .sort();
    if (inside.length === 0) throw new CommandInputError(`the candidate folder ${arg} holds no .py file`);
    paths.push(...inside.map((name) => join(arg, name)));
  }
  return { paths, several: args.length > 1 || folder };
}

/**
 * Read every candidate before any Python starts. One that cannot be read is an error of the command when it is the
 * only one (CommandInputError); among several, it is that file's "not judged", and the others are graded.
 */
export function readCandidates(paths: string[], several: boolean, target: string): Candidate[] {
  return paths.map((path) => {
    try {
      return { path, ...readCandidate(path, target) };
    } catch (e) {
      if (!several || !(e instanceof CandidateReadError)) throw e;
      return { path, error: e.message, reason: e.reason };
    }
  });
}
