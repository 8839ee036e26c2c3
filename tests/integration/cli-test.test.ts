/** `recode test <task> <candidate.py>` as a user runs it: a real process, real Python. */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { knownBug } from "../helpers/known-bugs";
import { loaderSlipAttack } from "../helpers/test-py-attacks";
import { oracleOutcome } from "../helpers/unittest-oracle";

const BIN = new URL("../../bin/recode.mjs", import.meta.url).pathname;
// (With no COLUMNS: the text output is folded only to a terminal's width or a COLUMNS that is set.)
const recode = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 120_000, env: { ...process.env, COLUMNS: "" } });
const dir = mkdtempSync(join(tmpdir(), "recode-test-cmd-"));

/** A fresh folder holding a copy of the built-in pass-at-k task (to break it on purpose); returns the folder. */
function passAtKCopy(prefix: string): string {
  const tasks = mkdtempSync(join(tmpdir(), prefix));
  cpSync(new URL("../../tasks/pass-at-k", import.meta.url).pathname, join(tasks, "pass-at-k"), { recursive: true });
  return tasks;
}
/** The copy's expected.json as recorded before test.py's digest was kept in it. */
function withoutTestPyDigest(tasks: string): void {
  const expected = join(tasks, "pass-at-k", "expected.json");
  writeFileSync(expected, readFileSync(expected, "utf8").replace(/^ "testPySha256": "[0-9a-f]{64}",\n/m, ""));
  expect(readFileSync(expected, "utf8")).not.toContain("testPySha256");
}
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

/** Candidate lines after `_ns` holds a `__getattr__`: a stand-in for evalkit.results with it, and wrong interfaces. */
const STAND_IN_RESULTS = [
  '_m = types.ModuleType("evalkit.results")',
  "_m.__getattr__ = _ns['__getattr__']",
  'sys.modules["evalkit.results"] = _m',
  "def pass_at_k(n, c, k): return 0.0",
  "naive_pass_at_k = aggregate_pass_at_k = pass_at_k",
  "",
];

