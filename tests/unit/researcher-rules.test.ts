import { describe, expect, it } from "vitest";
import { createRulesResearcher } from "../../src/core/researchers";
import { framesOf } from "../../src/core/researchers/rules-evidence";
import { makeRunResult, makeTestResult, type RunResult, type TestResult } from "../../src/core/results";
import { loadTaskFromFiles, type Task } from "../../src/core/task";

const CANONICAL = `from pkg.util import clip


def scale(xs, factor):
    # Eq. (1): clip every scaled value.
    return [clip(x * factor) for x in xs]


def total(xs):
    return sum(scale(xs, 1.0))
`;

function toyTask(): Task {
  return loadTaskFromFiles("toy", {
    "task.json": JSON.stringify({
      id: "toy",
      title: "Toy",
      paper: { title: "A toy", authors: ["A. Author"], venue: "None", year: 2024, url: "https://example.org/toy" },
      domain: "testing",
      target_file_path: "pkg/mod.py",
      interfaces: [
        {
          name: "scale",
          tests: ["TestScale.test_values", "TestScale.test_edges"],
          guidance: "Multiply, then clip with the repository helper.",
        },
        { name: "total", tests: ["TestTotal.test_sum"], guidance: "Sum the scaled values." },
      ],
      time_limit_s: 10,
      license: "MIT",
    }),
    "instruction.md": "Write scale and total.",
    "paper.tex": "\\section{Method} Scale and clip.",
    "canonical.py": CANONICAL,
    "test.py":
      "class TestScale:\n    def test_values(self): pass\n    def test_edges(self): pass\nclass TestTotal:\n    def test_sum(self): pass\n",
    "repo/pkg/__init__.py": "",
    "repo/pkg/util.py": "def clip(x):\n    return max(-1.0, min(1.0, x))\n",
    "repo/pkg/mod.py": "",
  });
}

function t(id: string, status: TestResult["status"], extra: Partial<TestResult> = {}): TestResult {
  const itf = id.startsWith("TestScale") ? "scale" : "total";
  return makeTestResult(id, status, { interface: itf, durationMs: 1, ...extra });
}

function run(tests: TestResult[], extra: Partial<RunResult> = {}): RunResult {
  return makeRunResult(tests, { allPassed: false, durationMs: 1, ...extra });
}

const GOOD =
  "from pkg.util import clip\n\n\ndef scale(xs, factor):\n    return [clip(x * factor) for x in xs]\n\n\ndef total(xs):\n    return sum(scale(xs, 1.0))\n";
const task = toyTask();
const review = (code: string, r: RunResult) => createRulesResearcher().review({ task, code, run: r, turn: 1 });
const passing = () => [t("TestScale.test_values", "passed"), t("TestScale.test_edges", "passed"), t("TestTotal.test_sum", "passed")];

