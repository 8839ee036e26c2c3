/**
 * The host's reading of a run's event stream (src/python/assembler.ts): what
 * the code under test could write on the stream, and what happens after the
 * host sent the interrupt. Events are fed as the backends feed them, one JSON
 * line at a time.
 */
import { describe, expect, it } from "vitest";
import type { RunProgress, RunRequest } from "../../src/core/runtime-port";
import { RunAssembler } from "../../src/python/assembler";
import { feed, resultEvent } from "../helpers/harness-events";

const REQ: RunRequest = {
  files: {},
  targetPath: "pkg/mod.py",
  candidate: "",
  tests: "",
  mode: "test",
  expected: JSON.stringify({ version: 1, tests: { "T.test_a": [], "T.test_b": [] }, values: {} }),
  packages: [],
  timeLimitMs: 10_000,
};

const result = resultEvent;

describe("results the code under test could write", () => {
  it.each([
    ["an unknown status", result("T.test_a", "bogus"), /unknown status \("bogus"\)/],
    ["a status that is not text", result("T.test_a", 1), /unknown status \(1\)/],
    ["a subTest entry that is null", result("T.test_a", "passed", { subtests: [null] }), /malformed subTest/],
    [
      "a subTest with an unknown status",
      result("T.test_a", "failed", { subtests: [{ params: "(i=1)", status: "passed", message: "", traceback: "" }] }),
      /malformed subTest/,
    ],
    ["subTests that are not a list", result("T.test_a", "passed", { subtests: { a: 1 } }), /not a list/],
  ])("%s: the run is not trusted, and every test is an error", (_what, bad, reason) => {
    const asm = new RunAssembler(REQ);
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
      bad,
      { type: "test-start", id: "T.test_b" },
      result("T.test_b", "passed"),
      { type: "end", poisoned: null },
    ]);
    const run = asm.finish("pyodide", 5, null);
    expect(run.incident?.kind).toBe("tampered");
    expect(run.incident?.message).toMatch(reason);
    expect(run.tests.map((t) => t.status)).toEqual(["error", "error"]);
    expect(run.allPassed).toBe(false);
  });
});

describe("a change the guard found during a test", () => {
  it("is the run's reason: the running test's unsent result is not named as another", () => {
    const asm = new RunAssembler(REQ);
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
      { type: "tampered", what: ["monitoring tool 2"] },
      { type: "end", poisoned: null },
    ]);
    const run = asm.finish("pyodide", 5, null);
    expect(run.incident?.kind).toBe("tampered");
    expect(run.incident?.message).toContain("monitoring tool 2");
    expect(run.incident?.message).not.toContain("had not reported");
  });
});