describe("recode test", () => {
  it("exits 0 for the canonical solution and lists every test", () => {
    const r = recode("test", "pass-at-k", new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("All tests pass.");
    expect(r.stdout).toMatch(/^PASS +TestPassAtK\.test_values/m);
    // The header names the backend and the Python it ran, with no nested parentheses.
    expect(r.stdout).toMatch(/^pass-at-k, pyodide, Python 3\.\d+\.\d+ \(pyodide [\d.]+\):$/m);
    // The next line names the graded file, as it was given (a teacher grading a folder in a loop).
    expect(r.stdout).toMatch(/:\nCandidate: \/.*\/tasks\/pass-at-k\/canonical\.py\n/);
  });

  it("names the Python it ran in the header after a run that had the instance replaced", () => {
    const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url), "utf8");
    const stubborn = `${canonical}\n\ndef pass_at_k(n, c, k):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass\n`;
    const r = recode("test", "pass-at-k", file("stubborn.py", stubborn));
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^pass-at-k, pyodide, Python 3\.\d+\.\d+ \(pyodide [\d.]+\):$/m);
    expect(r.stdout).toMatch(/replaced/);
  });

  it.each(["pyodide", "native"])("prints one JSON object and exits 1 for a known bug (%s)", (backend) => {
    const bug = knownBug("pass-at-k");
    // It prints characters the terminal text escapes (C1 controls, DEL, a zero-width space): the JSON stays JSON.
    const printed = "hello\u0085world\u007f\u200b!";
    const code = `${bug.code}\nprint(${JSON.stringify(printed)})\n`;
    const r = recode("test", "tasks/pass-at-k", file("bug.py", code), "--json", "--backend", backend);
    expect(r.status).toBe(1);
    expect((JSON.parse(r.stdout) as { tests: { stdout: string }[] }).tests[0]?.stdout).toContain(printed);
    const out = JSON.parse(r.stdout) as { solved: boolean; tests: { id: string; status: string; message: string }[]; incident: unknown };
    expect(out.solved).toBe(false);
    expect(out.incident).toBeNull();
    const failing = out.tests.filter((t) => t.status !== "passed");
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.every((t) => t.message.length > 0)).toBe(true);
  });

  it("names the task folders a pack's grouping folder holds, and the --dir that reads them", () => {
    const pack = join(dir, "pack");
    cpSync(new URL("../../tasks/pass-at-k", import.meta.url).pathname, join(pack, "week1", "pass-at-k"), { recursive: true });
    const r = recode("tasks", "list", "--dir", pack);
    expect(r.status).toBe(2);
    expect(r.stdout + r.stderr).toContain(
      `this folder holds task folders (pass-at-k), not a task; give --dir ${join(pack, "week1")} to use them`,
    );
    const list = recode("tasks", "list", "--dir", join(pack, "week1"));
    expect(list.status).toBe(0);
    // The paper's first author, its venue and year, as the page's task list shows them.
    expect(list.stdout).toContain("Mark Chen et al., arXiv preprint arXiv:2107.03374 2021 · machine learning evaluation · stdlib only");
  });

  it("validates a package task that no backend here can load as a failed row, not a note under an ok one", () => {
    // numpy has no wheel for Pyodide here (no network, no package source).
    const r = recode("tasks", "validate", "rms-norm", "--no-mutation");
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^ {2}schema +ok *\n {2}packages loaded +FAIL *\n {4}no backend could load numpy: add --native/m);
    expect(r.stdout).toContain("(the checks that run the tests were not made)");
    // With python3 beside it, Pyodide's column is skipped, and the advice names validate's own option.
    const both = recode("tasks", "validate", "rms-norm", "--native", "--no-mutation");
    expect(both.stdout).toMatch(
      /pyodide: skipped in this backend: package numpy could not be loaded .* Or use --native \(a python3 that has them\)/,
    );
    expect(both.stdout).not.toContain("--backend");
  });

  it("takes a bare name for a folder of the current directory only when it holds a task.json", () => {
    const canonical = new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname;
    const here = mkdtempSync(join(tmpdir(), "recode-cwd-"));
    // An output folder named after the task (no task.json) does not hide the built-in task.
    mkdirSync(join(here, "pass-at-k"));
    const atCwd = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 120_000, cwd: here });
    const byId = atCwd("test", "pass-at-k", canonical, "--json");
    expect(byId.status, byId.stderr).toBe(0);
    // A task folder of the same name is the folder: its own recording, here one that cannot be read.
    cpSync(new URL("../../tasks/pass-at-k", import.meta.url).pathname, join(here, "pass-at-k"), { recursive: true });
    writeFileSync(join(here, "pass-at-k", "expected.json"), '{"version": 1, "tests": {}, "values": {}}');
    const byFolder = atCwd("test", "pass-at-k", canonical, "--json");
    expect(byFolder.status).toBe(1);
    expect(byFolder.stdout).toContain("expected.json cannot be read");
  });

  it("exits 2 with a clear message for a missing candidate, an unknown task or a bad option", () => {
    const missing = recode("test", "pass-at-k", join(dir, "nope.py"));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("cannot read the candidate file");
    const unknown = recode("test", "no-such-task", file("x.py", "x = 1\n"));
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("no such task folder");
    // The text, kept in a file or read through a pipe, says it too: no script is left with an empty grade.
    expect(unknown.stdout).toMatch(/^Not judged: .*no such task folder/);
    // With --json, a script gets one object for it too.
    const unknownJson = recode("test", "no-such-task", file("x.py", "x = 1\n"), "--json");
    expect(unknownJson.status).toBe(2);
    expect(JSON.parse(unknownJson.stdout)).toMatchObject({ solved: false, error: expect.stringContaining("no such task folder") });
    const bad = recode("test", "pass-at-k", file("y.py", "x = 1\n"), "--backend", "java");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--backend");
    // The option of the other commands, given by mistake: said which to give instead.
    const native = recode("test", "pass-at-k", file("y.py", "x = 1\n"), "--native");
    expect(native.status).toBe(2);
    expect(native.stderr).toContain("recode test takes --backend native (--native is the option of tasks record and validate)");
    for (const command of ["record", "validate"]) {
      const backend = recode("tasks", command, "pass-at-k", "--backend", "native");
      expect(backend.status).toBe(2);
      expect(backend.stderr).toMatch(
        new RegExp(`tasks ${command} takes --native .*for python3.*--backend is the option of recode test and recode run`),
      );
    }
    const latin1 = join(dir, "latin1.py");
    writeFileSync(latin1, Buffer.from([0x78, 0x20, 0x3d, 0x20, 0x22, 0xe9, 0x22, 0x0a]));
    // Bytes that are not UTF-8, in a file that declares no other encoding: Python cannot compile it, a verdict.
    const notUtf8 = recode("test", "pass-at-k", latin1);
    expect(notUtf8.status).toBe(1);
    expect(notUtf8.stdout).toContain(
      "Collection error in evalkit/metrics.py, line 1: SyntaxError: the file is not UTF-8 text (line 1: byte 0xe9) and declares no other encoding",
    );
    expect(notUtf8.stdout).toContain("counts as 0 of 6 tests passed");
    // --json gives where and what as a traceback too, as it does for a file that does not parse.
    const notUtf8Json = JSON.parse(recode("test", "pass-at-k", latin1, "--json").stdout);
    expect(notUtf8Json.collectionErrorTraceback).toMatch(
      /^ {2}File "evalkit\/metrics\.py", line 1\nSyntaxError: the file is not UTF-8 text/,
    );
    const notFolder = recode("test", new URL("../../tasks/pass-at-k/task.json", import.meta.url).pathname, latin1);
    expect(notFolder.status).toBe(2);
    expect(notFolder.stderr).toContain("is not a task folder");
    // A command line that does not parse, with --json: one object on stdout too, the parser's words on stderr.
    for (const args of [
      ["test", "--json"],
      ["test", "pass-at-k", file("w.py", "x = 1\n"), "--json", "--jsn"],
    ]) {
      const usage = recode(...args);
      expect(usage.status).toBe(2);
      expect(JSON.parse(usage.stdout)).toMatchObject({
        solved: false,
        error: expect.stringMatching(/missing required argument 'task'|unknown option '--jsn'/),
      });
      expect(usage.stderr).toMatch(/^error: /);
    }
    // A package source that is no folder: said before any run, not as the run's collection error.
    const noSource = recode("test", "pass-at-k", file("v.py", "x = 1\n"), "--package-source", join(dir, "no-such-wheels"));
    expect(noSource.status).toBe(2);
    expect(noSource.stderr).toContain("--package-source:");
    expect(noSource.stderr).toContain("is not a folder");
    // (No test log: the one line that says the file was not judged, and why.)
    expect(noSource.stdout).toMatch(/^Not judged: --package-source: .*is not a folder.*\n$/);
    // A --python that runs but is no Python: said as such, not as a parser's error.
    const notPython = recode("test", "pass-at-k", file("z.py", "x = 1\n"), "--backend", "native", "--python", "/bin/true");
    expect(notPython.status).toBe(2);
    expect(notPython.stderr).toContain(
      "recode: cannot run /bin/true as Python 3 (it ran, but did not answer as Python does, it printed nothing)",
    );
  });

  it("does not judge a file against values recorded from another canonical solution (corrected since), and says to record again", () => {
    const tasks = passAtKCopy("recode-corrected--");
    const folder = join(tasks, "pass-at-k");
    const canonical = join(folder, "canonical.py");
    const text = readFileSync(canonical, "utf8");
    const record = `recode tasks record pass-at-k --dir ${tasks}`;
    const stale =
      "expected.json was recorded from another canonical solution (canonical.py or a file of repo/ changed since the task was recorded)";
    // The model answer corrected after recording: the recorded values are the old answer's.
    writeFileSync(canonical, `${text}\n\ndef _unused():\n    return 0\n`);
    const r = recode("test", folder, canonical, "--backend", "native");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`task pass-at-k: ${stale}: run ${record}; the candidate was not judged`);
    const val = recode("tasks", "validate", folder, "--native-only", "--no-mutation");
    expect(val.status).toBe(1);
    expect(val.stdout).toMatch(/recorded +FAIL/);
    expect(val.stdout).toContain(`${stale}: run \`${record}\``);
    // A repository file beside it, the same.
    writeFileSync(canonical, text);
    expect(recode("test", folder, canonical, "--backend", "native").status).toBe(0);
    const results = join(folder, "repo", "evalkit", "results.py");
    writeFileSync(results, `${readFileSync(results, "utf8")}\n# changed\n`);
    expect(recode("test", folder, canonical, "--backend", "native").stderr).toContain(stale);
    // Recorded again, the file is judged.
    expect(recode("tasks", "record", folder, "--native").status).toBe(0);
    expect(recode("test", folder, canonical, "--backend", "native").status).toBe(0);
    // A recording from before the digest was kept: valid (the same values), and validate says to record it again.
    const expected = join(folder, "expected.json");
    writeFileSync(expected, readFileSync(expected, "utf8").replace(/^ "canonicalSha256": "[0-9a-f]{64}",\n/m, ""));
    const old = recode("tasks", "validate", folder, "--native-only", "--no-mutation");
    expect(old.status).toBe(0);
    expect(old.stdout).toMatch(
      /re-record identical +ok *\n +native: same values; recorded before expected.json kept the canonical solution's digest/,
    );
  });

  it("does not judge a file against values recorded from another test.py (an input changed), and says to record again", () => {
    const tasks = passAtKCopy("recode-changed--");
    const testPy = join(tasks, "pass-at-k", "test.py");
    const text = readFileSync(testPy, "utf8");
    expect(text).toContain("(10, 3, 1), (10, 3, 2)");
    writeFileSync(testPy, text.replace("(10, 3, 1), (10, 3, 2)", "(10, 4, 1), (10, 3, 2)"));
    const canonical = new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname;
    const record = `recode tasks record pass-at-k --dir ${tasks}`;
    const r = recode("test", join(tasks, "pass-at-k"), canonical);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `task pass-at-k: expected.json was recorded from another test.py (test.py changed since the task was recorded): run ${record}; the candidate was not judged`,
    );
    const val = recode("tasks", "validate", "pass-at-k", "--dir", tasks, "--no-mutation");
    expect(val.status).toBe(1);
    expect(val.stdout).toMatch(/recorded +FAIL/);
    expect(val.stdout).toContain(
      `expected.json was recorded from another test.py (test.py changed since the task was recorded): run \`${record}\``,
    );
    // One cause, one failure: the canonical solution is judged against values recorded here afresh.
    expect(val.stdout).toMatch(/canonical passes +ok *\n +pyodide: 6\/6 passed; judged against values recorded here afresh/);
    expect(val.stdout).toMatch(/coverage >= 80% +ok/);
    expect(val.stdout).toContain("\n1 check failed\n");
    // The same test.py with other line ends is the same test.py.
    writeFileSync(testPy, text.replaceAll("\n", "\r\n"));
    expect(recode("test", join(tasks, "pass-at-k"), canonical).status).toBe(0);
    // Recorded again, the file is judged.
    writeFileSync(testPy, text.replace("(10, 3, 1), (10, 3, 2)", "(10, 4, 1), (10, 3, 2)"));
    expect(recode("tasks", "record", "pass-at-k", "--dir", tasks).status).toBe(0);
    expect(recode("test", join(tasks, "pass-at-k"), canonical).status).toBe(0);
  });

  it("record and validate take a task folder by path, as test does, and refuse folders of two folders", () => {
    const tasks = passAtKCopy("recode-by-path-");
    const folder = join(tasks, "pass-at-k");
    const expected = join(folder, "expected.json");
    rmSync(expected);
    const rec = recode("tasks", "record", `${folder}/`, "--native");
    expect(rec.stderr).toBe("");
    expect(rec.status).toBe(0);
    expect(rec.stdout).toContain("recorded pass-at-k: ");
    // Written into the folder named, not into the built-in task of the same id.
    expect(existsSync(expected)).toBe(true);
    const val = spawnSync(process.execPath, [BIN, "tasks", "validate", "./pass-at-k", "--native-only", "--no-mutation"], {
      encoding: "utf8",
      timeout: 120_000,
      cwd: tasks,
    });
    expect(val.status).toBe(0);
    expect(val.stdout).toContain("the task is valid");
    const two = recode("tasks", "validate", folder, new URL("../../tasks/focal-loss", import.meta.url).pathname, "--native-only");
    expect(two.status).toBe(2);
    expect(two.stderr).toContain("give the tasks of one folder at a time");
  });

  it("a check that fails inside a test marked as an expected failure is that failure (xfail), as CPython counts it", () => {
    // known-limits records f's known limit on purpose: its two last tests are expected failures. A candidate without
    // the limit fails the check of one (the recorded value is the limited one) and passes the other outright.
    const task = new URL("../fixtures/xfail-task/known-limits", import.meta.url).pathname;
    const fixed = file("known-limits-fixed.py", "def f(x):\n    return x\n");
    const want = { "TestF.test_small": "passed", "TestF.test_known_limitation": "xpass", "TestF.test_known_in_check": "xfail" };
    // CPython, with recode_check comparing with expected.json itself (its mode outside the playground).
    const folder = mkdtempSync(join(tmpdir(), "recode-xfail-oracle-"));
    cpSync(join(task, "repo"), folder, { recursive: true });
    cpSync(join(task, "test.py"), join(folder, "test.py"));
    cpSync(fixed, join(folder, "lib", "m.py"));
    const cpython = oracleOutcome(folder, "python3", {
      PYTHONPATH: new URL("../../src/python", import.meta.url).pathname,
      RECODE_EXPECTED: join(task, "expected.json"),
    });
    expect(cpython.tests).toEqual(want);
    for (const backend of ["pyodide", "native"]) {
      const r = recode("test", task, fixed, "--backend", backend, "--json");
      const out = JSON.parse(r.stdout) as { solved: boolean; tests: { id: string; status: string; message: string }[] };
      expect(Object.fromEntries(out.tests.map((t) => [t.id, t.status])), backend).toEqual(want);
      // Each says what it is: the failure that was expected, and the pass that was not.
      expect(out.tests.find((t) => t.id === "TestF.test_known_in_check")?.message).toMatch(/^expected failure: .*three: expected 2, got 3/);
      expect(out.tests.find((t) => t.id === "TestF.test_known_limitation")?.message).toBe(
        "unexpected success: the test is marked as an expected failure, and it passed",
      );
      // (Not solved: an unexpected success is no pass.)
      expect(r.status).toBe(1);
      // The canonical solution's expected failures fail in the box, with the assertion's own words.
      const canonical = JSON.parse(recode("test", task, join(task, "canonical.py"), "--backend", backend, "--json").stdout) as typeof out;
      expect(canonical.tests.find((t) => t.id === "TestF.test_known_limitation")?.message, backend).toBe(
        "expected failure: AssertionError: 2 != 3",
      );
    }
    rmSync(folder, { recursive: true, force: true });
  });

  it("the text output shows what a test that did not pass printed, and says no test passed when none did", () => {
    const task = new URL("../fixtures/xfail-task/known-limits", import.meta.url).pathname;
    const noisy = file(
      "known-limits-noisy.py",
      'import sys\n\ndef f(x):\n    print("f of", x)\n    print("warned", x, file=sys.stderr)\n    return 5\n',
    );
    for (const backend of ["pyodide", "native"]) {
      const r = recode("test", task, noisy, "--backend", backend);
      expect(r.status, backend).toBe(1);
      // (Its expected failures fail as expected: counted as passing, but not said as passed.)
      expect(r.stdout).toContain("Test run: 3 tests, 0 passed, 2 expected failures (xfail, counted as passing), 1 failed.");
      expect(r.stdout).toContain(
        "    printed (stdout):\n      f of 0\n      f of 1\n      f of 2\n    printed (stderr):\n      warned 0\n",
      );
    }
  });

  it("does not pass a test that test.py gained after the recording, and says to record again", () => {
    const tasks = passAtKCopy("recode-stale--");
    // (An expected.json recorded before test.py's digest was kept: the tests it lacks still tell.)
    withoutTestPyDigest(tasks);
    const testPy = join(tasks, "pass-at-k", "test.py");
    writeFileSync(
      testPy,
      `${readFileSync(testPy, "utf8")}\n\nclass TestExtra(unittest.TestCase):\n    def test_new(self):\n        self.assertTrue(True)\n`,
    );
    const r = recode("test", join(tasks, "pass-at-k"), new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname, "--json");
    // The task is stale, not the file wrong: exit 2, with the command that records it, --dir included.
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `expected.json does not know 1 test of test.py (TestExtra.test_new): test.py changed since the task was recorded; run recode tasks record pass-at-k --dir ${tasks} (the candidate was not judged)`,
    );
    const out = JSON.parse(r.stdout) as { solved: boolean; error?: string; tests: { id: string; status: string; message: string }[] };
    expect(out.solved).toBe(false);
    expect(out.error).toMatch(/^expected\.json does not know 1 test of test\.py/);
    const extra = out.tests.find((t) => t.id === "TestExtra.test_new");
    expect(extra?.status).toBe("error");
    expect(extra?.message).toContain("record it again");
  });

  it.each(["pyodide", "native"])("--json lists every failing subTest of a test with its parameters (%s)", (backend) => {
    const tasks = passAtKCopy("recode-subtests--");
    const testPy = join(tasks, "pass-at-k", "test.py");
    writeFileSync(
      testPy,
      `${readFileSync(testPy, "utf8")}

class TestSubTests(unittest.TestCase):
    def test_each_k(self):
        check(self, "pass_at_k_each_k", [pass_at_k(10, 3, k) for k in (1, 2, 3)], rtol=1e-12)
        for k in (1, 2, 3):
            with self.subTest(k=k):
                self.assertAlmostEqual(pass_at_k(10, 3, k), 1 - math.comb(7, k) / math.comb(10, k))
`,
    );
    expect(recode("tasks", "record", "pass-at-k", "--dir", tasks).status).toBe(0);
    // Wrong for k = 2 and 3 alone: two of the three subTests fail, and both are listed.
    const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname, "utf8");
    const wrong = `${canonical}
_right = pass_at_k
def pass_at_k(n, c, k):
    return _right(n, c, k) + (0.25 if k in (2, 3) and (n, c) == (10, 3) else 0.0)
`;
    const r = recode("test", join(tasks, "pass-at-k"), file(`subtests-${backend}.py`, wrong), "--json", "--backend", backend);
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout) as {
      tests: { id: string; status: string; subtests: { params: string; status: string; message: string }[] }[];
    };
    const t = out.tests.find((x) => x.id === "TestSubTests.test_each_k");
    expect(t?.status).toBe("failed");
    expect(t?.subtests.map((s) => [s.params, s.status])).toEqual([
      ["(k=2)", "failed"],
      ["(k=3)", "failed"],
    ]);
    expect(t?.subtests[0]?.message).toMatch(/^AssertionError: 0\.783\d* != 0\.533\d* within 7 places/);
    expect(t?.subtests[1]?.message).toMatch(/^AssertionError: 0\.958\d* != 0\.708\d* within 7 places/);
  });

  it("a wrong file that slips a test of unittest's own into the run is graded (exit 1), not taken for a stale task", () => {
    const canonical = readFileSync(new URL("../../tasks/min-p-sampling/canonical.py", import.meta.url).pathname, "utf8");
    const wrong = canonical.replace("return normalize(kept)", "return normalize(kept)[::-1]");
    expect(wrong).not.toBe(canonical);
    const r = recode("test", "min-p-sampling", file("slip.py", loaderSlipAttack(wrong)), "--json");
    expect(r.status).toBe(1);
    expect(r.stderr).not.toContain("the candidate was not judged");
    expect(JSON.parse(r.stdout).solved).toBe(false);
  });
});

