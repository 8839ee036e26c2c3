/**
 * The runner's per-test verdicts equal CPython's own unittest, test for test:
 * every folder of the unittest feature suite runs under `python3 -m unittest
 * discover -v` (the oracle, tests/helpers/unittest-oracle.ts) and under both
 * backends, and the statuses, the failing subTests and the verdict must agree.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSolved } from "../../src/core/results";
import { createRuntime } from "../../src/python/node";
import type { PythonRuntime } from "../../src/python/runtime";
import { FEATURES_DIR, featureFolders, type OracleOutcome, oracleOutcome, solved } from "../helpers/unittest-oracle";

const folders = featureFolders();

describe.each(["pyodide", "native"] as const)("%s runner against CPython's unittest", (backend) => {
  let rt: PythonRuntime;
  beforeAll(async () => {
    rt = createRuntime(backend);
    await rt.ready();
  });
  afterAll(async () => {
    await rt.dispose();
  });

  it.each(folders)("%s: same verdicts as python3 -m unittest", async (name) => {
    const dir = join(FEATURES_DIR, name);
    const oracle: OracleOutcome = oracleOutcome(dir);
    const r = await rt.run({
      files: {},
      targetPath: "target.py",
      candidate: readFileSync(join(dir, "target.py"), "utf8"),
      tests: readFileSync(join(dir, "test.py"), "utf8"),
      mode: "test",
      expected: null,
      packages: [],
      timeLimitMs: 20_000,
    });
    expect(r.collectionError !== null).toBe(oracle.collectionError);
    expect(Object.fromEntries(r.tests.map((t) => [t.id, t.status]))).toEqual(oracle.tests);
    const subTests = Object.fromEntries(
      r.tests.filter((t) => t.subtests.length > 0).map((t) => [t.id, t.subtests.map((s) => ({ params: s.params, status: s.status }))]),
    );
    expect(subTests).toEqual(oracle.subTests);
    expect(r.allPassed).toBe(solved(oracle));
    expect(runSolved(r.counts, r.collectionError)).toBe(r.allPassed);
    // A RecursionError leaves Pyodide's instance suspect: it is replaced after the run, with the same verdicts.
    expect(r.incident === null || r.incident.kind === "poisoned").toBe(true);
  });
});