describe("rules researcher", () => {
  it("describes a value mismatch as T2 with the element and the evidence", async () => {
    const tests = passing();
    tests[0] = t("TestScale.test_values", "failed", {
      message: "AssertionError: scale_basic at [1]: expected 0.5, got 0.6",
      mismatch: {
        key: "scale_basic",
        kind: "value",
        where: "[1]",
        expected: "0.5",
        actual: "0.6",
        detail: "expected 0.5, got 0.6 (abs diff 0.1)",
      },
    });
    const rec = await review(GOOD, run(tests));
    expect(rec.researcher).toBe("rules");
    expect(rec.items).toHaveLength(1);
    const item = rec.items[0];
    expect(item?.interface).toBe("scale");
    expect(item?.category).toBe("T2");
    expect(item?.description).toContain('check "scale_basic" at [1]: expected 0.5, got 0.6 (abs diff 0.1)');
    expect(item?.analysis).toContain("1 of 2 tests for this interface fails (TestScale.test_values)");
    expect(item?.analysis).toContain("TestScale.test_edges passes");
    expect(item?.actionable_feedback).toBe("Multiply, then clip with the repository helper.");
    // Self-contained: the import the definition needs comes with it.
    expect(item?.direct_code_feedback).toContain(
      "```python\nfrom pkg.util import clip\n\n\ndef scale(xs, factor):\n    # Eq. (1): clip every scaled value.\n    return [clip(x * factor) for x in xs]\n```",
    );
  });

  it("names shape mismatches", async () => {
    const tests = passing();
    tests[2] = t("TestTotal.test_sum", "failed", {
      message: "AssertionError",
      mismatch: { key: "tot", kind: "shape", where: "", expected: "(3,)", actual: "(3, 1)", detail: "expected shape (3,), got (3, 1)" },
    });
    const rec = await review(GOOD, run(tests));
    expect(rec.items[0]?.description).toContain("wrong shape");
    expect(rec.items[0]?.description).toContain("expected (3,), got (3, 1)");
  });

  it("calls an exception in candidate code T1 and quotes the line", async () => {
    const code =
      "from pkg.util import clip\n\n\ndef scale(xs, factor):\n    return [clip(x / 0) for x in xs]\n\n\ndef total(xs):\n    return sum(scale(xs, 1.0))\n";
    const tests = passing();
    tests[0] = t("TestScale.test_values", "error", {
      message: "ZeroDivisionError: division by zero",
      line: 5,
      traceback: 'File "pkg/mod.py", line 5, in scale',
    });
    const rec = await review(code, run(tests));
    expect(rec.items[0]?.category).toBe("T1");
    expect(rec.items[0]?.description).toContain("raises ZeroDivisionError: division by zero at line 5 of pkg/mod.py");
    expect(rec.items[0]?.analysis).toContain("`return [clip(x / 0) for x in xs]`");
  });

  it("calls NotImplementedError and a missing interface T0", async () => {
    const stub = "def scale(xs, factor):\n    raise NotImplementedError\n";
    const tests = [
      t("TestScale.test_values", "error", { message: "NotImplementedError" }),
      t("TestScale.test_edges", "error", { message: "NotImplementedError" }),
      t("TestTotal.test_sum", "error", { message: "AttributeError: module 'pkg.mod' has no attribute 'total'" }),
    ];
    const rec = await review(stub, run(tests));
    const byName = Object.fromEntries(rec.items.map((i) => [i.interface, i]));
    expect(byName.scale?.category).toBe("T0");
    expect(byName.scale?.description).toContain("not implemented");
    expect(byName.total?.category).toBe("T0");
    expect(byName.total?.description).toContain("missing from pkg/mod.py");
  });

  it("attributes a collection error to the definition enclosing its line", async () => {
    const code =
      "from pkg.util import clip\n\n\ndef scale(xs, factor):\n    return [clip(x * factor) for x in xs\n\n\ndef total(xs):\n    return 0\n";
    const r = run([], { collectionError: { message: "SyntaxError: '[' was never closed", file: "pkg/mod.py", line: 5, traceback: "" } });
    const rec = await review(code, r);
    expect(rec.items).toHaveLength(1);
    expect(rec.items[0]?.interface).toBe("scale");
    expect(rec.items[0]?.category).toBe("T1");
    expect(rec.items[0]?.description).toContain("cannot be imported");
    expect(rec.items[0]?.analysis).toContain("line 5");
  });

  it("attributes an import error naming an interface as T0", async () => {
    const code = "def scale(xs, factor):\n    return xs\n";
    const r = run([], {
      collectionError: { message: "ImportError: cannot import name 'total' from 'pkg.mod'", file: "test.py", line: 1, traceback: "" },
    });
    const rec = await review(code, r);
    expect(rec.items[0]?.interface).toBe("total");
    expect(rec.items[0]?.category).toBe("T0");
    expect(rec.items[0]?.direct_code_feedback).toContain("def total(xs):");
  });

  it("calls a re-implemented repository helper T4, and an unused one not", async () => {
    const mismatch = { key: "k", kind: "value" as const, where: "[0]", expected: "1.0", actual: "2.0", detail: "expected 1.0, got 2.0" };
    const tests = passing();
    tests[0] = t("TestScale.test_values", "failed", { message: "AssertionError", mismatch });
    const redefined =
      "def clip(x):\n    return x\n\n\ndef scale(xs, factor):\n    return [clip(x * factor) for x in xs]\n\n\ndef total(xs):\n    return sum(scale(xs, 1.0))\n";
    const rec1 = await review(redefined, run(tests));
    expect(rec1.items[0]?.category).toBe("T4");
    expect(rec1.items[0]?.analysis).toContain(
      "uses pkg/mod.py's own `clip`, which takes the place of the repository's `clip` (pkg/util.py)",
    );
    const unused =
      "from pkg.util import clip\n\n\ndef scale(xs, factor):\n    return [x * factor for x in xs]\n\n\ndef total(xs):\n    return sum(scale(xs, 1.0))\n";
    // Not calling a helper is no evidence that it is the cause: the wrong value is what happened.
    const rec2 = await review(unused, run(tests));
    expect(rec2.items[0]?.category).toBe("T2");
    expect(rec2.items[0]?.analysis).not.toContain("`clip`");
  });

  /** `total` (which calls `scale`) and `scale` both failing, `total` reported first. */
  const bothFail = () => {
    const mismatch = { key: "k", kind: "value" as const, where: "", expected: "1.0", actual: "2.0", detail: "expected 1.0, got 2.0" };
    return run([
      t("TestTotal.test_sum", "failed", { message: "AssertionError", mismatch }),
      t("TestScale.test_values", "failed", { message: "AssertionError", mismatch }),
      t("TestScale.test_edges", "passed"),
    ]);
  };

  it("puts an interface that other failing interfaces call first", async () => {
    const rec = await review(GOOD, bothFail());
    expect(rec.items.map((i) => i.interface)).toEqual(["scale", "total"]);
    expect(rec.items[1]?.analysis).toContain("`total` calls `scale`, which also fails");
  });

  it("puts an interface the others call first by the candidate's own calls where there is no canonical solution (the student build)", async () => {
    const rec = await createRulesResearcher().review({ task: { ...task, canonical: "" }, code: GOOD, run: bothFail(), turn: 1 });
    expect(rec.items.map((i) => i.interface)).toEqual(["scale", "total"]);
  });

  it("falls back to the whole canonical file for a name that is not a canonical definition", async () => {
    const tests = [t("TestOther.test_x", "error", { interface: null, message: "RuntimeError: boom" })];
    const rec = await review(GOOD, run(tests));
    expect(rec.items[0]?.interface).toBe("pkg/mod.py");
    // A whole file opens with a module docstring, so that applying it replaces the file.
    expect(rec.items[0]?.direct_code_feedback).toBe(
      `The whole of pkg/mod.py: replace the file with it.\n\n\`\`\`python\n"""pkg/mod.py: the whole file."""\n\n${CANONICAL.trimEnd()}\n\`\`\``,
    );
  });
});

