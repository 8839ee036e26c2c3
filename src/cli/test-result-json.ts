/**
 * What `recode test` says of one graded run: its JSON object (`--json`), and the
 * tests test.py gained since the recording (the tests that did not load are
 * core/unloaded-tests.ts's).
 */
import type { Mismatch, RunResult } from "../core/results";
import { definesTest, type Task } from "../core/task";

/**
 * The JSON object `recode test --json` prints for a graded file (one a line), after `"candidate"` (the file's path
 * as given) and with `"error"` when the file was not judged.
 */
export interface TestCommandJson {
  solved: boolean;
  /**
   * Each test; `subtests`: every subTest that failed, raised or was skipped, with its parameters as unittest
   * prints them (`(bad=-1)`); `line`: the line of the target file where it failed (or where the time limit
   * stopped it), or null; `durationMs` in ms; `traceback`, `stdout`, `stderr`: as captured (each capped, as in
   * the page); `mismatch`: the first failed check's structured difference (key, kind, where, expected, actual,
   * detail, and the `outcome()` call it came from), or null.
   */
  tests: {
    id: string;
    status: string;
    message: string;
    interface: string | null;
    line: number | null;
    durationMs: number;
    traceback: string;
    stdout: string;
    stderr: string;
    subtests: { params: string; status: string; message: string }[];
    mismatch: Mismatch | null;
  }[];
  collectionError: string | null;
  /** Where the collection error is: a file of the run (the candidate's path, test.py, a repository file) and its line, either null when not known. */
  collectionErrorAt: { file: string | null; line: number | null } | null;
  /** The collection error's traceback, with what the code printed while it was imported (as the text output shows it), or null. */
  collectionErrorTraceback: string | null;
  incident: { kind: string; message: string } | null;
  counts: RunResult["counts"];
}

/** The JSON form of a run result. */
export function testCommandJson(r: RunResult): TestCommandJson {
  return {
    solved: r.allPassed,
    tests: r.tests.map((t) => ({
      id: t.id,
      status: t.status,
      message: t.message,
      interface: t.interface,
      line: t.line,
      durationMs: Math.round(t.durationMs * 10) / 10,
      traceback: t.traceback,
      stdout: t.stdout,
      stderr: t.stderr,
      subtests: t.subtests.map((s) => ({ params: s.params, status: s.status, message: s.message })),
      mismatch: t.mismatch,
    })),
    collectionError: r.collectionError ? r.collectionError.message : null,
    collectionErrorAt: r.collectionError ? { file: r.collectionError.file, line: r.collectionError.line } : null,
    collectionErrorTraceback: r.collectionError ? r.collectionError.traceback : null,
    incident: r.incident ? { kind: r.incident.kind, message: r.incident.message } : null,
    counts: r.counts,
  };
}

/**
 * Tests of test.py's text that the recording (`known`) does not know (test.py changed since it was recorded); none
 * when the run is not trusted. Only tests test.py defines count: a test the candidate slipped into the run (one of
 * unittest's own classes, made by code under test) fails as not recorded, and does not make the task look stale.
 */
export function unrecordedTests(r: RunResult, task: Task, known: ReadonlyMap<string, unknown> | null): string[] {
  if (known === null || r.incident?.kind === "tampered") return [];
  return r.tests.map((t) => t.id).filter((id) => !known.has(id) && definesTest(task.tests, id));
}
