/**
 * Candidates that try to tell whether a test expects an error of them: from the line of test.py that calls
 * them and what that line says, from a reference count, from where live memory was made; and probes of where
 * test.py's text or code could be read. Raising only where test.py expects an error (inside `with
 * self.assertRaises(X):`) would pass every error test of every task without one input check.
 */

/** Python that wraps each public function of the candidate's module with its `_oracle`. */
const WRAP_PUBLIC = `for _n, _v in list(globals().items()):
    if type(_v).__name__ == "function" and not _n.startswith("_") and getattr(_v, "__module__", None) == __name__:
        globals()[_n] = _oracle(_v)
`;

/** `stub` with each public function wrapped: it raises what the enclosing `assertRaises` of its calling line in test.py names. */
export function callSiteOracleAttack(stub: string): string {
  return `${stub}
import functools as _ft, warnings as _w
def _call_site(level):
    seen = []
    with _w.catch_warnings():
        _w.simplefilter("always")
        _w.showwarning = lambda m, c, f, l, *a, **k: seen.append((f, l))
        _w.warn("?", UserWarning, stacklevel=level)
    return seen[0] if seen else (None, None)
def _expected_exception(fn, ln):
    try:
        lines = open(fn).read().splitlines()
    except (OSError, TypeError):
        return None
    ind = len(lines[ln - 1]) - len(lines[ln - 1].lstrip())
    for i in range(ln - 2, -1, -1):
        s = lines[i]
        if s.strip() and len(s) - len(s.lstrip()) < ind:
            if "assertRaises(" in s:
                import builtins as _b
                return getattr(_b, s.split("assertRaises(", 1)[1].split(")")[0].split(",")[0].strip(), ValueError)
            return None
    return None
def _oracle(f):
    @_ft.wraps(f)
    def w(*a, **k):
        fn, ln = _call_site(3)
        exc = _expected_exception(fn, ln) if fn and str(fn).endswith("test.py") else None
        if exc is not None:
            raise exc("rejected")
        return f(*a, **k)
    return w
${WRAP_PUBLIC}`;
}

/** `stub` with `fn` replaced by a probe that fails with where test.py's text can be read: a file of the run's folder, or linecache. */
export function testTextProbe(stub: string, fn: string): string {
  return `${stub}
def _where_is_test_text():
    import linecache, os
    # (Put together here: this file's own text does not hold it.)
    marker = "".join(["self.assert", "Raises"])
    found = []
    for root, _dirs, names in os.walk(os.getcwd()):
        for n in names:
            try:
                with open(os.path.join(root, n), errors="replace") as f:
                    if marker in f.read():
                        found.append(n)
            except OSError:
                pass
    # (The run's own files: unittest's source says assertRaises too.)
    here = os.getcwd()
    found += [str(k) for k, v in list(linecache.cache.items()) if str(k).startswith(here) or not str(k).startswith("/")
              if len(v) > 2 and marker in "".join(v[2])]
    return found
_AT_IMPORT = _where_is_test_text()
def ${fn}(*a, **k):
    # (Looked for again at each call: after earlier tests failed and their tracebacks were written, too.)
    found = _AT_IMPORT + _where_is_test_text()
    raise RuntimeError(f"test.py's text found in {found}" if found else "test.py's text is nowhere to be read")
`;
}

/**
 * `stub` with each public function wrapped: it raises ValueError while unittest holds an assertRaises
 * context (the reference count of `_AssertRaisesContext`, above what it was at import, says so).
 */
export function assertionContextOracleAttack(stub: string): string {
  return `${stub}
import functools as _ft, sys as _sys, unittest.case as _uc
_BASE = _sys.getrefcount(_uc._AssertRaisesContext)
def _oracle(f):
    @_ft.wraps(f)
    def w(*a, **k):
        if _sys.getrefcount(_uc._AssertRaisesContext) > _BASE:
            raise ValueError("rejected")
        return f(*a, **k)
    return w
${WRAP_PUBLIC}`;
}

