/**
 * The task gates on small hand-made tasks written to a temporary folder: line
 * coverage in both backends, the mutation score on the native runtime, and
 * the `recode tasks validate` / `recode tasks doc` commands as a user runs them.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTaskDir } from "../../src/cli/task-fs";
import { measureMutation } from "../../src/cli/task-gates/mutation";
import { measureCoverageNative, PyodideCoverage } from "../../src/python/coverage-runner";
import { createRuntime } from "../../src/python/node";
import type { PythonRuntime } from "../../src/python/runtime";
import { recordExpected } from "../../src/python/validate";

const BIN = new URL("../../bin/recode.mjs", import.meta.url).pathname;
const recode = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 300_000 });

/** A weak task: its tests never reach lines 7, 9 and 11, and never rely on the default of `factor` (line 15). */
const WEAK_CANONICAL = `"""Clipping helpers."""


def clip(x, lo=0.0, hi=1.0):
    """x limited to [lo, hi]."""
    if lo > hi:
        raise ValueError("lo must not exceed hi")
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def scale(values, factor=2):
    """Every value times factor."""
    return [v * factor for v in values]
`;

const WEAK_TESTS = `import unittest

from recode_check import check
from tiny.ops import clip, scale


class TestClip(unittest.TestCase):
    def test_inside(self):
        check(self, "clip_inside", [clip(0.5), clip(0.25, 0.0, 1.0)])


class TestScale(unittest.TestCase):
    def test_scale(self):
        check(self, "scale_3", scale([1, 2], 3))
`;

/** A strong task: every line run, every mutant noticed. */
const STRONG_CANONICAL = `def sign(x):
    """-1, 0 or 1."""
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0
`;

const STRONG_TESTS = `import unittest

from recode_check import check
from tiny.ops import sign


class TestSign(unittest.TestCase):
    def test_values(self):
        check(self, "signs", [sign(x) for x in (-2, -1, 0, 1, 3)])
`;

