"""Test harness shipped into the interpreter (Pyodide or native python3).

``run_tests(config, emit)`` runs a task's unittest file against the candidate
target file in ``config["workdir"]`` and reports through ``emit(json_text)``
one event per step, so that a host that has to kill the interpreter still
knows what finished:

- ``{"type": "collected", "tests": [ids]}``
- ``{"type": "collection-error", "message", "file", "line", "traceback"}``
- ``{"type": "test-start", "id"}``
- ``{"type": "test-result", "id", "status", "durationMs", "message",
  "traceback", "line", "stdout", "stderr", "stdoutTruncated",
  "stderrTruncated", "mismatch"}``
- ``{"type": "recorded", "expected": json_text}`` (record mode)
- ``{"type": "end", "poisoned": reason_or_null}``

Statuses: passed, failed, error, skipped, timeout. Test ids are
``Class.method``. Run as a script (native backend) it reads the config from
``argv[1]`` and writes events as JSON lines to file descriptor 3.
"""

import builtins
import io
import json
import os
import random
import sys
import time
import traceback
import unittest

import recode_check  # noqa: F401 - loaded once so every run finds it in place

TEST_MODULE = "recode_task_test"

# Bound at import so candidate code that patches json cannot break reporting.
_dumps = json.dumps


class CappedStream(io.TextIOBase):
    """A text stream that keeps at most ``cap`` characters and notes the cut."""

    def __init__(self, cap):
        self.cap = cap
        self.parts = []
        self.size = 0
        self.truncated = False

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        room = self.cap - self.size
        if room > 0:
            piece = s[:room]
            self.parts.append(piece)
            self.size += len(piece)
        if len(s) > max(room, 0):
            self.truncated = True
        return len(s)

    def getvalue(self):
        text = "".join(self.parts)
        if self.truncated:
            text += f"\n[output cut at {self.cap} characters]"
        return text


def _test_id(test):
    return f"{type(test).__name__}.{test._testMethodName}"


def _flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


def _format_tb(exc, target_abs, workdir):
    """Traceback text without harness/unittest frames, and the deepest line in
    the candidate file (or None)."""
    tb = exc.__traceback__
    frames = traceback.extract_tb(tb)
    line = None
    for fr in frames:
        if os.path.abspath(fr.filename) == target_abs:
            line = fr.lineno
    if isinstance(exc, SyntaxError) and exc.filename and os.path.abspath(exc.filename) == target_abs:
        line = exc.lineno
    kept = [fr for fr in frames if _in_workdir(fr.filename, workdir)]
    text = "Traceback (most recent call last):\n" if kept else ""
    text += "".join(traceback.format_list(kept))
    text += "".join(traceback.format_exception_only(type(exc), exc))
    text = text.replace(workdir + os.sep, "")
    return text, line


def _in_workdir(filename, workdir):
    return not filename.startswith("<") and os.path.abspath(filename).startswith(workdir + os.sep)


def _message(exc, workdir=None):
    import recode_check

    if isinstance(exc, recode_check.Mismatch):
        first = f"AssertionError: {exc}"
    else:
        first = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    if workdir:
        first = first.replace(workdir + os.sep, "")
    return first[:2000]


class _Poison:
    reason = None