/** `stub` with `fn` replaced by a probe that fails with what each route to the interpreter's own `sys.getrefcount` gave ("OPEN" when one works). */
export function refcountRoutesProbe(stub: string, fn: string): string {
  return `${stub}
def _routes():
    import importlib, importlib.util, sys
    out = []
    for name, get in [
        ("reload", lambda: importlib.reload(sys).getrefcount),
        ("create_builtin", lambda: __import__("_imp").create_builtin(importlib.util.find_spec("sys")).getrefcount),
        ("sys.__dict__", lambda: sys.__dict__["getrefcount"]),
    ]:
        try:
            get()(1)
            out.append(name + ": OPEN")
        except Exception as e:
            out.append(name + ": " + str(e))
    return out
_ROUTES = _routes()
def ${fn}(*a, **k):
    raise RuntimeError("; ".join(_ROUTES))
`;
}

/**
 * `stub` with each public function wrapped: it raises ValueError while a block of memory made in
 * unittest's assertRaises is alive (tracemalloc, started at import, says where each live block was made).
 */
export function memoryTraceOracleAttack(stub: string): string {
  return `${stub}
import functools as _ft, tracemalloc as _tm, unittest.case as _uc
_tm.start(1)
_AR = frozenset(l for n in ("assertRaises", "assertRaisesRegex") for (_, _, l) in getattr(_uc.TestCase, n).__code__.co_lines() if l is not None)
def _inside():
    return any(l in _AR and f == _uc.__file__ for t in _tm.take_snapshot().traces._traces for f, l in t[2])
def _oracle(f):
    @_ft.wraps(f)
    def w(*a, **k):
        if _inside():
            raise ValueError("rejected")
        return f(*a, **k)
    return w
${WRAP_PUBLIC}`;
}

/**
 * `stub` with `fn` replaced by a probe that fails with what the harness's state between runs holds of test.py
 * (its text and its code, which the interpreter keeps compiled from one run of a task to the next).
 */
export function codeCacheProbe(stub: string, fn: string): string {
  return `${stub}
def _cached():
    import importlib
    try:
        state = importlib.import_module("recode_harness")._STATE
    except Exception as e:
        return [f"no harness state: {type(e).__name__}"]
    found = []
    for name in ("code", "facts"):
        for key in list(getattr(state, name, {}) or {}):
            if isinstance(key, tuple) and str(key[0]).endswith("test.py"):
                found.append(f"{name}: {key[0]}")
    return found
def ${fn}(*a, **k):
    found = _cached()
    raise RuntimeError(f"test.py in the harness's state: {found}" if any(":" in f and "no harness" not in f for f in found) else f"nothing of test.py in the harness's state {found}")
`;
}

/** How a stack sampler reads where the collector interrupted: the primitive, and the Python that names the place. */
const SAMPLERS = {
  // A warning's location some frames up (the frame the finalizer interrupted, and its callers), file and line.
  warnings: `def _where():
    import warnings as _w
    seen = []
    with _w.catch_warnings():
        _w.simplefilter("always")
        _w.showwarning = lambda m, c, f, l, *a, **k: seen.append((f, l))
        for level in range(3, 14):
            _w.warn("?", UserWarning, stacklevel=level)
    return " ".join("assertRaises" if str(f).endswith("unittest/case.py") and l in _AR else f"{f}:{l}" for f, l in seen)`,
  // logging's caller of a record some frames up: its function's name.
  logging: `def _where():
    import logging as _l
    return " ".join(_l.getLogger("sampler").findCaller(stacklevel=level)[2] for level in range(3, 14))`,
  // faulthandler's dump of the stack, into a file.
  faulthandler: `def _where():
    import faulthandler as _f, tempfile as _tf
    with _tf.TemporaryFile("w+") as f:
        _f.dump_traceback(f, all_threads=False)
        f.seek(0)
        return "assertRaises" if "in assertRaises" in f.read() else ""`,
} as const;

/** The stack-reading primitives a sampler can use. */
export type StackSampler = keyof typeof SAMPLERS;

/** The samplers, by name. */
export const STACK_SAMPLERS = Object.keys(SAMPLERS) as StackSampler[];

/**
 * `stub` with each public function wrapped: it raises ValueError when the collector, run at nearly every
 * allocation (`gc.set_threshold(1)`) with garbage whose finalizer makes more, found unittest inside
 * `assertRaises` since the last call ended, as `sampler` reads where a finalizer runs.
 */
