/**
 * Whether a task's expected.json was recorded from its test.py and its
 * canonical solution as they are now. `recode tasks record` keeps the SHA-256
 * of test.py (`testPySha256`) and of the canonical solution with the
 * repository files it runs beside (`canonicalSha256`) in expected.json; a
 * test.py changed since (a test's input, a new test), or a canonical solution
 * corrected since, makes the recorded values another task's, and a candidate
 * judged against them would be judged wrongly. Platform-free.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { Task } from "./task";
import { parseExpected } from "./values";

/** What a recording is made from: test.py, the canonical solution, and the repository files beside it. */
export type RecordedFrom = Pick<Task, "expected" | "tests" | "canonical" | "repo"> & { meta: Pick<Task["meta"], "target_file_path"> };

const unixLines = (text: string): string => text.replace(/\r\n?/g, "\n");

/**
 * SHA-256 of test.py's text as 64 lower-case hex digits, line ends read as `\n` (a checkout that writes
 * `\r\n` has the same test.py).
 */
export function testPyDigest(testPy: string): string {
  return bytesToHex(sha256(utf8ToBytes(unixLines(testPy))));
}

/**
 * SHA-256 of the canonical solution as a recording runs it, as 64 lower-case hex digits: canonical.py's text
 * and every repository file but the target (which canonical.py replaces), by path, line ends read as `\n`. A
 * helper of repo/ that canonical.py calls shapes the recorded values as much as canonical.py does.
 */
export function canonicalDigest(task: Omit<RecordedFrom, "expected" | "tests">): string {
  const target = task.meta.target_file_path;
  const parts = [`${target}\0${unixLines(task.canonical)}\0`];
  for (const path of Object.keys(task.repo).sort()) {
    if (path !== target) parts.push(`${path}\0${unixLines(task.repo[path] as string)}\0`);
  }
  return bytesToHex(sha256(utf8ToBytes(parts.join(""))));
}

/**
 * Why `task`'s expected.json is not a recording of its test.py and canonical solution as they are now, or null
 * when it is, or cannot be told: no expected.json, one that does not parse (its own error says so where it is
 * read), or one recorded before the digests were kept.
 */
export function staleRecording(task: RecordedFrom): string | null {
  if (task.expected === null) return null;
  let recorded: { testPySha256?: string; canonicalSha256?: string };
  try {
    recorded = parseExpected(task.expected);
  } catch {
    return null;
  }
  if (recorded.testPySha256 !== undefined && recorded.testPySha256 !== testPyDigest(task.tests))
    return "expected.json was recorded from another test.py (test.py changed since the task was recorded)";
  if (recorded.canonicalSha256 !== undefined && recorded.canonicalSha256 !== canonicalDigest(task))
    return "expected.json was recorded from another canonical solution (canonical.py or a file of repo/ changed since the task was recorded)";
  return null;
}