def _run_one(test, check_mod, cap, target_abs, workdir, emit, poison, preface=""):
    tid = _test_id(test)
    emit({"type": "test-start", "id": tid})
    out, err = CappedStream(cap), CappedStream(cap)
    old_out, old_err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    check_mod.last_mismatch = None
    outcome = {"status": "passed", "message": "", "traceback": "", "line": None}
    result = unittest.TestResult()
    t0 = time.perf_counter()
    try:
        test.run(result)
    finally:
        sys.stdout, sys.stderr = old_out, old_err
    duration = (time.perf_counter() - t0) * 1000.0
    exc = None
    if result.errors:
        outcome["status"] = "error"
        exc = getattr(result, "_recode_exc", None)
        outcome["traceback"] = result.errors[0][1]
    elif result.failures:
        outcome["status"] = "failed"
        outcome["traceback"] = result.failures[0][1]
    elif result.skipped:
        outcome["status"] = "skipped"
        outcome["message"] = f"skipped: {result.skipped[0][1]}"
    elif result.expectedFailures or result.unexpectedSuccesses:
        outcome["status"] = "failed" if result.unexpectedSuccesses else "passed"
    captured = getattr(test, "_recode_exc", None)
    if captured is not None:
        exc = captured
    if exc is not None and outcome["status"] in ("failed", "error"):
        outcome["traceback"], outcome["line"] = _format_tb(exc, target_abs, workdir)
        outcome["message"] = _message(exc, workdir)
        if isinstance(exc, (MemoryError, RecursionError)):
            poison.reason = type(exc).__name__
    elif outcome["status"] in ("failed", "error"):
        tb_lines = outcome["traceback"].strip().splitlines()
        outcome["message"] = tb_lines[-1] if tb_lines else outcome["status"]
    mismatch = check_mod.last_mismatch if outcome["status"] == "failed" else None
    emit(
        {
            "type": "test-result",
            "id": tid,
            "status": outcome["status"],
            "durationMs": duration,
            "message": outcome["message"],
            "traceback": outcome["traceback"],
            "line": outcome["line"],
            "stdout": preface + out.getvalue(),
            "stderr": err.getvalue(),
            "stdoutTruncated": out.truncated,
            "stderrTruncated": err.truncated,
            "mismatch": mismatch,
        }
    )


def _install_exc_capture():
    """Keep the exception object on the test so tracebacks can be filtered and
    the candidate line found (unittest only keeps formatted text). Installed
    once, when the harness is imported."""
    orig = unittest.TestCase._callTestMethod
    if getattr(orig, "_recode_capture", False):
        return

    def call(self, method):
        try:
            orig(self, method)
        except BaseException as e:  # noqa: BLE001 - re-raised below
            if not isinstance(e, (KeyboardInterrupt, SystemExit, unittest.SkipTest)):
                self._recode_exc = e
            raise

    call._recode_capture = True
    unittest.TestCase._callTestMethod = call


_install_exc_capture()

# What a submission must not change: the test framework, the value checks, the
# harness, and the math and json they rely on. Changes to their functions or
# classes during a run make the run's results untrusted.
PROTECTED_MODULES = (
    "unittest",
    "unittest.case",
    "unittest.result",
    "unittest.suite",
    "unittest.loader",
    "unittest.util",
    "recode_check",
    "recode_harness",
    "math",
    "json",
)


def _is_heap_class(v):
    return isinstance(v, type) and bool(v.__flags__ & (1 << 9))


def _protected_objects():
    """(label, object, kind) for every protected module and its own classes."""
    out = []
    for name in PROTECTED_MODULES:
        mod = sys.modules.get(name)
        if mod is None:
            continue
        out.append((name, mod, "module"))
        for k, v in list(vars(mod).items()):
            if _is_heap_class(v) and getattr(v, "__module__", None) == name:
                out.append((f"{name}.{k}", v, "class"))
    out.append(("builtins", builtins, "builtins"))
    return out


_MISSING = object()


class Guard:
    """Notes the protected objects before a run and says which of them the run
    changed: a function or class of a protected module replaced or removed, a
    method of one of their classes, or an existing built-in."""

    def __init__(self):
        self.saved = []
        for label, obj, kind in _protected_objects():
            d = vars(obj)
            if kind == "class":
                snap = dict(d)
            else:
                snap = {k: v for k, v in d.items() if callable(v) or isinstance(v, type(sys))}
            self.saved.append((label, obj, kind, snap))
        self.code = _code_fingerprint()

    def changes(self):
        now = _code_fingerprint()
        changed = sorted({k.rsplit(".", 1)[0] for k, v in self.code.items() if now.get(k) != v})
        for label, obj, kind, snap in self.saved:
            d = vars(obj)
            if label in changed:
                continue
            if kind == "class":
                if _changed(dict(d), snap):
                    changed.append(label)
            elif any(d.get(k, _MISSING) is not v for k, v in snap.items()):
                changed.append(label)
        return changed