export function stackSamplerOracleAttack(stub: string, sampler: StackSampler): string {
  return `${stub}
import functools as _ft, gc as _gc, unittest.case as _uc
_AR = frozenset(l for n in ("assertRaises", "assertRaisesRegex") for (_, _, l) in getattr(_uc.TestCase, n).__code__.co_lines() if l is not None)
${SAMPLERS[sampler]}
_SEEN = []
class _Sampler:
    def __init__(self):
        self.cycle = self
    def __del__(self):
        try:
            _SEEN.append(_where())
        except Exception as e:
            _SEEN.append(type(e).__name__)
        del _SEEN[:-50]
        _Sampler()
_Sampler()
_gc.set_threshold(1)
def _oracle(f):
    @_ft.wraps(f)
    def w(*a, **k):
        expected = any("assertRaises" in s for s in _SEEN)
        try:
            if expected:
                raise ValueError("rejected")
            return f(*a, **k)
        finally:
            _SEEN.clear()
    return w
${WRAP_PUBLIC}`;
}

/**
 * `stub` with `fn` replaced by a probe that fails with every module name it was told of frames above its
 * own: by typing's `_caller`, by `sys._getframemodulename` (Python 3.12 and later) and by the module of an
 * enum made by `Enum._create_`, called at each depth from the finalizer of garbage the collector frees at
 * nearly every allocation, and from the probe itself.
 */
export function moduleNameSamplerProbe(stub: string, fn: string): string {
  return `${stub}
import gc as _gc, sys as _sys, typing as _t, enum as _e
_NAMES = set()
def _look():
    for depth in range(1, 14):
        for get in (lambda: _t._caller(depth), lambda: _sys._getframemodulename(depth)):
            try:
                _NAMES.add(str(get()))
            except Exception as e:
                _NAMES.add(type(e).__name__)
    try:
        _NAMES.add(str(_e.Enum._create_("Probe", "a b").__module__))
    except Exception as e:
        _NAMES.add(type(e).__name__)
class _Sampler:
    def __init__(self):
        self.cycle = self
    def __del__(self):
        if len(_NAMES) < 500:
            _look()
        _Sampler()
_Sampler()
_gc.set_threshold(1)
def ${fn}(*a, **k):
    _look()
    raise RuntimeError("module names seen: " + " ".join(sorted(_NAMES)))
`;
}

/**
 * `stub` with `fn` replaced by a probe that fails with the frames it took: with `sys._getframe(1)` in the
 * finalizer of garbage the collector frees at nearly every allocation, inside the guard's own frame check too.
 */
export function finalizerFrameProbe(stub: string, fn: string): string {
  return `${stub}
import gc as _gc, sys as _sys
_GOT = []
class _Sampler:
    def __init__(self):
        self.cycle = self
    def __del__(self):
        if len(_GOT) < 20:
            try:
                f = _sys._getframe(1)
                _GOT.append(f"{f.f_code.co_qualname} at {f.f_code.co_filename}")
            except Exception:
                pass
        _Sampler()
_Sampler()
_gc.set_threshold(1)
def ${fn}(*a, **k):
    raise RuntimeError(f"frames taken: {_GOT}" if _GOT else "no frame taken")
`;
}

/** `stub` with `fn` replaced by a probe that fails with what `faulthandler` and `_warnings`, reloaded or made again, gave ("OPEN" when a dump was written; a warning's location three frames up). */
export function stackRoutesProbe(stub: string, fn: string): string {
  return `${stub}
def ${fn}(*a, **k):
    import importlib, importlib.util, _imp, faulthandler, _warnings, warnings, tempfile
    out = []
    for name, get in [
        ("faulthandler reloaded", lambda: importlib.reload(faulthandler).dump_traceback),
        ("faulthandler made again", lambda: _imp.create_builtin(importlib.util.find_spec("faulthandler")).dump_traceback),
        ("_warnings reloaded", lambda: importlib.reload(_warnings).warn),
        ("_warnings made again", lambda: _imp.create_builtin(importlib.util.find_spec("_warnings")).warn),
    ]:
        try:
            f = get()
            if name.startswith("faulthandler"):
                with tempfile.TemporaryFile("w+") as t:
                    f(t)
                    out.append(name + ": OPEN")
            else:
                seen = []
                with warnings.catch_warnings():
                    warnings.simplefilter("always")
                    warnings.showwarning = lambda m, c, file, line, *x, **y: seen.append(f"{file}:{line}")
                    f("?", UserWarning, 3)
                out.append(name + ": " + " ".join(seen))
        except Exception as e:
            out.append(name + ": " + str(e))
    raise RuntimeError(" ;; ".join(out))
`;
}

