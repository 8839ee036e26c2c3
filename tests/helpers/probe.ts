/**
 * A one-test run that shows what candidate code can see: the test prints `PROBE` and what `probe()` in the
 * candidate returns (the box tests' attacks).
 */
import type { RunRequest } from "../../src/python/runtime";

/** A run of `code` (defining `probe()`) whose one test prints `PROBE <probe()>`; 10 s time limit. */
export function probe(code: string): RunRequest {
  return {
    files: {},
    targetPath: "target.py",
    candidate: code,
    tests:
      "import unittest\nimport target\nclass T(unittest.TestCase):\n    def test_probe(self):\n        print('PROBE', target.probe())\n",
    mode: "test",
    expected: null,
    packages: [],
    timeLimitMs: 10_000,
  };
}
