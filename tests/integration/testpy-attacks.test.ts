/**
 * Attacks through test.py's own objects (docs/security.md, "Verdicts"): a candidate without input checks that
 * bends what test.py holds (its data, a helper's defaults, a staticmethod, the framework's assertLogs) must not
 * pass the tests those checks fail, and finds no way into test.py's namespace; and honest test.py features (assertLogs, assertWarns twice in a test, a warning from
 * the candidate) are trusted. Both backends.
 */
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../src/core/results";
import { taskRunRequest } from "../../src/python/runtime";
import { withoutInputChecks } from "../helpers/attacks";
import { raisesTask } from "../helpers/raises-tasks";
import { sharedRuntime, statusOf, targetRequest } from "../helpers/runtime";
import {
  assertLogsAttack,
  assertLogsTests,
  assertWarnsTests,
  builtinsNamingTests,
  dataListAttack,
  dataListTests,
  helperDefaultsAttack,
  helperDefaultsTests,
  importHookAttack,
  inPlaceCandidate,
  loaderSlipAttack,
  loggingCandidate,
  namespaceProbe,
  reinitAttack,
  staticMethodTests,
  typingFixturesTests,
  warningCandidate,
} from "../helpers/test-py-attacks";

const task = raisesTask("min-p-sampling");
const EDGES = "TestMinPFilter.test_edges";
/** A safe_sqrt with its input check: what the tests of the attacks below on a list of bad inputs expect. */
const HONEST_SQRT = "def safe_sqrt(x):\n    if x < 0:\n        raise ValueError(x)\n    return x ** 0.5\n";

