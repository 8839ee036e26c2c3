/**
 * The built-ins that read the running frame (`locals()`, `globals()`, `vars()`, `eval` and `exec` without a
 * namespace, zero-argument `super()`) read only a frame that called them itself (docs/security.md,
 * "Verdicts"): called by C code on the candidate's behalf while test.py's or the harness's code runs (a
 * finalizer of cyclic garbage, a special method of a value the candidate returns), they give it nothing of
 * theirs. Both backends. (Their ordinary use, CPython's results included, is the `frame-builtins` folder of the
 * unittest feature suite, runner-oracle.test.ts.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { taskRunRequest } from "../../src/python/runtime";
import { withoutInputChecks } from "../helpers/attacks";
import {
  classFixtureTests,
  exampleExecTests,
  FRAME_BUILTIN_ROUTES,
  type FrameBuiltinRoute,
  frameBuiltinAttack,
  namedTupleCasesTests,
  streamLocalsAttack,
  superSetUpTests,
  testBuiltinsAttack,
} from "../helpers/frame-builtin-attacks";
import { raisesTask } from "../helpers/raises-tasks";
import { sharedRuntime, statusOf } from "../helpers/runtime";
import { dataListTests } from "../helpers/test-py-attacks";

const task = raisesTask("min-p-sampling");
const EDGES = "TestMinPFilter.test_edges";
const ATTACKS = join(import.meta.dirname, "../fixtures/frame-attacks");
/** A candidate: `stub` followed by a file of `tests/fixtures/frame-attacks/` (which redefines its functions). */
const fixture = (name: string, stub = withoutInputChecks(task.canonical)) => `${stub}\n\n${readFileSync(join(ATTACKS, name), "utf8")}`;