def _code_fingerprint():
    """Identity of the code of every protected function and method: a
    submission that rewrites ``__code__`` cannot be undone by restoring
    dictionaries, so the interpreter must be replaced."""
    prints = {}
    for label, obj, kind in _protected_objects():
        if kind == "builtins":
            continue
        for k, v in list(vars(obj).items()):
            code = getattr(v, "__code__", None)
            if code is not None:
                prints[f"{label}.{k}"] = id(code)
    return prints


def run_tests(config, emit_text):
    """Run the task tests. ``config``: workdir, target (path relative to
    workdir), tests_file, mode ("test"|"record"), expected (dict, test mode),
    output_cap (characters per stream per test)."""

    def emit(event):
        emit_text(_dumps(event))

    workdir = os.path.abspath(config["workdir"])
    target_abs = os.path.abspath(os.path.join(workdir, config["target"]))
    cap = int(config.get("output_cap", 20000))
    poison = _Poison()
    import recode_check as check_mod

    check_mod.MODE = config.get("mode", "test")
    check_mod.EXPECTED = config.get("expected") or {}
    check_mod.RECORDED = {}
    guard = Guard()
    current = None
    # What the modules print while they are imported is shown too.
    import_out = CappedStream(cap)
    saved_streams = sys.stdout, sys.stderr
    try:
        try:
            import importlib.util

            sys.stdout = sys.stderr = import_out
            try:
                spec = importlib.util.spec_from_file_location(TEST_MODULE, os.path.join(workdir, config["tests_file"]))
                module = importlib.util.module_from_spec(spec)
                sys.modules[TEST_MODULE] = module
                spec.loader.exec_module(module)
                suite = unittest.defaultTestLoader.loadTestsFromModule(module)
                tests = list(_flatten(suite))
            finally:
                sys.stdout, sys.stderr = saved_streams
        except KeyboardInterrupt as exc:
            text, line = _format_tb(exc, target_abs, workdir)
            if import_out.size:
                text += f"\n[printed while importing]\n{import_out.getvalue()}"
            emit(
                {
                    "type": "collection-error",
                    "message": "time limit reached while importing the tests",
                    "file": config["target"] if line is not None else None,
                    "line": line,
                    "traceback": text,
                    "timeout": True,
                }
            )
            return
        except BaseException as exc:  # noqa: BLE001 - any import failure is a collection error
            text, line = _format_tb(exc, target_abs, workdir)
            if import_out.size:
                text += f"\n[printed while importing]\n{import_out.getvalue()}"
            file = None
            if isinstance(exc, SyntaxError) and exc.filename:
                file = os.path.relpath(os.path.abspath(exc.filename), workdir)
                line = exc.lineno
            else:
                frames = [f for f in traceback.extract_tb(exc.__traceback__) if _in_workdir(f.filename, workdir)]
                if frames:
                    file = os.path.relpath(os.path.abspath(frames[-1].filename), workdir)
                    line = frames[-1].lineno
            if file is None and line is not None:
                file = config["target"]
            emit({"type": "collection-error", "message": _message(exc, workdir), "file": file, "line": line, "traceback": text})
            if isinstance(exc, (MemoryError, RecursionError)):
                poison.reason = type(exc).__name__
            return
        emit({"type": "collected", "tests": [_test_id(t) for t in tests]})
        preface = f"[printed while importing]\n{import_out.getvalue()}\n[printed by the test]\n" if import_out.size else ""
        for test in tests:
            current = _test_id(test)
            _run_one(test, check_mod, cap, target_abs, workdir, emit, poison, preface)
            preface = ""
            current = None
        if check_mod.MODE == "record":
            emit({"type": "recorded", "expected": _dumps(check_mod.RECORDED, indent=1, sort_keys=True)})
    except KeyboardInterrupt as exc:
        # Where the code was when it was stopped: the line is marked in the editor.
        text, line = _format_tb(exc, target_abs, workdir)
        emit({"type": "interrupted", "id": current, "line": line, "traceback": text})
    finally:
        changed = guard.changes()
        if changed:
            emit({"type": "tampered", "what": changed})
        emit({"type": "end", "poisoned": poison.reason})