/**
 * `stub` with `fn` replaced by a probe that fails with what each library function allowed to take frames
 * gave to C code run while its frame was the innermost: `sys._getframe` pulled through C iterators the
 * reader drains itself (namedtuple's field names, the functional Enum's members, make_dataclass's fields), a
 * finalizer that is C code freed by `traceback.clear_frames`, properties that are C code read by
 * `inspect.getgeneratorstate` and unittest's `_is_relevant_tb_level`, an `__index__` that is C code run inside
 * typing's `_caller`'s own call, and the functions the harness reads frames with, looked up in its modules
 * ("OPEN <frame>" when a frame came out).
 */
export function readerFrameProbe(stub: string, fn: string): string {
  return `${stub}
import sys as _s, itertools as _it, functools as _ft
_TAKEN = []
def _src():
    return filter(None, map(_TAKEN.append, map(_s._getframe, [0])))
def _namedtuple():
    import collections
    collections.namedtuple("T", _it.chain(["a"], _src()))
def _enum():
    import enum
    enum.Enum("E", _it.chain([("A", 1)], _src()))
def _make_dataclass():
    import dataclasses
    dataclasses.make_dataclass("D", _it.chain(["a"], _src()))
class _Fin:
    pass
def _clear_frames():
    import traceback
    _Fin.__del__ = staticmethod(_ft.partial(_TAKEN.extend, map(_s._getframe, [0])))
    def inner():
        x = _Fin()
        raise KeyError("x")
    try:
        inner()
    except KeyError as e:
        tb = e.__traceback__
    traceback.clear_frames(tb)
def _getgeneratorstate():
    import inspect
    class G:
        pass
    G.gi_running = property(_ft.partial(dict.fromkeys, map(_TAKEN.append, map(_s._getframe, [0]))))
    inspect.getgeneratorstate(G())
def _relevant_tb():
    import unittest.result
    class TB:
        pass
    TB.tb_frame = property(_ft.partial(dict.fromkeys, map(_TAKEN.append, map(_s._getframe, [0]))))
    unittest.result.TestResult._is_relevant_tb_level(None, TB())
def _index_at_call():
    import typing
    class Ix:
        __index__ = staticmethod(_ft.partial(_TAKEN.extend, map(_s._getframe, [1])))
    class Miss:
        def __index__(self):
            raise AttributeError("skip")
    calls = []
    class Depth:
        def __add__(self, other):
            calls.append(1)
            return Miss() if _s.version_info >= (3, 12) and len(calls) == 1 else Ix()
    typing._caller(Depth())
def _harness_state():
    import recode_stack
    for get in (lambda: recode_stack.take_stack_views("wall"), lambda: recode_stack.install_stack_views(),
                lambda: getattr(recode_stack, "_TAKE", None)):
        try:
            got = get()
        except Exception:
            continue
        for part in (got if isinstance(got, (list, tuple)) else [got]):
            for item in (part if isinstance(part, (list, tuple)) else [part]):
                if callable(item) and getattr(item, "__name__", "") == "frame_of_caller":
                    _TAKEN.append(item())
def _coroutine_origin():
    async def probe():
        pass
    try:
        _s.set_coroutine_origin_tracking_depth(64)
        coro = probe()
        origin = coro.cr_origin or ()
        coro.close()
    finally:
        try:
            _s.set_coroutine_origin_tracking_depth(0)
        except Exception:
            pass
    seen = [f"{f}:{n}" for f, _, n in origin if str(f).endswith("test.py") or "unittest" in str(f)]
    if seen:
        _TAKEN.append(type("Origin", (), {"f_code": type("Code", (), {"co_qualname": " ".join(seen)})})())
def _routes():
    out = []
    for name, route in [("namedtuple", _namedtuple), ("enum", _enum), ("make_dataclass", _make_dataclass),
                        ("clear_frames", _clear_frames), ("getgeneratorstate", _getgeneratorstate), ("_is_relevant_tb_level", _relevant_tb),
                        ("an __index__ run inside typing._caller's call", _index_at_call), ("the harness's stack views", _harness_state),
                        ("a coroutine's origin", _coroutine_origin)]:
        del _TAKEN[:]
        try:
            route()
            said = ""
        except BaseException as e:
            said = type(e).__name__
        taken = [f for f in _TAKEN if f is not None]
        del _TAKEN[:]
        out.append(f"{name}: " + (f"OPEN {taken[0].f_code.co_qualname}" if taken else f"no frame {said}".strip()))
    return out
def ${fn}(*a, **k):
    raise RuntimeError(" ;; ".join(_routes()))
`;
}