describe("recode test with several files (a teacher grading a class)", () => {
  const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname, "utf8");
  /** A folder of submissions: two right, one wrong, and one that changes the test framework before the others run. */
  function submissions(): string {
    const folder = mkdtempSync(join(tmpdir(), "recode-class-"));
    writeFileSync(join(folder, "a-right.py"), canonical);
    // It replaces a piece of unittest, for whatever runs after it in the same Python.
    writeFileSync(join(folder, "b-tamper.py"), `import unittest.case\nunittest.case._Outcome = None\n${canonical}`);
    writeFileSync(join(folder, "c-wrong.py"), `${canonical}\n\ndef pass_at_k(n, c, k):\n    return 0.5\n`);
    writeFileSync(join(folder, "d-right.py"), canonical);
    // Right too, in Latin-1, as its first line declares (PEP 263): Python reads it.
    writeFileSync(join(folder, "d-right-latin1.py"), Buffer.from(`# -*- coding: latin-1 -*-\n# Ren\u00e9\n${canonical}`, "latin1"));
    writeFileSync(join(folder, "notes.txt"), "not a candidate\n");
    return folder;
  }

  it("grades each file of a folder and each file named, in order, and ends with a table; exit 2 when one could not be read", () => {
    const folder = submissions();
    const missing = join(folder, "e-missing.py");
    const r = recode("test", "pass-at-k", folder, missing);
    expect(r.status).toBe(2);
    // Each file's block, in order, with its own header; the .txt file is no candidate.
    const graded = [...r.stdout.matchAll(/^Candidate: (.*)$/gm)].map((m) => m[1]);
    expect(graded).toEqual(
      ["a-right.py", "b-tamper.py", "c-wrong.py", "d-right-latin1.py", "d-right.py", "e-missing.py"].map((f) => join(folder, f)),
    );
    expect(r.stdout).toContain(`Candidate: ${missing}\nNot judged: cannot read the candidate file ${missing}: no such file.`);
    const table = r.stdout.slice(r.stdout.indexOf("Graded 6 files against pass-at-k:"));
    const rows = table.split("\n").slice(1, 7);
    expect(rows[0]).toMatch(/^ {2}solved {6}6 of 6 passed {2}.*a-right\.py$/);
    // The tampering file's run is not trusted, and the files after it are judged in a clean interpreter.
    // (Each file that did not solve the task with why, in a few words, where it is more than failed tests.)
    expect(rows[1]).toMatch(/^ {2}not solved {2}\d of 6 passed {2}.*b-tamper\.py {2}\(not trusted: it changed the test framework\)$/);
    expect(rows[2]).toMatch(/^ {2}not solved {2}[0-5] of 6 passed {2}.*c-wrong\.py$/);
    expect(rows[3]).toMatch(/^ {2}solved {6}6 of 6 passed {2}.*d-right-latin1\.py$/);
    expect(rows[4]).toMatch(/^ {2}solved {6}6 of 6 passed {2}.*d-right\.py$/);
    expect(rows[5]).toMatch(/^ {2}not judged +.*e-missing\.py {2}\(cannot be read: no such file\)$/);
    expect(table).toContain("3 of 6 files solved, 1 not judged.");
    expect(r.stderr).toContain(`recode: ${missing}: cannot read the candidate file`);
    // Without the unreadable file: exit 1, as one file was not solved.
    const readable = recode("test", "pass-at-k", folder, "--json");
    expect(readable.status).toBe(1);
    // With --json: one object a line, each naming its file.
    const objects = readable.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(objects.map((o) => [o.candidate.split("/").at(-1), o.solved])).toEqual([
      ["a-right.py", true],
      ["b-tamper.py", false],
      ["c-wrong.py", false],
      ["d-right-latin1.py", true],
      ["d-right.py", true],
    ]);
    expect(objects[1].incident.kind).toBe("tampered");
    const right = recode("test", "pass-at-k", join(folder, "a-right.py"), join(folder, "d-right.py"), "--backend", "native");
    expect(right.status).toBe(0);
    expect(right.stdout).toContain("2 of 2 files solved.");
    // One file that cannot be read, with --json: the object names it too.
    const alone = recode("test", "pass-at-k", missing, "--json");
    expect(alone.status).toBe(2);
    expect(JSON.parse(alone.stdout)).toEqual({
      candidate: missing,
      solved: false,
      error: `cannot read the candidate file ${missing}: no such file`,
    });
    // A folder with no candidate in it is a wrong input.
    const empty = mkdtempSync(join(tmpdir(), "recode-empty-"));
    const none = recode("test", "pass-at-k", empty);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain(`the candidate folder ${empty} holds no .py file`);
  });
});