describe("after the host sent the interrupt", () => {
  it("the test running then is a timeout, and a test that reports later was not run, whatever they say", () => {
    const asm = new RunAssembler(REQ);
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
    ]);
    asm.interruptSent("timeout");
    // The code caught the interrupt and went on: both tests report "passed".
    feed(asm, [
      result("T.test_a", "passed"),
      { type: "test-start", id: "T.test_b" },
      result("T.test_b", "passed"),
      { type: "end", poisoned: null },
    ]);
    const run = asm.finish("native", 10_500, null, { kind: "timeout", message: "" });
    expect(run.tests.map((t) => [t.id, t.status])).toEqual([
      ["T.test_a", "timeout"],
      ["T.test_b", "not_run"],
    ]);
    expect(run.tests[0]?.message).toBe("the time limit of 10.0 s was reached while this test ran; it went on after the interrupt");
    expect(run.tests[1]?.message).toBe("not run: the time limit of 10.0 s was reached before this test started");
    expect(run.allPassed).toBe(false);
  });

  it("the traceback of the test the interrupt stopped has test.py's lines under its frames, as a failure's has", () => {
    const req = {
      ...REQ,
      tests: "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        f(10**9)\n",
      candidate: "def f(n):\n    while True: pass\n",
    };
    const asm = new RunAssembler(req);
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
    ]);
    asm.interruptSent("timeout");
    const traceback =
      'Traceback (most recent call last):\n  File "test.py", line 4, in test_a\n  File "pkg/mod.py", line 2, in f\n    while True: pass\nKeyboardInterrupt\n';
    feed(asm, [
      { type: "interrupted", id: "T.test_a", line: 2, traceback, testFrames: [1] },
      { type: "end", poisoned: null },
    ]);
    const run = asm.finish("pyodide", 10_500, null, { kind: "timeout", message: "" });
    expect(run.tests[0]?.status).toBe("timeout");
    expect(run.tests[0]?.traceback).toBe(
      'Traceback (most recent call last):\n  File "test.py", line 4, in test_a\n    f(10**9)\n  File "pkg/mod.py", line 2, in f\n    while True: pass\nKeyboardInterrupt\n',
    );
  });

  it("test.py's lines go under the frame lines the harness marks as test.py's own code alone", () => {
    const req = { ...REQ, tests: "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        f(1)\n" };
    const asm = new RunAssembler(req);
    // (A line of the message and an unmarked frame line both name test.py's line 4: code under test wrote them.)
    const traceback =
      'Traceback (most recent call last):\n  File "test.py", line 4, in test_a\n  File "test.py", line 4, in <module>\nValueError: bad\n  File "test.py", line 4, in x\n';
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
      { type: "test-outcome", id: "T.test_a", status: "error" },
      {
        ...resultEvent("T.test_a", "error"),
        traceback,
        testFrames: [1, 3, "4", 99],
        subtests: [{ params: "(i=1)", status: "error", message: "ValueError: bad", traceback, testFrames: [2] }],
      },
      { type: "test-start", id: "T.test_b" },
      { type: "test-outcome", id: "T.test_b", status: "error" },
      { ...resultEvent("T.test_b", "error"), traceback },
      { type: "end", poisoned: null },
    ]);
    const run = asm.finish("pyodide", 10, null);
    const [a, b] = run.tests;
    expect(a?.traceback).toBe(
      'Traceback (most recent call last):\n  File "test.py", line 4, in test_a\n    f(1)\n  File "test.py", line 4, in <module>\nValueError: bad\n  File "test.py", line 4, in x\n',
    );
    expect(a?.subtests[0]?.traceback).toBe(
      'Traceback (most recent call last):\n  File "test.py", line 4, in test_a\n  File "test.py", line 4, in <module>\n    f(1)\nValueError: bad\n  File "test.py", line 4, in x\n',
    );
    expect(a?.subtests[0]).not.toHaveProperty("testFrames");
    // (No marks, no lines.)
    expect(b?.traceback).toBe(traceback);
  });

  it("a test stopped after one of its checks failed: failed at that check, and the message says what stopped it", () => {
    const req = { ...REQ, expected: JSON.stringify({ format: 2, tests: { "T.test_a": ["k"], "T.test_b": [] }, values: { k: 1 } }) };
    const asm = new RunAssembler(req);
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
      { type: "check", key: "k", value: "2", rtol: 1e-9, atol: 0, subtest: null, caller: '  File "test.py", line 9, in test_a\n' },
    ]);
    asm.interruptSent("timeout");
    feed(asm, [{ type: "interrupted", id: "T.test_a", line: 7, traceback: "Traceback ...", stdout: "", stderr: "" }]);
    const run = asm.finish("pyodide", 10_500, null, { kind: "timeout", message: "" });
    const [a, b] = run.tests;
    expect([a?.status, b?.status]).toEqual(["failed", "not_run"]);
    expect(a?.message).toMatch(/^AssertionError: k: expected 1, got 2 .*\n\(then: time limit of 10\.0 s reached while this test ran\)$/);
    expect(a?.line).toBe(7);
    expect(run.counts.failed).toBe(1);
  });

  it("the time limit ran out after the interpreter died: the tests left were not run, none of them is an error", () => {
    const asm = new RunAssembler(REQ);
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
    ]);
    expect(asm.crashed("the worker exited")).toEqual(["T.test_b"]);
    const run = asm.finish("pyodide", 10_500, null, {
      kind: "exhausted",
      message: "the time limit was reached (after the interpreter died once)",
    });
    expect(run.tests.map((t) => [t.id, t.status, t.message])).toEqual([
      ["T.test_a", "error", "the Python interpreter died during this test: the worker exited"],
      ["T.test_b", "not_run", "not run: the time limit was reached (after the interpreter died once)"],
    ]);
  });

  it("a stop by the user while the tests were imported is said to be the user's, whatever stopped the import", () => {
    const asm = new RunAssembler(REQ);
    asm.interruptSent("stopped");
    feed(asm, [
      {
        type: "collection-error",
        message: "time limit reached while importing the tests",
        file: null,
        line: null,
        traceback: "KeyboardInterrupt",
        timeout: true,
      },
      { type: "end", poisoned: null },
    ]);
    const run = asm.finish("pyodide", 900, null, { kind: "stopped", message: "" });
    expect(run.collectionError?.message).toBe("stopped by the user while importing the tests");
    // And when the instance had to be replaced before anything was said.
    const gone = new RunAssembler(REQ).finish("pyodide", 900, null, { kind: "stopped", message: "" });
    expect(gone.collectionError?.message).toBe("stopped by the user before any test started");
  });

  it("sent while the tests were imported: no test counts as passed", () => {
    const asm = new RunAssembler(REQ);
    asm.interruptSent("stopped");
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
      result("T.test_a", "passed"),
      { type: "test-start", id: "T.test_b" },
      result("T.test_b", "passed"),
      { type: "end", poisoned: null },
    ]);
    const run = asm.finish("pyodide", 10_500, null, { kind: "stopped", message: "" });
    expect(run.tests.map((t) => t.status)).toEqual(["not_run", "not_run"]);
    expect(run.tests[0]?.message).toBe("not run: the run was stopped by the user before this test started");
  });
});