/**
 * `stub` with `fn` kept for good inputs, that raises a `ValueError` of its own for bad ones (a p_base
 * outside [0, 1]), and once, at its first call, for a good one (that test is given up). The exception's class
 * overrides `with_traceback`, which unittest's assertRaises calls as it exits, and a finalizer the collector
 * runs at nearly every allocation reads `sys.exc_info()`. At the second bad input it fails with what each route
 * told it of the traceback's frames: traceback's `extract_tb` (with, on 3.14, each `FrameSummary`'s code),
 * `format_exception`, `TracebackException`, logging's text of an exception, and the harness's own summary
 * through the guard's handle. Each route's frames are listed as `name@file:line`; "CODE <file>" where a
 * summary held a frame's code.
 */
export function testSideTracebackProbe(stub: string, fn: string): string {
  return `${stub}
import gc as _gc, io as _io, logging as _lg, math as _m, sys as _sys, traceback as _tb
_orig_${fn} = ${fn}
_ROUTES = {}
_KEPT = []
_CALLS = [0]
def _frames(tb):
    out = []
    for f in _tb.extract_tb(tb):
        code = getattr(f, "_code", None)
        out.append(f"{f.name}@{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" + (f" CODE {code.co_filename.rsplit('/', 1)[-1]}" if code is not None else ""))
    return " ".join(out)
def _route(name, get):
    try:
        _ROUTES.setdefault(name, get())
    except Exception as e:
        _ROUTES.setdefault(name, f"refused: {e}")
class _Bad(ValueError):
    def with_traceback(self, tb):
        if not _KEPT or self is not _KEPT[0]:
            _route("with_traceback", lambda: _frames(self.__traceback__))
        return ValueError.with_traceback(self, tb)
class _Sampler:
    def __init__(self):
        self.cycle = self
    def __del__(self):
        e = _sys.exc_info()[1]
        if isinstance(e, _Bad) and "exc_info in a finalizer" not in _ROUTES:
            _route("exc_info in a finalizer", lambda: _frames(e.__traceback__))
        if len(_ROUTES) < 8:
            _Sampler()
_Sampler()
_gc.set_threshold(1)
def _report():
    kept = _KEPT[0]
    _route("extract_tb of a kept exception", lambda: _frames(kept.__traceback__))
    _route("format_exception", lambda: "".join(_tb.format_exception(kept)).replace("\\n", " "))
    _route("TracebackException", lambda: " ".join(f.name for f in _tb.TracebackException.from_exception(kept).stack))
    def logged():
        out = _io.StringIO()
        log = _lg.getLogger("probe")
        log.addHandler(_lg.StreamHandler(out))
        try:
            raise kept
        except ValueError:
            log.exception("kept")
        return out.getvalue().replace("\\n", " ")
    _route("logging", logged)
    _route("the harness's summary", lambda: " ".join(f.name for f in _sys.modules["recode_harness"]._STATE.guard.test_log_summary(kept.__traceback__, None)))
    return " ;; ".join(f"{k}: {v}" for k, v in _ROUTES.items())
def ${fn}(probs, p_base):
    _CALLS[0] += 1
    if _CALLS[0] == 1:
        e = _Bad("given up")
        _KEPT.append(e)
        raise e
    if not (0.0 <= p_base <= 1.0):
        if "with_traceback" in _ROUTES:
            raise RuntimeError("routes " + _report())
        raise _Bad("bad p_base")
    return _orig_${fn}(probs, p_base)
`;
}

