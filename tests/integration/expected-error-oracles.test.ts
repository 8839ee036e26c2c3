/**
 * Code under test that tells whether the test expects an error of it (docs/security.md, "Verdicts"), and
 * raises only then: test.py's text is not readable by code under test, so a candidate that finds the line
 * of test.py calling it cannot read whether that line is inside `with self.assertRaises(...)`, and no
 * reference count tells it that unittest holds an assertRaises context, and nothing that tells where a call stands
 * in the stack (a warning's location, a log record's caller, a frame's module, faulthandler's dump) looks past
 * the first frame of the test side, from a finalizer the collector runs inside assertRaises either; nor does
 * the traceback of an exception that passed out through test.py. Both backends. Tracebacks in the test log
 * still show test.py's lines.
 */
import { describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { taskRunRequest } from "../../src/python/runtime";
import { withoutInputChecks } from "../helpers/attacks";
import { depthOracleAttack } from "../helpers/depth-oracle";
import {
  assertionContextOracleAttack,
  builtinsBlindAttack,
  callSiteOracleAttack,
  codeCacheProbe,
  finalizerFrameProbe,
  guardGlobalsAttack,
  harnessReadsProbe,
  memoryTraceOracleAttack,
  moduleNameSamplerProbe,
  PASSED_DEFAULT_ROUTES,
  passedDefaultOracleAttack,
  passedDefaultsProbe,
  patchNoteFrameOracleAttack,
  readerFrameProbe,
  refcountRoutesProbe,
  STACK_SAMPLERS,
  stackRoutesProbe,
  stackSamplerOracleAttack,
  suggestionFrameProbe,
  testSideTracebackProbe,
  testTextProbe,
} from "../helpers/expected-error-oracles";
import { FORKED_DUMP_ROUTES, forkedChildDumpProbe, forkedChildOracleAttack, forkedChildSignalsAttack } from "../helpers/fork-oracles";
import { RAISES_TASK_IDS, raisesTask } from "../helpers/raises-tasks";
import { sharedRuntime } from "../helpers/runtime";

describe.each(["pyodide", "native"] as const)("%s: code under test that tells whether a test expects an error of it", (backend) => {
  const runtime = sharedRuntime(backend);

  /** Each oracle, what tells it an error is expected, and what the run says of it ("" when it says nothing). */
  const ORACLES = [
    ["its calling line of test.py, read there", callSiteOracleAttack, ""],
    [
      "a reference count of unittest's assertRaises context",
      assertionContextOracleAttack,
      "sys.getrefcount is not available to code under test",
    ],
    [
      "a block of memory made in assertRaises, alive (tracemalloc)",
      memoryTraceOracleAttack,
      "tracemalloc is not available to code under test",
    ],
    // A finalizer the collector runs at nearly every allocation, inside assertRaises too, reads where it runs.
    // (The sampler keeps going when its look is refused: faulthandler's dump is.)
    ...STACK_SAMPLERS.map(
      (sampler) =>
        [
          `where the collector interrupted the test, read by ${sampler}`,
          (stub: string) => stackSamplerOracleAttack(stub, sampler),
          "",
        ] as const,
    ),
    // A function allowed frames, called with an argument of the candidate's in place of a default that held
    // what it decides with: its own frame, then test.py's through f_back, whose instruction is read.
    ...(Object.keys(PASSED_DEFAULT_ROUTES) as (keyof typeof PASSED_DEFAULT_ROUTES)[]).map(
      (route) =>
        [
          `a frame from ${route}, given an argument in place of a default`,
          (stub: string) => passedDefaultOracleAttack(stub, route),
          "",
        ] as const,
    ),
    // The guard's note of a patch read sys._getframe from its module's globals: a C chain set there kept
    // the frame it took, and with it the guard (whose counts it cleared) and test.py's frame.
    ["a frame the guard's note of a patch took through its module's globals", patchNoteFrameOracleAttack, ""],
    // The guard's module values its looks read, set to blind every look after.
    ["nothing (the guard's own module values set to blind its looks, assertRaises made to swallow all)", guardGlobalsAttack, ""],
    // The built-ins the guard's looks call, set to blind them.
    ["nothing (the built-ins the guard's looks call set to blind them, assertRaises made to swallow all)", builtinsBlindAttack, ""],
  ] as const;
  const TASKS = RAISES_TASK_IDS;

  it.each(ORACLES.flatMap(([what, attack, says]) => TASKS.map((id) => [what, id, attack, says] as const)))(
    "raising only when %s says an error is expected passes no error test (%s)",
    async (_what, id, attack, says) => {
      const task = raisesTask(id);
      const stub = withoutInputChecks(task.canonical);
      const failedByStub = (await runtime().run(taskRunRequest(task, stub))).tests.filter((t) => t.status !== "passed").map((t) => t.id);
      expect(failedByStub.length).toBeGreaterThan(0);
      const r = await runtime().run(taskRunRequest(task, attack(stub)));
      expect(r.allPassed).toBe(false);
      expect(r.tests.filter((t) => failedByStub.includes(t.id) && t.status === "passed").map((t) => t.id)).toEqual([]);
      if (says) expect(`${r.collectionError?.message}`).toContain(says);
      expect((await runtime().run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    },
  );

  it("no route gives code under test the interpreter's sys.getrefcount: sys reloaded or made again (natively that put back sys's whole dict)", async () => {
    const task = raisesTask("min-p-sampling");
    const r = await runtime().run(taskRunRequest(task, refcountRoutesProbe(task.canonical, "min_p_filter")));
    const message = r.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.message ?? "";
    for (const route of ["reload", "create_builtin", "sys.__dict__"]) {
      expect(message).toContain(`${route}: sys.getrefcount is not available to code under test`);
    }
  });

  it("what code under test is told of the stack stops below the test side: no module of test.py's functions, unittest's or the harness's", async () => {
    const task = raisesTask("min-p-sampling");
    // (The collector runs at every allocation: natively the whole run takes about the task's 10 s; a loaded
    // machine must still reach test_edges.)
    const r = await runtime().run({ ...taskRunRequest(task, moduleNameSamplerProbe(task.canonical, "min_p_filter")), timeLimitMs: 90_000 });
    const message = r.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.message ?? "";
    const names = message.replace(/^.*module names seen: /s, "").split(" ");
    // Its own modules (and those it imports) it is told of.
    expect(names).toContain("decoding.min_p");
    // (test.py's module is named while test.py's module body runs, which imports the candidate: no test runs then.)
    expect(names.filter((n) => /^(unittest|recode_(?!task_test$)|__main__\.)/.test(n))).toEqual([]);
  });

  it("faulthandler and _warnings reloaded or made again are the same: no dump, no location past the test side", async () => {
    const task = raisesTask("min-p-sampling");
    const r = await runtime().run(taskRunRequest(task, stackRoutesProbe(task.canonical, "min_p_filter")));
    const message = r.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.message ?? "";
    expect(message).not.toContain("OPEN");
    expect(message).toContain("faulthandler made again: faulthandler.dump_traceback is not available to code under test");
    // Past the end of the stack: sys, line 1 natively; <sys>, line 0 in Pyodide (CPython 3.14).
    expect(message).toMatch(/_warnings made again: <?sys>?:[01]$/);
    expect(message).toMatch(/_warnings reloaded: <?sys>?:[01] ;;/);
  });

  it("C code run while a library function that may take frames is the innermost gets no frame: the reader takes one only at its own look", async () => {
    const task = raisesTask("min-p-sampling");
    const r = await runtime().run(taskRunRequest(task, readerFrameProbe(task.canonical, "min_p_filter")));
    const message = r.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.message ?? "";
    for (const route of [
      "namedtuple",
      "enum",
      "make_dataclass",
      "clear_frames",
      "getgeneratorstate",
      "_is_relevant_tb_level",
      "an __index__ run inside typing._caller's call",
      "the harness's stack views",
      "a coroutine's origin",
    ]) {
      expect(message).toContain(`${route}: no frame`);
    }
    expect(message).not.toContain("OPEN");
  });

  it("a finalizer run inside the guard's frame check takes no frame (the check's own look at its caller was open to it)", async () => {
    const task = raisesTask("min-p-sampling");
    const r = await runtime().run(taskRunRequest(task, finalizerFrameProbe(task.canonical, "min_p_filter")));
    const message = r.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.message ?? "";
    expect(message).toContain("no frame taken");
  });

  it("no function of the harness's that code under test can reach takes an argument in place of what it decides with, or makes again what takes frames", async () => {
    const task = raisesTask("min-p-sampling");
    const r = await runtime().run(taskRunRequest(task, passedDefaultsProbe(task.canonical, "min_p_filter")));
    const message = r.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.message ?? "";
    for (const route of [
      "the readers' sys._getframe",
      "traceback's walk",
      "_imp.create_builtin",
      "_imp.create_builtin positional",
      "_imp.create_dynamic",
      "_imp.get_frozen_object",
      "the check sink",
      "signal.signal",
      "signal.getsignal",
    ]) {
      expect(message).toContain(`${route}: refused`);
    }
    expect(message).toContain("the sink's closure: sealed");
    // Nor makes again what takes frames, or what decides who may (each factory runs once per interpreter).
    for (const route of [
      "the frame-reading built-ins",
      "traceback's walk made again",
      "the readers' sys._getframe made again",
      "the generator states made again",
      "the factories",
      "the dictionary counter",
      "the dictionary counter again",
    ]) {
      expect(message).toMatch(new RegExp(`${route}: (RuntimeError|TypeError)`));
    }
    expect(message).toContain("the stack views made again: none");
    expect(message).toContain("the interpreter's __subclasses__ in the guard's module: none");
    expect(message).not.toContain("OPEN");
  });

  it("the harness's traceback for the test log hands linecache no globals of test.py's, and a gc module put in sys.modules hides no collector callback", async () => {
    const task = raisesTask("min-p-sampling");
    const r = await runtime().run(taskRunRequest(task, harnessReadsProbe(task.canonical, "min_p_filter", false)));
    const kept = r.tests.filter((x) => x.message.includes("kept"));
    expect(kept.length).toBeGreaterThan(0);
    for (const t of kept) expect(t.message).toContain("kept none");
    const hidden = await runtime().run(taskRunRequest(task, harnessReadsProbe(task.canonical, "min_p_filter", true)));
    expect(hidden.incident?.message).toContain("changed the collector's callbacks");
  });

  it("traceback's suggestions read no frame of the test side: a traceback cut to end at test.py's method suggests nothing from it", async () => {
    const task = raisesTask("min-p-sampling");
    const r = await runtime().run(taskRunRequest(task, suggestionFrameProbe(task.canonical, "min_p_filter")));
    const message = r.tests.find((t) => t.message.includes("suggested"))?.message ?? "";
    expect(message).toMatch(
      backend === "pyodide" ? /suggested global: None; local: None$/ : /suggested (absent|global: None; local: None)$/,
    );
    expect(r.incident).toBeNull();
  });

  it("an exception that passed out through test.py names no frame of the test side to code under test (3.14: no code of test.py's)", async () => {
    const task = raisesTask("min-p-sampling");
    const r = await runtime().run(taskRunRequest(task, testSideTracebackProbe(task.canonical, "min_p_filter")));
    const message = r.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.message ?? "";
    for (const route of ["with_traceback", "exc_info in a finalizer", "extract_tb of a kept exception"]) {
      expect(message).toMatch(new RegExp(`${route}: min_p_filter@min_p\\.py:\\d+( CODE min_p\\.py)? ;;`));
    }
    for (const route of ["format_exception", "TracebackException", "logging"]) expect(message).toContain(`${route}: `);
    expect(message).toContain("the harness's summary: refused: a traceback's frames of the test side are not available to code under test");
    // Neither test.py's methods and lines nor unittest's, by any route.
    expect(message).not.toMatch(/test\.py|case\.py|test_adapts|test_edges|testPartExecutor|_callTestMethod/);
    // The test given up still shows test.py's line in its traceback (the harness's summary, with the run's token).
    const givenUp = r.tests.find((t) => t.id === "TestMinPFilter.test_adapts_to_confidence");
    expect(givenUp?.traceback).toMatch(/File "test\.py", line \d+, in test_adapts_to_confidence/);
  });

  it("test.py's text and code, kept compiled from one run of a task to the next, are out of the harness's state while a run runs", async () => {
    const task = raisesTask("min-p-sampling");
    for (let i = 0; i < 2; i++) expect((await runtime().run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    const r = await runtime().run(taskRunRequest(task, codeCacheProbe(task.canonical, "min_p_filter")));
    const message = r.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.message ?? "";
    expect(message).toContain("nothing of test.py in the harness's state");
    // And the next run of the task still finds it compiled (its verdicts as before).
    expect((await runtime().run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("test.py's text is nowhere code under test can read it, before or after tests failed; tracebacks still show its lines", async () => {
    const task = raisesTask("min-p-sampling");
    const r = await runtime().run(taskRunRequest(task, testTextProbe(task.canonical, "min_p_filter")));
    const probed = r.tests.filter((t) => t.message.includes("test.py's text"));
    expect(probed.length).toBeGreaterThan(1);
    for (const t of probed) expect(t.message).toContain("test.py's text is nowhere to be read");
    // The traceback names test.py's line and shows it, as CPython's does.
    const edges = r.tests.find((t) => t.id === "TestMinPFilter.test_edges");
    expect(edges?.traceback).toMatch(/File "test\.py", line \d+, in test_edges\n {4}\S.*min_p_filter\(/);
  });
});

// The built-in tasks check their errors with outcome(), whose calls are one frame deeper than the test's own:
// each check mixes valid calls with the invalid ones, so a candidate that raises whenever it is that deep fails.
describe.each(["pyodide", "native"] as const)("%s: code under test that raises whenever it is called through outcome()", (backend) => {
  const runtime = sharedRuntime(backend);
  it.each(RAISES_TASK_IDS)("passes no error check of the built-in %s", async (id) => {
    const task = loadTaskDir(BUILTIN_TASKS, id);
    const stub = withoutInputChecks(task.canonical);
    const failedByStub = (await runtime().run(taskRunRequest(task, stub))).tests.filter((t) => t.status !== "passed").map((t) => t.id);
    expect(failedByStub.length).toBeGreaterThan(0);
    const r = await runtime().run(taskRunRequest(task, depthOracleAttack(stub)));
    expect(r.allPassed).toBe(false);
    expect(r.tests.filter((t) => failedByStub.includes(t.id) && t.status === "passed").map((t) => t.id)).toEqual([]);
  });
});

// Natively: a child forked by code under test is a copy of the running test (Pyodide has no fork).
describe("native: a child forked by code under test", () => {
  const runtime = sharedRuntime("native");

  it.each(RAISES_TASK_IDS.flatMap((id) => (["os.fork", "sys.call_tracing"] as const).map((route) => [id, route] as const)))(
    "that raises and goes on with the test, to see whether assertRaises catches it, tells the parent nothing (%s, forked by %s)",
    async (id, route) => {
      const task = raisesTask(id);
      const stub = withoutInputChecks(task.canonical);
      const failedByStub = (await runtime().run(taskRunRequest(task, stub))).tests.filter((t) => t.status !== "passed").map((t) => t.id);
      expect(failedByStub.length).toBeGreaterThan(0);
      const r = await runtime().run(taskRunRequest(task, forkedChildOracleAttack(stub, route)));
      expect(r.allPassed).toBe(false);
      expect(r.tests.filter((t) => failedByStub.includes(t.id) && t.status === "passed").map((t) => t.id)).toEqual([]);
      expect((await runtime().run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    },
  );

  // The built-in tasks' error tests are checks of outcome(): a child that saw outcome() catch its exception
  // would tell the parent which calls are error tests, and the host's comparison would see the right errors.
  it.each(RAISES_TASK_IDS.flatMap((id) => (["os.fork", "sys.call_tracing"] as const).map((route) => [id, route] as const)))(
    "that raises and goes on with the test, to see whether outcome() catches it, tells the parent nothing (built-in %s, forked by %s)",
    async (id, route) => {
      const task = loadTaskDir(BUILTIN_TASKS, id);
      expect(task.tests).toContain("outcome(");
      const stub = withoutInputChecks(task.canonical);
      const failedByStub = (await runtime().run(taskRunRequest(task, stub))).tests.filter((t) => t.status !== "passed").map((t) => t.id);
      expect(failedByStub.length).toBeGreaterThan(0);
      const r = await runtime().run(taskRunRequest(task, forkedChildOracleAttack(stub, route, "outcome")));
      expect(r.allPassed).toBe(false);
      expect(r.tests.filter((t) => failedByStub.includes(t.id) && t.status === "passed").map((t) => t.id)).toEqual([]);
    },
  );

  // (One task: the children it forks each fill and scan a large list, up to five times per call.)
  it.each(["min-p-sampling"] as const)(
    "that returns into the test with two signals pending, to raise into the harness's Python code that would end it, tells the parent nothing (%s)",
    async (id) => {
      const task = raisesTask(id);
      const stub = withoutInputChecks(task.canonical);
      const failedByStub = (await runtime().run(taskRunRequest(task, stub))).tests.filter((t) => t.status !== "passed").map((t) => t.id);
      expect(failedByStub.length).toBeGreaterThan(0);
      const r = await runtime().run({ ...taskRunRequest(task, forkedChildSignalsAttack(stub)), timeLimitMs: 60_000 });
      expect(r.tests.filter((t) => failedByStub.includes(t.id) && t.status === "passed").map((t) => t.id)).toEqual([]);
    },
    180_000,
  );

  it("faulthandler's crash handler, turned on with a file of its own, dumps nothing at a SIGSEGV it sends itself", async () => {
    const task = raisesTask("min-p-sampling");
    const probe = `${task.canonical}
import faulthandler as _fh, signal as _sig, os as _os, tempfile as _tf
def min_p_filter(*args, **kwargs):
    _sig.signal(_sig.SIGSEGV, lambda *a: None)
    fd, path = _tf.mkstemp()
    f = open(path, "w+")
    _fh.enable(file=f, all_threads=True)
    _os.kill(_os.getpid(), _sig.SIGSEGV)
    f.seek(0)
    raise RuntimeError("enabled " + str(_fh.is_enabled()) + "; dump: " + f.read().replace("\\n", " | "))
`;
    const r = await runtime().run(taskRunRequest(task, probe));
    // (Every call's message: the real handler dumped at the first call of the run alone.)
    const messages = r.tests.map((t) => t.message).join(" ;; ");
    expect(messages).toContain("enabled True; dump: ");
    expect(messages).not.toContain("test.py");
  });

  it("has no stack dumped to a pipe of the parent's: faulthandler's crash handler and fatal errors, a subinterpreter", async () => {
    const task = raisesTask("min-p-sampling");
    const r = await runtime().run(taskRunRequest(task, forkedChildDumpProbe(task.canonical, "min_p_filter")));
    const message = r.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.message ?? "";
    for (const route of FORKED_DUMP_ROUTES) expect(message).toMatch(new RegExp(`${route.replace(/[.()]/g, "\\$&")}: nothing`));
    expect(message).not.toContain("test.py");
    expect((await runtime().run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });
});