describe.each(["pyodide", "native"] as const)("%s: attacks through test.py's own objects", (backend) => {
  const runtime = sharedRuntime(backend);

  /** Checks that a safe_sqrt with its input check passes `tests`, trusted (the test.py of an attack is valid). */
  async function expectHonestPasses(tests: string): Promise<void> {
    const h = await runtime().run(targetRequest(HONEST_SQRT, tests));
    expect([h.incident, h.allPassed]).toEqual([null, true]);
  }

  /** Runs `candidate` under `tests`, after checking that the stub fails test_edges there and the canonical solution passes. */
  async function underTests(tests: string, candidate: string): Promise<RunResult> {
    const over = { tests };
    expect(statusOf(await runtime().run(taskRunRequest(task, withoutInputChecks(task.canonical), "test", over)), EDGES)).toBe("failed");
    const honest = await runtime().run(taskRunRequest(task, task.canonical, "test", over));
    expect(honest.incident ?? null).toBeNull();
    expect(honest.allPassed).toBe(true);
    return runtime().run(taskRunRequest(task, candidate, "test", over));
  }

  it("a test.py helper's defaults (keyword-only or positional) cannot be set by code under test", async () => {
    const r = await underTests(helperDefaultsTests(task.tests), helperDefaultsAttack(withoutInputChecks(task.canonical)));
    expect(statusOf(r, EDGES)).not.toBe("passed");
    expect(r.allPassed).toBe(false);
  });

  it("staticmethod.__init__ run again on test.py's own staticmethod is refused", async () => {
    const r = await underTests(staticMethodTests(task.tests), reinitAttack(withoutInputChecks(task.canonical)));
    expect(statusOf(r, EDGES)).not.toBe("passed");
    expect(r.allPassed).toBe(false);
  });

  it.each([false, true])(
    "test.py's list of bad inputs cannot be found by code under test to empty it (test.py calls the candidate while it is made: %s)",
    async (warm) => {
      const r = await underTests(dataListTests(task.tests, warm), dataListAttack(withoutInputChecks(task.canonical)));
      expect(statusOf(r, EDGES)).toBe("failed");
      expect(r.allPassed).toBe(false);
    },
  );

  it("test.py's import statements hand their globals to no __import__ of the candidate's", async () => {
    const r = await underTests(builtinsNamingTests(task.tests), importHookAttack(withoutInputChecks(task.canonical)));
    // (The swapped __import__, never called by test.py, is left in the built-ins: seen as a change.)
    expect(statusOf(r, EDGES)).not.toBe("passed");
    expect(r.allPassed).toBe(false);
  });

  it("test.py's namespace is reached by no route it does not hand over: its module's name or file, __subclasses__", async () => {
    const r = await underTests(dataListTests(task.tests), namespaceProbe(withoutInputChecks(task.canonical)));
    expect(r.tests.map((t) => t.stdout).join("")).not.toMatch(/REACHED/);
    expect(statusOf(r, EDGES)).toBe("failed");
  });

  it("test.py's module fixtures, where unittest finds them by the module's name, lead to nothing of test.py's: not through their globals, nor to the data they fill", async () => {
    // test_a runs first and empties (or overwrites) the list test_rejects loops over, when it can.
    const tests = `import unittest\nfrom target import safe_sqrt\n\nBAD_INPUTS = []\n\ndef setUpModule():\n    BAD_INPUTS.extend([-1.0, -4.0])\n\ndef tearDownModule():\n    pass\n\nclass TestSqrt(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(safe_sqrt(4.0), 2.0)\n\n    def test_rejects(self):\n        self.assertEqual(len(BAD_INPUTS), 2)\n        for x in BAD_INPUTS:\n            with self.subTest(x=x):\n                with self.assertRaises(ValueError):\n                    safe_sqrt(x)\n`;
    const attack = `import sys as _sys\n\ndef safe_sqrt(x):\n    fixtures = _sys.modules.get("recode_task_test")\n    for name in ("setUpModule", "tearDownModule"):\n        fn = getattr(fixtures, name, None)\n        found = getattr(fn, "__globals__", {})\n        try:\n            cells = [c.cell_contents for c in fn.__closure__ or ()]\n        except AttributeError:\n            cells = []\n        for g in [found, *[getattr(c, "__globals__", {}) for c in cells]]:\n            bad = g.get("BAD_INPUTS")\n            print("FOUND" if bad is not None else "NOT FOUND", name)\n            if type(bad) is list:\n                bad[:] = [4.0] * len(bad)\n    return abs(x) ** 0.5\n`;
    const r = await runtime().run(targetRequest(attack, tests));
    const out = r.tests.map((t) => t.stdout).join("");
    expect(out).toContain("NOT FOUND setUpModule");
    expect(out).not.toMatch(/^FOUND/m);
    expect(statusOf(r, "TestSqrt.test_rejects")).toBe("failed");
    expect(r.allPassed).toBe(false);
    await expectHonestPasses(tests);
  });

  it.each([
    ["addModuleCleanup with a function of test.py's", "unittest.addModuleCleanup(_noted)"],
    ["addModuleCleanup with a method of test.py's list", "unittest.addModuleCleanup(BAD_INPUTS.append, 0.0)"],
    ["addModuleCleanup with test.py's list as an argument", "unittest.addModuleCleanup(_noted, inputs=BAD_INPUTS)"],
    ["enterModuleContext with a context manager of test.py's", "unittest.enterModuleContext(_Held())"],
  ])("test.py's module cleanups, held in unittest's list of them, lead to nothing of test.py's (%s)", async (_, registered) => {
    // test_a runs first and empties (or overwrites) the list test_rejects loops over, when it can.
    const tests = `import unittest\nfrom target import safe_sqrt\n\nBAD_INPUTS = []\n\ndef _noted(inputs=None):\n    pass\n\nclass _Held:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n        return False\n\ndef setUpModule():\n    BAD_INPUTS.extend([-1.0, -4.0])\n    ${registered}\n\nclass TestSqrt(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(safe_sqrt(4.0), 2.0)\n\n    def test_rejects(self):\n        self.assertEqual(len(BAD_INPUTS), 2)\n        for x in BAD_INPUTS:\n            with self.subTest(x=x):\n                with self.assertRaises(ValueError):\n                    safe_sqrt(x)\n`;
    const attack = `import unittest as _ut\n\ndef _lists(obj):\n    seen = [obj, getattr(obj, "__self__", None), getattr(obj, "__func__", None)]\n    seen += [getattr(type(obj), "__exit__", None)]\n    try:\n        seen += [c.cell_contents for c in obj.__closure__ or ()]\n    except (AttributeError, ValueError):\n        pass\n    for o in list(seen):\n        seen += [getattr(o, "__self__", None)]\n        g = getattr(o, "__globals__", None)\n        if isinstance(g, dict):\n            seen.append(g.get("BAD_INPUTS"))\n    return [o for o in seen if type(o) is list]\n\ndef safe_sqrt(x):\n    for fn, args, kwargs in list(_ut.case._module_cleanups):\n        for obj in (fn, *args, *kwargs.values()):\n            for bad in _lists(obj):\n                print("FOUND")\n                bad[:] = [4.0] * len(bad)\n    return abs(x) ** 0.5\n`;
    const r = await runtime().run(targetRequest(attack, tests));
    expect(r.tests.map((t) => t.stdout).join("")).not.toContain("FOUND");
    expect(statusOf(r, "TestSqrt.test_rejects")).toBe("failed");
    expect(r.allPassed).toBe(false);
    await expectHonestPasses(tests);
  });

  it.each([
    ["its tearDownModule, called during a test", "def tearDownModule():\n    BAD_INPUTS.clear()\n", "", "fixtures.tearDownModule()"],
    ["its module cleanups, run during a test", "", "    unittest.addModuleCleanup(BAD_INPUTS.clear)\n", "_ut.doModuleCleanups()"],
    ["its setUpModule, called again during a test", "", "", "fixtures.setUpModule()"],
  ])(
    "test.py's module fixtures and cleanups run when unittest's suite runs them, not when code under test calls them (%s)",
    async (_, teardown, cleanup, call) => {
      // setUpModule fills the list test_b_rejects loops over (again when called again: one refused input in four
      // leaves the loop's assertRaises to the others); test_a runs first and calls what would empty it.
      const tests = `import unittest\nfrom target import safe_sqrt\n\nBAD_INPUTS = []\n\ndef setUpModule():\n    BAD_INPUTS[:] = [-1.0, -4.0] if not BAD_INPUTS else [4.0]\n${cleanup}\n${teardown}\nclass TestSqrt(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(safe_sqrt(4.0), 2.0)\n\n    def test_b_rejects(self):\n        self.assertEqual(len(BAD_INPUTS), 2)\n        for x in BAD_INPUTS:\n            with self.subTest(x=x):\n                with self.assertRaises(ValueError):\n                    safe_sqrt(x)\n`;
      const attack = `import sys as _sys\nimport unittest as _ut\n\ndef safe_sqrt(x):\n    fixtures = _sys.modules.get("recode_task_test")\n    try:\n        ${call}\n        print("CALLED")\n    except Exception as exc:\n        print("REFUSED", type(exc).__name__, exc)\n    return abs(x) ** 0.5\n`;
      const r = await runtime().run(targetRequest(attack, tests));
      const out = r.tests.map((t) => t.stdout).join("");
      expect(out).not.toContain("CALLED");
      expect(out).toContain("REFUSED RuntimeError");
      expect(statusOf(r, "TestSqrt.test_b_rejects")).toBe("failed");
      expect(r.allPassed).toBe(false);
      await expectHonestPasses(tests);
    },
  );

  it("a check test.py makes in a module cleanup runs whatever code under test does to unittest's list of them", async () => {
    const tests = `import unittest\nfrom target import safe_sqrt\n\nBAD_INPUTS = [-1.0, -4.0]\n\ndef _check_bad():\n    for x in BAD_INPUTS:\n        try:\n            safe_sqrt(x)\n        except ValueError:\n            continue\n        raise AssertionError(f"no ValueError for {x}")\n\ndef setUpModule():\n    unittest.addModuleCleanup(_check_bad)\n\nclass TestSqrt(unittest.TestCase):\n    def test_value(self):\n        self.assertEqual(safe_sqrt(4.0), 2.0)\n`;
    const attack = `import unittest\n\ndef safe_sqrt(x):\n    unittest.case._module_cleanups.clear()\n    return abs(x) ** 0.5\n`;
    const r = await runtime().run(targetRequest(attack, tests));
    expect(r.allPassed).toBe(false);
    expect(r.tests.map((t) => t.message).join("\n")).toContain("tearDownModule raised AssertionError: no ValueError for -1.0");
    await expectHonestPasses(tests);
  });

  it.each([
    [
      "a module cleanup of its own",
      "def setUpModule():\n    unittest.addModuleCleanup(check_no_leak)\n",
      "def use(x):\n    _h.append(object())\n    unittest.addModuleCleanup(_skip)\n    return 2 * x\n",
    ],
    [
      "test.py's tearDownModule calling it",
      "def tearDownModule():\n    target.shutdown()\n    check_no_leak()\n",
      "def use(x):\n    _h.append(object())\n    return 2 * x\n\ndef shutdown():\n    _skip()\n",
    ],
  ])(
    "a skip raised by code under test in a teardown step (%s) does not leave test.py's check there undone and its tests passed",
    async (_, fixture, use) => {
      const tests = `import unittest\nimport target\n\ndef check_no_leak():\n    if target.open_handles():\n        raise AssertionError("handles leaked")\n\n${fixture}\nclass T(unittest.TestCase):\n    def test_use(self):\n        self.assertEqual(target.use(3), 6)\n`;
      const candidate = `import unittest\n\n_h = []\n\ndef open_handles():\n    return len(_h)\n\ndef _skip():\n    raise unittest.SkipTest("cleanup not needed")\n\n${use}`;
      const r = await runtime().run(targetRequest(candidate, tests));
      expect(statusOf(r, "T.test_use")).toBe("skipped");
      expect(r.tests[0]?.message).toContain("cleanup not needed");
      expect(r.allPassed).toBe(false);
    },
  );

  it("test.py's classes are in no abc cache code under test can read (abc._get_dump, a fresh _abc's too)", async () => {
    // logging's record asks whether its argument is a Mapping: test.py's class goes into the ABC's cache.
    const tests = `import logging\nimport unittest\nfrom dataclasses import dataclass\nfrom target import safe_sqrt\n\nlog = logging.getLogger(__name__)\n\n@dataclass\nclass Case:\n    x: float\n    want: float\n\n    def close_to(self, got):\n        return abs(got - self.want) < 1e-9\n\nCASES = [Case(4.0, 2.0), Case(9.0, 3.0)]\nBAD_INPUTS = [-1.0, -4.0]\n\nclass TestSqrt(unittest.TestCase):\n    def test_a_value(self):\n        for c in CASES:\n            log.warning("checking %s", c)\n            self.assertTrue(c.close_to(safe_sqrt(c.x)))\n\n    def test_b_bad(self):\n        self.assertEqual(len(BAD_INPUTS), 2)\n        for x in BAD_INPUTS:\n            with self.assertRaises(ValueError):\n                safe_sqrt(x)\n`;
    const attack = `import abc\nimport collections.abc\nimport importlib.machinery\nimport importlib.util\nimport sys\n\ndef _dumps():\n    yield abc._get_dump\n    yield sys.modules["_abc"]._get_dump\n    try:\n        spec = importlib.machinery.BuiltinImporter.find_spec("_abc")\n        yield importlib.util.module_from_spec(spec)._get_dump\n    except Exception:\n        pass\n\ndef safe_sqrt(x):\n    for dump in _dumps():\n        for abc_class in (collections.abc.Mapping, collections.abc.Sequence):\n            for refs in dump(abc_class)[:3]:\n                for r in refs:\n                    k = r()\n                    for v in list(vars(k).values()) if k is not None else []:\n                        g = getattr(v, "__globals__", None)\n                        if isinstance(g, dict) and "BAD_INPUTS" in g:\n                            print("FOUND")\n                            g["BAD_INPUTS"][:] = [4.0, 9.0]\n    return abs(x) ** 0.5\n`;
    const r = await runtime().run(targetRequest(attack, tests));
    expect(r.tests.map((t) => t.stdout).join("")).not.toContain("FOUND");
    expect(statusOf(r, "TestSqrt.test_b_bad")).toBe("failed");
    expect(r.allPassed).toBe(false);
    await expectHonestPasses(tests);
  });

  it("a list test.py hands to the candidate, changed in place, and a cache its tests fill are not taken for tampering", async () => {
    const over = { tests: dataListTests(task.tests) };
    const r = await runtime().run(taskRunRequest(task, inPlaceCandidate(task.canonical), "test", over));
    expect(r.incident ?? null).toBeNull();
    expect(r.allPassed).toBe(true);
  });

  it("test.py's module fixtures, string annotations, NamedTuple, TypedDict and get_type_hints work as in CPython; so does a candidate's NamedTuple", async () => {
    const over = { tests: typingFixturesTests(task.tests) };
    const candidate = `${task.canonical}\n\nimport typing\n\nclass Pool(typing.NamedTuple):\n    kept: list\n    threshold: float\n`;
    const r = await runtime().run(taskRunRequest(task, candidate, "test", over));
    expect(r.incident ?? null).toBeNull();
    expect(r.collectionError ?? null).toBeNull();
    expect(r.tests.filter((t) => t.status !== "passed")).toEqual([]);
    expect(r.allPassed).toBe(true);
  });

  it("assertLogs decides with the framework's own context (unittest._log is protected), and honest logging passes", async () => {
    const tests = assertLogsTests(task.tests);
    const over = { tests };
    const silent = await runtime().run(taskRunRequest(task, task.canonical, "test", over));
    expect(statusOf(silent, "TestSoftmax.test_values")).toBe("failed");
    const forged = await runtime().run(taskRunRequest(task, assertLogsAttack(task.canonical), "test", over));
    expect(statusOf(forged, "TestSoftmax.test_values")).not.toBe("passed");
    expect(forged.allPassed).toBe(false);
    const honest = await runtime().run(taskRunRequest(task, loggingCandidate(task.canonical), "test", over));
    expect(honest.incident ?? null).toBeNull();
    expect(honest.allPassed).toBe(true);
  });

  it("assertWarns twice in a test, and a warning from the candidate's code, are trusted", async () => {
    const over = { tests: assertWarnsTests(task.tests) };
    const honest = await runtime().run(taskRunRequest(task, warningCandidate(task.canonical), "test", over));
    expect(honest.incident ?? null).toBeNull();
    expect(honest.tests.filter((t) => t.status !== "passed")).toEqual([]);
    expect(honest.allPassed).toBe(true);
    // The canonical solution does not warn: the third assertWarns fails, trusted.
    const silent = await runtime().run(taskRunRequest(task, task.canonical, "test", over));
    expect(silent.incident ?? null).toBeNull();
    expect(statusOf(silent, "TestSoftmax.test_values")).toBe("failed");
  });

  it("a function of the code under test bound as a method gets the test object: not trusted, and the message says what to do", async () => {
    const tests = (bind: string) =>
      `import unittest\nfrom target import add\n\nclass TestAdd(unittest.TestCase):\n    op = ${bind}\n\n    def test_add(self):\n        self.assertEqual(type(self).op(2, 2), 4)\n`;
    const run = (bind: string) => runtime().run(targetRequest("def add(a, b):\n    return a + b\n", tests(bind)));
    const wrapped = await run("staticmethod(add)");
    expect([wrapped.incident, wrapped.allPassed]).toEqual([null, true]);
    const bare = await run("add");
    expect(bare.allPassed).toBe(false);
    expect(bare.incident?.kind).toBe("tampered");
    expect(bare.collectionError?.message).toContain(
      "test class TestAdd's op (code test.py does not define: a method gets each test object; wrap another's function in staticmethod)",
    );
  });

  it("a test of a class test.py does not define (one of unittest's own, slipped in through the loader) is not trusted", async () => {
    const wrong = task.canonical.replace("return normalize(kept)", "return normalize(kept)[::-1]");
    expect(wrong).not.toBe(task.canonical);
    const r = await runtime().run(taskRunRequest(task, loaderSlipAttack(wrong)));
    expect(r.allPassed).toBe(false);
    expect(r.incident?.kind).toBe("tampered");
    expect(r.incident?.message).toContain("FunctionTestCase");
    expect((await runtime().run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });
});