/** Ways to get the candidate's own frame by passing a function allowed frames an argument in place of a default. */
export const PASSED_DEFAULT_ROUTES = {
  // traceback's walk, given a hidden-frame check of the candidate's (it was handed every frame).
  "traceback's walk": `def _own_frame():
    got = []
    try:
        raise KeyError
    except KeyError as e:
        t = e.__traceback__
    import traceback as _tb
    _tb.StackSummary._extract_from_extended_frame_gen(_tb._walk_tb_with_full_positions(t, None, lambda f: got.append(f) or True))
    return got[0]`,
  // The class-making readers' sys._getframe, given a lookup of the candidate's that says every call is theirs.
  "the readers' sys._getframe": `def _own_frame():
    import typing as _ty
    class _All:
        def __contains__(self, x):
            return True
    return _ty.sys._getframe(0, None, lambda x: 1, 1, lambda s, c: _All())`,
} as const;

/**
 * `stub` with each public function wrapped: it takes its own frame by `route` (a function allowed frames, given
 * an argument of the candidate's in place of a default), walks `f_back` to test.py's frame, and raises
 * `ValueError` when that frame's instruction is inside a `with self.assertRaises...(...)` block (read from the
 * code's exception table).
 */
export function passedDefaultOracleAttack(stub: string, route: keyof typeof PASSED_DEFAULT_ROUTES): string {
  return `${stub}
import dis as _dis, functools as _ft
${PASSED_DEFAULT_ROUTES[route]}
def _inside_assert_raises():
    try:
        f = _own_frame()
    except Exception:
        return False
    while f is not None and not f.f_code.co_filename.endswith("test.py"):
        f = f.f_back
    if f is None:
        return False
    code, at = f.f_code, f.f_lasti
    ins = list(_dis.get_instructions(code))
    idx = {i.offset: k for k, i in enumerate(ins)}
    for e in _dis._parse_exception_table(code):
        if e.start <= at < e.end and e.target in idx:
            h = idx[e.target]
            if any(i.opname == "WITH_EXCEPT_START" for i in ins[h:h + 4]):
                s = idx.get(e.start, 0)
                return any(str(i.argval).startswith("assertRaises") for i in ins[max(0, s - 12):s])
    return False
def _oracle(f):
    @_ft.wraps(f)
    def w(*a, **k):
        if _inside_assert_raises():
            raise ValueError("rejected")
        return f(*a, **k)
    return w
${WRAP_PUBLIC}`;
}

/**
 * `stub` with `fn` replaced by a probe that calls every function of the harness's that code under test can reach
 * with arguments in place of its defaults (the readers' `sys._getframe`, traceback's walk, `_imp.create_builtin`,
 * `_imp.create_dynamic` and `_imp.get_frozen_object` natively, the check sink, the signal
 * functions), and reads the sink's closure. Fails with `route: outcome` for each ("OPEN" when the call went through).
 */
