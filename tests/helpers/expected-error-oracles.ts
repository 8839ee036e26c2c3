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
