/**
 * Code under test gets no frame objects (docs/security.md, "Verdicts"), on
 * both backends: ordinary library code that takes frames for its own use
 * (logging's caller, traceback's listings, namedtuple's and enum's module,
 * unittest's assertRaises) still works, and every way to a first frame from
 * the candidate's code is refused with a message that says so and where.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/python/node";
import type { PythonRuntime, RunRequest } from "../../src/python/runtime";

const ORDINARY = `import collections, dataclasses, enum, io, logging, traceback, typing, warnings

def log_line():
    out = io.StringIO()
    logger = logging.getLogger("ordinary")
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(funcName)s %(filename)s:%(lineno)d %(message)s"))
    logger.addHandler(handler)
    try:
        logger.warning("careful")
    finally:
        logger.removeHandler(handler)
    return out.getvalue().strip()

def formatted_error():
    try:
        {}["missing"]
    except KeyError:
        return traceback.format_exc().splitlines()[-1]

def warned():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("old", DeprecationWarning, stacklevel=2)
    return [str(w.message) for w in caught]

def made_types():
    Point = collections.namedtuple("Point", "x y")
    Pair = typing.NamedTuple("Pair", [("a", int), ("b", int)])
    Color = enum.Enum("Color", "RED GREEN")
    T = typing.TypeVar("T")
    return [Point.__module__, Pair.__module__, Color.__module__, T.__name__, Color.RED.name]

def attribute_error():
    class Box:
        value = 1
    try:
        Box().valeu
    except AttributeError as e:
        return "".join(traceback.format_exception_only(type(e), e)).strip()

def signal_handled():
    import signal
    got = []
    old = signal.signal(signal.SIGUSR1, lambda signum, frame: got.append((signum, frame)))
    try:
        signal.raise_signal(signal.SIGUSR1)
        handler = signal.getsignal(signal.SIGUSR1)
    finally:
        signal.signal(signal.SIGUSR1, old)
    return [(int(s), f) for s, f in got], callable(handler) and handler is not old

def refuses_zero(x):
    if x == 0:
        raise ValueError("zero")
    return x
`;

const TESTS = `import unittest
from solution import log_line, formatted_error, warned, made_types, attribute_error, signal_handled, refuses_zero

class TestOrdinary(unittest.TestCase):
    def test_logging_names_its_caller(self):
        self.assertRegex(log_line(), r"^WARNING log_line solution\\.py:\\d+ careful$")

    def test_traceback_text(self):
        self.assertEqual(formatted_error(), "KeyError: 'missing'")

    def test_warnings(self):
        self.assertEqual(warned(), ["old"])

    def test_types_name_their_module(self):
        self.assertEqual(made_types(), ["solution", "solution", "solution", "T", "RED"])

    def test_attribute_error_text(self):
        self.assertIn("AttributeError", attribute_error())

    def test_signal_handler_runs_without_the_frame(self):
        import signal
        self.assertEqual(signal_handled(), ([(int(signal.SIGUSR1), None)], True))

    def test_assert_raises(self):
        with self.assertRaises(ValueError):
            refuses_zero(0)
        self.assertEqual(refuses_zero(2), 2)
`;

/** Each way to a first frame, as code under test would take it. */
const ROUTES: Record<string, string> = {
  "sys._getframe": "import sys\ndef take():\n    return sys._getframe(1)\n",
  "inspect.currentframe": "import inspect\ndef take():\n    return inspect.currentframe()\n",
  "inspect.stack": "import inspect\ndef take():\n    return inspect.stack()[1].frame\n",
  "a traceback's frame":
    "def take():\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        return e.__traceback__.tb_frame\n",
  "traceback.walk_tb":
    "import sys, traceback\ndef take():\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        return next(traceback.walk_tb(e.__traceback__))[0]\n",
  "traceback.walk_stack": "import traceback\ndef take():\n    return next(traceback.walk_stack(None))[0]\n",
  "a generator's frame": "def take():\n    def g():\n        yield 1\n    it = g()\n    next(it)\n    return it.gi_frame\n",
  "logging.currentframe": "import logging\ndef take():\n    return logging.currentframe()\n",
  "the traceback module's frame generator":
    "import traceback\ndef take():\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        return next(traceback._walk_tb_with_full_positions(e.__traceback__))[0]\n",
  "sys._current_frames": "import sys\ndef take():\n    return list(sys._current_frames().values())[0]\n",
  "a trace function": "import sys\ndef take():\n    sys.settrace(lambda *a: None)\n",
  "gc.get_referrers": "import gc\ndef take():\n    return gc.get_referrers(take)\n",
  "gc.DEBUG_SAVEALL": "import gc\ndef take():\n    gc.set_debug(gc.DEBUG_SAVEALL)\n",
  ctypes: "def take():\n    import ctypes\n    return ctypes.pythonapi.PyEval_GetFrame\n",
  // The check finds the functions allowed a frame by their qualified name, then by identity: code of the same
  // name (compiled from text that nests it so, from a library's file name, or renamed with code.replace) is other code.
  "code compiled under a frame reader's name":
    'import sys\n_ns = {"sys": sys}\nexec(compile("def make_frame_builtins():\\n    def caller(d):\\n        return sys._getframe(d)\\n    return caller\\n", "/lib/python3.14/collections/__init__.py", "exec"), _ns)\n_caller = _ns["make_frame_builtins"]()\ndef take():\n    return _caller(1)\n',
  "code renamed to a frame reader's name":
    'import sys, types\ndef _g(d):\n    return sys._getframe(d)\ndef take():\n    return types.FunctionType(_g.__code__.replace(co_qualname="namedtuple"), {"sys": sys})(1)\n',
};