describe.each(["pyodide", "native"] as const)("%s: frame-reading built-ins called by C code", (backend) => {
  const runtime = sharedRuntime(backend);

  it.each(Object.keys(FRAME_BUILTIN_ROUTES) as FrameBuiltinRoute[])(
    "%s reads no frame of test.py's: its list of bad inputs stays",
    async (route) => {
      const over = { tests: superSetUpTests(dataListTests(task.tests)) };
      expect(statusOf(await runtime().run(taskRunRequest(task, withoutInputChecks(task.canonical), "test", over)), EDGES)).toBe("failed");
      const honest = await runtime().run(taskRunRequest(task, task.canonical, "test", over));
      expect(honest.incident ?? null).toBeNull();
      expect(honest.allPassed).toBe(true);
      const r = await runtime().run(taskRunRequest(task, frameBuiltinAttack(withoutInputChecks(task.canonical), route), "test", over));
      expect(statusOf(r, EDGES)).not.toBe("passed");
      expect(r.allPassed).toBe(false);
    },
  );

  it("locals() called by C code while a test's output stream writes reads nothing of the harness's", async () => {
    const r = await runtime().run(taskRunRequest(task, streamLocalsAttack(task.canonical)));
    const out = r.tests.map((t) => t.stdout ?? "").join("");
    expect(out).not.toMatch(/REACHED/);
    // The stream takes what it is given as a plain str before anything else: no method of the subclass runs.
    expect(out).toMatch(/UNTOUCHED/);
  });

  it("test.py's built-ins, handed by C code that makes a function while test.py runs, cannot be changed unseen", async () => {
    const r = await runtime().run(taskRunRequest(task, testBuiltinsAttack(withoutInputChecks(task.canonical))));
    // (What the tests printed goes with their results, which a run that is not trusted does not keep.)
    expect(r.incident?.kind).toBe("tampered");
    expect(r.incident?.message).toMatch(/test\.py's built-ins/);
    expect(r.tests.every((t) => t.status !== "passed")).toBe(true);
  });

  it("test.py's built-ins changed as a test ends (seen by a class fixture) and put back: not trusted", async () => {
    const over = { tests: classFixtureTests(task.tests) };
    const errors = "TestSoftmax.test_large_logits_and_errors";
    const honest = await runtime().run(taskRunRequest(task, task.canonical, "test", over));
    expect(honest.incident ?? null).toBeNull();
    expect(honest.allPassed).toBe(true);
    expect(statusOf(await runtime().run(taskRunRequest(task, withoutInputChecks(task.canonical), "test", over)), errors)).not.toBe(
      "passed",
    );
    const r = await runtime().run(taskRunRequest(task, fixture("testbuiltins-in-a-class-fixture.py"), "test", over));
    expect(r.incident?.kind).toBe("tampered");
    expect(r.incident?.message).toMatch(/test\.py's built-ins/);
    expect(statusOf(r, errors)).not.toBe("passed");
  });

  it("what dies with the namespace test.py's exec() was given, as that exec() returns, reads no frame of test.py's", async () => {
    const over = { tests: exampleExecTests(dataListTests(task.tests)) };
    const honest = await runtime().run(taskRunRequest(task, task.canonical, "test", over));
    expect(honest.incident ?? null).toBeNull();
    expect(honest.allPassed).toBe(true);
    expect(statusOf(await runtime().run(taskRunRequest(task, withoutInputChecks(task.canonical), "test", over)), EDGES)).toBe("failed");
    const r = await runtime().run(taskRunRequest(task, fixture("dies-with-an-exec-namespace.py"), "test", over));
    expect(statusOf(r, EDGES)).not.toBe("passed");
    expect(r.allPassed).toBe(false);
  });

  it("super() made to raise in test.py's setUp, then called by C code from the collection its traceback starts, reads nothing", async () => {
    const over = { tests: superSetUpTests(dataListTests(task.tests)) };
    const r = await runtime().run(taskRunRequest(task, fixture("super-raised-then-collected.py"), "test", over));
    expect(statusOf(r, EDGES)).not.toBe("passed");
    expect(r.allPassed).toBe(false);
  });

  it("locals() called by C code in a namedtuple's __new__ (compiled from text) reads nothing test.py handed it", async () => {
    const over = { tests: namedTupleCasesTests(task.tests) };
    const honest = await runtime().run(taskRunRequest(task, task.canonical, "test", over));
    expect(honest.incident ?? null).toBeNull();
    expect(honest.allPassed).toBe(true);
    expect(statusOf(await runtime().run(taskRunRequest(task, withoutInputChecks(task.canonical), "test", over)), EDGES)).toBe("failed");
    const r = await runtime().run(taskRunRequest(task, fixture("locals-in-a-namedtuple-new.py"), "test", over));
    expect(statusOf(r, EDGES)).not.toBe("passed");
    expect(r.allPassed).toBe(false);
  });

  it("test.py's typing.NamedTuple and TypedDict classes load, and a finalizer in their __new__ reads nothing", async () => {
    const over = { tests: namedTupleCasesTests(task.tests, true) };
    const honest = await runtime().run(taskRunRequest(task, task.canonical, "test", over));
    expect(honest.collectionError).toBeNull();
    expect(honest.incident ?? null).toBeNull();
    expect(honest.allPassed).toBe(true);
    const r = await runtime().run(taskRunRequest(task, fixture("locals-in-a-namedtuple-new.py"), "test", over));
    expect(statusOf(r, EDGES)).not.toBe("passed");
    expect(r.allPassed).toBe(false);
  });

  it.each(["super-type-from-a-finalizer.py", "builtins-made-again.py", "signal-handler-a-c-method.py", "signal-handler-says-builtins.py"])(
    "%s gets no frame: test_edges still fails",
    async (name) => {
      const r = await runtime().run(taskRunRequest(task, fixture(name)));
      expect(statusOf(r, EDGES)).not.toBe("passed");
      expect(r.allPassed).toBe(false);
    },
  );

  it("honest super() calls whose first argument is a cell (test.py's setUp, ConfigParser's items) pass", async () => {
    const tests = task.tests.replace(
      "class TestMinPFilter(unittest.TestCase):\n",
      "class TestMinPFilter(unittest.TestCase):\n    def setUp(self):\n        super().setUp()\n        self.addCleanup(lambda: self.assertIsInstance(self, unittest.TestCase))\n\n",
    );
    expect(tests).not.toBe(task.tests);
    const r = await runtime().run(taskRunRequest(task, task.canonical, "test", { tests }));
    expect(r.incident ?? null).toBeNull();
    expect(r.allPassed).toBe(true);
    const c = await runtime().run(taskRunRequest(task, fixture("honest-configparser.py", task.canonical)));
    expect(c.collectionError).toBeNull();
    expect(c.allPassed).toBe(true);
  });
});