describe("recode test --csv (a gradebook)", () => {
  it("prints one CSV line per file, read back by python3's csv module as written; a name that starts like a formula stays text", () => {
    const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname, "utf8");
    const folder = mkdtempSync(join(tmpdir(), "recode-class-csv-"));
    writeFileSync(join(folder, "a-right.py"), canonical);
    writeFileSync(join(folder, 'b, "quoted".py'), `${canonical}\n\ndef pass_at_k(n, c, k):\n    return 0.5\n`);
    writeFileSync(join(folder, "=1+1.py"), "def pass_at_k(n, c, k):\n    return (\n");
    // A newline in a name, written out as the text's table writes it; a name that is not UTF-8, said so.
    writeFileSync(join(folder, "\n=2.py"), "x = 1\n");
    writeFileSync(Buffer.concat([Buffer.from(`${folder}/`), Buffer.from([0xff]), Buffer.from("=3.py")]), "x = 1\n");
    // Names relative to the folder, as a teacher in it would give them.
    const r = spawnSync(process.execPath, [BIN, "test", "pass-at-k", ".", "missing.py", "--csv"], {
      cwd: folder,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, COLUMNS: "" },
    });
    expect(r.status).toBe(2);
    const rows = spawnSync("python3", ["-c", "import csv, json, sys; print(json.dumps(list(csv.reader(sys.stdin))))"], {
      input: r.stdout,
      encoding: "utf8",
    });
    const notImported = "does not load: ImportError: cannot import name 'aggregate_pass_at_k' from 'evalkit.metrics' (evalkit/metrics.py)";
    expect(JSON.parse(rows.stdout)).toEqual([
      ["task", "file", "verdict", "passed", "total", "reason"],
      ["pass-at-k", "\\n=2.py", "not solved", "0", "6", notImported],
      ["pass-at-k", "'=1+1.py", "not solved", "0", "6", "does not load: SyntaxError: '(' was never closed"],
      ["pass-at-k", "a-right.py", "solved", "6", "6", ""],
      ["pass-at-k", 'b, "quoted".py', "not solved", expect.stringMatching(/^[0-5]$/), "6", ""],
      [
        "pass-at-k",
        "\uFFFD=3.py",
        "not judged",
        "",
        "",
        "cannot be read: its name is not UTF-8 text, so it cannot be opened by name; rename the file",
      ],
      ["pass-at-k", "missing.py", "not judged", "", "", "cannot be read: no such file"],
    ]);
    // Only the table on stdout; the file that could not be read is said on stderr too.
    expect(r.stdout.startsWith("task,file,verdict,passed,total,reason\n")).toBe(true);
    expect(r.stderr).toContain("recode: missing.py: cannot read the candidate file missing.py: no such file");
    const both = recode("test", "pass-at-k", folder, "--csv", "--json");
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("give --json or --csv, not both");
  });
});