def _changed(cur, saved):
    """Whether a module dict differs from its snapshot. Dict equality runs in C
    and checks identity first; values whose ``==`` raises (arrays) fall back to
    identity."""
    try:
        return cur != saved
    except Exception:  # noqa: BLE001 - a value's __eq__ failed; compare identities
        return cur.keys() != saved.keys() or any(cur[k] is not v for k, v in saved.items())


_CODE_CACHE = {}


def install_code_cache(limit=512):
    """Reuse compiled code for unchanged source files (repo files and tests do
    not change between runs). Keyed by path and source bytes; code objects are
    immutable, so sharing them between runs leaks no state."""
    from importlib.machinery import SourceFileLoader

    if getattr(SourceFileLoader.source_to_code, "_recode_cached", False):
        return
    original = SourceFileLoader.source_to_code

    def source_to_code(self, data, path, *args, **kwargs):
        key = (path, bytes(data))
        code = _CODE_CACHE.get(key)
        if code is None:
            code = original(self, data, path, *args, **kwargs)
            if len(_CODE_CACHE) >= limit:
                _CODE_CACHE.clear()
            _CODE_CACHE[key] = code
        return code

    source_to_code._recode_cached = True
    SourceFileLoader.source_to_code = source_to_code


class Sandbox:
    """Snapshot of interpreter state taken before a run and restored after it,
    so a run cannot leak modules, globals, builtins, files or the working
    directory into the next (used by the long-lived Pyodide instance)."""

    KEEP = {"sys", "builtins"}

    def __init__(self, workdir, watch_dirs):
        self.workdir = os.path.abspath(workdir)
        self.cwd = os.getcwd()
        self.modules = set(sys.modules)
        self.module_dicts = {}
        for name, mod in list(sys.modules.items()):
            d = getattr(mod, "__dict__", None)
            if name not in self.KEEP and isinstance(d, dict):
                self.module_dicts[name] = dict(d)
        self.classes = []
        for name, d in self.module_dicts.items():
            for v in d.values():
                if _is_heap_class(v) and getattr(v, "__module__", None) == name:
                    self.classes.append((v, dict(vars(v))))
        self.builtins = dict(builtins.__dict__)
        self.path = list(sys.path)
        self.meta_path = list(sys.meta_path)
        self.argv = list(sys.argv)
        self.environ = dict(os.environ)
        self.recursion = sys.getrecursionlimit()
        self.random_state = random.getstate()
        self.stdout, self.stderr, self.stdin = sys.stdout, sys.stderr, sys.stdin
        self.watch_dirs = tuple(watch_dirs)
        self.rescan_files()

    def rescan_files(self):
        """Note what the watched folders hold now (their new entries are removed at restore)."""
        self.watch = {d: set(os.listdir(d)) for d in self.watch_dirs if os.path.isdir(d)}

    def restore(self):
        """Put everything back. Each step is guarded so that one failure
        (e.g. a candidate's ``__del__`` raising) does not skip the others."""
        for step in (
            self._restore_globals,
            self._restore_streams_and_cwd,
            self._restore_modules,
            self._restore_files,
        ):
            try:
                step()
            except Exception:  # noqa: BLE001 - best effort; the remaining steps still run
                pass

    def _restore_streams_and_cwd(self):
        sys.stdout, sys.stderr, sys.stdin = self.stdout, self.stderr, self.stdin
        try:
            os.chdir(self.cwd)
        except OSError:
            os.chdir("/")

    def _restore_modules(self):
        for name in list(sys.modules):
            if name not in self.modules:
                del sys.modules[name]
        for name, d in self.module_dicts.items():
            mod = sys.modules.get(name)
            if mod is None:
                continue
            cur = mod.__dict__
            if _changed(cur, d):
                cur.clear()
                cur.update(d)
        for cls, saved in self.classes:
            if not _changed(dict(vars(cls)), saved):
                continue
            for k in [k for k in vars(cls) if k not in saved]:
                try:
                    delattr(cls, k)
                except (AttributeError, TypeError):
                    pass
            for k, v in saved.items():
                if vars(cls).get(k, _MISSING) is not v:
                    try:
                        setattr(cls, k, v)
                    except (AttributeError, TypeError):
                        pass

    def _restore_globals(self):
        import importlib

        _bd_clear()
        _bd_update(self.builtins)
        sys.path[:] = self.path
        sys.meta_path[:] = self.meta_path
        sys.argv[:] = self.argv
        os.environ.clear()
        os.environ.update(self.environ)
        sys.setrecursionlimit(self.recursion)
        random.setstate(self.random_state)
        importlib.invalidate_caches()

    def _restore_files(self):
        import shutil

        for d, names in self.watch.items():
            if not os.path.isdir(d):
                continue
            for name in set(os.listdir(d)) - names:
                p = os.path.join(d, name)
                if os.path.isdir(p) and not os.path.islink(p):
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    try:
                        os.remove(p)
                    except OSError:
                        pass
        shutil.rmtree(self.workdir, ignore_errors=True)


