/**
 * Whether a task's expected.json was recorded from its test.py as it is now.
 * `recode tasks record` keeps the SHA-256 of test.py in expected.json
 * (`testPySha256`); a test.py changed since (a test's input, a new test) makes
 * the recorded values another test.py's, and a candidate judged against them
 * would be judged wrongly. Platform-free.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { parseExpected } from "./values";

/**
 * SHA-256 of test.py's text as 64 lower-case hex digits, line ends read as `\n` (a checkout that writes
 * `\r\n` has the same test.py).
 */
export function testPyDigest(testPy: string): string {
  return bytesToHex(sha256(utf8ToBytes(testPy.replace(/\r\n?/g, "\n"))));
}

/**
 * Why `expected` (expected.json's text) is not a recording of `testPy` (test.py's text), or null when it is,
 * or cannot be told: no expected.json, one that does not parse (its own error says so where it is read), or
 * one recorded before the digest was kept.
 */
export function staleRecording(expected: string | null, testPy: string): string | null {
  if (expected === null) return null;
  let digest: string | undefined;
  try {
    digest = parseExpected(expected).testPySha256;
  } catch {
    return null;
  }
  if (digest === undefined || digest === testPyDigest(testPy)) return null;
  return "expected.json was recorded from another test.py (test.py changed since the task was recorded)";
}