export function passedDefaultsProbe(stub: string, fn: string): string {
  return `${stub}
def ${fn}(*a, **k):
    import _imp, _signal, importlib.machinery, sys, traceback, typing, recode_check
    try:
        raise KeyError
    except KeyError as e:
        tb = e.__traceback__
    spec = importlib.machinery.ModuleSpec("sys", importlib.machinery.BuiltinImporter)
    out = []
    calls = [
        ("the readers' sys._getframe", lambda: typing.sys._getframe(0, {})),
        ("traceback's walk", lambda: list(traceback._walk_tb_with_full_positions(tb, None, lambda f: False))),
        ("_imp.create_builtin", lambda: _imp.create_builtin(spec, _given={})),
        ("_imp.create_builtin positional", lambda: _imp.create_builtin(spec, None, {})),
        ("_imp.create_dynamic", lambda: _imp.create_dynamic(spec, None, {}, lambda s: "_ctypes")),
        ("_imp.get_frozen_object", lambda: _imp.get_frozen_object("zipimport", None, {})),
        ("the check sink", lambda: recode_check.SINK("k", "1", 0.0, 0.0, None, None, print)),
        ("signal.signal", lambda: _signal.signal(_signal.SIGUSR1, _signal.SIG_DFL, print)),
        ("signal.getsignal", lambda: _signal.getsignal(_signal.SIGUSR1, print)),
    ]
    for name, call in calls:
        try:
            call()
            out.append(f"{name}: OPEN")
        except TypeError as e:
            out.append(f"{name}: {'refused' if 'argument' in str(e) else 'OPEN ' + str(e)}")
        except Exception as e:
            out.append(f"{name}: {type(e).__name__}")
    try:
        recode_check.SINK.__closure__
        out.append("the sink's closure: OPEN")
    except (AttributeError, RuntimeError):
        out.append("the sink's closure: sealed")
    # The factories of what takes frames or decides who may, called again by code under test.
    import recode_frame_builtins, recode_guard, recode_readers, recode_stack, recode_touch
    again = [
        ("the frame-reading built-ins", lambda: recode_frame_builtins.make_frame_builtins(set(), [], lambda f: True)),
        ("traceback's walk made again", lambda: recode_stack._tracebacks_outside_test(lambda f: False)),
        ("the readers' sys._getframe made again", lambda: recode_readers._readers_getframe(None, None, None)),
        ("the generator states made again", lambda: recode_readers._generator_states([], None)),
        ("the factories", lambda: recode_readers.take_factories()),
        ("the dictionary counter", lambda: recode_touch.touch_counter()([{}], _used=[])),
        ("the dictionary counter again", lambda: recode_touch.touch_counter()([{}])),
    ]
    for name, call in again:
        try:
            got = call()
            out.append(f"{name}: OPEN {got!r}"[:200])
        except Exception as e:
            out.append(f"{name}: {type(e).__name__}")
    def views_made_again():
        recode_stack.install_stack_views()
        return recode_stack.take_stack_views("test log summary")
    try:
        got = views_made_again()
        out.append("the stack views made again: " + ("none" if got is None else f"OPEN {got!r}"))
    except Exception as e:
        out.append(f"the stack views made again: {type(e).__name__}")
    found = [n for n, v in vars(recode_guard).items() if v is type.__dict__["__subclasses__"] or repr(v) == "<method '__subclasses__' of 'type' objects>"]
    out.append("the interpreter's __subclasses__ in the guard's module: " + (f"OPEN {found}" if found else "none"))
    raise RuntimeError(" ;; ".join(out))
`;
}

/**
 * `stub` with each public function wrapped: it takes a frame through the guard's note of a patch (which read
 * `sys._getframe` from its module's globals, where a C chain set in its place kept the frame), clears the
 * guard's counts of changes with the guard it finds there, walks to test.py's frame, and raises `ValueError`
 * when that frame is inside a `with` block.
 */
export function patchNoteFrameOracleAttack(stub: string): string {
  return `${stub}
import collections as _col, dis as _dis, functools as _ft
import unittest.mock as _mock
import recode_guard as _rg
def _test_frame(own):
    real = getattr(_rg, "_GETFRAME", None)
    if real is None:
        return None
    got = _col.defaultdict(_ft.partial(real, 0))
    _rg._GETFRAME = got.__getitem__
    try:
        _mock.patch.object(_mock, "DEFAULT")
    finally:
        _rg._GETFRAME = real
    patched = got.get(1)
    if patched is None:
        return None
    guard = patched.f_locals["self"]
    guard.touch_saved = guard.touch_probe()
    f = patched
    while f is not None and f.f_code is not own:
        f = f.f_back
    return f.f_back if f is not None else None
def _inside_with(frame):
    code, at = frame.f_code, frame.f_lasti
    ins = list(_dis.get_instructions(code))
    for e in _dis._parse_exception_table(code):
        if e.start <= at < e.end:
            return [i.opname for i in ins if i.offset >= e.target][:2] == ["PUSH_EXC_INFO", "WITH_EXCEPT_START"]
    return False
def _oracle(f):
    @_ft.wraps(f)
    def w(*a, **k):
        try:
            t = _test_frame(w.__code__)
        except Exception:
            t = None
        if t is not None and _inside_with(t):
            raise ValueError("rejected")
        return f(*a, **k)
    return w
${WRAP_PUBLIC}`;
}

/**
 * `stub`, with the guard's own module values that its looks read at every look set to one function that
 * passes for both its check of a changed dictionary and the sentinel it compares accepted values with, which
 * also stands in for unittest's assertRaises context (one that swallows everything).
 */
