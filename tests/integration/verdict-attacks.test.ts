/**
 * Attacks on the verdicts (docs/security.md, "Verdicts"): short candidate files
 * that implement nothing and try to pass the tests of a built-in task anyway.
 * On both backends, each attack must yield no passed test, and the next run
 * must be clean (nothing it left is visible, and the canonical solution passes).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import type { RunResult } from "../../src/core/results";
import { createRuntime } from "../../src/python/node";
import { type PythonRuntime, taskRunRequest } from "../../src/python/runtime";
import {
  ATTACKS,
  assertionForgeryAttack,
  CLOSURE_HELPER_TESTS,
  channelRerouteAttack,
  closureReadsProbe,
  controlFlowCellAttack,
  ctypesLeftoversProbe,
  eventFilterAttack,
  eventTakeoverAttack,
  exceptionFlipAttack,
  frameThroughReadersProbe,
  HIDDEN_FUNCTION_ATTACKS,
  KEY_FROM_MEMORY_ATTACK,
  keywordDefaultsAttack,
  LEFTOVER_PROBE,
  lookLaunderingAttack,
  lookTriggerAttack,
  methodTypeAttack,
  moduleRenameAttack,
  numpyAssertionAttack,
  outputRelayAttack,
  reinitAndReadersProbe,
  rewrittenOutcomeAttack,
  runExtensionProbe,
  subTestTests,
  TOLERANCE_ATTACK,
  testClassPutBackAttack,
  testClosureCellAttack,
  withoutInputChecks,
} from "../helpers/attacks";
import { raisesTask } from "../helpers/raises-tasks";
import { targetRequest } from "../helpers/runtime";

const task = raisesTask("min-p-sampling");
/** Messages by which an attack says it reached something it must not. */
const BREACH = /recorded values are visible|reached \[|left over from an earlier run/;

/** The tests the attacks' candidates fail (they implement no input checks) that were reported passed. */
function forgedPasses(r: RunResult): string[] {
  return r.tests.filter((t) => t.status === "passed" && /errors|edges/.test(t.id)).map((t) => t.id);
}

/** Whether the attack was refused where it was tried (a class of the framework is immutable), or the run is not trusted. */
function refusedOrNotTrusted(r: RunResult): boolean {
  const refused = /of immutable type|the closure of a function the run did not define/;
  return r.incident?.kind === "tampered" || refused.test(r.collectionError?.message ?? "") || r.tests.some((t) => refused.test(t.message));
}

describe.each(["pyodide", "native"] as const)("%s: attacks on the verdicts", (backend) => {
  let rt: PythonRuntime;
  beforeAll(async () => {
    rt = createRuntime(backend, { interruptGraceMs: 700 });
    await rt.ready();
  });
  afterAll(async () => {
    await rt.dispose();
  });

  it.each(Object.keys(ATTACKS))("%s: no test passes, and the next run is clean", async (kind) => {
    const r = await rt.run(taskRunRequest(task, ATTACKS[kind] as string));
    // (A change the candidate's import made is seen before any test is made, or refused where it is tried: the
    // run then has no tests.)
    expect(r.counts.total > 0 || refusedOrNotTrusted(r)).toBe(true);
    expect(r.tests.filter((t) => t.status === "passed").map((t) => t.id)).toEqual([]);
    expect(r.allPassed).toBe(false);
    for (const t of r.tests) expect(t.message).not.toMatch(BREACH);

    const probe = await rt.run(taskRunRequest(task, LEFTOVER_PROBE));
    for (const t of probe.tests) expect(t.message).not.toMatch(BREACH);
    expect(probe.collectionError).toBeNull();
    // The probe implements nothing: the same tests as any run, and none passes.
    expect(probe.tests.map((t) => t.id)).toEqual(Object.keys(task.interfaceOf).sort());
    expect(probe.counts.passed).toBe(0);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  // (Native: every run is a new process in a new box; a kernel's inode counter is not the run's to reset.)
  it.runIf(backend === "pyodide")("no counter of the file system carries a number from one run to the next", async () => {
    const probe = `import os
def _ino(*args, **kwargs):
    open("/tmp/recode-ino", "w").close()
    raise RuntimeError(f"inode {os.stat('/tmp/recode-ino').st_ino}")
softmax_with_temperature = min_p_filter = min_p_sample = _ino
`;
    const fill = `import os
for i in range(1234):
    open(f"/tmp/recode-fill-{i}", "w").close()
softmax_with_temperature = min_p_filter = min_p_sample = lambda *a, **k: [0.0]
`;
    const inode = async () => (await rt.run(taskRunRequest(task, probe))).tests[0]?.message;
    // (The first run of a file fills the code cache: later ones also write its compiled files.)
    await inode();
    const before = await inode();
    expect(before).toMatch(/^RuntimeError: inode \d+/);
    await rt.run(taskRunRequest(task, fill));
    expect(await inode()).toBe(before);
  });

  it("a failure unittest reported cannot be rewritten as passed afterwards (a finalizer that edits the harness's record)", async () => {
    const partial = task.canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
    const honest = await rt.run(taskRunRequest(task, partial));
    expect(honest.tests.filter((t) => t.status !== "passed").map((t) => t.id).length).toBeGreaterThan(0);
    const r = await rt.run(taskRunRequest(task, rewrittenOutcomeAttack(task.canonical)));
    expect(r.allPassed).toBe(false);
    const failing = honest.tests.filter((t) => t.status !== "passed").map((t) => t.id);
    expect(r.tests.filter((t) => failing.includes(t.id) && t.status === "passed")).toEqual([]);
    // (The finalizer reaches for the run object through the guard, which is refused: nothing is rewritten. Were it
    // reached, a rewrite after unittest reported the failure would make the run not trusted: assembler.test.ts.)
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("a candidate that replaces sys.exc_info or sys.exception does not hide its own failures from unittest", async () => {
    const partial = task.canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
    const honest = await rt.run(taskRunRequest(task, partial));
    const statuses = (r: RunResult) => r.tests.map((t) => `${t.id}=${t.status}`);
    expect(honest.tests.filter((t) => t.status !== "passed").length).toBeGreaterThan(0);
    for (const hook of [
      "sys.exc_info = lambda: None",
      "sys.exc_info = lambda: (None, None, None)",
      "sys.exception = lambda: None",
      // (Through the sys unittest reads: what is set there is set on sys.)
      "import unittest.case; unittest.case.sys.exc_info = lambda: None",
    ]) {
      // Replaced at import, and from inside a test (the first call of the candidate's function).
      for (const candidate of [
        `import sys\n${hook}\n${partial}`,
        `${partial}\n_f = min_p_filter\ndef min_p_filter(*a, **k):\n    import sys\n    ${hook}\n    return _f(*a, **k)\n`,
      ]) {
        const r = await rt.run(taskRunRequest(task, candidate));
        expect(r.incident, hook).toBeNull();
        expect(statuses(r), hook).toEqual(statuses(honest));
      }
    }
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("a protected module's entry in the interpreter's table of modules, changed behind sys.modules rebound to a copy, is seen", async () => {
    const partial = task.canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
    const candidate = `${partial}
_f = min_p_filter
_done = []
def min_p_filter(*a, **k):
    import sys, types, unittest.case
    if not _done:
        _done.append(1)
        real = unittest.case.sys.modules
        sys.modules = dict(real)
        fake = types.ModuleType("json")
        fake.dumps = lambda *a, **k: "{}"
        real["json"] = fake
    return _f(*a, **k)
`;
    const r = await rt.run(taskRunRequest(task, candidate));
    expect(r.allPassed).toBe(false);
    expect(r.incident?.kind).toBe("tampered");
    expect(r.incident?.message).toContain("sys.modules");
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it.each(["check-sink-cell", "frames-run-cell", "guard-run-cell", "event-file-object", "within-one-test", "one-outcome"] as const)(
    "a filter on the harness's way out for events cannot rewrite failures as passed (%s)",
    async (route) => {
      const r = await rt.run(taskRunRequest(task, eventFilterAttack(task.canonical, route)));
      expect(r.allPassed).toBe(false);
      // Code under test gets no frame and no gc walk: those routes are refused while the candidate
      // imports (a collection error).
      if (route === "frames-run-cell" || route === "event-file-object") {
        expect(r.collectionError?.message).toMatch(/frames are not available|gc\.get_objects is not available/);
        // The sink holds its writer in defaults that cannot be read (nor its code): refused where it is tried.
      } else if (route === "check-sink-cell") {
        // (Nor its closure: the closures of the functions loaded before the run cannot be read.)
        expect(r.collectionError?.message).toMatch(/functions cannot be inspected|the closure of a function the run did not define/);
      }
      // The run object is reached through the guard, whose functions cannot be inspected: refused where it is tried.
      else if (route === "guard-run-cell") expect(r.collectionError?.message).toMatch(/the guard's own functions cannot be inspected/);
      else expect(r.tests.some((t) => /the guard's own functions cannot be inspected/.test(t.message))).toBe(true);
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    },
  );

  it.each(["context-manager-exit", "unittest-rebound", "test-class-attribute", "test-module-global", "framework-module-global"] as const)(
    "assertions made to pass by a change reached without frames are not trusted (%s)",
    async (route) => {
      const r = await rt.run(taskRunRequest(task, assertionForgeryAttack(task.canonical, route)));
      expect(r.allPassed).toBe(false);
      // (test.py's classes and module are out of the candidate's reach: those attacks find nothing to change.)
      if (route === "test-class-attribute" || route === "test-module-global") expect(forgedPasses(r)).toEqual([]);
      else expect(refusedOrNotTrusted(r)).toBe(true);
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    },
  );

  it.each(["test-class-property", "test-method-code"] as const)(
    "a test.py class or method bent by the candidate (no frames) does not pass (%s)",
    async (route) => {
      const r = await rt.run(taskRunRequest(task, assertionForgeryAttack(task.canonical, route)));
      expect(r.allPassed).toBe(false);
      // (test.py's classes are out of the candidate's reach: in no sys.modules, in no __subclasses__().)
      expect(forgedPasses(r)).toEqual([]);
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    },
  );

  it.each([
    "instance-via-check-sink",
    "instance-via-frames",
    "outcome-via-frames",
    "look-alike-check-module",
    "test-object-at-creation",
    "descriptor-on-test-class",
    "signal-handler-frame",
    "ctypes-frame",
    "gc-saved-frames",
    "module-getattr-load-tests",
    "module-class-getattr",
    "test-builtins-swapped",
  ] as const)("the running test object, its assertions and its outcome are out of the candidate's reach (%s)", async (route) => {
    const r = await rt.run(taskRunRequest(task, assertionForgeryAttack(task.canonical, route)));
    expect(r.allPassed).toBe(false);
    // Refused where it is tried (no frames, no test object), or seen before any test is made.
    const seen = {
      "look-alike-check-module": /test\.py's check \(not recode_check's own/,
      // (The hook on __build_class__ is put back in builtins: seen as such, before the test classes are looked at.)
      // (test.py's class statements call the interpreter's own __build_class__: the one set in the built-ins stays there.)
      "test-object-at-creation": /__init__|builtins/,
    } as Record<string, RegExp>;
    if (seen[route]) {
      expect(r.incident?.kind).toBe("tampered");
      expect(r.incident?.message).toMatch(seen[route]);
    } else if (route === "module-class-getattr") {
      // What sys.modules holds under test.py's module name is noted as it is made: its class cannot be changed.
      expect(r.collectionError?.message).toMatch(/the class of a module or object the run did not make cannot be changed/);
    } else {
      // (test.py's module and classes, which descriptor-on-test-class, module-getattr-load-tests and
      // test-builtins-swapped bend, are out of the candidate's reach.)
      expect(r.tests.filter((t) => t.status !== "passed").length).toBeGreaterThan(0);
      expect(forgedPasses(r)).toEqual([]);
    }
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it.each(["framework-global-put-back", "builtin-put-back", "put-back-at-recursion-limit"] as const)(
    "a change to a framework module's globals or the built-ins, put back by itself within one assertion, is not trusted (%s)",
    async (route) => {
      // The change is seen by no comparison (it is gone at every look): by the dictionary's count of changes.
      const r = await rt.run(taskRunRequest(task, assertionForgeryAttack(task.canonical, route)));
      expect(r.allPassed).toBe(false);
      expect(r.incident?.kind).toBe("tampered");
      expect(r.incident?.message).toMatch(
        route === "builtin-put-back" ? /builtins \(changed and put back\)/ : /unittest\.case \(changed and put back\)/,
      );
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    },
  );

  it.each(["class-lookup-in-the-watch", "test-classes-changed-in-the-watch", "finalizer-in-a-look"] as const)(
    "code under test run while the guard looks (%s) changes nothing the looks then compare with",
    async (route) => {
      const r = await rt.run(taskRunRequest(task, lookTriggerAttack(task.canonical, route)));
      expect(r.allPassed).toBe(false);
      // (The watch reads no property of what it copies: there, the candidate's code does not run at all.)
      // (Its finalizer also gives the test class assertRaises while the test runs: seen, whichever comes first.)
      if (route === "finalizer-in-a-look" && r.incident) expect(r.incident.message).toMatch(/unittest\.case|changed during a test/);
      if (r.incident) expect(r.incident.kind).toBe("tampered");
      // The tests whose input checks are gone pass only if their failures were swallowed.
      const unchecked = r.tests.filter((t) => /errors|invalid|bad/.test(t.id));
      for (const t of unchecked) expect(t.status, t.id).not.toBe("passed");
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    },
  );

  it("what the harness's wrapper of unittest's test parts reads cannot be swapped for one test (it holds no closure cell)", async () => {
    const r = await rt.run(taskRunRequest(task, controlFlowCellAttack(task.canonical)));
    expect(r.allPassed).toBe(false);
    expect(r.tests.filter((t) => t.status === "passed" && /edges|errors/.test(t.id))).toEqual([]);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("a callback of the collector (code that runs inside the harness at nearly any allocation) is not trusted", async () => {
    const hook = "import gc as _gc\n_gc.callbacks.append(lambda phase, info: None)\n";
    const r = await rt.run(taskRunRequest(task, `${task.canonical}\n${hook}`));
    expect(r.allPassed).toBe(false);
    expect(r.incident?.kind).toBe("tampered");
    expect(r.incident?.message).toMatch(/the collector's callbacks/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it.each(["framework-closure-cell", "framework-closure-cell-put-back"] as const)(
    "what unittest's per-part executor wraps cannot be swapped, for good or for one test (%s)",
    async (route) => {
      // contextmanager's helpers of the framework keep what they wrap where nothing can set it (no closure cell).
      const r = await rt.run(taskRunRequest(task, assertionForgeryAttack(task.canonical, route)));
      expect(r.allPassed).toBe(false);
      expect(r.tests.filter((t) => t.status === "passed" && /errors/.test(t.id))).toEqual([]);
      expect(r.collectionError?.message ?? "").toMatch(/has no attribute '__closure__'/);
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    },
  );

  it("a closure cell of test.py's own helper, swapped for one test and put back, passes nothing: no closure loaded before the run can be read", async () => {
    const closures = { tests: CLOSURE_HELPER_TESTS, expected: null, interfaceOf: {} };
    // The canonical solution passes these tests (test.py's own closures work as in CPython).
    const honest = await rt.run(taskRunRequest(task, task.canonical, "test", closures));
    expect(honest.allPassed).toBe(true);
    expect(honest.counts.total).toBe(3);

    const r = await rt.run(taskRunRequest(task, testClosureCellAttack(task.canonical), "test", closures));
    expect(r.allPassed).toBe(false);
    // (The attack's getattr(fn, "__closure__", None) finds no closure: the test fails as the candidate is.)
    expect(r.tests.find((t) => t.id === "TestErrors.test_zero_temperature")?.status).toBe("error");

    // (test.py's helper is out of the candidate's reach, in no sys.modules: the probe finds no function to read.)
    const probe = await rt.run(taskRunRequest(task, closureReadsProbe(task.canonical), "test", closures));
    const reads = probe.tests.find((t) => t.id === "TestErrors.test_sums_to_one")?.message ?? "";
    expect(reads).not.toMatch(/GOT/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("a test class given assertRaises during a test and put back before its result is not trusted", async () => {
    const r = await rt.run(taskRunRequest(task, testClassPutBackAttack(task.canonical)));
    expect(r.allPassed).toBe(false);
    expect(r.tests.find((t) => t.id === "TestSoftmax.test_large_logits_and_errors")?.status).not.toBe("passed");
    // (test.py's classes are out of the candidate's reach; were one handed to it, the change would be counted.)
    if (r.incident) expect(r.incident.message).toMatch(/test class \w+ \(changed during a test\)/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("tests that change their own classes and module, or warn, are not taken for tampering", async () => {
    // Not counted (test.py's text changes them from inside its tests): a global, a class attribute, patches.
    const own = `import unittest, warnings
from unittest import mock
from decoding.min_p import softmax_with_temperature

CALLS = 0


def helper():
    return 1


class TestOwnClass(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.logits = [1.0, 2.0]

    def setUp(self):
        global CALLS
        CALLS += 1
        type(self).seen = CALLS

    def test_class_data(self):
        self.assertAlmostEqual(sum(softmax_with_temperature(self.logits, 1.0)), 1.0)
        self.assertEqual(type(self).seen, CALLS)

    def test_patched(self):
        with mock.patch.dict(globals(), {"helper": lambda: 2}), mock.patch.object(TestOwnClass, "logits", [0.0]):
            self.assertEqual(helper(), 2)


`;
    // Counted (nothing changes them from inside a test): data set in setUpClass, a warning noted from test.py's code.
    const counted = `import unittest, warnings
from decoding.min_p import softmax_with_temperature


class TestCounted(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.logits = [1.0, 2.0]

    def test_class_data(self):
        self.assertAlmostEqual(sum(softmax_with_temperature(self.logits, 1.0)), 1.0)

    def test_warning_from_test_code(self):
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.warn("noted where test.py's code runs")
        self.assertAlmostEqual(sum(softmax_with_temperature([0.0], 1.0)), 1.0)
`;
    for (const tests of [own, counted]) {
      const r = await rt.run(taskRunRequest(task, task.canonical, "test", { tests, expected: null, interfaceOf: {} }));
      expect(r.incident).toBeNull();
      expect(r.allPassed).toBe(true);
    }
  });

  it("a look the candidate asks of the guard does not launder a change put back: what a look found, every later look says", async () => {
    const r = await rt.run(taskRunRequest(task, lookLaunderingAttack(task.canonical)));
    expect(r.allPassed).toBe(false);
    const unchecked = r.tests.filter((t) => /errors|edges/.test(t.id));
    for (const t of unchecked) expect(t.status, t.id).not.toBe("passed");
    expect(r.incident?.kind).toBe("tampered");
    expect(r.incident?.message).toMatch(/unittest\.case \(changed and put back\)/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("no frame through the library functions allowed one: sys._getframe swapped under them, or their code given globals of its own", async () => {
    const r = await rt.run(taskRunRequest(task, frameThroughReadersProbe(task.canonical)));
    const reads = r.tests.find((t) => t.id === "TestSoftmax.test_values")?.message ?? "";
    expect(reads).toMatch(/namedtuple: no frame \| enum: no frame \| make_dataclass: no frame/);
    expect(reads).toMatch(/reader code: RuntimeError/);
    expect(reads).not.toMatch(/GOT/);
    // Rebinding the sys a reader reads, and putting it back, is a change like any other.
    const rebound = `${task.canonical}\nimport sys as _s, typing as _ty\n_ty.sys = _s\n`;
    expect((await rt.run(taskRunRequest(task, rebound))).incident?.message).toMatch(/typing/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("a comment in test.py that says patch or builtins does not turn off the counts of changes put back", async () => {
    const tests = task.tests.replace("import unittest", "import unittest  # no dispatch on dtypes; the builtins are untouched");
    const r = await rt.run(taskRunRequest(task, assertionForgeryAttack(task.canonical, "builtin-put-back"), "test", { tests }));
    expect(r.allPassed).toBe(false);
    expect(r.incident?.message).toMatch(/builtins \(changed and put back\)/);
  });

  it("test classes renamed while the tests load (their __module__) stay in the watch", async () => {
    const r = await rt.run(taskRunRequest(task, moduleRenameAttack(task.canonical)));
    expect(r.allPassed).toBe(false);
    expect(r.tests.filter((t) => t.status === "passed" && /errors|edges/.test(t.id))).toEqual([]);
  });

  it("ctypes' classes, which the guard keeps alive for itself, are in no walk of the classes", async () => {
    const r = await rt.run(taskRunRequest(task, ctypesLeftoversProbe(task.canonical)));
    const reads = r.tests.find((t) => t.id === "TestSoftmax.test_values")?.message ?? "";
    expect(reads).toMatch(/ctypes classes found: 0 \[\]/);
    expect(reads).toMatch(/the walk's defaults: RuntimeError/);
    expect(reads).toMatch(/told what to leave out: TypeError/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("the framework's descriptors cannot be made to wrap something else in place, and logging's caller gives no frame", async () => {
    const r = await rt.run(taskRunRequest(task, reinitAndReadersProbe(task.canonical)));
    const reads = r.tests.find((t) => t.id === "TestSoftmax.test_values")?.message ?? "";
    expect(reads).toMatch(/framework descriptors re-initialised: none \| logging's caller: no frame/);
    if (backend === "native") expect(reads).toMatch(/dotted _ctypes: ImportError/);
    expect(reads).not.toMatch(/GOT/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("tests that patch the built-ins or modules themselves (by hand, or with mock.patch) are not taken for tampering", async () => {
    const tests = `import builtins, math, unittest
from unittest import mock
from decoding.min_p import softmax_with_temperature


class TestHonestPatches(unittest.TestCase):
    def test_input_patched_by_hand(self):
        orig = builtins.input
        builtins.input = lambda *a: "5"
        try:
            self.assertEqual(input(), "5")
        finally:
            builtins.input = orig

    def test_print_patched(self):
        with mock.patch("builtins.print") as p:
            print("hi")
        self.assertTrue(p.called)

    def test_math_patched(self):
        with mock.patch("math.sqrt", return_value=3.0):
            self.assertEqual(math.sqrt(4), 3.0)
        self.assertAlmostEqual(sum(softmax_with_temperature([1.0, 2.0], 1.0)), 1.0)
`;
    const r = await rt.run(taskRunRequest(task, task.canonical, "test", { tests, expected: null, interfaceOf: {} }));
    expect(r.incident).toBeNull();
    expect(r.tests.map((t) => `${t.id}:${t.status}`)).toEqual([
      "TestHonestPatches.test_input_patched_by_hand:passed",
      "TestHonestPatches.test_math_patched:passed",
      "TestHonestPatches.test_print_patched:passed",
    ]);
  });

  it("patches test.py starts in setUpClass or setUpModule last across its tests; the candidate's own patch does not pass", async () => {
    const tests = `import math, unittest
from unittest import mock
from decoding.min_p import softmax_with_temperature

_sqrt = mock.patch("math.sqrt", side_effect=lambda x: x ** 0.5)


def setUpModule():
    _sqrt.start()


def tearDownModule():
    _sqrt.stop()


class TestClassPatch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.patcher = mock.patch("builtins.print")
        cls.fake_print = cls.patcher.start()
        cls.addClassCleanup(cls.patcher.stop)

    def test_one(self):
        print("hi")
        self.assertTrue(self.fake_print.called)

    def test_two(self):
        self.assertAlmostEqual(sum(softmax_with_temperature([1.0, 2.0], 1.0)), 1.0)
        self.assertEqual(math.sqrt(9.0), 3.0)
`;
    const over = { tests, expected: null, interfaceOf: {} };
    const r = await rt.run(taskRunRequest(task, task.canonical, "test", over));
    expect(r.incident).toBeNull();
    expect(r.tests.map((t) => `${t.id}:${t.status}`)).toEqual(["TestClassPatch.test_one:passed", "TestClassPatch.test_two:passed"]);
    // The same kind of patch, made and started by the candidate (a sum that is always 1): a change of its own.
    const own = `from unittest import mock\n_p = mock.patch("builtins.sum", return_value=1.0)\n_p.start()\ndef softmax_with_temperature(logits, temperature=1.0):\n    return [2.0 for _ in logits]\n`;
    const bad = await rt.run(taskRunRequest(task, own, "test", over));
    expect(bad.allPassed).toBe(false);
    expect(bad.incident?.kind).toBe("tampered");
    // Made and started by C code that test.py's own code runs (its sum() pulls an iterator): test.py's frame is the
    // first above unittest.mock's, but the target (assertRaises's context) is not one test.py's text names.
    const raises = `${tests}

class TestRaises(unittest.TestCase):
    def test_empty(self):
        with self.assertRaises(ValueError):
            softmax_with_temperature([], 1.0)
`;
    const piped = `import itertools as I, operator as O, unittest.case as C
from unittest import mock as M

class _Ctx:
    def __init__(self, *a, **k): pass
    def handle(self, *a): return self
    def __enter__(self): return self
    def __exit__(self, *e): return True

_pipe = filter(O.not_, map(O.methodcaller("start"), map(M.patch.object, [C], ["_AssertRaisesContext"], [_Ctx])))

class _L(list):
    def __iter__(self):
        return I.chain(_pipe, list.__iter__(self))

def softmax_with_temperature(logits, temperature=1.0):
    import math
    e = [math.exp(z) for z in logits]
    return _L([x / sum(e) for x in e]) if e else []
`;
    const forged = await rt.run(taskRunRequest(task, piped, "test", { tests: raises, expected: null, interfaceOf: {} }));
    expect(forged.tests.find((t) => t.id === "TestRaises.test_empty")?.status).not.toBe("passed");
    expect(forged.allPassed).toBe(false);
  });

  it("an entry put in re's cache of compiled patterns does not make unittest's regex assertions pass", async () => {
    const tests = `import unittest
from decoding.min_p import label, softmax_with_temperature


class TestLabel(unittest.TestCase):
    def test_label(self):
        self.assertRegex(label(0.5), r"^p=0\\.50$")

    def test_message(self):
        with self.assertRaisesRegex(ValueError, r"temperature must be positive"):
            softmax_with_temperature([1.0], -1.0)
`;
    const over = { tests, expected: null, interfaceOf: {} };
    const right = `def label(p):
    return f"p={p:.2f}"
def softmax_with_temperature(logits, t):
    if t <= 0:
        raise ValueError("temperature must be positive")
    return [1.0]
`;
    expect((await rt.run(taskRunRequest(task, right, "test", over))).allPassed).toBe(true);
    const poisoned = `import re
class _Yes:
    def __init__(self, pattern):
        self.pattern = pattern
        self.flags = 0
    def search(self, *a, **k):
        return True
    match = fullmatch = search
for _p in (r"^p=0\\.50$", r"temperature must be positive"):
    for _name in ("_cache", "_cache2"):
        _c = getattr(re, _name, None)
        if type(_c) is dict:
            _c[(str, _p, 0)] = _Yes(_p)
def label(p):
    return "WRONG"
def softmax_with_temperature(logits, t):
    if t <= 0:
        raise ValueError("bad")
    return [1.0]
`;
    const r = await rt.run(taskRunRequest(task, poisoned, "test", over));
    expect(r.tests.map((t) => `${t.id}:${t.status}`)).toEqual(["TestLabel.test_label:failed", "TestLabel.test_message:failed"]);
  });

  it("a protected module's data (math.pi) changed by the candidate is not accepted", async () => {
    const tests = `import math, unittest
from decoding.min_p import circle_area


class TestArea(unittest.TestCase):
    def test_area(self):
        self.assertAlmostEqual(circle_area(2.0), 4 * math.pi, places=9)
`;
    const over = { tests, expected: null, interfaceOf: {} };
    const right = "import math\ndef circle_area(r):\n    return math.pi * r * r\n";
    expect((await rt.run(taskRunRequest(task, right, "test", over))).allPassed).toBe(true);
    const r = await rt.run(taskRunRequest(task, "import math\nmath.pi = 3.0\ndef circle_area(r):\n    return 3.0 * r * r\n", "test", over));
    expect(r.allPassed).toBe(false);
    expect(r.incident?.kind).toBe("tampered");
    expect(r.incident?.message).toMatch(/math/);
  });

  it.each([
    ["statistics.mean", "import statistics\nstatistics.mean = lambda data: 42.0\n"],
    ["random.Random.uniform", "import random\nrandom.Random.uniform = lambda self, a, b: 42.0 ** 2\n"],
    ["fractions.Fraction", "import fractions\nfractions.Fraction = lambda *a: 42.0\n"],
    ["random's shared generator", "import random\nrandom._inst._randbelow = lambda n: n - 1\n"],
    ["copy's table of how a list is copied", "import copy\ncopy._deepcopy_dispatch[list] = lambda x, memo, deepcopy=None: [42.0 ** 2]\n"],
  ])("a standard-library module a test computes its expected value with (%s) cannot be set by the candidate", async (_, change) => {
    const tests = `import copy, fractions, random, statistics, unittest
from decoding.min_p import mean_root


class TestMeanRoot(unittest.TestCase):
    def test_mean_root(self):
        random.seed(0)
        xs = [random.Random(0).uniform(1.0, 2.0) ** 2, 4.0, 9.0, float(random.randint(1, 4)) ** 2]
        expected = statistics.mean(x ** 0.5 for x in copy.deepcopy(xs)) * float(fractions.Fraction(1, 1))
        self.assertAlmostEqual(mean_root(xs), expected, places=9)
`;
    const over = { tests, expected: null, interfaceOf: {} };
    // Honest use of the same modules (seeds, a str one too, gauss, a Decimal context, a registered number) is trusted.
    const right = `import decimal, numbers, random, statistics\n\nclass Root(float):\n    pass\n\nnumbers.Real.register(Root)\n\ndef mean_root(xs):\n    random.seed(1)\n    random.gauss(0.0, 1.0)\n    random.seed("experiment-1")\n    random.Random("fixed-seed").random()\n    decimal.getcontext().prec = 40\n    return statistics.mean(x ** 0.5 for x in xs)\n`;
    const honest = await rt.run(taskRunRequest(task, right, "test", over));
    expect([honest.incident, honest.allPassed]).toEqual([null, true]);
    const r = await rt.run(taskRunRequest(task, `${change}\ndef mean_root(xs):\n    return 42.0\n`, "test", over));
    expect(r.allPassed).toBe(false);
    // Not trusted, or refused where it is tried (a protected class is immutable).
    expect(r.incident?.kind === "tampered" || /immutable type/.test(r.collectionError?.message ?? "")).toBe(true);
  });

  it("the event channel's descriptor pointed elsewhere (events held back and rewritten) ends the interpreter", async () => {
    const r = await rt.run(taskRunRequest(task, channelRerouteAttack(task.canonical)));
    expect(r.allPassed).toBe(false);
    expect(r.tests.filter((t) => t.status === "passed").map((t) => t.id)).not.toContain("TestMinPFilter.test_edges");
    expect(r.tests.filter((t) => t.status === "passed").map((t) => t.id)).not.toContain("TestSoftmax.test_large_logits_and_errors");
    expect(r.incident?.message).toMatch(/took its event channel/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it.each(["raise", "exit", "hang"] as const)(
    "the candidate writing the whole event stream itself (then stopping the harness: %s) is not trusted",
    async (how) => {
      if (how === "exit" && backend === "pyodide") return; // os._exit ends the worker's instance: the "raise" route
      const r = await rt.run(taskRunRequest(task, eventTakeoverAttack(task.canonical, how)));
      expect(r.allPassed).toBe(false);
      expect(r.counts.passed).toBe(0);
      expect(r.incident?.message).toMatch(/the harness did not write/);
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    },
  );

  it.each(Object.keys(HIDDEN_FUNCTION_ATTACKS))("%s cannot be bent: refused where it is tried", async (kind) => {
    const r = await rt.run(taskRunRequest(task, `${task.canonical}\n${HIDDEN_FUNCTION_ATTACKS[kind]}`));
    expect(r.allPassed).toBe(false);
    expect(r.counts.passed).toBe(0);
    expect(r.collectionError?.message).toMatch(/cannot be (replaced|changed|inspected)/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("a test's stdout holds no relay of the harness's (its defaults held the event writer; called, it sent output)", async () => {
    // What a stream keeps and where it sends it are the harness's, out of the stream's reach (its cap was too).
    for (const route of ["defaults", "call"] as const) {
      const r = await rt.run(taskRunRequest(task, outputRelayAttack(task.canonical, route)));
      expect(r.incident).toBeNull();
      const filterTests = r.tests.filter((t) => t.id.startsWith("TestMinPFilter"));
      expect(filterTests.length).toBeGreaterThan(0);
      for (const t of filterTests) {
        expect(t.status).toBe("error");
        expect(t.message).toMatch(/'CappedStream' object has no attribute 'relay'/);
        expect(t.stdout).toBe("");
      }
    }
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("the guard cannot be reached to write the candidate's changes into its copies", async () => {
    // With the guard's copies of unittest.case rewritten to hold a shadowed built-in, no look would see it.
    const r = await rt.run(taskRunRequest(task, assertionForgeryAttack(task.canonical, "guard-copies-rewritten")));
    expect(r.allPassed).toBe(false);
    expect(r.collectionError?.message).toMatch(/the guard's own functions cannot be inspected/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("the guard's watch cannot be set by code under test (it would accept the candidate's changes)", async () => {
    // The handle's watch_classes, called while test.py imports the candidate (before the harness's own second
    // call): the guard would take what is there then as the run's state.
    const bend = `
import sys as _sys
_sys.modules["recode_harness"]._STATE.guard.watch_classes([])
`;
    const partial = task.canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
    const r = await rt.run(taskRunRequest(task, `${partial}\n${bend}`));
    expect(r.allPassed).toBe(false);
    expect(r.tests.filter((t) => t.status === "passed")).toEqual([]);
    expect(r.incident?.kind).toBe("tampered");
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("a protected class's method swapped, to be put back within one assertion, is refused where it is tried", async () => {
    const r = await rt.run(taskRunRequest(task, assertionForgeryAttack(task.canonical, "class-method-swapped-back")));
    expect(r.allPassed).toBe(false);
    expect(r.tests.some((t) => /cannot set '_raiseFailure' attribute of immutable type/.test(t.message))).toBe(true);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("a task file whose path leaves the run folder is refused before anything is written, and the next runs are clean", async () => {
    // From a hostile task pack: repo/../../../lib/x.py was written over the interpreter's standard library
    // (before the run's file watch started), and broke every later run of every task.
    const planted = { ...task.repo, "../../../lib/python314.zip": "not a zip", "../../../lib/recode_planted.py": "X = 1\n" };
    await expect(rt.run({ ...taskRunRequest(task, task.canonical), files: planted })).rejects.toThrow(/must stay inside its folder/);
    await expect(rt.run({ ...taskRunRequest(task, task.canonical), files: { ...task.repo, "/tmp/abs.py": "" } })).rejects.toThrow(
      /must stay inside its folder/,
    );
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  // A task whose test.py checks something once per class, at its teardown: a candidate wrong only there ends the run
  // inside the fixture (it can tell it is there: no test's output stream is set), after every test reported "passed".
  const CHECK = `if pass_at_k(5, 0, 1) != 0.0:\n            raise AssertionError("pass_at_k(5, 0, 1) must be exactly 0.0")`;
  const FIXTURES = {
    classmethod: `    @classmethod\n    def tearDownClass(cls):\n        ${CHECK}\n`,
    staticmethod: `    @staticmethod\n    def tearDownClass():\n        ${CHECK}\n`,
    // (An exception escapes unittest's suite from here: it does not catch around a class's own doClassCleanups.)
    doClassCleanups: `    @classmethod\n    def doClassCleanups(cls):\n        super().doClassCleanups()\n        ${CHECK}\n`,
  };
  const SWALLOW =
    "import time\n        try:\n            while True:\n                time.sleep(0.01)\n        except KeyboardInterrupt:\n            return _right(n, c, k)";
  it.each([
    ["first", "classmethod", "_os._exit(0)"],
    ["last", "classmethod", "_os._exit(0)"],
    ["last", "classmethod", "raise KeyboardInterrupt"],
    ["last", "classmethod", "raise SystemExit"],
    ["first", "classmethod", "while True:\n            pass"],
    ["last", "classmethod", "while True:\n            pass"],
    ["last", "classmethod", SWALLOW],
    ["last", "staticmethod", "_os._exit(0)"],
    ["last", "staticmethod", "while True:\n            pass"],
    ["last", "doClassCleanups", "pass"],
  ] as const)("a check at a class's teardown (%s class, %s) is not escaped by ending the run there: %s", async (which, kind, leave) => {
    const passAtK = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
    // TestAggregate runs first, TestPassAtK last.
    const cls = which === "first" ? "TestAggregate" : "TestPassAtK";
    const tests = passAtK.tests.replace(`class ${cls}(unittest.TestCase):\n`, `class ${cls}(unittest.TestCase):\n${FIXTURES[kind]}\n`);
    expect(tests).not.toBe(passAtK.tests);
    const req = (code: string) => ({ ...taskRunRequest(passAtK, code, "test", { tests }), timeLimitMs: 8000 });
    const honest = await rt.run(req(passAtK.canonical));
    expect(honest.allPassed).toBe(true);
    const wrongOnlyThere = `${passAtK.canonical}
import os as _os, sys as _sys
_right = pass_at_k
def pass_at_k(n, c, k):
    if type(_sys.stdout).__name__ != "CappedStream":
        ${leave}
    if (n, c, k) == (5, 0, 1):
        return 0.5
    return _right(n, c, k)
`;
    const r = await rt.run(req(wrongOnlyThere));
    expect(r.allPassed).toBe(false);
    const covered = r.tests.filter((t) => t.id.startsWith(`${cls}.`));
    expect(covered.length).toBeGreaterThan(0);
    for (const t of covered) {
      expect(t.status).not.toBe("passed");
      expect(t.message).toContain(`tearDownClass of ${cls}`);
    }
    // No other test is blamed for it.
    for (const t of r.tests.filter((x) => !x.id.startsWith(`${cls}.`))) expect(t.message).not.toMatch(/while this test ran/);
    expect((await rt.run(req(passAtK.canonical))).allPassed).toBe(true);
  });

  it("a keyword-only default of a function loaded before the run cannot be changed in place", async () => {
    // json.dumps's encoder class (the check helper encodes values with it): the change does not take.
    const json = await rt.run(taskRunRequest(task, keywordDefaultsAttack(task.canonical, "json")));
    expect(json.collectionError).toBeNull();
    expect(json.allPassed).toBe(true);
    // A runner of the test method, swapped for one that swallows every failure: the stub's failing tests fail.
    const stub = withoutInputChecks(task.canonical);
    const alone = await rt.run(taskRunRequest(task, stub));
    const failing = alone.tests.filter((t) => t.status !== "passed").map((t) => t.id);
    expect(failing.length).toBeGreaterThan(0);
    const forged = await rt.run(taskRunRequest(task, keywordDefaultsAttack(stub, "runner")));
    expect(forged.allPassed).toBe(false);
    expect(forged.tests.filter((t) => failing.includes(t.id) && t.status === "passed").map((t) => t.id)).toEqual([]);
  });

  it("a method type set in the types module gives unittest's outcome no per-part executor of the candidate's", async () => {
    const stub = withoutInputChecks(task.canonical);
    const alone = await rt.run(taskRunRequest(task, stub));
    const failing = alone.tests.filter((t) => t.status !== "passed").map((t) => t.id);
    expect(failing.length).toBeGreaterThan(0);
    const forged = await rt.run(taskRunRequest(task, methodTypeAttack(stub)));
    expect(forged.allPassed).toBe(false);
    expect(forged.tests.filter((t) => failing.includes(t.id) && t.status === "passed").map((t) => t.id)).toEqual([]);
  });

  it("unittest's private _ShouldStop raised inside a subTest is an error, not a passed subtest", async () => {
    const over = { tests: subTestTests(task.tests) };
    const stop = withoutInputChecks(task.canonical, "__import__('unittest').case._ShouldStop()");
    const r = await rt.run(taskRunRequest(task, stop, "test", over));
    expect(r.allPassed).toBe(false);
    for (const id of ["TestSoftmax.test_large_logits_and_errors", "TestMinPFilter.test_edges"]) {
      const t = r.tests.find((x) => x.id === id);
      expect(t?.status).toBe("error");
      expect(JSON.stringify(t)).toMatch(/_ShouldStop/);
    }
    // The honest candidate under the same tests: solved.
    expect((await rt.run(taskRunRequest(task, task.canonical, "test", over))).allPassed).toBe(true);
  });

  it.each(["class", "bases", "mro"] as const)(
    "an exception made unittest's _ShouldStop after the per-part executor's check (its %s changed) passes nothing",
    async (route) => {
      const stub = withoutInputChecks(task.canonical);
      const alone = await rt.run(taskRunRequest(task, stub));
      const failing = alone.tests.filter((t) => t.status !== "passed").map((t) => t.id);
      expect(failing.length).toBeGreaterThan(0);
      const forged = await rt.run(taskRunRequest(task, exceptionFlipAttack(stub, route)));
      expect(forged.allPassed).toBe(false);
      expect(forged.tests.filter((t) => failing.includes(t.id) && t.status === "passed").map((t) => t.id)).toEqual([]);
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    },
  );

  it.each([
    [
      "its class",
      "_e = ValueError('x')\n_e.__class__ = __import__('unittest').case._ShouldStop\n",
      /the class of an exception cannot be changed/,
    ],
    [
      "its class's bases",
      "class _X(Exception):\n    pass\n_X.__bases__ = (__import__('unittest').case._ShouldStop,)\n",
      /the bases of a class the run did not define, or of an exception class or one built on, cannot be changed/,
    ],
  ])("an exception cannot be made another kind after it is made (%s), wherever that is tried", async (_what, trick, refused) => {
    const r = await rt.run(taskRunRequest(task, `${task.canonical}\n${trick}`));
    expect(r.collectionError?.message).toMatch(refused);
  });

  it.each([
    [
      "a partial given another function (its state a tuple subclass)",
      "import functools\nclass _T(tuple):\n    pass\n_p = functools.partial(abs)\n_p.__setstate__(_T((round, (), None, None)))\n",
    ],
    [
      "a partial that holds arguments",
      "import functools\n_p = functools.partial(round, 2.5)\n_p.__setstate__((round, (3.5,), None, None))\n",
    ],
    ["a staticmethod", "_s = staticmethod(abs)\nstaticmethod.__init__(_s, round)\n"],
    ["a property", "_q = property(abs)\nproperty.__init__(_q, round)\n"],
  ])("a descriptor that is made cannot be made to wrap something else: %s", async (_what, trick) => {
    const r = await rt.run(taskRunRequest(task, `${task.canonical}\n${trick}`));
    expect(r.collectionError?.message).toMatch(/cannot be run again on an object that is made already/);
  });

  it("honest library code that binds or reads its own state at first use is trusted (Counter.most_common, a slotted dataclass, HtmlDiff)", async () => {
    const code = `${task.canonical}

import collections, dataclasses

@dataclasses.dataclass(slots=True)
class SamplerConfig:
    p_base: float = 0.1
    temperature: float = 1.0

DEFAULT = SamplerConfig(p_base=0.2)
assert collections.Counter([1, 2, 2, 3]).most_common(1)[0][0] == 2

import copy, difflib, functools, pickle

# (A copy and an unpickled partial are made with their function alone, then given their state.)
assert copy.copy(functools.partial(round, ndigits=2))(1.234) == 1.23
assert pickle.loads(pickle.dumps(functools.partial(max, 3)))(1) == 3

def debug_table(before, after):
    # (HtmlDiff counts the tables it makes on its own class.)
    return difflib.HtmlDiff().make_table([repr(before)], [repr(after)])

_plain_filter = min_p_filter

def min_p_filter(probs, p_base):
    out = _plain_filter(probs, p_base)
    debug_table(probs, out)
    return out
`;
    const r = await rt.run(taskRunRequest(task, code));
    expect(r.incident).toBeNull();
    expect(r.collectionError).toBeNull();
    expect(r.allPassed).toBe(true);
  });

  it("lenient tolerances sent by the code under test are ignored (the recording's are used)", async () => {
    const passAtK = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
    const r = await rt.run(taskRunRequest(passAtK, TOLERANCE_ATTACK));
    expect(r.tests.filter((t) => t.status === "passed").map((t) => t.id)).toEqual([]);
    expect((await rt.run(taskRunRequest(passAtK, passAtK.canonical))).allPassed).toBe(true);
  });
});

// Native python3 only: no numpy wheel for Pyodide can be fetched offline here (Pyodide watches numpy the same way:
// recode_guard.WATCHED_PACKAGES, with every module of a task's packages imported before the seal).
describe("native: numpy's assertion helpers", () => {
  const rmsNorm = loadTaskDir(BUILTIN_TASKS, "rms-norm");
  const FD = "TestBackward.test_matches_finite_differences";
  let rt: PythonRuntime;
  beforeAll(async () => {
    rt = createRuntime("native", {});
    await rt.ready();
  });
  afterAll(async () => {
    await rt.dispose();
  });

  it.each(["persistent", "put-back", "inner-module"] as const)(
    "np.allclose made to say yes does not pass the test only it catches (%s)",
    async (route) => {
      const honest = await rt.run(taskRunRequest(rmsNorm, numpyAssertionAttack(rmsNorm.canonical, null)));
      expect(honest.tests.filter((t) => t.status !== "passed").map((t) => t.id)).toEqual([FD]);
      const r = await rt.run(taskRunRequest(rmsNorm, numpyAssertionAttack(rmsNorm.canonical, route)));
      expect(r.allPassed).toBe(false);
      expect(r.tests.find((t) => t.id === FD)?.status ?? "not run").not.toBe("passed");
      expect(r.incident?.kind).toBe("tampered");
      // (The put-back route arms at every call of the backward pass: a look may see it armed, or put back.)
      expect(r.incident?.message).toMatch(/numpy/);
      expect((await rt.run(taskRunRequest(rmsNorm, rmsNorm.canonical))).allPassed).toBe(true);
    },
  );
});

// Honest candidates that print from threads, or from a forked child: every line of the event channel is the harness
// process's own and in order, so the run is trusted (natively: Pyodide has neither threads nor fork). Each is appended
// to the canonical solution and wraps its functions.
const CONCURRENT_HONEST: Record<string, string> = {
  "a thread pool whose workers print": `
from concurrent.futures import ThreadPoolExecutor
_pass_at_k = pass_at_k
def pass_at_k(n, c, k):
    def one(i):
        v = _pass_at_k(n, c, k)
        print(f"[progress {i}] n={n} c={c} pass@{k}={v:.6f}")
        return v
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(one, range(8)))[0]
`,
  "a background thread that prints after the call returns": `
import threading
_pass_at_k = pass_at_k
def pass_at_k(n, c, k):
    threading.Thread(target=lambda: print(f"[summary] n={n} c={c} k={k}"), daemon=True).start()
    return _pass_at_k(n, c, k)
`,
  "a signal handler that prints while the code prints": `
import signal, sys
def _tick(signum, frame):
    print("tick", file=sys.stderr)
signal.signal(signal.SIGALRM, _tick)
_pass_at_k = pass_at_k
def pass_at_k(n, c, k):
    signal.setitimer(signal.ITIMER_REAL, 0.0002, 0.0002)
    try:
        for i in range(20):
            print("step", i)
        return _pass_at_k(n, c, k)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
`,
  "a signal handler that raises to end a loop that prints": `
import signal
class _Budget(Exception):
    pass
def _out(signum, frame):
    raise _Budget()
signal.signal(signal.SIGALRM, _out)
def _settle():
    pass
_pass_at_k = pass_at_k
def pass_at_k(n, c, k):
    # The timer is set inside the try: on a busy machine it can fire as setitimer returns.
    # (It may also fire as it is stopped; its handler runs at the next call, _settle, still inside the try.)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.0002)
        try:
            for i in range(50):
                print("progress", i)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        _settle()
    except _Budget:
        pass
    return _pass_at_k(n, c, k)
`,
  "a process pool (its locks and queues need /dev/shm)": `
import multiprocessing
_aggregate = aggregate_pass_at_k
def _one(args):
    return _aggregate(*args)
def aggregate_pass_at_k(results, ks=(1, 10, 100)):
    with multiprocessing.Pool(2) as pool:
        first, second = pool.map(_one, [(results, ks)] * 2)
    assert first == second
    return first
`,
  // (The forkserver start method, the default on Linux from Python 3.14, passes descriptors in an array.)
  "a forkserver process pool": `
import multiprocessing
_aggregate = aggregate_pass_at_k
def _one(args):
    return _aggregate(*args)
def aggregate_pass_at_k(results, ks=(1, 10, 100)):
    with multiprocessing.get_context("forkserver").Pool(1) as pool:
        return pool.map(_one, [(results, ks)])[0]
`,
  "a descriptor passed over a socket (socket.send_fds)": `
import array, os, socket
_aggregate = aggregate_pass_at_k
def aggregate_pass_at_k(*args, **kwargs):
    a, b = socket.socketpair()
    r, w = os.pipe()
    with a, b:
        socket.send_fds(a, [b"x"], [r])
        _msg, fds, _flags, _addr = socket.recv_fds(b, 1, 1)
    os.write(w, b"y")
    assert os.read(fds[0], 1) == b"y"
    for fd in (r, w, *fds):
        os.close(fd)
    numbers = array.array("d", [1.5, 2.5])
    numbers.append(3.0)
    assert sum(numbers) == 7.0 and numbers.tolist() == [1.5, 2.5, 3.0]
    return _aggregate(*args, **kwargs)
`,
  "a forked child that prints": `
import multiprocessing
_aggregate = aggregate_pass_at_k
def aggregate_pass_at_k(*args, **kwargs):
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    def work():
        try:
            value = _aggregate(*args, **kwargs)
            print("worker:", value)
            send.send((True, value))
        except Exception as e:
            send.send((False, e))
    child = ctx.Process(target=work)
    child.start()
    ok, value = recv.recv()
    child.join()
    if not ok:
        raise value
    return value
`,
};

describe("native: honest code that prints from threads or a forked child", () => {
  const passAtK = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
  it.each(Object.keys(CONCURRENT_HONEST))("%s: solved, and trusted", async (name) => {
    const rt = createRuntime("native", {});
    try {
      await rt.ready();
      const code = `${passAtK.canonical}\n${CONCURRENT_HONEST[name]}`;
      for (let i = 0; i < 3; i++) {
        const r = await rt.run(taskRunRequest(passAtK, code));
        expect(r.incident, JSON.stringify(r.incident)).toBeNull();
        expect(r.allPassed).toBe(true);
      }
    } finally {
      await rt.dispose();
    }
  });
});

describe("native: the interpreter's own memory", () => {
  it("another process of the box cannot read the run's key from the harness (not dumpable)", async () => {
    const rt = createRuntime("native", {});
    try {
      await rt.ready();
      const partial = task.canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
      const r = await rt.run(taskRunRequest(task, `${partial}\n${KEY_FROM_MEMORY_ATTACK}`));
      expect(r.allPassed).toBe(false);
      expect(r.counts.passed).toBe(0);
      expect(r.incident?.message).toMatch(/the harness did not write/);
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    } finally {
      await rt.dispose();
    }
  });

  it("compiled code the run wrote, or of a package the task does not list, does not load (an extension module from the run folder or site-packages, through a link, or _imp.create_dynamic); Python's own do", async () => {
    const rt = createRuntime("native", {});
    try {
      await rt.ready();
      const r = await rt.run(taskRunRequest(task, runExtensionProbe(task.canonical)));
      const loads = r.tests.find((t) => t.id === "TestSoftmax.test_values")?.message ?? "";
      expect(loads).toMatch(/loader: ImportError \| link: ImportError \| create_dynamic: ImportError/);
      expect(loads).toMatch(/create_dynamic told its roots: TypeError/);
      expect(loads).toMatch(/decimal: 2\.5/);
      // A package installed for python3 that the task does not list: its compiled code does not load either.
      expect(loads).toMatch(/site by path: ImportError: the extension module \S+ \(.*\) is not of the task's packages/);
      expect(loads).toMatch(/site by link: ImportError: the extension module \S+ \(.*\) is not of the task's packages/);
      expect(loads).toMatch(/tkinter: ImportError \| _tkinter: ImportError \| sqlite3 extensions: (RuntimeError|not built)/);
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    } finally {
      await rt.dispose();
    }
  });

  it("/proc/self/mem is not there to read the run's key or write over the harness (no /proc in the box)", async () => {
    const rt = createRuntime("native", {});
    try {
      await rt.ready();
      const code = `${task.canonical}\nimport os\n_fd = os.open("/proc/self/mem", os.O_RDONLY)\nraise SystemExit("read " + os.pread(_fd, 8, id(os)).hex())\n`;
      const r = await rt.run(taskRunRequest(task, code));
      expect(r.allPassed).toBe(false);
      expect(r.collectionError?.message).toMatch(/FileNotFoundError.*\/proc\/self\/mem/);
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    } finally {
      await rt.dispose();
    }
  });
});

// Checked containers whose own methods say they hold what they do not (a set subclass that repeats one item
// when iterated, a list whose iteration is the answer, a dict whose items() is): what is compared is what they
// hold, and a sent set that repeats an item is no set.
const LYING_TESTS = `import unittest
from recode_check import check
from target import top3_set, top3_list, table, counts

class TestContainers(unittest.TestCase):
    def test_set(self):
        check(self, "top3_set", top3_set())

    def test_list(self):
        check(self, "top3_list", top3_list())

    def test_dict(self):
        check(self, "table", table())

    def test_counts(self):
        check(self, "counts", counts())
`;
const LYING_EXPECTED = JSON.stringify({
  format: 2,
  tests: {
    "TestContainers.test_set": ["top3_set"],
    "TestContainers.test_list": ["top3_list"],
    "TestContainers.test_dict": ["table"],
    "TestContainers.test_counts": ["counts"],
  },
  values: { top3_set: { $set: [0, 3, 5] }, top3_list: [0, 3, 5], table: { $dict: [["a", 1]] }, counts: { $dict: [["a", 2]] } },
});
const LYING_CANDIDATE = `class _Set(set):
    def __iter__(self):
        return iter([3, 3, 3])

class _List(list):
    def __iter__(self):
        return iter([0, 3, 5])

class _Dict(dict):
    def items(self):
        return [("a", 1)]

def top3_set():
    return _Set([3])

def top3_list():
    return _List([9])

def table():
    return _Dict(a=2)

class _Key(str):
    # Two keys that a dict holds apart, both sent as "a".
    __hash__ = object.__hash__
    def __eq__(self, other):
        return self is other

def counts():
    return {_Key("a"): 2, _Key("a"): 5}
`;
const HONEST_CONTAINERS =
  "def top3_set():\n    return {5, 0, 3}\n\ndef top3_list():\n    return [0, 3, 5]\n\ndef table():\n    return {'a': 1}\n\ndef counts():\n    return {'a': 2}\n";

describe.each(["pyodide", "native"] as const)("%s: checked containers that lie about what they hold", (backend) => {
  it("are compared by what they hold: no test passes, and honest containers do", async () => {
    const rt = createRuntime(backend, {});
    try {
      await rt.ready();
      const req = (candidate: string) => targetRequest(candidate, LYING_TESTS, LYING_EXPECTED, []);
      const lying = await rt.run(req(LYING_CANDIDATE));
      expect(lying.tests.map((t) => [t.id, t.status])).toEqual([
        ["TestContainers.test_counts", "failed"],
        ["TestContainers.test_dict", "failed"],
        ["TestContainers.test_list", "failed"],
        ["TestContainers.test_set", "failed"],
      ]);
      expect(lying.allPassed).toBe(false);
      const honest = await rt.run(req(HONEST_CONTAINERS));
      expect(honest.allPassed).toBe(true);
    } finally {
      await rt.dispose();
    }
  });
});

describe("native: a numpy array or scalar whose own dtype says otherwise", () => {
  it("is sent as the plain array or scalar it is", async () => {
    const rt = createRuntime("native", {});
    try {
      await rt.ready();
      const tests = `import unittest
from recode_check import check
from target import halves, one, kept, kept_view, third, big

class TestArrays(unittest.TestCase):
    def test_masked(self):
        check(self, "kept", kept())

    def test_masked_view(self):
        check(self, "kept_view", kept_view())

    def test_long_double(self):
        check(self, "third", third())

    def test_long_double_int(self):
        check(self, "big", big())

    def test_array(self):
        check(self, "halves", halves())

    def test_scalar(self):
        check(self, "one", one())
`;
      const expected = JSON.stringify({
        format: 2,
        tests: {
          "TestArrays.test_array": ["halves"],
          "TestArrays.test_scalar": ["one"],
          "TestArrays.test_masked": ["kept"],
          "TestArrays.test_masked_view": ["kept_view"],
          "TestArrays.test_long_double": ["third"],
          "TestArrays.test_long_double_int": ["big"],
        },
        values: {
          halves: { $ndarray: { dtype: "float64", shape: [2], data: [0.5, 1.5] } },
          one: { $npscalar: { dtype: "float64", value: 1.0 } },
          // A masked array: its masked items are None.
          kept: { $ndarray: { dtype: "int64", shape: [3], data: [1, null, 3] } },
          kept_view: { $ndarray: { dtype: "int64", shape: [3], data: [1, null, 3] } },
          third: 1 / 3,
          big: "BIG",
        },
        // 2**60 as Python writes it (a JavaScript number prints as 1152921504606847000).
      }).replace('"BIG"', String(2n ** 60n));
      const lying = `import numpy as np

class _Array(np.ndarray):
    @property
    def dtype(self):
        return np.dtype("float64")

class _Scalar(np.float32):
    @property
    def dtype(self):
        return np.dtype("float64")

def halves():
    return np.array([0.5, 1.5], dtype=np.float32).view(_Array)

def one():
    return _Scalar(1.0)

def kept():
    return np.ma.masked_array([1, 2, 3], mask=[1, 1, 1])

class _View(np.ndarray):
    def tolist(self):
        return [1, None, 3]

def kept_view():
    # A masked array's own tolist() reads its data as a view of the class it names.
    a = np.ma.masked_array([7, 8, 9], mask=[0, 0, 0])
    a._baseclass = _View
    return a

def third():
    return np.longdouble(0.3)

def big():
    # One more than the recorded int: rounded to a float, it would equal it.
    return np.longdouble(2**60) + 1
`;
      const honest =
        "import numpy as np\n\ndef halves():\n    return np.array([0.5, 1.5])\n\ndef one():\n    return np.float64(1.0)\n\ndef kept():\n    return np.ma.masked_array([1, 99, 3], mask=[0, 1, 0])\n\nkept_view = kept\n\ndef third():\n    return np.longdouble(1 / 3)\n\ndef big():\n    return 2**60\n";
      const req = (candidate: string) => targetRequest(candidate, tests, expected, ["numpy"]);
      const r = await rt.run(req(lying));
      expect(r.tests.map((t) => [t.id, t.status])).toEqual([
        ["TestArrays.test_array", "failed"],
        ["TestArrays.test_long_double", "failed"],
        ["TestArrays.test_long_double_int", "failed"],
        ["TestArrays.test_masked", "failed"],
        ["TestArrays.test_masked_view", "failed"],
        ["TestArrays.test_scalar", "failed"],
      ]);
      expect(r.tests[0]?.message).toMatch(/dtype float64, got float32/);
      // A long double is sent as the float it equals (item() keeps it a numpy scalar), not encoded without end.
      const ok = await rt.run(req(honest));
      expect(ok.tests.map((t) => [t.id, t.status, t.message])).toEqual(ok.tests.map((t) => [t.id, "passed", ""]));
    } finally {
      await rt.dispose();
    }
  });
});

// Values near the recorded ones that are not them: floats within rtol of recorded ints (64-bit hashes), two
// surrogates where one character beyond the BMP was recorded (their JSON escapes are alike), and the check
// sink called directly with a key or tolerance of a shape check() never sends (once crashed the host).
const NEAR_TESTS = `import unittest
from recode_check import check
from target import hashes, emoji, call_sink

class TestNear(unittest.TestCase):
    def test_hashes(self):
        check(self, "hashes", hashes())

    def test_emoji(self):
        check(self, "emoji", emoji())

    def test_sink(self):
        call_sink()
        check(self, "one", 1)
`;
const NEAR_EXPECTED = JSON.stringify({
  format: 2,
  tests: { "TestNear.test_hashes": ["hashes"], "TestNear.test_emoji": ["emoji"], "TestNear.test_sink": ["one"] },
  values: { hashes: [1099511627781, 8589934593], emoji: "\u{1F600}", one: 1 },
});
const NEAR_CANDIDATE = `import recode_check

def _deep():
    v = []
    for _ in range(5000):
        v = [v]
    return v

try:
    recode_check.SINK(_deep(), "0", 0.0, 0.0, None, None)  # outside any test
except TypeError:
    pass

def hashes():
    return [float(2**40 + 8), float(2**33 + 2)]

def emoji():
    return "\\ud83d\\ude00"

def call_sink():
    recode_check.SINK("k", "0", _deep(), 0.0, None, None)
`;
const NEAR_HONEST =
  "def hashes():\n    return [2**40 + 5, 2**33 + 1]\n\ndef emoji():\n    return '\\U0001F600'\n\ndef call_sink():\n    pass\n";

describe.each(["pyodide", "native"] as const)("%s: values near the recorded ones, and the sink called directly", (backend) => {
  it("fail (an int is matched exactly; a lone surrogate is not sent), the host reads every event, and honest values pass", async () => {
    const rt = createRuntime(backend, {});
    try {
      await rt.ready();
      const req = (candidate: string) => targetRequest(candidate, NEAR_TESTS, NEAR_EXPECTED, []);
      const near = await rt.run(req(NEAR_CANDIDATE));
      const by = Object.fromEntries(near.tests.map((t) => [t.id, t]));
      expect(by["TestNear.test_hashes"]?.status).toBe("failed");
      expect(by["TestNear.test_hashes"]?.message).toContain("an int is matched exactly, or within atol 0");
      expect(by["TestNear.test_emoji"]?.status).toBe("failed");
      expect(by["TestNear.test_emoji"]?.message).toContain("lone surrogate");
      expect(by["TestNear.test_sink"]?.status).toBe("error");
      expect(by["TestNear.test_sink"]?.message).toContain("recode_check.SINK takes what recode_check.check sends");
      expect(near.allPassed).toBe(false);
      const honest = await rt.run(req(NEAR_HONEST));
      expect(honest.tests.map((t) => [t.id, t.status])).toEqual([
        ["TestNear.test_emoji", "passed"],
        ["TestNear.test_hashes", "passed"],
        ["TestNear.test_sink", "passed"],
      ]);
      expect(honest.incident ?? null).toBeNull();
    } finally {
      await rt.dispose();
    }
  });
});
