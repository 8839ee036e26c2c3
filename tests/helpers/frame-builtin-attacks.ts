/**
 * Attacks through the built-ins that read the running frame (`locals()`, `globals()`, `vars()`, `eval`,
 * `exec`, zero-argument `super()`), called by C code on the candidate's behalf while test.py's code runs: the
 * finalizer of cyclic garbage the collector frees (its threshold set to 1), or a special method of a value the
 * candidate returns, which test.py's `sum()` calls. Each candidate (the canonical solution without its input
 * checks, `withoutInputChecks`) looks for test.py's namespace in what the built-in gave it (a namespace, a test
 * object's class, a super object's `__self__`) and empties the list of bad inputs of `dataListTests`.
 */

/** The routes: how the built-in is called (`reader`: a C callable that calls it), and where from. */
export const FRAME_BUILTIN_ROUTES = {
  "a finalizer calling globals()": { reader: "globals", via: "finalizer" },
  "a special method calling locals() while test.py's sum() iterates": { reader: "locals", via: "slot" },
  "a special method calling vars() while test.py's sum() iterates": { reader: "vars", via: "slot" },
  "a finalizer calling eval() without a namespace": { reader: '_ft.partial(eval, "BAD_P_BASES.clear()")', via: "finalizer" },
  "a finalizer calling exec() without a namespace": { reader: '_ft.partial(exec, "BAD_P_BASES.clear()")', via: "finalizer" },
  "a special method calling super() while test.py's setUp sums what the candidate gave": { reader: "super", via: "slot" },
  "a special method calling globals() while test.py's sum() iterates": { reader: "globals", via: "slot" },
  "a special method calling the super type itself while test.py's setUp sums what the candidate gave": {
    reader: "type(super(int, 1))",
    via: "slot",
  },
} as const;

export type FrameBuiltinRoute = keyof typeof FRAME_BUILTIN_ROUTES;

/** The candidate `stub` that takes what `route`'s built-in reads, at every call, and empties test.py's list of bad inputs. */
export function frameBuiltinAttack(stub: string, route: FrameBuiltinRoute): string {
  const { reader, via } = FRAME_BUILTIN_ROUTES[route];
  return `${stub}

import functools as _ft, gc as _gc, itertools as _it, operator as _op

_taken = []
# A C callable that calls the built-in and keeps what it gives: no frame of the candidate's runs in between.
_take = _ft.partial(next, map(_taken.append, map(_op.call, _it.repeat(${reader}))))


class _Garbage:
    __del__ = staticmethod(_take)


def _arm():
    _gc.set_threshold(700, 10, 10)
    _gc.disable()
    for _ in range(40):
        g = _Garbage()
        g.me = g
    g = None
    try:
        _gc.set_threshold(1, 1, 1)
    except Exception:
        pass
    _gc.enable()


def _namespace_of(found):
    if isinstance(found, dict):
        if "BAD_P_BASES" in found:
            return found
        found = found.get("self")
    elif type(found).__name__ == "super":
        found = found.__self__
    for kind in type(found).__mro__:
        for fn in list(vars(kind).values()):
            ns = getattr(fn, "__globals__", None)
            if isinstance(ns, dict) and "BAD_P_BASES" in ns:
                return ns
    return None


_done = []


def _bend():
    found_now = list(_taken)
    _taken.clear()
    for found in found_now:
        try:
            ns = _namespace_of(found)
        except Exception:
            continue
        if isinstance(ns, dict) and type(ns.get("BAD_P_BASES")) is list:
            ns["BAD_P_BASES"].clear()
            _done.append(True)


class _Probs(list):
    # sum() in test.py iterates it: the built-in runs first, from C, then the values.
    def __iter__(self):
        return _it.chain(filter(None, map(_taken.append, map(_op.call, _it.repeat(${reader}, 1)))), list.__iter__(self))


_real_filter_fb = min_p_filter


def min_p_filter(probs, p_base):
    _bend()
    out = _real_filter_fb(probs, p_base)
    if not _done:
        ${via === "slot" ? "out = _Probs(out)" : "_arm()"}
    return out
`;
}

/** test.py (`dataListTests`) whose filter tests have a setUp that calls `super().setUp()`, then sums what the candidate gives. */
export function superSetUpTests(tests: string): string {
  const from = "class TestMinPFilter(unittest.TestCase):\n";
  if (!tests.includes(from)) throw new Error("test.py variant: TestMinPFilter is not in the text");
  return tests.replace(
    from,
    `${from}    def setUp(self):\n        super().setUp()\n        self.kept = sum(min_p_filter([0.5, 0.5], 0.1))\n\n`,
  );
}

/**
 * The candidate `canonical` that hands a test's `sys.stdout.write` (the harness's code) a string whose
 * `isascii` (a C chain) calls `locals()` while the stream's own frame runs, and prints `REACHED <names>` when
 * what it got holds the harness's locals (what the stream keeps, or the relay's event writer), and `UNTOUCHED` when
 * the stream called none of the string's methods.
 */
export function streamLocalsAttack(canonical: string): string {
  return `${canonical}

import functools as _ft, itertools as _it, operator as _op, sys as _sys

_taken = []


class _Text(str):
    isascii = staticmethod(_ft.partial(next, _it.chain(filter(None, map(_taken.append, map(_op.call, _it.repeat(locals, 1)))), [True])))


_real_filter_rl = min_p_filter


def min_p_filter(probs, p_base):
    if not _taken:
        try:
            _sys.stdout.write(_Text("x"))
        except Exception as e:
            print("refused:", type(e).__name__)
        if not _taken:
            print("UNTOUCHED")
    for found in _taken:
        if isinstance(found, dict) and ("_emit" in found or "kept" in found or "self" in found):
            print("REACHED", sorted(found))
    return _real_filter_rl(probs, p_base)
`;
}

