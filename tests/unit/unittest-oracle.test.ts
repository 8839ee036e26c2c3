/**
 * The CPython oracle is itself pinned: for every folder of tests/fixtures/unittest-features,
 * `python3 -m unittest discover -v` read through oracleOutcome() gives the checked-in outcome.json
 * (regenerate with `npx tsx tests/helpers/unittest-oracle.ts --write`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FEATURES_DIR, featureFolders, type OracleOutcome, oracleOutcome, solved } from "../helpers/unittest-oracle";

function checkedIn(folder: string): OracleOutcome {
  return JSON.parse(readFileSync(join(FEATURES_DIR, folder, "outcome.json"), "utf8")) as OracleOutcome;
}

describe("unittest oracle: fixture folders", () => {
  const folders = featureFolders();

  it("has the fixture folders", () => {
    expect(folders.length).toBeGreaterThanOrEqual(12);
    expect(folders).toContain("setupclass-case");
    expect(folders).toContain("input-eof-case");
  });

  it.each(folders)("%s: CPython's verdicts equal outcome.json", (folder) => {
    expect(oracleOutcome(join(FEATURES_DIR, folder))).toEqual(checkedIn(folder));
  });
});

describe("unittest oracle: the shared cases", () => {
  it("01-setupclass: class fixtures run; a SkipTest in setUpClass skips the class", () => {
    const outcome = oracleOutcome(join(FEATURES_DIR, "setupclass-case"));
    expect(outcome).toEqual({
      tests: {
        "TestWithClassFixture.test_double": "passed",
        "TestWithClassFixture.test_len": "passed",
        "TestSkippedInClassSetUp.test_needs_fixture": "skipped",
      },
      collectionError: false,
      subTests: {},
    });
    expect(solved(outcome)).toBe(false); // a skipped test is not solved
  });

  it("02-input-eof: input() with no standard input raises EOFError and the test passes", () => {
    const outcome = oracleOutcome(join(FEATURES_DIR, "input-eof-case"));
    expect(outcome).toEqual({
      tests: { "TestInput.test_default_when_no_input": "passed" },
      collectionError: false,
      subTests: {},
    });
    expect(solved(outcome)).toBe(true);
  });
});

describe("unittest oracle: rules", () => {
  it("reads a fixture line that CPython prints bare after 'expected failure' / 'unexpected success'", () => {
    const { tests } = checkedIn("expected-failure");
    expect(tests["TestBSkippedAfterXfail.test_never"]).toBe("skipped");
    expect(tests["TestCTornDownAfterXpass.test_a_passes"]).toBe("error");
    expect(tests["TestCTornDownAfterXpass.test_b_xfail"]).toBe("error");
    expect(tests["TestCTornDownAfterXpass.test_c_xpass"]).toBe("xpass");
  });

  it("import and syntax errors in target.py are collection errors with no tests", () => {
    for (const folder of ["import-error", "syntax-error"]) {
      expect(checkedIn(folder)).toEqual({ tests: {}, collectionError: true, subTests: {} });
    }
  });

  it("solved: no collection error, at least one test, every test passed or xfail", () => {
    const base = { collectionError: false, subTests: {} };
    expect(solved({ ...base, tests: { "A.test_a": "passed", "A.test_b": "xfail" } })).toBe(true);
    expect(solved({ ...base, tests: {} })).toBe(false);
    expect(solved({ ...base, tests: { "A.test_a": "passed", "A.test_b": "skipped" } })).toBe(false);
    expect(solved({ ...base, tests: { "A.test_a": "xpass" } })).toBe(false);
    expect(solved({ ...base, collectionError: true, tests: { "A.test_a": "passed" } })).toBe(false);
    expect(solved(checkedIn("module-skip"))).toBe(false);
    expect(solved(checkedIn("input-eof"))).toBe(true);
  });
});