function writeTask(root: string, id: string, canonical: string, tests: string, interfaces: { name: string; tests: string[] }[]): void {
  const meta = {
    id,
    title: `Tiny task ${id}`,
    paper: { title: "A paper", authors: ["A. Author"], venue: "Nowhere", year: 2024, url: "https://example.org/paper" },
    domain: "testing",
    tags: ["tiny"],
    packages: [],
    target_file_path: "tiny/ops.py",
    interfaces: interfaces.map((i) => ({ ...i, guidance: "Follow the docstring." })),
    time_limit_s: 10,
    license: "MIT",
    difficulty: "easy",
    start: "stubs",
  };
  const stubs = interfaces.map((i) => `def ${i.name}(*args, **kwargs):\n    raise NotImplementedError\n`).join("\n\n");
  const files: Record<string, string> = {
    "task.json": JSON.stringify(meta, null, 2),
    "instruction.md": "Write the functions.\n",
    "paper.tex": "\\section{Method} Nothing to see.\n",
    "repo/tiny/__init__.py": "",
    "repo/tiny/ops.py": stubs,
    "canonical.py": canonical,
    "test.py": tests,
  };
  for (const [rel, text] of Object.entries(files)) {
    const p = join(root, id, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

const root = mkdtempSync(join(tmpdir(), "recode-gates-"));
let native: PythonRuntime;

beforeAll(async () => {
  writeTask(root, "tiny-weak", WEAK_CANONICAL, WEAK_TESTS, [
    { name: "clip", tests: ["TestClip.test_inside"] },
    { name: "scale", tests: ["TestScale.test_scale"] },
  ]);
  writeTask(root, "tiny-strong", STRONG_CANONICAL, STRONG_TESTS, [{ name: "sign", tests: ["TestSign.test_values"] }]);
  native = createRuntime("native");
  await native.ready();
  for (const id of ["tiny-weak", "tiny-strong"]) {
    writeFileSync(join(root, id, "expected.json"), await recordExpected(loadTaskDir(root, id), native));
  }
});

afterAll(async () => {
  await native?.dispose();
});

describe("line coverage", () => {
  it("shows the branches the tests miss, the same in both backends", async () => {
    const task = loadTaskDir(root, "tiny-weak");
    const pyodide = new PyodideCoverage();
    try {
      const [n, p] = [await measureCoverageNative(task), await pyodide.measure(task)];
      for (const r of [n, p]) {
        expect(r.missing).toEqual([7, 9, 11]);
        // Docstrings of functions are no code (lines 5 and 16); the module's is (line 1: it sets __doc__).
        expect(r.executable).toEqual([1, 4, 6, 7, 8, 9, 10, 11, 12, 15, 17]);
        expect(r.problems).toEqual([]);
        expect(r.tests).toBe(2);
        expect(r.percent).toBeCloseTo((100 * 8) / 11, 6);
      }
      expect(n.method).toBe(n.python.startsWith("3.11") ? "sys.settrace" : "sys.monitoring");
      expect(p.method).toBe("sys.monitoring");
      const strong = await pyodide.measure(loadTaskDir(root, "tiny-strong"));
      expect(strong.missing).toEqual([]);
      expect(strong.percent).toBe(100);
    } finally {
      pyodide.dispose();
    }
  }, 300_000);
});

describe("mutation score", () => {
  it("names the mutants a weak test lets through, and kills every mutant of a strong one", async () => {
    const weak = await measureMutation(loadTaskDir(root, "tiny-weak"), native, { cap: 100 });
    const survivors = weak.outcomes.filter((o) => !o.killed).map((o) => `${o.mutant.line} ${o.mutant.operator} ${o.mutant.description}`);
    expect(survivors).toContain("15 default default 2 -> 3");
    expect(survivors).toContain("9 statement dropped `return lo`");
    expect(weak.score).toBeLessThan(80);
    expect(weak.outcomes.find((o) => o.mutant.line === 17 && o.mutant.operator === "arithmetic")).toMatchObject({ killed: true });
    const strong = await measureMutation(loadTaskDir(root, "tiny-strong"), native);
    expect(strong.outcomes.filter((o) => !o.killed).map((o) => o.mutant.description)).toEqual([]);
    expect(strong.score).toBe(100);
    expect(strong.outcomes.length).toBeGreaterThan(5);
  }, 300_000);
});

describe("the commands", () => {
  it("recode tasks validate fails the gates of the weak task and lists what is missing", () => {
    const r = recode("tasks", "validate", "--dir", root, "--native-only", "--mutants", "12");
    expect(r.status).toBe(1);
    const weak = r.stdout.slice(r.stdout.indexOf("tiny-weak"));
    expect(weak).toMatch(/coverage >= 80% +FAIL/);
    expect(weak).toContain("72.7% (8/11 lines");
    expect(weak).toContain("not covered: canonical.py lines 7, 9, 11");
    expect(weak).toMatch(/mutation score >= 80% +FAIL/);
    expect(weak).toMatch(/survived: canonical\.py:\d+ \[/);
    const strong = r.stdout.slice(r.stdout.indexOf("tiny-strong"), r.stdout.indexOf("tiny-weak"));
    expect(strong).toMatch(/coverage >= 80% +ok/);
    expect(strong).toMatch(/mutation score >= 80% +ok/);
    const quick = recode("tasks", "validate", "tiny-strong", "--dir", root, "--native-only", "--no-mutation");
    expect(quick.status).toBe(0);
    expect(quick.stdout).not.toContain("mutation score");
    expect(recode("tasks", "validate", "--dir", root, "--mutants", "zero").status).toBe(2);
  }, 300_000);

  it("recode tasks validate counts a canonical solution's expected failures apart, lists no test that passes, and fails a stale recording once", () => {
    const dir = mkdtempSync(join(tmpdir(), "recode-xfail-validate-"));
    cpSync(new URL("../fixtures/xfail-task/known-limits", import.meta.url).pathname, join(dir, "known-limits"), { recursive: true });
    const r = recode("tasks", "validate", "--dir", dir, "--native-only", "--no-mutation");
    expect(r.stdout).toMatch(/canonical passes +ok *\n +native: 1\/3 passed, 2 xfail\n/);
    // test.py changed since the recording: "recorded" fails, and the checks after it judge against values recorded
    // here afresh, so that the one cause is one failure (the old values would fail the canonical solution, the
    // comparison with the file and the coverage gate as well).
    const testPy = join(dir, "known-limits", "test.py");
    writeFileSync(testPy, readFileSync(testPy, "utf8").replace("[f(0), f(1), f(2)]", "[f(0), f(1), f(4)]"));
    const stale = recode("tasks", "validate", "--dir", dir, "--native-only", "--no-mutation");
    expect(stale.stdout).toMatch(/recorded +FAIL *\n +native: expected\.json was recorded from another test\.py/);
    expect(stale.stdout).toMatch(
      /canonical passes +ok *\n +native: 1\/3 passed, 2 xfail; judged against values recorded here afresh \(expected\.json is stale: see "recorded"\)\n/,
    );
    expect(stale.stdout).toMatch(/re-record identical +skipped *\n +native: not compared with expected\.json, which is stale/);
    expect(stale.stdout).toMatch(/coverage >= 80% +ok/);
    expect(stale.stdout).not.toMatch(/(canonical passes|re-record identical|deterministic x3|coverage >= 80%) +FAIL/);
    expect(stale.status).toBe(1);
    rmSync(dir, { recursive: true, force: true });
  }, 300_000);

  it("recode tasks doc for some tasks does not replace the whole suite's document", () => {
    const cwd = mkdtempSync(join(tmpdir(), "recode-doc-"));
    mkdirSync(join(cwd, "docs"), { recursive: true });
    writeFileSync(join(cwd, "docs", "tasks.md"), "every task\n");
    const r = spawnSync(process.execPath, [BIN, "tasks", "doc", "pass-at-k"], { encoding: "utf8", cwd, timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/1 of the \d+ tasks would replace docs\/tasks\.md, which lists every task: give --out <file>/);
    // Nor the tasks of another folder, all of them included.
    const other = spawnSync(process.execPath, [BIN, "tasks", "doc", "--dir", root], { encoding: "utf8", cwd, timeout: 60_000 });
    expect(other.status).toBe(2);
    expect(other.stderr).toContain(`the tasks of ${root} are not the built-in ones: give --out <file> for their document`);
    expect(readFileSync(join(cwd, "docs", "tasks.md"), "utf8")).toBe("every task\n");
    // Nor a docs/tasks.md made where there was none (a folder that is not the checkout).
    const bare = mkdtempSync(join(tmpdir(), "recode-doc-bare-"));
    const fresh = spawnSync(process.execPath, [BIN, "tasks", "doc", "--dir", root], { encoding: "utf8", cwd: bare, timeout: 60_000 });
    expect(fresh.status).toBe(2);
    expect(existsSync(join(bare, "docs"))).toBe(false);
    rmSync(cwd, { recursive: true, force: true });
    rmSync(bare, { recursive: true, force: true });
  });

  it("recode tasks doc writes a document with every task", () => {
    const out = join(root, "out", "tasks.md");
    const r = recode("tasks", "doc", "--dir", root, "--out", out, "--mutants", "6");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const md = readFileSync(out, "utf8");
    for (const id of ["tiny-strong", "tiny-weak"]) {
      expect(md).toContain(`## ${id}: Tiny task ${id}`);
      expect(md).toMatch(
        new RegExp(
          `\\| \\[${id}\\]\\(#${id}-tiny-task-${id}\\) \\| easy \\| stubs \\| - \\| \\d \\| \\d \\| [\\d.]+%( \\(below 80%\\))? \\| [\\d.]+%( \\(below 80%\\))? \\| [\\d.]+% \\(\\d+/6\\)( \\(below 80%\\))? \\| \\d+ ms \\| \\d+ ms \\|`,
        ),
      );
    }
    // The weak task's measures under the gates are marked, and said as the document is written.
    expect(md).toMatch(/\| \[tiny-weak\][^\n]*72\.7% \(below 80%\) \| 72\.7% \(below 80%\)/);
    expect(r.stdout).toMatch(/tiny-weak: measured, below the gates: coverage pyodide 72\.7%, coverage native 72\.7%/);
    expect(r.stdout).toMatch(/tiny-strong: measured\n/);
    expect(md).toContain("| `clip` | `TestClip.test_inside` |");
    expect(md).toContain("7, 9, 11");
    expect(md).toContain("## Mutation operators");
  }, 300_000);

  it("the example task of docs/task-format.md is valid, copied and renamed it records and grades, and the doc shows its test.py", () => {
    const example = new URL("../../examples/tasks/debiased-ema/", import.meta.url).pathname;
    const doc = readFileSync(new URL("../../docs/task-format.md", import.meta.url).pathname, "utf8");
    expect(doc).toContain(
      `Its test.py (each test makes a \`check\`, the error test too):\n\n\`\`\`python\n${readFileSync(join(example, "test.py"), "utf8")}\`\`\``,
    );
    const valid = recode("tasks", "validate", "debiased-ema", "--dir", dirname(example), "--native", "--mutants", "12");
    expect(valid.stdout).toContain("the task is valid");
    expect(valid.status).toBe(0);
    // As the doc's steps say: copy, rename, record, grade.
    const mine = mkdtempSync(join(tmpdir(), "recode-example-"));
    cpSync(example, join(mine, "my-ema"), { recursive: true });
    const json = join(mine, "my-ema", "task.json");
    writeFileSync(json, readFileSync(json, "utf8").replace('"id": "debiased-ema"', '"id": "my-ema"'));
    rmSync(join(mine, "my-ema", "expected.json"));
    expect(recode("tasks", "record", "my-ema", "--dir", mine).status).toBe(0);
    expect(readFileSync(join(mine, "my-ema", "expected.json"), "utf8")).toBe(readFileSync(join(example, "expected.json"), "utf8"));
    expect(recode("test", "my-ema", join(mine, "my-ema", "canonical.py"), "--dir", mine).status).toBe(0);
    expect(recode("test", "my-ema", join(mine, "my-ema", "repo", "smoothing", "ema.py"), "--dir", mine).status).toBe(1);
    rmSync(mine, { recursive: true, force: true });
  }, 300_000);
});