/**
 * The candidate `stub` whose returned probabilities, iterated by test.py's `sum()`, make a function from C code
 * (`FunctionType(code, {})`), which takes the built-ins of the code running then: test.py's. It prints
 * `REACHED` when it got them, and shadows `ValueError` there for a moment (put back at once).
 */
export function testBuiltinsAttack(stub: string): string {
  return `${stub}

import builtins as _builtins, functools as _ft, itertools as _it, operator as _op, types as _types

_taken = []


class _Probs(list):
    def __iter__(self):
        made = _ft.partial(_types.FunctionType, (lambda: 0).__code__, {})
        return _it.chain(filter(None, map(_taken.append, map(_op.call, _it.repeat(made, 1)))), list.__iter__(self))


_real_filter_tb = min_p_filter


def min_p_filter(probs, p_base):
    for fn in list(_taken):
        found = fn.__builtins__
        if isinstance(found, dict) and found is not vars(_builtins):
            print("REACHED", type(found).__name__)
            dict.__setitem__(found, "ValueError", ZeroDivisionError)
            dict.__delitem__(found, "ValueError")
    _taken.clear()
    return _Probs(_real_filter_tb(probs, p_base))
`;
}

/**
 * test.py whose `TestSoftmax` builds its lists of bad inputs in `setUpClass` (a class fixture, run between two
 * tests' looks) with the built-in `list`, and loops over them in `test_large_logits_and_errors`.
 */
export function classFixtureTests(tests: string): string {
  const edits: [string, string][] = [
    [
      "class TestSoftmax(unittest.TestCase):\n",
      `BAD_TEMPERATURES = (0, 0.0, -1.0, float("inf"), float("nan"), "2.0", None)
BAD_LOGITS = ([], [1.0, float("nan")], [float("inf"), 0.0], [NEG_INF, NEG_INF])


class TestSoftmax(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bad_temperatures = list(BAD_TEMPERATURES)
        cls.bad_logits = list(map(list, BAD_LOGITS))

`,
    ],
    ['        for bad in (0, 0.0, -1.0, float("inf"), float("nan"), "2.0", None):\n', "        for bad in self.bad_temperatures:\n"],
    [
      `        with self.assertRaises(ValueError):
            softmax_with_temperature([], 1.0)
        # a +inf or NaN logit, or only -inf logits
        for bad_logits in ([1.0, float("nan")], [float("inf"), 0.0], [NEG_INF, NEG_INF]):
`,
      "        for bad_logits in self.bad_logits:\n",
    ],
  ];
  return edits.reduce((text, [from, to]) => {
    if (!text.includes(from)) throw new Error(`test.py variant: ${JSON.stringify(from.slice(0, 40))} is not in the text`);
    return text.replace(from, to);
  }, tests);
}

/**
 * test.py (`dataListTests`) that runs the instructions' usage example in a fresh namespace,
 * `exec(EXAMPLE, {})`, at the top of `test_adapts_to_confidence`: the namespace, and what the example bound
 * there, dies as that call returns.
 */
export function exampleExecTests(tests: string): string {
  const from = "    def test_adapts_to_confidence(self):\n";
  if (!tests.includes(from)) throw new Error("test.py variant: test_adapts_to_confidence is not in the text");
  const example = `EXAMPLE = """
from decoding.min_p import min_p_filter, softmax_with_temperature
probs = softmax_with_temperature([2.0, 1.0, 0.1], 0.7)
kept = min_p_filter(probs, 0.1)
assert abs(sum(kept) - 1.0) < 1e-9
"""


`;
  const at = tests.indexOf("class ");
  return `${tests.slice(0, at)}${example}${tests.slice(at).replace(from, `${from}        exec(EXAMPLE, {})\n`)}`;
}

/**
 * test.py whose `test_edges` takes its good and bad `p_base` values from a named tuple made at import,
 * `Cases(good=[...], bad=[...])`: `collections.namedtuple` (its `__new__` is compiled from text, with a
 * namespace of its own), or with `classSyntax` a `typing.NamedTuple` class beside a `TypedDict` (Python 3.14
 * reads their annotations through the class body's `__annotate__` closure).
 */
export function namedTupleCasesTests(tests: string, classSyntax = false): string {
  const kind = classSyntax
    ? `import typing


class Cases(typing.NamedTuple):
    good: list
    bad: list


class FilterCase(typing.TypedDict):
    probs: list
    p_base: float


`
    : `from collections import namedtuple

Cases = namedtuple("Cases", "good bad")
`;
  const head = `${kind}P_BASES = Cases(good=[0.0, 0.5, 1.0], bad=[-0.1, 1.5, float("nan")])


`;
  const edits: [string, string][] = [
    ["class TestSoftmax(unittest.TestCase):\n", `${head}class TestSoftmax(unittest.TestCase):\n`],
    [
      '        for bad in (-0.1, 1.5, float("nan")):\n',
      "        for good in P_BASES.good:\n            self.assertAlmostEqual(sum(min_p_filter(probs, good)), 1.0, places=12)\n        for bad in P_BASES.bad:\n",
    ],
  ];
  return edits.reduce((text, [from, to]) => {
    if (!text.includes(from)) throw new Error(`test.py variant: ${JSON.stringify(from.slice(0, 40))} is not in the text`);
    return text.replace(from, to);
  }, tests);
}