describe("recode test with several files: what a folder holds besides files", () => {
  it("a link (to a classmate's file, to a device, to a host file), a pipe or a huge file is that file's 'not judged'; the rest are graded", () => {
    const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname, "utf8");
    const folder = mkdtempSync(join(tmpdir(), "recode-class-links-"));
    writeFileSync(join(folder, "z-right.py"), canonical);
    symlinkSync("z-right.py", join(folder, "a-copies-a-classmate.py"));
    symlinkSync("/dev/zero", join(folder, "b-zero.py"));
    symlinkSync("/etc/passwd", join(folder, "c-host-file.py"));
    spawnSync("mkfifo", [join(folder, "d-pipe.py")]);
    writeFileSync(join(folder, "e-huge.py"), `x = 1\n${"#".repeat(3 * 1024 * 1024)}\n`);
    const r = recode("test", "pass-at-k", folder);
    expect(r.status).toBe(2);
    const table = r.stdout.slice(r.stdout.indexOf("Graded 6 files against pass-at-k:"));
    const row = (name: string) => table.split("\n").find((l) => l.includes(`${name}.py`)) ?? "";
    for (const name of ["a-copies-a-classmate", "b-zero", "c-host-file"])
      expect(row(name)).toMatch(/^ {2}not judged +.* {2}\(cannot be read: it is a symbolic link; grade the file itself \(copy it in\)\)$/);
    expect(row("d-pipe")).toMatch(/\(cannot be read: it is not a regular file \(a pipe, a socket or a device\)\)$/);
    expect(row("e-huge")).toMatch(/\(cannot be read: it is larger than 2 MB\)$/);
    expect(row("z-right")).toMatch(/^ {2}solved {6}6 of 6 passed/);
    // Nothing of the host's file reached the output.
    expect(r.stdout).not.toContain("root:");
  });
});

describe("recode test --json: what a script needs to show a failure", () => {
  it("gives each test's line in the target file, duration, traceback and captured output", () => {
    const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url), "utf8");
    const noisy = `${canonical}\n\n_real = pass_at_k\n\ndef pass_at_k(n, c, k):\n    print("debug", n, c, k)\n    raise RuntimeError("not yet")\n`;
    const r = recode("test", "pass-at-k", file("noisy-json.py", noisy), "--json");
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout) as {
      tests: { id: string; status: string; line: number | null; durationMs: number; traceback: string; stdout: string; stderr: string }[];
    };
    const t = out.tests.find((x) => x.status === "error" && x.stdout.includes("debug"));
    expect(t, JSON.stringify(out.tests.map((x) => [x.id, x.status]))).toBeDefined();
    const raiseLine = noisy.split("\n").indexOf('    raise RuntimeError("not yet")') + 1;
    expect(t?.line).toBe(raiseLine);
    expect(t?.traceback).toContain("RuntimeError: not yet");
    expect(t?.durationMs).toBeGreaterThanOrEqual(0);
    expect(typeof t?.stderr).toBe("string");
  });
});

describe("a task whose test.py does not load", () => {
  it("record and validate name test.py and the line, and validate skips what cannot be judged", () => {
    const tasks = passAtKCopy("recode-broken-task--");
    // (Without test.py's digest in expected.json: with it, recode test says the task is to be recorded again
    // before it looks at test.py, and record then shows the syntax error.)
    withoutTestPyDigest(tasks);
    const test = join(tasks, "pass-at-k", "test.py");
    const lines = readFileSync(test, "utf8").split("\n");
    lines[4] = `${lines[4]} (`;
    writeFileSync(test, lines.join("\n"));
    // Four formulas that do not render: validate lists every one, with its line.
    const instruction = join(tasks, "pass-at-k", "instruction.md");
    const text = readFileSync(instruction, "utf8");
    const base = text.split("\n").length + 1;
    writeFileSync(instruction, `${text}\n${["$\\fracc{1}{2}$", "$x^1^2$", "$\\nope$", "$\\frac{1}{2$"].join("\n\n")}\n`);
    const rec = recode("tasks", "record", "pass-at-k", "--dir", tasks);
    expect(rec.status).not.toBe(0);
    expect(rec.stdout + rec.stderr).toContain("collection error in test.py, line 5: SyntaxError");
    const val = recode("tasks", "validate", "pass-at-k", "--dir", tasks);
    expect(val.status).not.toBe(0);
    expect(val.stdout).toContain("collection error in test.py, line 5");
    expect(val.stdout).toMatch(/starter fails +skipped/);
    // (The formulas are the same in every backend: no backend is named.)
    expect(val.stdout).toMatch(/math renders +FAIL *\n {4}4 problems:\n/);
    for (const [i, bad] of ["\\fracc", "x^1^2", "\\nope", "\\frac{1}{2"].entries()) {
      expect(val.stdout).toContain(`\n        instruction.md, line ${base + 2 * i}: `);
      expect(val.stdout).toContain(bad);
    }
    // A candidate is not judged against tests that do not load: exit 2, and the syntax error is shown once.
    const t = recode("test", join(tasks, "pass-at-k"), new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname);
    expect(t.status).toBe(2);
    expect(t.stderr).toContain("the task's test.py does not load");
    expect(t.stdout.split("SyntaxError").length - 1).toBe(1);
  });
});