const ROUTE_TESTS = `import unittest
from solution import take

class TestTake(unittest.TestCase):
    def test_take(self):
        take()
`;

function request(candidate: string, tests: string, interfaceOf: Record<string, string>): RunRequest {
  return {
    files: {},
    targetPath: "solution.py",
    candidate,
    tests,
    mode: "test",
    expected: null,
    packages: [],
    timeLimitMs: 10000,
    interfaceOf,
  };
}

describe.each(["pyodide", "native"] as const)("%s: no frames for code under test", (backend) => {
  let rt: PythonRuntime;
  beforeAll(async () => {
    rt = createRuntime(backend, {});
    await rt.ready();
  });
  afterAll(async () => {
    await rt.dispose();
  });

  it("library code that takes frames for itself still works (logging, traceback, warnings, namedtuple, enum, typing, assertRaises), and a signal handler runs, given no frame", async () => {
    const r = await rt.run(request(ORDINARY, TESTS, { "TestOrdinary.test_logging_names_its_caller": "log_line" }));
    expect(r.collectionError).toBeNull();
    expect(r.tests.map((t) => [t.id, t.status, t.message])).toEqual(r.tests.map((t) => [t.id, "passed", ""]));
    expect(r.counts.total).toBe(7);
  });

  it("a profiler in honest code (cProfile) is refused in the test that runs it, and the run stays trusted", async () => {
    const profiler = "import cProfile\ndef take():\n    p = cProfile.Profile()\n    p.enable()\n    p.disable()\n";
    const r = await rt.run(request(profiler, ROUTE_TESTS, { "TestTake.test_take": "take" }));
    expect(r.incident).toBeNull();
    expect(r.tests.map((t) => t.status)).toEqual(["error"]);
    // 3.11: sys.setprofile is refused; 3.12 and later: cProfile cannot claim its sys.monitoring tool (it says so its way).
    expect(r.tests[0]?.message).toMatch(
      /^(RuntimeError: sys\.setprofile is not available to code under test|ValueError: Another profiling tool is already active)/,
    );
  });

  it.each(Object.keys(ROUTES))("taking a frame through %s is refused, and the message says where", async (route) => {
    const r = await rt.run(request(ROUTES[route] as string, ROUTE_TESTS, { "TestTake.test_take": "take" }));
    const [t] = r.tests;
    expect(t?.status).toBe("error");
    expect(t?.message).toMatch(
      /^(RuntimeError|ImportError): (frames are not available to code under test \(.+ at .+, line \d+\)|\S+ is not available to code under test|code objects made from bytes or parts are not available to code under test)/,
    );
  });
});