export function guardGlobalsAttack(stub: string): string {
  return `${stub}
import recode_guard as _rg, unittest.case as _case
_real_changed = _rg.dict_changed
class _Swallow:
    def handle(self, name, args, kwargs):
        return self
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return True
def _X(a, b):
    if isinstance(b, _case.TestCase):
        return _Swallow()
    return _real_changed(a, b)
_rg.dict_changed = _X
_rg._MISSING = _X
_case._AssertRaisesContext = _X
`;
}

/**
 * `stub` with `fn` replaced by a probe: its exception, caught by `assertRaises`, has its traceback cut to end
 * at test.py's method (read in its own `with_traceback`), and traceback's suggestion maker is asked for a name
 * close to one of test.py's globals and to a local of the test method. `fn` (min-p-sampling's `min_p_filter`)
 * is kept for a `p_base` in [0, 1]. Fails with what it suggested ("absent" where this Python has no suggestion
 * maker in Python: 3.11 makes them in C).
 */
export function suggestionFrameProbe(stub: string, fn: string): string {
  return `${stub}
import traceback as _tb
_SEEN = []
class _Probe(ValueError):
    def with_traceback(self, tb):
        t = self.__traceback__
        if t is not None and not _SEEN:
            t.tb_next = None
            make = getattr(_tb, "_compute_suggestion_error", None)
            if make is None:
                _SEEN.append("absent")
            else:
                try:
                    _SEEN.append(f"global: {make(NameError(name='TOY_LOGITZ'), t, 'TOY_LOGITZ')}; local: {make(NameError(name='selff'), t, 'selff')}")
                except Exception as e:
                    _SEEN.append(f"refused: {e!r}")
        return ValueError.with_traceback(self, tb)
_orig_${fn} = ${fn}
def ${fn}(probs, p_base):
    if 0.0 <= p_base <= 1.0:
        return _orig_${fn}(probs, p_base)
    if _SEEN:
        raise RuntimeError("suggested " + _SEEN[0])
    raise _Probe("probe")
`;
}

/**
 * `stub`, with the built-ins the guard's looks call (`all`, `zip`) set to ones that say every comparison is
 * the same and every count is unchanged, and unittest's assertRaises context replaced by one that swallows
 * everything.
 */
export function builtinsBlindAttack(stub: string): string {
  return `${stub}
import builtins as _b, sys as _sys
_real_all, _real_zip, _mapt, _listt, _intt, _typ, _ln = _b.all, _b.zip, map, list, int, type, len
def _all(it):
    return True if _typ(it) is _mapt else _real_all(it)
def _zip(*args):
    if _ln(args) == 3 and _real_all(_typ(a) is _listt for a in args) and args[0] and _typ(args[0][0]) is _intt:
        return iter(())
    return _real_zip(*args)
_b.all, _b.zip = _all, _zip
_case = _sys.modules["unittest.case"]
class _Lenient(_case._AssertRaisesContext):
    def __exit__(self, *exc):
        return True
_case._AssertRaisesContext = _Lenient
`;
}

/**
 * `stub` with a `linecache.lazycache` of its own, which keeps the globals it is handed, and (`hideCallback`) a
 * collector callback hidden behind a module of its own put in `sys.modules["gc"]`; `fn` fails with what it
 * kept (test.py's names) once a test has failed (its traceback made for the test log), or "none".
 */
export function harnessReadsProbe(stub: string, fn: string, hideCallback: boolean): string {
  const hide = hideCallback
    ? `_fake = _types.ModuleType("gc")
_fake.callbacks = []
_sys.modules["gc"] = _fake
_gc.callbacks.append(lambda phase, info: None)
`
    : "";
  return `${stub}
import linecache as _lc, sys as _sys, types as _types, gc as _gc
_real_lazycache = _lc.lazycache
_KEPT = []
def _spy(filename, module_globals=None):
    if isinstance(module_globals, dict) and any(k.startswith("Test") for k in module_globals):
        _KEPT.append(sorted(k for k in module_globals if not k.startswith("__")))
    return _real_lazycache(filename, module_globals)
_lc.lazycache = _spy
${hide}_FAILED = [False]
def ${fn}(*a, **k):
    if not _FAILED[0]:
        _FAILED[0] = True
        raise ValueError("fail one test, so that its traceback is made")
    raise RuntimeError("kept " + (str(_KEPT[0]) if _KEPT else "none"))
`;
}
