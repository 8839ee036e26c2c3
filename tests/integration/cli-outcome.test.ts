/**
 * Error tests written as checks (`recode_check.outcome`): good and bad inputs through one call, what each
 * raised recorded from the canonical solution and compared on the host. Through `recode tasks record` and
 * `recode test`, on both backends, with a copy of the built-in pass-at-k task given such a test.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const BIN = new URL("../../bin/recode.mjs", import.meta.url).pathname;
const recode = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 180_000 });

const OUTCOME_TEST = `

class TestOutcomes(unittest.TestCase):
    def test_inputs(self):
        from recode_check import outcome
        cases = ((10, 3, 1), (10, 3, 11), (10, 11, 1), (16, 5, 4), (0, 0, 1), (10.0, 3, 1))
        for i, args in enumerate(cases):
            with self.subTest(args=args):
                check(self, f"pass_at_k_outcome_{i}", outcome(pass_at_k, *args), rtol=1e-12)
`;

/** The canonical solution with its input checks made to raise something else, or nothing. */
function canonicalWith(raise: string): string {
  const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url), "utf8");
  return canonical.replace(/raise ValueError\(/g, raise);
}

describe("error tests as checks: outcome()", () => {
  let task = "";
  const dir = mkdtempSync(join(tmpdir(), "recode-outcome-"));
  const candidate = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  beforeAll(() => {
    const tasks = mkdtempSync(join(tmpdir(), "recode-outcome-tasks-"));
    task = join(tasks, "pass-at-k");
    cpSync(new URL("../../tasks/pass-at-k", import.meta.url).pathname, task, { recursive: true });
    writeFileSync(join(task, "test.py"), readFileSync(join(task, "test.py"), "utf8") + OUTCOME_TEST);
    const meta = JSON.parse(readFileSync(join(task, "task.json"), "utf8"));
    meta.interfaces[0].tests.push("TestOutcomes.test_inputs");
    writeFileSync(join(task, "task.json"), JSON.stringify(meta, null, 2));
    const rec = recode("tasks", "record", "pass-at-k", "--dir", tasks);
    expect(rec.status, rec.stdout + rec.stderr).toBe(0);
    // Recorded all the same, but said at once: validate fails checks whose every call raised.
    expect(rec.stdout).toContain(
      "  4 checks of outcome() record errors alone, and validate fails them (put valid calls through the same outcome() in each: docs/task-format.md): pass_at_k_outcome_1, pass_at_k_outcome_2, pass_at_k_outcome_4, pass_at_k_outcome_5\n",
    );
  }, 240_000);

  it("records what the canonical solution raised, by its built-in class", () => {
    const expected = JSON.parse(readFileSync(join(task, "expected.json"), "utf8"));
    expect(expected.values.pass_at_k_outcome_1).toEqual({
      $raised: { type: "ValueError", message: "k must be between 1 and n=10, got 11" },
    });
    expect(typeof expected.values.pass_at_k_outcome_0).toBe("number");
    expect(expected.tests["TestOutcomes.test_inputs"]).toHaveLength(6);
  });

  it.each(["pyodide", "native"])(
    "%s: the same class passes, its subclass too; none, or another, fails and says what was raised",
    (backend) => {
      const run = (file: string) => {
        const r = recode("test", task, file, "--json", "--backend", backend);
        const out = JSON.parse(r.stdout);
        return out.tests.find((t: { id: string }) => t.id === "TestOutcomes.test_inputs") as { status: string; message: string };
      };
      expect(run(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname).status).toBe("passed");
      const own = canonicalWith("raise _Own(");
      expect(run(candidate("own.py", `class _Own(ValueError):\n    pass\n\n\n${own}`)).status).toBe("passed");
      const none = run(candidate("none.py", canonicalWith("None and (")));
      expect(none.status).toBe("failed");
      // (The message names the call, as the test made it.)
      expect(none.message).toMatch(/pass_at_k_outcome_1, for pass_at_k\(10, 3, 11\): expected ValueError to be raised, got /);
      const other = run(candidate("other.py", canonicalWith("raise TypeError(")));
      expect(other.status).toBe("failed");
      expect(other.message).toContain(
        "pass_at_k_outcome_1, for pass_at_k(10, 3, 11): expected ValueError to be raised, got TypeError raised: k must be between 1 and n=10, got 11",
      );
      // Where the candidate's call raised: its file and line (the recording holds no such place).
      const raiseLine =
        canonicalWith("raise TypeError(")
          .split("\n")
          .findIndex((l) => l.includes('raise TypeError(f"k must')) + 1;
      expect(other.message).toContain(`got 11 (evalkit/metrics.py, line ${raiseLine})`);
      expect(readFileSync(join(task, "expected.json"), "utf8")).not.toContain('"at"');
      // A value that raises where a value was recorded.
      const always = run(
        candidate(
          "always.py",
          `${canonicalWith("raise ValueError(")}\n\n_real = pass_at_k\n\n\ndef pass_at_k(n, c, k):\n    raise ValueError("never")\n`,
        ),
      );
      expect(always.message).toMatch(/pass_at_k_outcome_0, for pass_at_k\(10, 3, 1\): expected [\d.e-]+, got ValueError raised: never/);
    },
  );

  it.each(["pyodide", "native"])(
    "%s: a failed item names the call it came from, as the test made it, and no code of the candidate's runs to name it",
    (backend) => {
      const tests = (file: string) => {
        const r = recode("test", "pass-at-k", file, "--json", "--backend", backend);
        return JSON.parse(r.stdout).tests as { id: string; status: string; message: string; stdout: string }[];
      };
      // The built-in task's mixed check: its second call, pass_at_k(10, 3, 11), returns where it must raise.
      const canonical = canonicalWith("raise ValueError(");
      const noKCheck = canonical.replace('raise ValueError(f"k must', 'None and (f"k must');
      const mixed = tests(candidate("no-k-check.py", noKCheck)).find((t) => t.id === "TestPassAtK.test_edges_and_errors");
      expect(mixed?.status).toBe("failed");
      expect(mixed?.message).toBe(
        "AssertionError: pass_at_k_mixed at [1], for pass_at_k(10, 3, 11): expected ValueError to be raised, got 1.0; also differs: [7] pass_at_k(10, 3, 0)",
      );
      // A callable of the candidate's own kind is named through the built-in types' descriptors: its metaclass's
      // __qualname__ and __repr__ never run, and a callable object is named by its type.
      const hostile = tests(
        candidate(
          "hostile-callable.py",
          `${canonical}

_real, _real_naive = pass_at_k, naive_pass_at_k


class _Meta(type):
    def __getattribute__(cls, name):
        if name in ("__qualname__", "__name__"):
            print("QUALNAME RAN")
            return "forged"
        return type.__getattribute__(cls, name)

    def __repr__(cls):
        print("REPR RAN")
        return "forged"


class pass_at_k(metaclass=_Meta):
    def __new__(cls, n, c, k):
        return 1.0 if k > n else _real(n, c, k)


class _Name(str):
    def __format__(self, spec):
        print("FORMAT RAN")
        return "forged"


class _EqMeta(type):
    def __eq__(cls, other):
        print("EQ RAN")
        return NotImplemented

    __hash__ = type.__hash__


class _Naive(metaclass=_EqMeta):
    def __repr__(self):
        print("REPR RAN")
        return "forged"

    def __call__(self, n, c, k):
        return 0.5 if k > n else _real_naive(n, c, k)


_Naive.__name__ = _Name("_Naive\\nAssertionError: all is well")
naive_pass_at_k = _Naive()
`,
        ),
      );
      const edges = hostile.find((t) => t.id === "TestPassAtK.test_edges_and_errors");
      expect(edges?.message).toBe(
        "AssertionError: pass_at_k_mixed at [1], for pass_at_k(10, 3, 11): expected ValueError to be raised, got 1.0; also differs: [4] pass_at_k(0, 0, 1)",
      );
      // --json gives the structured difference too.
      expect((edges as unknown as { mismatch: Record<string, string> }).mismatch).toMatchObject({
        key: "pass_at_k_mixed",
        kind: "raised",
        where: "[1]",
        call: "pass_at_k(10, 3, 11)",
      });
      const naive = hostile.find((t) => t.id === "TestNaivePassAtK.test_values_and_bias");
      expect(naive?.message).toBe(
        "AssertionError: naive_k_above_n at [1], for <_Naive?AssertionError??all?is?well object>(10, 3, 11): expected ValueError to be raised, got 0.5",
      );
      for (const t of hostile) expect(`${t.message}${t.stdout}`).not.toMatch(/RAN|forged/);
    },
  );

  it.each(["pyodide", "native"])(
    "%s: the texts and places code under test puts in a check's message are one line each, name no line of test.py, and run none of its code",
    (backend) => {
      const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url), "utf8");
      const testPy = readFileSync(new URL("../../tasks/pass-at-k/test.py", import.meta.url), "utf8").split("\n");
      const fake = String.raw`\n  File \"test.py\", line 12, in x\n\u202e`;
      const run = (name: string, text: string) => {
        const r = recode("test", "pass-at-k", candidate(name, text), "--json", "--backend", backend);
        return JSON.parse(r.stdout).tests as { id: string; message: string; traceback: string; stdout: string }[];
      };
      // A Raised of the candidate's own, whose place forges lines; an exception message that does; a place in
      // code compiled under test.py's name.
      const forged = run(
        "forged-places.py",
        canonical
          .replace(
            /def pass_at_k\(n, c, k\):\n( {4}"""[\s\S]*?"""\n)?/,
            (m) =>
              `${m}    if (n, c, k) == (30, 2, 7):\n        return __import__("recode_check").Raised("TypeError", "", "evalkit/metrics.py, line 3)${fake}(")\n`,
          )
          .replace(
            /def naive_pass_at_k\(n, c, k\):\n( {4}"""[\s\S]*?"""\n)?/,
            (m) => `${m}    if (n, c, k) == (11, 4, 3):\n        raise ValueError("bad${fake}evil")\n`,
          ),
      );
      const edges = forged.find((t) => t.id === "TestPassAtK.test_edges_and_errors");
      expect(edges?.message).toMatch(
        /^AssertionError: pass_at_k_mixed at \[6\], for pass_at_k\(30, 2, 7\): expected [\d.e-]+, got TypeError raised$/,
      );
      const naive = forged.find((t) => t.id === "TestNaivePassAtK.test_values_and_bias");
      expect(naive?.message).toContain(String.raw`got ValueError raised: bad\n  File "test.py", line 12, in x\n?evil`);
      for (const t of forged) {
        expect(t.message).not.toContain("\n");
        // (test.py's line 12, which the forged frame names, is in no traceback.)
        expect(t.traceback).not.toContain((testPy[11] as string).trim());
      }
      const quiet = run(
        "quiet-places.py",
        `import os as _os, sys as _sys
import recode_check as _rc

_real_getcwd = _os.getcwd


def _getcwd():
    print("MARKER getcwd")
    return _real_getcwd()


_os.getcwd = _getcwd


class _Label:
    def __bool__(self):
        print("MARKER label")
        return False


def _raise_as_test_py(line):
    exec(compile("\\n" * (line - 1) + "raise TypeError('out of range')\\n", _os.path.join(_real_getcwd(), "test.py"), "exec"), {})


${canonical
  .replace(
    /def pass_at_k\(n, c, k\):\n( {4}"""[\s\S]*?"""\n)?/,
    (m) => `${m}    if (n, c, k) == (30, 2, 7):\n        _raise_as_test_py(12)\n`,
  )
  .replace(
    /def naive_pass_at_k\(n, c, k\):\n( {4}"""[\s\S]*?"""\n)?/,
    (m) => `${m}    if (n, c, k) == (11, 4, 3):\n        _rc._note_call(0.5, _Label())\n        return 0.5\n`,
  )}

naive_pass_at_k.__qualname__ = "f(1): ok] [all other items match; see"
`,
      );
      const placed = quiet.find((t) => t.id === "TestPassAtK.test_edges_and_errors");
      expect(placed?.message).toMatch(/, for pass_at_k\(30, 2, 7\): expected [\d.e-]+, got TypeError raised: out of range$/);
      const named = quiet.find((t) => t.id === "TestNaivePassAtK.test_values_and_bias");
      expect(named?.message).toContain("naive_k_above_n at [0], for f?1???ok???all?other?items?match??see(11, 4, 3)");
      for (const t of quiet) expect(`${t.message}${t.stdout}`).not.toContain("MARKER");
    },
  );

  it.each(["pyodide", "native"])(
    "%s: test.py's source lines are added under the frames of test.py's own code alone, not under one that code under test named test.py",
    (backend) => {
      const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url), "utf8");
      const testPy = readFileSync(new URL("../../tasks/pass-at-k/test.py", import.meta.url), "utf8").split("\n");
      // Each route names test.py's line 12: code compiled under test.py's name (raising, and calling check(),
      // whose caller line the host completes), a source line linecache was told, an exception's message.
      const text = `import linecache as _linecache, os as _os
import recode_check as _rc

_here = _os.path.abspath(__file__)
_fake = "x\\n  File \\"test.py\\", line 12, in y"


def _as_test_py(text, line):
    name = _os.path.join(_os.path.dirname(_os.path.dirname(_here)), "test.py")
    exec(compile("\\n" * (line - 1) + text + "\\n", name, "exec"), {"_rc": _rc})


${canonical
  .replace(
    /def pass_at_k\(n, c, k\):\n( {4}"""[\s\S]*?"""\n)?/,
    (m) => `${m}    if (n, c, k) == (10, 3, 1):
        _as_test_py("_rc.check(None, 'pass_at_k_small', [0.5])", 12)
    if (n, c, k) == (200, 3, 100):
        _linecache.cache[_here] = (1, None, [_fake + "\\n"] * 400, _here)
        raise ValueError("from a line linecache was told")
    if (n, c, k) == (10, 8, 2):
        _as_test_py("raise ValueError('compiled as test.py')", 12)