describe("output sent as a test writes it", () => {
  it("is kept for a test whose result never comes, capped as a result's output, and nobody's between tests", () => {
    const seen: RunProgress[] = [];
    const asm = new RunAssembler({ ...REQ, outputCap: 10 }, (p) => seen.push(p));
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
      { type: "output", stream: "stdout", text: "a's own" },
      { type: "test-outcome", id: "T.test_a", status: "passed" },
      result("T.test_a", "passed", { stdout: "a's own" }),
      { type: "output", stream: "stdout", text: "after a" },
      { type: "test-start", id: "T.test_b" },
      { type: "output", stream: "stderr", text: "warn\n" },
      { type: "output", stream: "stdout", text: "0123456" },
      { type: "output", stream: "stdout", text: "789ab" },
    ]);
    const run = asm.finish("pyodide", 10_500, null, { kind: "timeout", message: "" });
    expect(run.tests[0]?.stdout).toBe("a's own");
    expect(run.tests[1]).toMatchObject({
      status: "timeout",
      stdout: "0123456789\n[output cut at 10 characters]",
      stdoutTruncated: true,
      stderr: "warn\n",
      stderrTruncated: false,
    });
    // Given to the page as it comes (the Console shows it while a snippet runs), as kept.
    expect(seen.filter((p) => p.type === "output")).toEqual([
      { type: "output", id: "T.test_a", stream: "stdout", text: "a's own" },
      { type: "output", id: "T.test_b", stream: "stderr", text: "warn\n" },
      { type: "output", id: "T.test_b", stream: "stdout", text: "0123456" },
      { type: "output", id: "T.test_b", stream: "stdout", text: "789" },
    ]);
  });

  it("is capped in characters, as the harness counts them (an emoji is one)", () => {
    const asm = new RunAssembler({ ...REQ, outputCap: 3 });
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
      { type: "output", stream: "stdout", text: "😀😀😀" },
    ]);
    const run = asm.finish("pyodide", 10_500, null, { kind: "timeout", message: "" });
    expect(run.tests[0]).toMatchObject({ stdout: "😀😀😀", stdoutTruncated: false });
  });

  it.each([
    ["an unknown stream", { type: "output", stream: "stdin", text: "x" }],
    ["text that is not text", { type: "output", stream: "stdout", text: 1 }],
  ])("%s: the run is not trusted", (_what, bad) => {
    const asm = new RunAssembler(REQ);
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
      bad,
      result("T.test_a", "passed"),
      { type: "test-start", id: "T.test_b" },
      result("T.test_b", "passed"),
      { type: "end", poisoned: null },
    ]);
    const run = asm.finish("native", 5, null);
    expect(run.incident?.message).toMatch(/malformed output event/);
    expect(run.allPassed).toBe(false);
  });
});

