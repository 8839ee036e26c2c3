/**
 * The parts of the RECODE-H import and of shared tasks that need no Python:
 * test.sh as the official runner reads it, annotation_meta.jsonl entries, the
 * tests pytest collects, interfaces, the modules a task imports, the verdict
 * from a JUnit report, and how the page lists shared tasks.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: test.sh lines hold shell variables as written.
import { describe, expect, it } from "vitest";
import {
  baseTestId,
  importedModules,
  isSharedTask,
  type JunitCase,
  junitTestId,
  nodeTestId,
  type PytestOutcome,
  pytestVerdict,
  type SharedTask,
  sharedCanonicalTarget,
  sharedRunFiles,
} from "../../src/core/pytest-task";
import { EntryError, importedInterfaces, parseMetaLine, pytestTests, testCaseNotes } from "../../src/core/recodeh-import";
import { parseTestSh, TestShError } from "../../src/core/recodeh-test-sh";
import { loadTaskFromFiles, TaskFormatError } from "../../src/core/task";
import { buildCatalog } from "../../src/ui/tasks/catalog";
import { pageRunBlocker } from "../../src/ui/tasks/page-support";

const OFFICIAL_SH = [
  "#!/bin/bash",
  'SCRIPT_DIR="$( cd "$( dirname "${BASH_SOURCE[0]}" )" && pwd )"',
  "conda activate test_7",
  'TARGET_DIR="${SCRIPT_DIR}/PEDANTS-LLM-Evaluation"',
  "# copy the files",
  'cp "${SCRIPT_DIR}/canonical.py" "${TARGET_DIR}/qa_metrics/"',
  'cp "${SCRIPT_DIR}/test.py" "${TARGET_DIR}/qa_metrics/"',
  'cp "${SCRIPT_DIR}/extra.json" "${TARGET_DIR}/data/"',
  'cd "${TARGET_DIR}/qa_metrics" || exit',
  'mkdir -p "${SCRIPT_DIR}/pytest_report"',
  'pytest test.py --junitxml="${SCRIPT_DIR}/pytest_report/report.xml" --timeout 30',
  'rm -f "${TARGET_DIR}/qa_metrics/canonical.py" "${TARGET_DIR}/qa_metrics/test.py"',
].join("\n");

describe("test.sh, read as the official runner reads it", () => {
  it("reads the conda env, TARGET_DIR, the copies, the cd and the pytest timeout", () => {
    expect(parseTestSh(OFFICIAL_SH)).toEqual({
      condaEnv: "test_7",
      targetDir: "PEDANTS-LLM-Evaluation",
      testDir: "qa_metrics",
      canonicalDir: "qa_metrics",
      cwd: "qa_metrics",
      pythonpath: ["."],
      timeoutS: 30,
    });
  });

  it("reads a PYTHONPATH prefix (for its folder alone, as the official runner: not its --timeout), copies to the repository root and to a file path", () => {
    const sh = [
      "conda activate env",
      'TARGET_DIR="${SCRIPT_DIR}/DLinear"',
      'cp "${SCRIPT_DIR}/canonical.py" "${TARGET_DIR}/."',
      'cp "${SCRIPT_DIR}/test.py" "${TARGET_DIR}/exp/test.py"',
      'cd "${TARGET_DIR}/exp/." || exit',
      'PYTHONPATH="${TARGET_DIR}/src" pytest test.py --junitxml=report.xml --timeout=12',
    ].join("\n");
    expect(parseTestSh(sh)).toMatchObject({
      canonicalDir: ".",
      testDir: "exp",
      cwd: "exp",
      pythonpath: ["src"],
      timeoutS: null,
      condaEnv: "env",
    });
    // --timeout=N on a pytest line of its own is read.
    expect(parseTestSh(sh.replace('PYTHONPATH="${TARGET_DIR}/src" ', ""))).toMatchObject({ pythonpath: ["."], timeoutS: 12 });
  });

  it("reads the shell's other spellings of the same lines: $VAR, unquoted words, exit with a status", () => {
    const sh = [
      "TARGET_DIR=$SCRIPT_DIR/repo4",
      "cp $SCRIPT_DIR/canonical.py ${TARGET_DIR}/sc",
      'cp "$SCRIPT_DIR/test.py" "$TARGET_DIR/sc"',
      "cd $TARGET_DIR/sc || exit 1",
      "PYTHONPATH=$TARGET_DIR pytest test.py --junitxml=r.xml",
    ].join("\n");
    expect(parseTestSh(sh)).toMatchObject({ targetDir: "repo4", canonicalDir: "sc", testDir: "sc", cwd: "sc", pythonpath: ["."] });
  });

  it("quotes the line it could not read when a part is missing", () => {
    const sh = OFFICIAL_SH.replace(/^TARGET_DIR.*$/m, "TARGET_DIR=$(pwd)/repo");
    expect(() => parseTestSh(sh)).toThrow(/no TARGET_DIR=.* line \(line \d+, `TARGET_DIR=\$\(pwd\)\/repo`, is not in that form\)/);
  });

  it("names what is missing, and the line of a folder outside the repository", () => {
    expect(() => parseTestSh(OFFICIAL_SH.replace(/^cd .*$/m, ""))).toThrow(/no cd "\$\{TARGET_DIR\}\/<folder>" \|\| exit line/);
    expect(() => parseTestSh(OFFICIAL_SH.replace(/^TARGET_DIR.*$/m, ""))).toThrow(/no TARGET_DIR=/);
    expect(() => parseTestSh(OFFICIAL_SH.replace(/^cp .*test\.py.*$/m, ""))).toThrow(/test\.py/);
    expect(() => parseTestSh(OFFICIAL_SH.replace(/^pytest .*$/m, ""))).toThrow(/no line runs pytest/);
    const err = (() => {
      try {
        parseTestSh(OFFICIAL_SH.replace('cd "${TARGET_DIR}/qa_metrics"', 'cd "${TARGET_DIR}/../elsewhere"'));
      } catch (e) {
        return e as TestShError;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(TestShError);
    expect(err?.line).toBe(9);
  });
});

describe("annotation_meta.jsonl entries", () => {
  it("reads an entry; init_content null or N/A is empty, ./ is dropped from the target", () => {
    const e = parseMetaLine(
      JSON.stringify({
        index: 3,
        repo_dir_name: "R",
        target_file_path: "./a/b.py",
        if_test: true,
        init_content: "N/A",
        test_cases: ["test_x"],
      }),
    );
    expect(e).toEqual({
      index: 3,
      repo_dir_name: "R",
      target_file_path: "a/b.py",
      if_test: true,
      init_content: "",
      test_cases: ["test_x"],
    });
  });

  it("names the field that is wrong", () => {
    const bad = (o: object) => {
      try {
        parseMetaLine(JSON.stringify(o));
      } catch (e) {
        return e as EntryError;
      }
      return null;
    };
    const base = { index: 1, repo_dir_name: "R", target_file_path: "a.py", if_test: true, init_content: "", test_cases: [] };
    expect(bad({ ...base, if_test: "yes" })?.field).toBe("if_test");
    expect(bad({ ...base, target_file_path: "../x.py" })?.field).toBe("target_file_path");
    expect(bad({ ...base, repo_dir_name: "a/b" })?.field).toBe("repo_dir_name");
    expect(() => parseMetaLine("{not json")).toThrow(EntryError);
    // A field left out says so, not what the schema library expected.
    const { target_file_path: _left, ...noTarget } = base;
    expect(bad(noTarget)).toMatchObject({ field: "target_file_path", problem: "is required but missing" });
    expect(bad({ ...base, if_test: "yes" })?.problem).not.toContain("missing");
  });
});

const TESTS = `import unittest
import pytest
from canonical import ema as ref


def helper():
    return 1


def test_module_level():
    assert ema([1.0], 0.5) == ref([1.0], 0.5)


class TestGroup:
    @pytest.mark.parametrize("a", [1, 2])
    def test_param(self, a):
        assert debias([a], 0.5)

    def not_a_test(self):
        pass


class TestWithInit:
    def __init__(self):
        pass

    def test_never_collected(self):
        pass


class Checks(unittest.TestCase):
    def test_case_method(self):
        self.assertTrue(ema([1.0], 0.5))
`;

describe("tests pytest collects, and interfaces", () => {
  it("finds module functions, Test* class methods and TestCase methods as pytest collects them", () => {
    expect(pytestTests(TESTS).map((t) => t.id)).toEqual(["test_module_level", "TestGroup.test_param", "Checks.test_case_method"]);
  });

  it("groups tests by the canonical definition they name or use, else under the module", () => {
    const canonical = "def ema(xs, alpha):\n    return xs\n\n\ndef debias(v, a):\n    return v\n\n\ndef unused():\n    pass\n";
    const found = pytestTests(`${TESTS}\n\ndef test_other():\n    assert True\n`);
    const itfs = importedInterfaces(found, canonical, "stats/ema_mod.py");
    expect(itfs.map((i) => [i.name, i.tests])).toEqual([
      ["ema", ["test_module_level", "Checks.test_case_method"]],
      ["debias", ["TestGroup.test_param"]],
      ["ema_mod", ["test_other"]],
    ]);
    expect(itfs[0]?.guidance).toMatch(/^Write ema as the instruction and the paper describe/);
  });

  it("gives a test to what the candidate writes, not to a helper the starting text already gives", () => {
    const canonical = "def global_norm(g):\n    return g\n\n\ndef clip_grad_norm(g, m):\n    return g\n";
    const found = pytestTests(
      "class TestClip:\n    def test_norm_after(self):\n        assert global_norm(clip_grad_norm([3.0], 1.0)) <= 1.0\n\n    def test_global_norm(self):\n        assert global_norm([1.0]) == 1.0\n",
    );
    expect(importedInterfaces(found, canonical, "optim/clip.py").map((i) => [i.name, i.tests])).toEqual([
      ["global_norm", ["TestClip.test_norm_after", "TestClip.test_global_norm"]],
    ]);
    // global_norm is given; only a test of nothing else is left to it.
    expect(
      importedInterfaces(found, canonical, "optim/clip.py", "def global_norm(g):\n    return g\n").map((i) => [i.name, i.tests]),
    ).toEqual([
      ["global_norm", ["TestClip.test_global_norm"]],
      ["clip_grad_norm", ["TestClip.test_norm_after"]],
    ]);
  });
});

function sharedTask(extra: Record<string, string> = {}, pytest: object = {}): SharedTask {
  const meta = {
    id: "recodeh-9",
    title: "R: pkg/mod.py",
    paper: { title: "P", authors: ["A"], venue: "RECODE-H benchmark", year: 2025, url: "https://example.org" },
    domain: "d",
    packages: ["numpy"],
    target_file_path: "pkg/mod.py",
    interfaces: [{ name: "f", tests: ["test_f", "TestG.test_g"], guidance: "g" }],
    time_limit_s: 60,
    license: "MIT",
    isolation: "shared",
    pytest: { test_dir: "pkg", canonical_dir: "pkg", cwd: "pkg", pythonpath: ["."], ...pytest },
  };
  const task = loadTaskFromFiles("recodeh-9", {
    "task.json": JSON.stringify(meta),
    "instruction.md": "i",
    "paper.tex": "p",
    "canonical.py":
      "import numpy as np\nfrom pkg.helpers import h\nfrom . import sibling\nimport helpers_top\n\ndef f():\n    return np.zeros(1)\n",
    "test.py":
      "import pytest\nimport numpy\nimport json\nfrom canonical import f as ref\nfrom mod import f\n\ndef test_f():\n    pass\n\nclass TestG:\n    def test_g(self):\n        pass\n",
    "repo/pkg/mod.py": "def f():\n    pass\n",
    "repo/pkg/helpers.py": "",
    "repo/pkg/helpers_top.py": "",
    ...extra,
  });
  if (!isSharedTask(task)) throw new Error("not shared");
  return task;
}

describe("shared tasks", () => {
  it("accept pytest function ids, and require the pytest layout with isolation shared", () => {
    const t = sharedTask();
    expect(t.interfaceOf).toEqual({ test_f: "f", "TestG.test_g": "f" });
    const noPytest = () =>
      loadTaskFromFiles("recodeh-9", {
        ...Object.fromEntries(
          Object.entries({ "instruction.md": "i", "paper.tex": "p", "canonical.py": "", "test.py": "def test_f():\n    pass\n" }),
        ),
        "repo/a.py": "",
        "task.json": JSON.stringify({
          id: "recodeh-9",
          title: "t",
          paper: { title: "P", authors: ["A"], venue: "v", year: 2025, url: "https://example.org" },
          domain: "d",
          target_file_path: "a.py",
          interfaces: [{ name: "f", tests: ["test_f"], guidance: "g" }],
          time_limit_s: 60,
          license: "MIT",
        }),
      });
    // A recorded task keeps Class.method ids.
    expect(noPytest).toThrow(TaskFormatError);
    expect(noPytest).toThrow(/a test id is Class\.method/);
  });

  it("lay out a run as test.sh does, and start the reference from init_content + canonical.py", () => {
    const t = sharedTask({ "repo/pkg/test.py": "# the repository's own test.py" });
    const files = sharedRunFiles(t, "CANDIDATE");
    expect(files["pkg/mod.py"]).toBe("CANDIDATE");
    expect(files["pkg/canonical.py"]).toBe(t.canonical);
    expect(files["pkg/test.py"]).toBe(t.tests);
    expect(sharedCanonicalTarget(t)).toBe(`def f():\n    pass\n\n${t.canonical}`);
    expect(sharedCanonicalTarget({ ...t, starter: "  \n" })).toBe(t.canonical);
  });

  it("list the modules canonical.py and test.py import that the run's files do not provide", () => {
    // pkg.helpers is in the repository (root on PYTHONPATH); helpers_top is beside the tests (cwd); mod and canonical too.
    expect(importedModules(sharedTask())).toEqual(["numpy", "pytest", "json"]);
  });

  it("are read-only in the page, with the reason and the packages", () => {
    const t = sharedTask();
    expect(pageRunBlocker(t)).toMatch(/runs its tests under pytest beside the reference solution .* It needs pytest and numpy\./);
    // pytest is named once, whether the task lists it or not.
    expect(pageRunBlocker({ ...t, meta: { ...t.meta, packages: ["pytest"] } })).toMatch(/ It needs pytest\. /);
    expect(pageRunBlocker({ ...t, meta: { ...t.meta, packages: ["numpy", "pytest"] } })).toMatch(/ It needs pytest and numpy\. /);
    expect(pageRunBlocker({ ...t, meta: { ...t.meta, isolation: "recorded" } })).toBeNull();
    const files = Object.fromEntries(
      Object.entries({
        "task.json": JSON.stringify({ ...t.meta }),
        "instruction.md": "i",
        "paper.tex": "p",
        "canonical.py": t.canonical,
        "test.py": t.tests,
        "repo/pkg/mod.py": "",
      }).map(([k, v]) => [`/tasks/recodeh-9/${k}`, v]),
    );
    const [entry] = buildCatalog(files);
    expect(entry?.error).toBeNull();
    expect(entry?.task && pageRunBlocker(entry.task)).toContain("recode test recodeh-9");
  });
});

const kase = (o: Partial<JunitCase>): JunitCase => ({
  classname: "pkg.test",
  name: "test_f",
  time: 0.01,
  outcome: "passed",
  message: "",
  text: "",
  stdout: "",
  stderr: "",
  ...o,
});
const outcome = (cases: JunitCase[], o: Partial<PytestOutcome> = {}): PytestOutcome => {
  const count = (k: JunitCase["outcome"]) => cases.filter((c) => c.outcome === k).length;
  return {
    report: {
      totals: { tests: cases.length, errors: count("error"), failures: count("failure"), skipped: count("skipped") },
      cases,
    },
    reportError: null,
    exit: 0,
    timedOut: false,
    killed: false,
    output: "",
    ...o,
  };
};

describe("the verdict from the JUnit report", () => {
  it("names tests by class and function, parameters kept", () => {
    expect(junitTestId("qa_metrics.test.TestG", "test_g")).toBe("TestG.test_g");
    expect(junitTestId("test", "test_f[2-4]")).toBe("test_f[2-4]");
    expect(baseTestId("TestG.test_g[a]")).toBe("TestG.test_g");
    // The same ids from pytest's node ids (what it collected, for the tests a run out of time did not finish).
    expect(nodeTestId("pkg/test.py::TestG::test_g")).toBe("TestG.test_g");
    expect(nodeTestId("test.py::test_f[2-4]")).toBe("test_f[2-4]");
    expect(nodeTestId("test.py::TestG::TestInner::test_h[a::b.c]")).toBe("TestG.TestInner.test_h[a::b.c]");
  });

  it("is solved when errors == failures == skipped == 0", () => {
    const t = sharedTask();
    const r = pytestVerdict(t, outcome([kase({}), kase({ classname: "pkg.test.TestG", name: "test_g" })]), 5);
    expect(r.allPassed).toBe(true);
    expect(r.tests.map((x) => [x.id, x.status, x.interface])).toEqual([
      ["test_f", "passed", "f"],
      ["TestG.test_g", "passed", "f"],
    ]);
  });

  it("maps failures, errors, skips (xfail included) and per-test timeouts, with the candidate's line", () => {
    const t = sharedTask();
    const r = pytestVerdict(
      t,
      outcome([
        kase({
          outcome: "failure",
          message: "assert 1 == 2",
          text: "def test_f():\n>   assert f() == ref()\npkg/mod.py:7: in f\n    return 1\nE   assert 1 == 2",
        }),
        kase({ classname: "pkg.test.TestG", name: "test_g", outcome: "skipped", message: "xfail" }),
        kase({ name: "test_h", outcome: "error", message: "failed on setup with ValueError" }),
        kase({ name: "test_slow", outcome: "failure", message: "Failed: Timeout >3s", time: 3.01 }),
        kase({ name: "test_slow_float", outcome: "failure", message: "Failed: Timeout >3.0s", time: 2.95 }),
        // A test's own pytest.fail with the limit's words, raised at once, is a failure like any other.
        kase({ name: "test_says_timeout", outcome: "failure", message: "Failed: Timeout >3.0s", time: 0.01 }),
        kase({ name: "test_says_timeout_too", outcome: "failure", message: "Failed: Timeout > 3.0s", time: 5 }),
      ]),
      5,
    );
    expect(r.allPassed).toBe(false);
    expect(r.tests.map((x) => x.status)).toEqual(["failed", "skipped", "error", "timeout", "timeout", "failed", "failed"]);
    expect(r.tests[0]?.line).toBe(7);
    expect(r.tests[0]?.message).toBe("assert 1 == 2");
    // numpy's assertions begin with the exception's name alone: what follows is the message.
    const np = pytestVerdict(
      t,
      outcome([
        kase({
          outcome: "failure",
          message:
            "AssertionError: \nNot equal to tolerance rtol=1e-07, atol=0\n\nMismatched elements: 1 / 3 (33.3%)\nMax absolute difference among violations: 0.5\nMax relative difference among violations: 0.25\n ACTUAL: array([1. , 2. , 2.5])",
        }),
      ]),
      5,
    );
    expect(np.tests[0]?.message).toBe(
      "AssertionError: Not equal to tolerance rtol=1e-07, atol=0 Mismatched elements: 1 / 3 (33.3%) Max absolute difference among violations: 0.5 Max relative difference among violations: 0.25 ACTUAL: array([1. , 2. , 2.5])",
    );
    // A skip alone (pytest reports an expected failure as skipped) is not solved either.
    expect(pytestVerdict(t, outcome([kase({}), kase({ name: "test_g", outcome: "skipped" })]), 1).allPassed).toBe(false);
  });

  it("gives a collection error for a module that does not import, and for a run without a report", () => {
    const t = sharedTask();
    const r = pytestVerdict(
      t,
      outcome([
        kase({
          classname: "",
          name: "pkg.test",
          outcome: "error",
          message: "collection failure",
          text: "pkg/mod.py:3: in <module>\nE   SyntaxError: invalid syntax",
        }),
      ]),
      5,
    );
    expect(r.collectionError?.message).toContain("SyntaxError");
    expect(r.collectionError?.line).toBe(3);
    expect(r.tests).toEqual([]);
    expect(r.allPassed).toBe(false);
    const none = pytestVerdict(
      t,
      { ...outcome([]), report: null, reportError: "no JUnit report was written", exit: 4, output: "ERROR: usage: ..." },
      5,
    );
    expect(none.collectionError?.message).toMatch(/^pytest wrote no report \(exit code 4\): no JUnit report was written\nERROR: usage/);
  });

  it("counts the tests a run out of time did not finish as timeouts", () => {
    const t = sharedTask();
    // pytest writes a nameless case for the test its interrupt stopped.
    const r = pytestVerdict(
      t,
      outcome([kase({}), kase({ classname: "", name: "", time: 0 })], { timedOut: true, killed: false, exit: 2 }),
      60_000,
    );
    expect(r.incident?.kind).toBe("timeout");
    expect(r.tests.map((x) => [x.id, x.status])).toEqual([
      ["test_f", "passed"],
      ["TestG.test_g", "timeout"],
    ]);
    expect(r.allPassed).toBe(false);
    // Killed before it wrote its report: every test of the task is a timeout, not a collection error.
    const killed = pytestVerdict(
      t,
      { ...outcome([], { timedOut: true, killed: true, exit: null }), report: null, reportError: "no JUnit report was written" },
      60_000,
    );
    expect(killed.collectionError).toBeNull();
    expect(killed.incident?.kind).toBe("terminated");
    expect(killed.tests.map((x) => [x.id, x.status])).toEqual([
      ["test_f", "timeout"],
      ["TestG.test_g", "timeout"],
    ]);
    expect(killed.allPassed).toBe(false);
  });

  it("knowing which test pytest began last: that one is the timeout, the others were not run", () => {
    const t = sharedTask();
    const collected = ["pkg/test.py::test_f", "pkg/test.py::TestG::test_g"];
    const r = pytestVerdict(
      t,
      { ...outcome([], { timedOut: true, killed: false, exit: 2 }), collected, started: "pkg/test.py::test_f" },
      60_000,
    );
    expect(r.tests.map((x) => [x.id, x.status, x.message])).toEqual([
      ["test_f", "timeout", "the run's time limit ran out before this test finished"],
      ["TestG.test_g", "not_run", "not run: the run's time limit ran out before this test started"],
    ]);
    // Stopped by the user while pytest collected: no test began, none ran.
    const stopped = pytestVerdict(
      t,
      { ...outcome([], { timedOut: true, killed: false, exit: 2, stopped: true }), collected, started: null },
      60_000,
    );
    expect(stopped.incident?.message).toMatch(/^Stopped by the user/);
    expect(stopped.tests.map((x) => [x.id, x.status, x.message])).toEqual([
      ["test_f", "not_run", "not run: the run was stopped before this test started"],
      ["TestG.test_g", "not_run", "not run: the run was stopped before this test started"],
    ]);
    expect(stopped.allPassed).toBe(false);
  });
});

describe("test_cases against test.py", () => {
  const found = pytestTests(
    "import unittest\n\nclass RmseChecks(unittest.TestCase):\n    def test_simple(self):\n        pass\n\n    def test_zero(self):\n        pass\n\n\ndef test_scale(x):\n    pass\n",
  );

  it("takes JUnit names, recode's ids, pytest node ids and parametrised cases, in classes and out", () => {
    for (const listed of [
      ["test_simple", "test_zero", "test_scale"],
      ["RmseChecks.test_simple", "RmseChecks.test_zero", "test_scale[2-4]"],
      ["test.py::RmseChecks::test_simple", "RmseChecks::test_zero[1]", "test.py::test_scale[a]"],
    ]) {
      expect(testCaseNotes(found, listed)).toEqual([]);
    }
  });

  it("names what test.py does not define, and what test_cases leaves out, once each", () => {
    expect(testCaseNotes(found, ["RmseChecks.test_simple", "test_missing"])).toEqual([
      "test_cases names 1 test test.py does not define: test_missing",
      "test.py defines 2 tests test_cases does not list: RmseChecks.test_zero, test_scale",
    ]);
    expect(testCaseNotes(found, [])).toEqual([]);
  });
});
