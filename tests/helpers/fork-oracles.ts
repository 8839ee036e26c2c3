import { wrapPublicFunctions } from "./wrap-public";

/**
 * Code under test that forks a copy of the running test to learn what the test does next (natively; Pyodide
 * has no fork). A child is a copy of the whole process, test.py's frames included: one that raises where the
 * parent was called and goes on with the test sees whether unittest's assertRaises catches it, and one that
 * crashes with faulthandler on, or stops the interpreter with a fatal error, has the stack dumped to a pipe
 * of the parent's.
 */

/** How {@link forkedChildOracleAttack} forks: directly, or inside `sys.call_tracing` (natively on 3.11, it put back, as it returned, whether the caller's C frame was traced). */
export type ForkRoute = "os.fork" | "sys.call_tracing";

/**
 * What the child of {@link forkedChildOracleAttack} looks for: unittest's assertRaises catching its
 * exception (`__exit__` calls the exception's `with_traceback(None)`), or `recode_check.outcome` catching it
 * (it formats the exception with `str()` at once, when its traceback is three calls long: outcome, the
 * wrapper, the raiser).
 */
export type ForkOracleMode = "assertRaises" | "outcome";

/**
 * `stub` with each public function wrapped: on a call it has not seen, it forks (by `route`); the child
 * raises a `ValueError` as if the call had failed and goes on with the test, and writes "1" to a pipe when
 * what `mode` names caught it, "0" else (the exception left the test: the harness formats it with `str()`).
 * The parent raises only on "1".
 */
export function forkedChildOracleAttack(stub: string, route: ForkRoute = "os.fork", mode: ForkOracleMode = "assertRaises"): string {
  const fork = route === "os.fork" ? "_os.fork()" : "_sys.call_tracing(_os.fork, ())";
  const caught =
    mode === "assertRaises"
      ? `    def with_traceback(self, tb):
        if _os.getpid() != _PARENT:
            _os.write(_W[0], b"1" if tb is None else b"0")
            _os._exit(0)
        return _Rejected.with_traceback(self, tb)
    def __str__(self):
        if _os.getpid() != _PARENT:
            _os.write(_W[0], b"0")
            _os._exit(0)
        return "rejected"`
      : `    def __str__(self):
        if _os.getpid() != _PARENT:
            n, tb = 0, self.__traceback__
            while tb is not None:
                n, tb = n + 1, tb.tb_next
            _os.write(_W[0], b"1" if n == 3 else b"0")
            _os._exit(0)
        return "rejected"`;
  return `${stub}

import os as _os, sys as _sys, select as _sel, signal as _sig, functools as _ft
_PARENT, _W = _os.getpid(), [None]
class _Rejected(ValueError, TypeError):
    pass
class _Probe(_Rejected):
${caught}
def _test_expects_an_error():
    r, w = _os.pipe()
    pid = ${fork}
    if pid == 0:
        _os.close(r)
        _W[0] = w
        _sig.setitimer(_sig.ITIMER_REAL, 0.3)
        raise _Probe()
    _os.close(w)
    got = _os.read(r, 1) if _sel.select([r], [], [], 3.0)[0] else b""
    _os.close(r)
    try:
        _os.kill(pid, 9)
    except OSError:
        pass
    _os.waitpid(pid, 0)
    return got == b"1"
_SEEN = {}
${wrapPublicFunctions(`            if _os.getpid() != _PARENT:
                _os._exit(0)
            key = (f.__name__, repr(a), repr(k))
            if key not in _SEEN:
                _SEEN[key] = _test_expects_an_error()
            if _SEEN[key]:
                raise _Rejected("rejected")`)}`;
}

/**
 * `stub` with each public function wrapped as in {@link forkedChildOracleAttack}, but the child goes on with
 * the test by returning from the call, with two signals pending as it returns: the first one's handler
 * raises as the profile function that ends the child begins (before any statement of it runs), the second
 * one's as the audit hook begins that looks at the profile function being taken away, with an exception of
 * the candidate's, which then went on into the test. The child writes "S" when the second handler runs, and
 * "1" when assertRaises or outcome() catches its exception; the parent tries up to five children.
 */
