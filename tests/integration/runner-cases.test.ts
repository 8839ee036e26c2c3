/** Cases that once gave wrong verdicts (tests/fixtures/cases/README.md), on both backends. */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderTestLog } from "../../src/core/feedback";
import { createRuntime } from "../../src/python/node";
import type { PythonRuntime, RunRequest } from "../../src/python/runtime";

const file = (name: string) => readFileSync(new URL(`../fixtures/cases/${name}`, import.meta.url), "utf8");

function caseRequest(name: string, expected: string | null): RunRequest {
  return {
    files: {},
    targetPath: "target.py",
    candidate: file(`${name}.target.py`),
    tests: file(`${name}.test.py`),
    mode: "test",
    expected,
    packages: [],
    timeLimitMs: 20_000,
  };
}

describe.each(["pyodide", "native"] as const)("%s: runner cases", (backend) => {
  let rt: PythonRuntime;
  beforeAll(async () => {
    rt = createRuntime(backend);
    await rt.ready();
  });
  afterAll(async () => {
    await rt.dispose();
  });

  const flat = file("06-bigint-expected.expected.json");
  const values = JSON.parse(flat.replace(/(\d{16,})/g, '"$1"')) as Record<string, string>;
  // The same values in format 2, written as text so no digit passes through a JavaScript number.
  const v2 = `{"format": 2, "tests": {"TestCount.test_exact_64_32": ["c_64_32"], "TestCount.test_wrong_100_50": ["c_100_50"]}, "values": {"c_100_50": ${values.c_100_50}, "c_64_32": ${values.c_64_32}}}`;

  it.each([
    ["format 1", flat],
    ["format 2", v2],
  ])("06 big integers (%s): the exact value passes, a value off by one fails", async (_label, expected) => {
    const r = await rt.run(caseRequest("06-bigint-expected", expected));
    const by = Object.fromEntries(r.tests.map((t) => [t.id, t]));
    expect(by["TestCount.test_exact_64_32"]?.status).toBe("passed");
    expect(by["TestCount.test_wrong_100_50"]?.status).toBe("failed");
    expect(by["TestCount.test_wrong_100_50"]?.message).toBe(
      "AssertionError: c_100_50: expected 100891344545564193334812497256, got 100891344545564193334812497257 (off by 1)",
    );
    expect(r.allPassed).toBe(false);
  });

  it("06 an int of any size (6,000 digits, past Python's 4,300-digit limit on int text) is recorded and compared exactly", async () => {
    const tests =
      "import unittest\nfrom target import big\nfrom recode_check import check\n\n\nclass TestBig(unittest.TestCase):\n    def test_big(self):\n        check(self, 'big', big())\n";
    const req = (candidate: string, mode: "record" | "test", expected: string | null): RunRequest => ({
      ...caseRequest("06-bigint-expected", expected),
      candidate,
      tests,
      mode,
    });
    const rec = await rt.run(req("def big():\n    return 10**6000 + 7\n", "record", null));
    expect(rec.tests[0]?.status, rec.tests[0]?.message).toBe("passed");
    const recorded = rec.recorded ?? "";
    expect(recorded).toContain(`"big": 1${"0".repeat(5999)}7`);
    const right = await rt.run(req("def big():\n    return 10**6000 + 7\n", "test", recorded));
    expect(right.tests[0]?.status, right.tests[0]?.message).toBe("passed");
    const wrong = await rt.run(req("def big():\n    return 10**6000 + 8\n", "test", recorded));
    expect(wrong.tests[0]?.status).toBe("failed");
    expect(wrong.tests[0]?.message).toMatch(/^AssertionError: big: expected 10{5999}7, got 1.*\(off by 1\)$/s);
    // The limit is Python's again after the check: candidate code sees CPython's behaviour.
    const after = await rt.run(
      req("def big():\n    import sys\n    return sys.get_int_max_str_digits()\n", "test", recorded.replace(/10{5999}7/, "4300")),
    );
    expect(after.tests[0]?.status, after.tests[0]?.message).toBe("passed");
  });

  it("12 a huge traceback is capped and the test log lists every test", async () => {
    const r = await rt.run(caseRequest("12-huge-traceback", null));
    const by = Object.fromEntries(r.tests.map((t) => [t.id, t]));
    expect(by["TestSummarize.test_a_big_input"]?.status).toBe("error");
    expect(by["TestSummarize.test_b_empty"]?.status).toBe("error");
    expect(by["TestSummarize.test_c_passes"]?.status).toBe("passed");
    const tb = by["TestSummarize.test_a_big_input"]?.traceback ?? "";
    expect(tb.length).toBeLessThan(20_200);
    // The cut is marked (the message inside the traceback is cut first).
    expect(/cut at \d+ characters; \d+ more\]/.test(tb)).toBe(true);
    expect(JSON.stringify(r).length).toBeLessThan(100_000);
    const log = renderTestLog(r);
    for (const id of ["test_a_big_input", "test_b_empty", "test_c_passes"]) expect(log).toContain(`TestSummarize.${id}`);
  });
});