describe("rules researcher evidence", () => {
  it("names every missing interface when the import fails, and measures numeric differences", async () => {
    const r = run([], {
      collectionError: { message: "ImportError: cannot import name 'scale' from 'pkg.mod'", file: "test.py", line: 1, traceback: "" },
    });
    const rec = await review("", r);
    expect(rec.items.map((i) => [i.interface, i.category])).toEqual([
      ["scale", "T0"],
      ["total", "T0"],
    ]);
    const tests = passing();
    tests[0] = t("TestScale.test_values", "failed", {
      message: "AssertionError",
      mismatch: { key: "k", kind: "value", where: "[0]", expected: "0.5", actual: "0.25", detail: "expected 0.5, got 0.25" },
    });
    const rec2 = await review(GOOD, run(tests));
    expect(rec2.items[0]?.analysis).toContain("The value is 50% too small in magnitude (ratio 0.500).");
  });
});

describe("rules researcher: a collection error inside a helper of the candidate's own", () => {
  it("is about the target file, not the private helper", async () => {
    const { BUILTIN_TASKS, loadTaskDir } = await import("../../src/cli/task-fs");
    const task = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
    const code = "def _validate(n):\n    x = (\n\ndef pass_at_k(n, c, k):\n    return 0\n";
    const r = makeRunResult([], {
      collectionError: { message: "SyntaxError: '(' was never closed", file: task.meta.target_file_path, line: 2, traceback: "" },
    });
    const rec = await createRulesResearcher().review({ task, code, run: r, turn: 0 });
    expect(rec.items[0]?.interface).toBe(task.meta.target_file_path);
  });
});

describe("the frames the rules researcher reads from a traceback", () => {
  it("reads a syntax error's place, indented as CPython writes it, as no frame", () => {
    // python3: a test whose import of a helper module meets a syntax error there (traceback.format_exc()).
    const tb = [
      "Traceback (most recent call last):",
      '  File "test.py", line 12, in test_values',
      "    from pkg.late import f",
      '  File "pkg/late.py", line 3',
      "    return (",
      "           ^",
      "SyntaxError: '(' was never closed",
    ].join("\n");
    expect(framesOf(tb)).toEqual([{ file: "test.py", line: 12, func: "test_values" }]);
  });
});