_SANDBOX = None
_bd_clear = builtins.__dict__.clear
_bd_update = builtins.__dict__.update


def run_isolated(config, emit_text, watch_dirs=("/tmp", "/home/pyodide")):
    """Write the run's files (unless the host wrote them already, ``files``
    absent), run the tests from the run's directory with a fresh ``sys.path``
    entry, then restore the interpreter (see ``Sandbox``)."""
    global _SANDBOX
    workdir = config["workdir"]
    sandbox = _SANDBOX
    # A restored interpreter is in the snapshot's state again, so the snapshot
    # can be reused as long as no module appeared in between (e.g. a package load).
    if sandbox is None or sandbox.workdir != os.path.abspath(workdir) or sys.modules.keys() != sandbox.modules:
        sandbox = Sandbox(workdir, watch_dirs)
    else:
        sandbox.rescan_files()
    _SANDBOX = sandbox
    try:
        for rel, text in config.get("files", {}).items():
            path = os.path.join(workdir, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        os.chdir(workdir)
        sys.path.insert(0, workdir)
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
        run_tests(config, emit_text)
    finally:
        sandbox.restore()
        _SANDBOX = sandbox
    now = _code_fingerprint()
    damaged = sorted(k for k, v in _TRUSTED_CODE.items() if now.get(k) != v)
    return f"tainted: {', '.join(damaged[:5])}" if damaged else ""


def _main():
    """Native entry: python3 harness.py CONFIG.json; events to fd 3."""
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    out = os.fdopen(3, "w", encoding="utf-8", buffering=1)

    def emit_text(text):
        out.write(text + "\n")
        out.flush()

    os.chdir(config["workdir"])
    sys.path.insert(0, os.path.abspath(config["workdir"]))
    sys.dont_write_bytecode = True
    try:
        run_tests(config, emit_text)
    finally:
        # Do not wait for threads the submission left running.
        out.flush()
        os._exit(0)


def run_json(config_text, emit_text):
    """Pyodide entry: config as JSON text (see ``run_tests`` plus ``files``).
    Returns "" or ``tainted: <what>`` when the run damaged the harness in a
    way restoring cannot undo (the instance must then be replaced)."""
    install_code_cache()
    return run_isolated(json.loads(config_text), emit_text)


# Fingerprint of the protected code as imported (see ``_code_fingerprint``).
_TRUSTED_CODE = _code_fingerprint()

if __name__ == "__main__":
    _main()