describe("event fields of any shape", () => {
  // A list nested this deep overflows String() and Number() (Array.prototype.join recurses); JSON.parse reads
  // it. The lines are written as text, as the harness writes them ("DEEP" stands for the list).
  const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
  it.each([
    [
      "a deep list as the key of a check outside any test",
      [{ type: "check", key: "DEEP", value: "0", rtol: 0, atol: 0, subtest: null }],
      /a check \(a list\) outside any test/i,
    ],
    [
      "a deep list as the rtol of a check",
      [
        { type: "test-start", id: "T.test_a" },
        { type: "check", key: "k", value: "0", rtol: "DEEP", atol: 0, subtest: null },
      ],
      /a malformed check/i,
    ],
    ["a deep list as a test id", [{ type: "test-start", id: "DEEP" }], /a test started that was not collected \(a list\)/i],
    [
      "a deep list as a message",
      [{ type: "test-start", id: "T.test_a" }, result("T.test_a", "failed", { message: "DEEP" })],
      /not trusted|could not read/,
    ],
  ])("%s: the host reads it without failing, and the run is not trusted", (_what, events, reason) => {
    const asm = new RunAssembler(REQ);
    const lines = [{ type: "collected", tests: ["T.test_a", "T.test_b"] }, ...(events as object[]), { type: "end", poisoned: null }];
    expect(() => {
      for (const ev of lines) asm.pushLine(JSON.stringify(ev).replace('"DEEP"', deep));
    }).not.toThrow();
    const run = asm.finish("pyodide", 5, null);
    expect(run.incident?.kind).toBe("tampered");
    expect(run.incident?.message).toMatch(reason);
    expect(run.allPassed).toBe(false);
  });
});

describe("a checked value far larger than the recorded one", () => {
  const req: RunRequest = {
    ...REQ,
    candidate: "x = 1\n".repeat(50_000),
    expected: JSON.stringify({
      format: 2,
      tests: { "T.test_a": ["small"], "T.test_b": ["small2"] },
      values: { small: [1, 2, 3], small2: 5 },
    }),
  };
  it("is a mismatch, unread; a value of the recorded size is read and compared", () => {
    const asm = new RunAssembler(req);
    // A deep list of lists takes tens of times its text in the host's memory once read.
    const huge = `[${"[0], ".repeat(200_000)}[0]]`;
    feed(asm, [
      { type: "collected", tests: ["T.test_a", "T.test_b"] },
      { type: "test-start", id: "T.test_a" },
      { type: "check", key: "small", value: huge, rtol: 1e-9, atol: 0, subtest: null, caller: '  File "pkg/mod.py", line 40000, in f\n' },
      { type: "test-outcome", id: "T.test_a", status: "passed" },
      result("T.test_a", "passed"),
      { type: "test-start", id: "T.test_b" },
      { type: "check", key: "small2", value: "6", rtol: 1e-9, atol: 0, subtest: null, caller: '  File "pkg/mod.py", line 3, in f\n' },
      { type: "test-outcome", id: "T.test_b", status: "passed" },
      result("T.test_b", "passed"),
      { type: "end", poisoned: null },
    ]);
    const r = asm.finish("pyodide", 1, null);
    const [a, b] = r.tests;
    expect(a?.status).toBe("failed");
    expect(a?.message).toMatch(
      /small: the checked value is far larger than the recorded one \(1000005 characters of JSON, at most 66566\); it was not read/,
    );
    expect(a?.traceback).toContain("line 40000, in f\n    x = 1\n");
    expect(b?.status).toBe("failed");
    expect(b?.message).toMatch(/expected 5, got 6/);
    expect(r.incident ?? null).toBeNull();
  });
});