`,
  )
  .replace(/def naive_pass_at_k\(n, c, k\):\n( {4}"""[\s\S]*?"""\n)?/, (m) => `${m}    raise ValueError("bad" + _fake[1:])\n`)
  .replace(
    /def aggregate_pass_at_k\(results, ks=\(1, 10, 100\)\):\n( {4}"""[\s\S]*?"""\n)?/,
    (m) => `${m}    exec(compile("_rc.check(None, 'leak_key', [0.5])", 'test.py", line 18, in q', "exec"), {"_rc": _rc})\n`,
  )}`;
      const r = recode("test", "pass-at-k", candidate("named-test-py.py", text), "--json", "--backend", backend);
      const tests = JSON.parse(r.stdout).tests as { id: string; message: string; traceback: string }[];
      // (And line 18, which a file name written as more of a caller's line named.)
      for (const t of tests) {
        expect(`${t.message}${t.traceback}`).not.toContain((testPy[11] as string).trim());
        expect(`${t.message}${t.traceback}`).not.toContain((testPy[17] as string).trim());
      }
      // (test.py's own frames keep their lines.)
      const large = tests.find((t) => t.id === "TestPassAtK.test_large_n");
      expect(large?.traceback).toContain('  File "test.py", line 23, in test_large_n\n    check(self, "pass_at_k_large"');
      const edges = tests.find((t) => t.id === "TestPassAtK.test_edges_and_errors");
      expect(edges?.traceback).toContain('  File "test.py", line 12, in <module>\nValueError: compiled as test.py');
      const aggregate = tests.find((t) => t.id === "TestAggregate.test_per_problem_mean_and_errors");
      expect(aggregate?.message).toContain("leak_key");
      const naive = tests.find((t) => t.id === "TestNaivePassAtK.test_values_and_bias");
      expect(naive?.traceback).toContain('ValueError: bad\n  File "test.py", line 12, in y\n');
    },
  );

  it.each(["pyodide", "native"])("%s: a module put in sys.modules as numpy is not what the checks encode with", (backend) => {
    // (chronos-mean-scale-tokenizer lists no package; its error checks call outcome() with objects of the task's own.)
    const canonical = readFileSync(new URL("../../tasks/chronos-mean-scale-tokenizer/canonical.py", import.meta.url), "utf8");
    const file = candidate(
      "fake-numpy.py",
      `${canonical}

import sys as _sys, types as _types

_fake = _types.ModuleType("numpy")


def _asked(name):
    print("FAKE NUMPY ASKED", name)
    raise AttributeError(name)


_fake.__getattr__ = _asked
_sys.modules["numpy"] = _fake
`,
    );
    const r = recode("test", "chronos-mean-scale-tokenizer", file, "--json", "--backend", backend);
    const out = JSON.parse(r.stdout) as { solved: boolean; incident: unknown; tests: { stdout: string; stderr: string }[] };
    expect(out.solved).toBe(true);
    expect(out.incident).toBeNull();
    for (const t of out.tests) expect(`${t.stdout}${t.stderr}`).not.toContain("FAKE NUMPY ASKED");
  });

  it("outside the playground (recode_check comparing itself, under CPython), a failed item names its call too", () => {
    const folder = mkdtempSync(join(tmpdir(), "recode-outcome-cpython-"));
    cpSync(join(task, "repo"), folder, { recursive: true });
    cpSync(join(task, "test.py"), join(folder, "test.py"));
    writeFileSync(join(folder, "evalkit", "metrics.py"), canonicalWith("None and ("));
    const r = spawnSync("python3", ["-m", "unittest", "test.TestOutcomes"], {
      cwd: folder,
      encoding: "utf8",
      env: {
        ...process.env,
        PYTHONPATH: new URL("../../src/python", import.meta.url).pathname,
        RECODE_EXPECTED: join(task, "expected.json"),
      },
    });
    expect(r.stderr).toContain("Mismatch: pass_at_k_outcome_1, for pass_at_k(10, 3, 11): expected ValueError to be raised, got ");
  });

  it("validate fails each check of outcome() that records errors alone, and takes one that holds values too", () => {
    // (Code under test can tell a call through outcome() by its depth in the stack: a check whose every call
    // raised is passed by code that raises whenever it is that deep.)
    const tasks = join(task, "..");
    const alone = recode("tasks", "validate", "pass-at-k", "--dir", tasks, "--no-mutation", "--native");
    expect(alone.status).toBe(1);
    expect(alone.stdout).toMatch(/error checks hold values too +FAIL +FAIL/);
    const named = /checks that record only errors: ([^(]*) \(/.exec(alone.stdout)?.[1]?.split(", ") ?? [];
    // (The valid calls' checks, 0 and 3, hold values.)
    expect(named.filter((k) => k.startsWith("pass_at_k_outcome_"))).toEqual([
      "pass_at_k_outcome_1",
      "pass_at_k_outcome_2",
      "pass_at_k_outcome_4",
      "pass_at_k_outcome_5",
    ]);
    // The same calls in one check each test makes through one outcome(): valid.
    const mixed = mkdtempSync(join(tmpdir(), "recode-outcome-mixed-"));
    cpSync(task, join(mixed, "pass-at-k"), { recursive: true });
    const testPy = join(mixed, "pass-at-k", "test.py");
    writeFileSync(
      testPy,
      readFileSync(testPy, "utf8").replace(
        / {8}for i, args in enumerate\(cases\):\n.*\n.*\n/,
        '        check(self, "pass_at_k_outcomes", [outcome(pass_at_k, *args) for args in cases], rtol=1e-12)\n',
      ),
    );
    expect(recode("tasks", "record", "pass-at-k", "--dir", mixed).status).toBe(0);
    const ok = recode("tasks", "validate", "pass-at-k", "--dir", mixed, "--no-mutation", "--native");
    expect(ok.stdout).toMatch(/error checks hold values too +ok +ok/);
  });
});
