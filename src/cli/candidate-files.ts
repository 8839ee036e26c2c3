/**
 * The candidate files `recode test` grades: the files a command line names (a folder standing for the `.py` files
 * in it), each read safely (a regular file, no link followed, no read that waits, a size cap) and as Python reads
 * source (python-source.ts).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CollectionError } from "../core/results";
import { CommandInputError } from "./command-error";
import { decodePythonSource } from "./python-source";
import { readRegularFile, UnreadFileError } from "./safe-read";

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

/** Largest candidate file read, in bytes. */
export const MAX_CANDIDATE_BYTES = 2 * 1024 * 1024;

/**
 * The bytes of a candidate file: a regular file, not a link (to a classmate's file, or a file of the grader's), not a
 * pipe or device (whose read would wait or never end), at most {@link MAX_CANDIDATE_BYTES}.
 * @throws CandidateReadError saying which of these it is not, or why it cannot be read.
 */
function candidateBytes(path: string): Buffer {
  try {
    return readRegularFile(path, MAX_CANDIDATE_BYTES);
  } catch (e) {
    if (!(e instanceof UnreadFileError)) throw e;
    // (A link is not followed: to a classmate's file or any file of the grader's.)
    throw new CandidateReadError(
      path,
      e.reason === "it is a symbolic link" ? "it is a symbolic link; grade the file itself (copy it in)" : e.reason,
    );
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
  // (As Python's traceback of a file that does not compile ends: where, then the error; no frame ran.)
  return { invalid: { message, file: target, line, traceback: `  File "${target}", line ${line}\n${message}\n` } };
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