describe("the outcome() call a failed item came from", () => {
  const values = { items: [1, { $raised: { type: "ValueError", message: "" } }, 3], whole: [1, 2], odd: [1, 2], k: 1 };
  const check = (key: string, value: string, calls: unknown) => ({ type: "check", key, value, rtol: 1e-9, atol: 0, subtest: null, calls });
  const pick = (checks: { key: string }[]) => Object.fromEntries(checks.map((c) => [c.key, values[c.key as keyof typeof values]]));
  const run = (checks: { key: string }[]) => {
    const req: RunRequest = {
      ...REQ,
      expected: JSON.stringify({ format: 2, tests: { "T.test_a": checks.map((c) => c.key) }, values: pick(checks) }),
    };
    const asm = new RunAssembler(req);
    feed(asm, [
      { type: "collected", tests: ["T.test_a"] },
      { type: "test-start", id: "T.test_a" },
      ...checks,
      { type: "test-outcome", id: "T.test_a", status: "passed" },
      result("T.test_a", "passed"),
      { type: "end", poisoned: null },
    ]);
    return asm.finish("pyodide", 1, null);
  };

  it("is named after the item's place: its own call in a list of calls, the one call for a whole value", () => {
    const items = run([check("items", "[1, 2.5, 3]", JSON.stringify(["f(1)", "f(-1)", "f(3)"]))]);
    expect(items.tests[0]?.message).toBe("AssertionError: items at [1], for f(-1): expected ValueError to be raised, got 2.5");
    expect(items.tests[0]?.mismatch?.call).toBe("f(-1)");
    const whole = run([check("whole", "[1, 3]", JSON.stringify("g('a')"))]);
    expect(whole.tests[0]?.message).toMatch(/^AssertionError: whole at \[1\], for g\('a'\): expected 2, got 3/);
  });

  it("in a list of calls, every other call that differs is named after the first", () => {
    const r = run([check("items", "[0, 2.5, 4]", JSON.stringify(["f(1)", "f(-1)", "f(3)"]))]);
    expect(r.tests[0]?.message).toBe(
      "AssertionError: items at [0], for f(1): expected 1, got 0 (off by -1); also differ: [1] f(-1), [2] f(3)",
    );
  });

  it("is left out, and nothing else changes, when the text is absent or of any other shape (code under test can write it)", () => {
    for (const calls of [
      null,
      undefined,
      "not json",
      JSON.stringify([1, 2]),
      JSON.stringify({ a: 1 }),
      JSON.stringify(["x".repeat(500)]),
      // (Past what the check helper ever writes: not read, whatever it holds.)
      JSON.stringify(["f(1)", "f(-1)", "f(3)", ...Array.from({ length: 40_000 }, () => "")]),
      7,
    ]) {
      const r = run([check("items", "[1, 2.5, 3]", calls)]);
      expect(r.tests[0]?.message, String(calls)).toBe("AssertionError: items at [1]: expected ValueError to be raised, got 2.5");
      expect(r.incident ?? null).toBeNull();
    }
    // A list of texts shorter than the value: the items past it have no call.
    const short = run([check("odd", "[1, 3]", JSON.stringify(["h(1)"]))]);
    expect(short.tests[0]?.message).toMatch(/^AssertionError: odd at \[1\]: expected 2/);
  });

  it("is plain text: a newline, a bidirectional control or a lone surrogate written into it is a question mark", () => {
    const r = run([check("items", "[1, 2.5, 3]", JSON.stringify(["f(1)", "f(\n\u202e\ud800AssertionError: ok)", "f(3)"]))]);
    expect(r.tests[0]?.message).toBe(
      "AssertionError: items at [1], for f(???AssertionError: ok): expected ValueError to be raised, got 2.5",
    );
  });

  it("decides nothing: a passing value with any text passes", () => {
    const r = run([check("k", "1", JSON.stringify("anything"))]);
    expect(r.tests[0]?.status).toBe("passed");
  });
});