describe("a task with tests that check no value", () => {
  it("record writes expected.json and names each such test; validate fails them, every one named", () => {
    const tasks = passAtKCopy("recode-unchecked--");
    const test = join(tasks, "pass-at-k", "test.py");
    // Every test loses its checks (a call of a function that sends nothing, a check over several lines too):
    // each is named, not the first four alone.
    const text = readFileSync(test, "utf8").replace(/\bcheck\(self, /g, "unchecked(self, ");
    expect(text).not.toMatch(/\bcheck\(self/);
    writeFileSync(test, `${text}\n\ndef unchecked(*args, **kwargs):\n    pass\n`);
    const unchecked = [
      "TestAggregate.test_per_problem_mean_and_errors",
      "TestAggregate.test_sample_run",
      "TestNaivePassAtK.test_values_and_bias",
      "TestPassAtK.test_edges_and_errors",
      "TestPassAtK.test_large_n",
      "TestPassAtK.test_values",
    ];
    const rec = recode("tasks", "record", "pass-at-k", "--dir", tasks);
    expect(rec.status).toBe(0);
    expect(rec.stdout).toContain("recorded pass-at-k: 0 values from 6 tests (");
    expect(rec.stdout).toContain(
      `  6 tests make no check(), and validate fails them (every test must check a value: docs/task-format.md): ${unchecked.join(", ")}\n`,
    );
    const val = recode("tasks", "validate", "pass-at-k", "--dir", tasks, "--no-mutation");
    expect(val.status).toBe(1);
    expect(val.stdout).toContain(`tests with no check(): ${unchecked.join(", ")} (their verdict would rest on the interpreter alone)`);
  });
});

describe("a task author's slips that validate names", () => {
  it("a value that differs from recording to recording: its key, its test, and what to do", () => {
    const tasks = passAtKCopy("recode-chance--");
    const test = join(tasks, "pass-at-k", "test.py");
    const text = readFileSync(test, "utf8");
    const anchor = '        check(self, "pass_at_k_large"';
    expect(text).toContain(anchor);
    writeFileSync(
      test,
      `import random\n${text.replace(anchor, `        check(self, "noise", random.SystemRandom().random())\n${anchor}`)}`,
    );
    expect(recode("tasks", "record", "pass-at-k", "--dir", tasks).status).toBe(0);
    const val = recode("tasks", "validate", "pass-at-k", "--dir", tasks, "--no-mutation");
    expect(val.status).toBe(1);
    expect(val.stdout).toContain(
      "two recordings here differ: the values of noise (TestPassAtK.test_large_n); values must not depend on chance, time or order: seed every random source",
    );
  });

  it("a task's own folder given as --dir: says to give its parent", () => {
    const tasks = passAtKCopy("recode-own-folder--");
    const own = join(tasks, "pass-at-k");
    for (const args of [
      ["tasks", "validate", "pass-at-k", "--dir", own],
      ["tasks", "list", "--dir", own],
    ]) {
      const r = recode(...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(
        `${own} is a task's own folder (it holds task.json), not a folder of tasks: give its parent, --dir ${tasks} pass-at-k`,
      );
    }
  });
});

describe("a candidate whose error shows in another file than its own", () => {
  const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname, "utf8");
  it.each([
    // An interface test.py imports is missing (the most common incomplete file): the error is test.py's import line.
    ["lacks a name test.py imports", canonical.replace(/\ndef aggregate_pass_at_k\(/, "\ndef _unused_aggregate("), "test.py"],
    // A SyntaxError raised in the candidate's name of test.py (or of another file of the task): where it was raised.
    ["raises an error that names test.py", `raise SyntaxError("invalid syntax", ("test.py", 3, 1, "x"))\n`, "evalkit/metrics.py"],
    [
      "raises an error that names test.py by its full path",
      `import os\nraise SyntaxError("invalid syntax", (os.path.join(os.getcwd(), "test.py"), 3, 1, "from recode_check import check\\n"))\n`,
      "evalkit/metrics.py",
    ],
    [
      "raises an error that names a repository file",
      `import os\nraise SyntaxError("invalid syntax", (os.path.join(os.getcwd(), "evalkit", "results.py"), 3, 1, "x\\n"))\n`,
      "evalkit/metrics.py",
    ],
    [
      // A file that really does not compile for the harness's check, and test.py for every other read.
      "raises a SyntaxError whose file changes from one read to the next",
      [
        "import os",
        "_d = os.path.dirname(os.path.abspath(__file__))",
        '_bad = os.path.join(_d, "zz.py")',
        'with open(_bad, "w") as f:',
        '    f.write("x = (\\n")',
        "class E(SyntaxError):",
        "    _n = 0",
        "    @property",
        "    def filename(self):",
        "        E._n += 1",
        '        return _bad if E._n % 2 else os.path.join(os.path.dirname(_d), "test.py")',
        'E.__qualname__ = E.__name__ = "SyntaxError"',
        'e = E("invalid syntax")',
        "e.lineno = 5",
        'e.text = "from evalkit.results import parse_results\\n"',
        "raise e",
        "",
      ].join("\n"),
      "evalkit/metrics.py",
    ],
    [
      "runs code compiled under test.py's name",
      `import os\nexec(compile("\\n\\n\\n\\nraise NameError('OUTCOMES')", os.path.join(os.getcwd(), "test.py"), "exec"))\n`,
      "evalkit/metrics.py",
    ],
    [
      // Its error is where test.py imports that file; the message says the run wrote over it.
      "writes over a repository file so that it does not compile",
      'import os\nwith open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.py"), "w") as f:\n    f.write("def parse_results(x):\\n    return x +\\n")\ndef pass_at_k(n, c, k): return 0.0\nnaive_pass_at_k = aggregate_pass_at_k = pass_at_k\n',
      "evalkit/metrics.py",
    ],
    [
      // test.py's import of a repository module meets code of the candidate's, made under another name.
      "raises from code made under a name outside the run folder, where test.py imports a repository module",
      [
        "import os, sys, types",
        '_src = \'def __getattr__(name):\\n    if name.startswith("__"):\\n        raise AttributeError(name)\\n    raise SyntaxError("invalid syntax")\\n\'',
        "_ns = {}",
        'exec(compile(_src, "<frozen importlib._bootstrap>", "exec"), _ns)',
        ...STAND_IN_RESULTS,
      ].join("\n"),
      "evalkit/metrics.py",
    ],
    [
      // A file of the run's own that does not compile, named like a repository file but for a zero-width space.
      "compiles a file it wrote under a look-alike of a repository file's name",
      [
        "import os, sys, types",
        '_bad = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.py\\u200b")',
        'with open(_bad, "w") as f:',
        '    f.write("def parse_results(x)\\n    return x\\n")',
        '_src = \'def __getattr__(name):\\n    if name.startswith("__"):\\n        raise AttributeError(name)\\n    compile(open(BAD).read(), BAD, "exec")\\n\'',
        '_ns = {"BAD": _bad}',
        'exec(compile(_src, "<frozen importlib._bootstrap>", "exec"), _ns)',
        ...STAND_IN_RESULTS,
      ].join("\n"),
      "evalkit/metrics.py",
    ],
  ])("%s: judged, not solved (exit 1), and the task is not blamed", (_what, text, blamed) => {
    const dir = mkdtempSync(join(tmpdir(), "recode-blame-"));
    const file = join(dir, "candidate.py");
    writeFileSync(file, text);
    for (const backend of ["pyodide", "native"]) {
      const t = recode("test", "pass-at-k", file, "--json", "--backend", backend);
      expect(t.status, backend).toBe(1);
      expect(t.stderr).not.toContain("does not load");
      expect(JSON.parse(t.stdout).solved).toBe(false);
      // Where it broke, for scripts as for the text.
      expect(JSON.parse(t.stdout).collectionErrorAt?.file, backend).toBe(blamed);
      // (The place a raised SyntaxError claims is not in its message either.)
      expect(JSON.parse(t.stdout).collectionError).not.toMatch(/File "/);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("a module that is no file of the run, no standard module and no package of the task is said so in the same words on both backends", () => {
    const messages = new Set<string>();
    for (const text of ["import numpy as np\n", "import nmupy\n"]) {
      const name = text.includes("numpy") ? "numpy" : "nmupy";
      for (const backend of ["pyodide", "native"]) {
        const out = JSON.parse(recode("test", "pass-at-k", file(`imports-${name}.py`, text), "--json", "--backend", backend).stdout);
        expect(out.collectionError, backend).toBe(
          `ModuleNotFoundError: No module named '${name}' (not among the task's packages: the tests run with the standard library and the task's packages alone, as in the page)`,
        );
        messages.add(out.collectionError);
      }
    }
    expect(messages.size).toBe(2);
  });

  it("an error whose details raise as they are read is still the candidate's collection error", () => {
    const text = 'class E(SyntaxError):\n    @property\n    def filename(self):\n        raise KeyError("boom")\nraise E("x")\n';
    for (const backend of ["pyodide", "native"]) {
      const t = recode("test", "pass-at-k", file("raising-details.py", text), "--json", "--backend", backend);
      expect(t.status, backend).toBe(1);
      const out = JSON.parse(t.stdout);
      expect(out.collectionError, backend).toBe("E (raised while test.py was imported; its details could not be read)");
      expect(out.collectionErrorAt).toEqual({ file: null, line: null });
    }
  });

  it("--json gives the collection error's traceback and what the file printed while it was imported, as the text does", () => {
    const file = join(dir, "prints-then-fails.py");
    writeFileSync(file, 'print("loading the model weights")\nraise RuntimeError("no weights")\n');
    const t = recode("test", "pass-at-k", file, "--json");
    expect(t.status).toBe(1);
    const out = JSON.parse(t.stdout) as { collectionError: string; collectionErrorTraceback: string };
    expect(out.collectionError).toContain("RuntimeError: no weights");
    expect(out.collectionErrorTraceback).toContain("RuntimeError: no weights");
    expect(out.collectionErrorTraceback).toContain("loading the model weights");
    // The task's tests are listed as not run: a gradebook learns how many the file got none of.
    const counted = JSON.parse(t.stdout) as { counts: { total: number; not_run: number }; tests: { id: string; status: string }[] };
    expect([counted.counts.total, counted.counts.not_run]).toEqual([6, 6]);
    expect(counted.tests.map((x) => x.status)).toEqual(Array(6).fill("not_run"));
    expect(counted.tests.map((x) => x.id)).toContain("TestPassAtK.test_values");
    expect(recode("test", "pass-at-k", file).stdout).toContain("Test run: collection error, no test ran (counts as 0 of 6 tests passed).");
  });
});

describe("a candidate that changes the test framework as test.py imports it", () => {
  const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname, "utf8");
  it.each(["pyodide", "native"])("is not trusted, and the collection error says why, not that test.py has no tests (%s)", (backend) => {
    const t = recode(
      "test",
      "pass-at-k",
      file("changes-math.py", `${canonical}\nimport math\nmath.pi = 3\n`),
      "--json",
      "--backend",
      backend,
    );
    expect(t.status).toBe(1);
    const out = JSON.parse(t.stdout);
    expect(out.incident.kind).toBe("tampered");
    expect(out.collectionError).toBe("the tests were not run: the submission changed math while test.py imported it");
  });
});

describe("a task that needs a package that cannot be had here", () => {
  it.each(["pyodide", "native"])("exits 2, says which package and what to do, and says it once (%s)", (backend) => {
    const tasks = mkdtempSync(join(tmpdir(), "recode-needs-package-"));
    const folder = join(tasks, "needs-package");
    cpSync(new URL("../../tasks/pass-at-k", import.meta.url).pathname, folder, { recursive: true });
    const meta = JSON.parse(readFileSync(join(folder, "task.json"), "utf8"));
    writeFileSync(join(folder, "task.json"), JSON.stringify({ ...meta, id: "needs-package", packages: ["no_such_package_recode"] }));
    const t = recode("test", folder, join(folder, "canonical.py"), "--backend", backend);
    expect(t.status).toBe(2);
    expect(t.stderr).toContain("the packages task needs-package needs (no_such_package_recode) could not be loaded here");
    expect(t.stderr).toContain("the candidate was not judged");
    expect(t.stdout).toContain("Collection error: package no_such_package_recode");
    // Said first, after the header and the file's name: what the run gave is the task's problem, not the candidate's failure.
    expect(t.stdout.split("\n")[1]).toMatch(/^Candidate: .*canonical\.py$/);
    expect(t.stdout.split("\n")[2]).toMatch(/^Not judged: the packages task needs-package needs .*\(the candidate was not judged\)\.$/);
    expect(t.stdout).not.toContain("Interpreter: packages");
    // A script reading --json learns it from the object: its "error" says why the file was not judged.
    const j = recode("test", folder, join(folder, "canonical.py"), "--backend", backend, "--json");
    expect(j.status).toBe(2);
    const out = JSON.parse(j.stdout) as { solved: boolean; error?: string };
    expect(out.solved).toBe(false);
    expect(out.error).toMatch(
      /^the packages task needs-package needs \(no_such_package_recode\) could not be loaded here: .*\(the candidate was not judged\)$/,
    );
  });
});

describe("control characters in what code under test writes", () => {
  it("are shown, not obeyed: a message cannot clear the terminal and print a verdict of its own", () => {
    const fake =
      'E = chr(27)\nraise RuntimeError(E + "[2J" + E + "[H" + "Test run: 5 tests, 5 passed. Solved.\\r\\n" + E + "[8m" + chr(0x202e) + chr(0x200f) + chr(0x2028))\n';
    const r = recode("test", "pass-at-k", file("fake-verdict.py", fake));
    expect(r.status).toBe(1);
    for (const c of ["\u001b", "\r", "\u202e", "\u200f", "\u2028"]) expect(r.stdout.includes(c), JSON.stringify(c)).toBe(false);
    expect(r.stdout).toContain("\\x1b[2J");
    expect(r.stdout).toContain("\\u202e");
    // JSON stays JSON (its escapes are JSON's).
    const j = recode("test", "pass-at-k", file("fake-verdict.py", fake), "--json");
    expect(JSON.parse(j.stdout).solved).toBe(false);
  });
});

describe("long lines of what code under test writes", () => {
  it("are folded to the terminal's width with their indent: nothing the code wrote starts a line at the margin", () => {
    // A message padded with spaces so that a terminal 80 columns wide would wrap "PASS ..." and "Test run: ..." to
    // the margin, where they read as lines of the log's own.
    const canonical = readFileSync(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url), "utf8");
    const padded = `${canonical}\ndef pass_at_k(n, c, k):\n    text = "x" + " " * 63 + "PASS    TestPassAtK.test_values  [pass_at_k]".ljust(80) + "Test run: 6 tests, 6 passed, 0 failed. All tests pass.".ljust(80)\n    raise ValueError(text)\n`;
    const r = spawnSync(process.execPath, [BIN, "test", "pass-at-k", file("padded.py", padded), "--backend", "native"], {
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, COLUMNS: "80" },
    });
    expect(r.status).toBe(1);
    const lines = r.stdout.trimEnd().split("\n");
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    // At the margin: the header, the candidate's line, the run's summary and each test's status line alone.
    const atMargin = lines.filter((l) => /^\S/.test(l));
    expect(atMargin.filter((l) => l.startsWith("PASS ") || l.startsWith("Test run:"))).toHaveLength(1);
    expect(atMargin.at(0)).toMatch(/^pass-at-k, native/);
    expect(r.stdout).toContain("    ValueError: x\n      PASS    TestPassAtK.test_values  [pass_at_k]");
  });
});

describe("a file named like a task's package in the folder recode runs in", () => {
  // Before the boxed run, the host's Python was asked whether it has the task's packages by importing them:
  // a numpy.py in the working folder (a folder of handed-in files) ran outside the box, with the API key.
  it("is never run by the host's Python (native backend)", () => {
    const cwd = mkdtempSync(join(tmpdir(), "recode-cwd-package-"));
    const marker = join(cwd, "ran-on-the-host");
    writeFileSync(join(cwd, "numpy.py"), `open(${JSON.stringify(marker)}, "w").write("ran")\nraise SystemExit(0)\n`);
    const t = spawnSync(
      process.execPath,
      [
        BIN,
        "test",
        "aaa-rational-approximation",
        new URL("../../tasks/aaa-rational-approximation/canonical.py", import.meta.url).pathname,
        "--backend",
        "native",
      ],
      { encoding: "utf8", timeout: 120_000, cwd, env: { ...process.env, OPENAI_API_KEY: "sk-recode-test" } },
    );
    expect(existsSync(marker), t.stdout + t.stderr).toBe(false);
    expect(t.status, t.stdout + t.stderr).toBe(0);
  });
});

describe("where bubblewrap does not work", () => {
  it.each(["pyodide", "native"])("the %s backend refuses to run code under test unless --sandbox none is given", (backend) => {
    const candidate = new URL("../../tasks/pass-at-k/canonical.py", import.meta.url).pathname;
    // No bwrap on this PATH (python3 stays reachable for the native backend, through its own folder).
    const python = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim();
    const env = { ...process.env, PATH: python.slice(0, python.lastIndexOf("/")) };
    const run = (...extra: string[]) =>
      spawnSync(process.execPath, [BIN, "test", "pass-at-k", candidate, "--backend", backend, ...extra], {
        encoding: "utf8",
        env,
        timeout: 120_000,
      });
    const refused = run();
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/bubblewrap \(bwrap\) is not installed or cannot create namespaces/);
    expect(refused.stderr).toContain("--sandbox none");
    const unboxed = run("--sandbox", "none");
    expect(unboxed.status).toBe(0);
    expect(unboxed.stderr).toMatch(/warning: .*without a sandbox/);
  });
});

describe("a check key made twice in one test", () => {
  it("fails the recording with test.py's line and what to do", () => {
    const tasks = passAtKCopy("recode-twice--");
    const test = join(tasks, "pass-at-k", "test.py");
    const lines = readFileSync(test, "utf8").split("\n");
    const at = lines.findIndex((l) => l.includes('check(self, "pass_at_k_small", values'));
    lines[at] = '        for v in values:\n            check(self, "pass_at_k_small", v, rtol=1e-12)';
    writeFileSync(test, lines.join("\n"));
    const rec = recode("tasks", "record", "pass-at-k", "--dir", tasks);
    expect(rec.status).not.toBe(0);
    // The reason once (not once per test the run marked), with the line of the second check.
    expect(rec.stdout + rec.stderr).toContain(
      `recording failed: Check pass_at_k_small made twice in TestPassAtK.test_values (test.py, line ${at + 2}): each check of a test needs its own key (in a loop or a subTest, put the case in the key); the run's results are not trusted.`,
    );
  });
});

describe("a test.py that deletes the base class of its tests", () => {
  it("fails the recording with what test.py must keep, and says the canonical solution is not the cause", () => {
    const tasks = passAtKCopy("recode-delbase-");
    const test = join(tasks, "pass-at-k", "test.py");
    const text = readFileSync(test, "utf8").replace(
      "class TestPassAtK(unittest.TestCase):",
      "class Base(unittest.TestCase):\n    pass\n\n\nclass TestPassAtK(Base):",
    );
    writeFileSync(test, `${text}\n\ndel Base\n`);
    const rec = recode("tasks", "record", "pass-at-k", "--dir", tasks);
    expect(rec.status).not.toBe(0);
    expect(rec.stdout + rec.stderr).toMatch(
      /recording failed: The submission changed the test class TestPassAtK \(built on \S+\.Base, which test\.py does not define and keep bound under its own name at module level\).*\(Recording runs the canonical solution as the submission: when it changes none of this, test\.py's own code does;/,
    );
  });
});

describe("validate's re-record check on another machine's numbers", () => {
  it("takes values that differ only within their tolerances, and still names a recording whose checks changed", () => {
    const tasks = passAtKCopy("recode-rerecord--");
    const file = join(tasks, "pass-at-k", "expected.json");
    const doc = JSON.parse(readFileSync(file, "utf8"));
    // The last digits of one value, as another numpy or BLAS would round them (rtol 1e-12 allows it).
    doc.values.aggregate_default_ks.$dict[0][1] *= 1 + 1e-15;
    writeFileSync(file, `${JSON.stringify(doc, null, 1)}\n`);
    const near = recode("tasks", "validate", "pass-at-k", "--dir", tasks, "--native");
    // (Both backends, Pyodide and native, are checked: the row says ok for each.)
    expect(near.stdout).toMatch(/re-record identical +ok +ok/);
    // A tolerance that is not the one test.py asks for: the recording is stale.
    doc.tolerances.aggregate_default_ks = [1e-3, 0.0];
    writeFileSync(file, `${JSON.stringify(doc, null, 1)}\n`);
    const stale = recode("tasks", "validate", "pass-at-k", "--dir", tasks, "--native");
    expect(stale.status).not.toBe(0);
    expect(stale.stdout).toMatch(/re-record identical +FAIL +FAIL/);
    // (The command that records it, with the folder the task is in.)
    const record = `run \`recode tasks record pass-at-k --dir ${tasks}\``;
    expect(stale.stdout).toContain(record);
    // One check that failed alike in both backends: its detail is shown once, and it counts once.
    expect(stale.stdout.split(record).length - 1).toBe(1);
    expect(stale.stdout).toMatch(/\n1 check failed\n/);
  });
});