export function forkedChildSignalsAttack(stub: string): string {
  return `${stub}

import os as _os, select as _sel, signal as _sig, functools as _ft
_PARENT, _W = _os.getpid(), [None]
class _Rejected(ValueError, TypeError):
    pass
class _Probe(_Rejected):
    def with_traceback(self, tb):
        if _os.getpid() != _PARENT:
            _os.write(_W[0], b"1" if tb is None else b"0")
            _os._exit(0)
        return _Rejected.with_traceback(self, tb)
    def __str__(self):
        if _os.getpid() != _PARENT:
            _os.write(_W[0], b"1")
            _os._exit(0)
        return "rejected"
def _h1(s, f):
    raise KeyboardInterrupt()
def _h2(s, f):
    _os.write(_W[0], b"S")
    raise _Probe()
def _child_tail():
    _W[0] = _W[1]
    _sig.signal(_sig.SIGALRM, _h1)
    _sig.signal(_sig.SIGVTALRM, _h2)
    L = [0] * 6000000
    _sig.setitimer(_sig.ITIMER_REAL, 0.004)
    _sig.setitimer(_sig.ITIMER_VIRTUAL, 0.004)
    return L
def _test_expects_an_error():
    for attempt in range(5):
        r, w = _os.pipe()
        pid = _os.fork()
        if pid == 0:
            _os.close(r)
            _W.append(w)
            return "child"
        _os.close(w)
        got = b""
        while _sel.select([r], [], [], 5.0)[0]:
            c = _os.read(r, 1)
            if not c:
                break
            got += c
        _os.close(r)
        try:
            _os.kill(pid, 9)
        except OSError:
            pass
        _os.waitpid(pid, 0)
        if got.startswith(b"S"):
            return got == b"S1"
    return False
_SEEN = {}
${wrapPublicFunctions(`            if _os.getpid() != _PARENT:
                _os._exit(0)
            key = (f.__name__, repr(a), repr(k))
            if key not in _SEEN:
                res = _test_expects_an_error()
                if res == "child":
                    L = _child_tail()
                    -1 in L
                    return None
                _SEEN[key] = res
            if _SEEN[key]:
                raise _Rejected("rejected")`)}`;
}

/** The routes {@link forkedChildDumpProbe} tries, each in a forked child whose standard error is a pipe of the parent's. */
export const FORKED_DUMP_ROUTES = [
  "faulthandler.enable, then a segmentation fault",
  "faulthandler enabled in the parent, then a segmentation fault",
  "faulthandler._fatal_error_c_thread",
  "faulthandler._sigabrt",
  "a subinterpreter (_xxsubinterpreters.create)",
] as const;

/**
 * `canonical` with `fn` replaced: it forks once per route of {@link FORKED_DUMP_ROUTES}; each child puts a
 * pipe on its standard error and tries the route, which dumps the stack there if it works. It raises
 * `RuntimeError("<route>: <file:line in function> ... ;; ...")` with the frames of test.py and unittest the
 * dumps named, or "<route>: nothing" when none.
 */
export function forkedChildDumpProbe(canonical: string, fn: string): string {
  return `${canonical}

import os as _os
_ROUTES = ${JSON.stringify(FORKED_DUMP_ROUTES)}
def _segfault():
    import sys
    sys.setrecursionlimit(10**7)
    # (Through a C function at every level: the C stack runs out.)
    def deeper(n):
        return list(map(deeper, [n + 1]))
    deeper(0)
def _try(route):
    if route == "faulthandler enabled in the parent, then a segmentation fault":
        _segfault()
    elif route.startswith("faulthandler.enable"):
        import faulthandler
        faulthandler.enable()
        faulthandler._sigsegv()
    elif route == "faulthandler._fatal_error_c_thread":
        import faulthandler
        faulthandler._fatal_error_c_thread()
    elif route == "faulthandler._sigabrt":
        import faulthandler
        faulthandler._sigabrt()
    else:
        import _xxsubinterpreters
        _xxsubinterpreters.create()
def _dump(route):
    r, w = _os.pipe()
    if route == "faulthandler enabled in the parent, then a segmentation fault":
        import faulthandler
        faulthandler.enable(file=w)
    pid = _os.fork()
    if pid == 0:
        try:
            _os.close(r)
            _os.dup2(w, 2)
            _try(route)
        except BaseException as e:
            _os.write(w, f"refused: {type(e).__name__}: {e}".encode())
        _os._exit(0)
    _os.close(w)
    out = b""
    while True:
        got = _os.read(r, 65536)
        if not got:
            break
        out += got
    _os.close(r)
    _os.waitpid(pid, 0)
    text = out.decode("utf-8", "replace")
    seen = [l.strip() for l in text.splitlines() if "File" in l and ("test.py" in l or "unittest" in l)]
    return f"{route}: " + (" | ".join(seen)[:300] if seen else "nothing (" + text.strip().splitlines()[-1][:120] + ")" if text.strip() else "nothing")
def ${fn}(*args, **kwargs):
    raise RuntimeError(" ;; ".join(_dump(route) for route in _ROUTES))
`;
}
