"""What a submission must not change while its tests run, and how a change is seen.

The test framework, the value checks, the harness and the modules they rely on
are protected. ``Guard`` notes them before a run; ``Guard.changes()`` (called
at every test's start, before every test's result, and when the run ends) says which of them the
run changed: a function or class of a protected module replaced or removed, a
method of one of their classes, an existing built-in, or the code of one of
their functions (``__code__`` rewritten). A change makes the run's results
untrusted. What the run changed does not reach the next one: Pyodide writes
its memory back after every run (memory-snapshot.ts), and each native run is a
new process.
"""

import builtins
import contextlib
import functools
import gc
import re
import re._compiler
import os
import sys
import types
from collections import namedtuple
from itertools import chain
from operator import attrgetter, methodcaller
from operator import is_ as _is

# The interpreter's vars(), taken as this module loads: the built-in one becomes a Python function that reads
# frames (recode_frame_builtins), and the guard's looks call it for every dictionary they compare.
_vars = vars

from recode_frame_builtins import make_frame_builtins
from recode_stack import take_stack_views
from recode_frames import READER_SYS, code_objects, fixed_frame_functions, frame_reader_functions, frame_wall, handlers_without_frames
from recode_testpy import is_descriptor
from recode_testtext import TEST_MODULE
from recode_touch import touch_counter, with_ctypes

PROTECTED_MODULES = (
    "unittest",
    # unittest's per-part executor and subTest are contextlib context managers; the rest is what unittest.case
    # calls to decide an assertion (assertRegex, assertCountEqual, assertWarns, the diff of assertEqual).
    "contextlib",
    "re",
    # What a pattern is compiled with (unittest.case's patterns are compiled anew every time: _FreshPatterns).
    "re._compiler",
    "re._parser",
    "re._constants",
    "re._casefix",
    "collections",
    "difflib",
    "pprint",
    "functools",
    "warnings",
    "unittest.case",
    "unittest.result",
    "unittest.suite",
    "unittest.loader",
    "unittest.util",
    # What assertLogs and assertNoLogs decide with (imported by them at first use: settle_lazy_globals).
    "unittest._log",
    # What unittest and the guard's own helpers read at call time (``types.FunctionType`` in ``skip``).
    "types",
    "recode_check",
    "recode_harness",
    "recode_guard",
    "recode_frames",
    "recode_stack",
    "recode_readers",
    "recode_frame_builtins",
    "recode_testpy",
    "recode_testtext",
    "recode_touch",
    "recode_super",
    "recode_module_fixtures",
    "math",
    "json",
    "json.encoder",
    "traceback",
    "io",
    # The standard library's modules a test computes its inputs and expected values with (loaded with the guard,
    # below): a candidate that set statistics.mean as test.py imported it passed a test whose expected value
    # test.py computed with it.
    *(STANDARD_MODULES := ("random", "statistics", "fractions", "decimal", "numbers", "cmath", "heapq", "bisect", "operator", "itertools", "copy")),
)

# Loaded before any code under test runs, so that they are protected as they were loaded.
for _name in STANDARD_MODULES:
    __import__(_name)
del _name
# What random binds in its globals at its first str or bytes seed (3.14's ``_sha512``), bound now: an honest
# ``random.seed("experiment-1")`` would change the module.
sys.modules["random"].Random("")

# Protected modules whose dictionaries unittest itself changes and puts back within a test:
# ``warnings.catch_warnings`` (behind ``assertWarns``) rebinds ``warnings.showwarning`` and the filters.
_CHURN = frozenset(("warnings",))

# Names of protected modules that code under test may set, as honest code does (no test decides with them):
# how a warning is shown and formatted (``warnings.showwarning = ...``, ``logging.captureWarnings(True)``).
# ``assertWarns`` records warnings with the original ``showwarning`` put back (``catch_warnings(record=True)``).
# And the attributes of a protected module's object that honest use sets: random's shared generator's
# ``gauss_next`` (``random.seed``, ``random.gauss``); any other attribute set on it (``_randbelow``, which
# ``randint`` and ``shuffle`` call) is a change.
_SETTABLE = {"warnings": frozenset(("showwarning", "formatwarning")), "random._inst": frozenset(("gauss_next",))}

# Classes of the protected modules that write their own class attributes as they work, so cannot be frozen and
# would be seen changed: left out of the protected classes (noted as their modules' values). Neither unittest
# nor the check helper uses them. difflib's HtmlDiff counts the tables it makes in ``_default_prefix``.
_SELF_WRITING_CLASSES = frozenset((("difflib", "HtmlDiff"),))

# Packages whose modules loaded before the run are watched as the protected modules are (their functions and
# submodules, not their classes): tests decide with them (``np.allclose`` in an ``assertTrue``), and a function
# of theirs reads its module's globals (``allclose`` calls its module's ``isclose``).
WATCHED_PACKAGES = ("numpy",)

_MISSING = object()
_NO_NAMES = frozenset()
# A module's records of how it was imported (its spec and loader): objects with attributes, not the module's own.
_IMPORT_RECORDS = frozenset(("__spec__", "__loader__"))
# Modules whose count of changes is used even when test.py patches modules itself: tests do not patch the test
# framework or the harness.
_NEVER_PATCHED = ("unittest", "contextlib", "recode_", *(name for name, _ in READER_SYS))
# The interpreter's own getsignal, taken before the guard replaces it (it hands out what is installed).
_real_getsignal = __import__("_signal").getsignal
_METHOD_TYPES = (type(lambda: None), staticmethod, classmethod)
_values = methodcaller("values")
_MODULE = type(sys)
_MEMBER_DESCRIPTOR = type(types.FunctionType.__dict__["__closure__"])


def _compile_fresh(pattern, flags=0, _compile=re._compiler.compile, _pattern=re.Pattern, _str=str, _bytes=bytes, _int=int):
    """``re.compile`` without ``re``'s cache of compiled patterns (see ``_FreshPatterns``)."""
    if type(pattern) is _pattern and not flags:
        return pattern
    if not isinstance(pattern, (_str, _bytes)):
        raise TypeError("first argument must be string or compiled pattern")
    return _compile(pattern, _int(flags))


class _FreshPatterns:
    """What ``unittest.case`` calls ``re`` (the only name of re's it uses is
    ``compile``, behind ``assertRegex``, ``assertNotRegex`` and the
    ``...Regex`` forms of ``assertRaises`` and ``assertWarns``): every
    pattern compiled anew. re's cache of compiled patterns is a dictionary
    code under test can write to: an entry that matches anything, put there
    under a test's pattern, would make those assertions pass. An object with
    no attributes of its own, of an immutable class."""

    __slots__ = ()
    compile = staticmethod(_compile_fresh)
    error = re.error
    Pattern = re.Pattern


_FRESH_PATTERNS = _FreshPatterns()


def fresh_patterns():
    """Give ``unittest.case`` its ``re`` without a cache (``_FreshPatterns``), before the guard notes it."""
    case = sys.modules.get("unittest.case")
    if case is not None and getattr(case, "re", None) is re:
        case.re = _FRESH_PATTERNS


class WarningRegistry(dict):
    """Where the interpreter notes the warnings said from a module's code (``__warningregistry__``), as a
    dictionary that says it is empty. ``assertWarns`` rebinds, in every module whose registry is not empty, the
    registry to a new dictionary: in test.py's module, a dictionary that must not change while a test runs, and
    in the protected modules, whose values must not change at all. The interpreter reads and writes the
    registry as a dictionary, and forgets what it noted whenever the filters change (as ``assertWarns`` changes
    them), which is what the rebinding was for."""

    __slots__ = ()

    def __len__(self):
        return 0


def give_warning_registries(modules):
    """Give each of these modules a ``WarningRegistry`` (holding what its registry held), before they are noted."""
    for mod in modules:
        d = getattr(mod, "__dict__", None)
        if type(d) is dict and type(d.get("__warningregistry__")) is not WarningRegistry:
            d["__warningregistry__"] = WarningRegistry(d.get("__warningregistry__") or ())


def is_heap_class(v):
    """A class defined in Python (its attributes can be changed), not a built-in type."""
    return isinstance(v, type) and bool(v.__flags__ & (1 << 9))


# Py_TPFLAGS_IMMUTABLETYPE: setting or deleting an attribute of such a class raises TypeError.
_IMMUTABLE_TYPE = 1 << 8


_METHOD_TYPE = types.MethodType


class _ContextHelper(tuple):
    """What ``contextlib.contextmanager`` makes of a generator function, without a closure: the function
    is this tuple's one item, where nothing can set it. contextmanager's own helper keeps it in a closure
    cell, whose contents code under test can set with no audit event and put back before the guard looks
    again: unittest's per-part executor swapped that way, for one test, from a collection's callback,
    had every failure of the test reported as a success (and handed the swapped-in code the test, its
    result and the harness's run). A method, as the helper is (``__get__``)."""

    __slots__ = ()

    def __call__(self, *args, **kwds):
        return contextlib._GeneratorContextManager(self[0], args, kwds)

    def __get__(self, obj, cls=None):
        # (The method type as this module loaded: ``types`` is no protected module, and a MethodType set there by
        # code under test was handed unittest's outcome and gave it a per-part executor that swallowed every failure.)
        return self if obj is None else _METHOD_TYPE(self, obj)


class _PartExecutor(_ContextHelper):
    """unittest's per-part executor (``_Outcome.testPartExecutor``) as a ``_ContextHelper`` (its generator
    function and unittest's ``_ShouldStop``, the tuple's items) that takes ``_ShouldStop`` escaping a test
    part for an error. unittest raises it only to end a test early (failfast, which the harness never sets,
    and a subtest failing as an expected failure expects) and swallows it in every part: raised by code under
    test inside a subTest, or a test method, set-up or clean-up, it ended the part as a success."""

    __slots__ = ()

    def __call__(self, *args, **kwds):
        return _StopRefusingPart((contextlib._GeneratorContextManager(self[0], args, kwds), args[0] if args else None, self[1]))


class ControlFlowError(RuntimeError):
    """unittest's private ``_ShouldStop`` raised by code under test (``_PartExecutor``)."""


class _StopRefusingPart(tuple):
    """One test part's context (``_PartExecutor``): unittest's own, the outcome it reports to, and ``_ShouldStop``."""

    __slots__ = ()

    def __enter__(self):
        return self[0].__enter__()

    def __exit__(self, typ, value, tb):
        # (An expected failure's test method may end early through it, as unittest's subTest does. The class of
        # the object unittest's generator is thrown, which is what it matches; the guard's audit hook refuses
        # to change the class or the bases of an exception, so it is the one unittest matches.)
        if value is not None:
            typ = type(value)
        if typ is not None and issubclass(typ, self[2]) and not getattr(self[1], "expecting_failure", False):
            typ, value = ControlFlowError, ControlFlowError(
                "the code raised unittest's internal _ShouldStop, which would end the test without a verdict"
            )
        return self[0].__exit__(typ, value, tb)


def _context_helper_code():
    """The code of contextlib.contextmanager's helper (what its wrapper runs), or None."""
    helper = contextlib.contextmanager(lambda: (yield))
    return helper.__code__ if type(helper) is types.FunctionType else None


_CONTEXT_HELPER_CODE = _context_helper_code()


def seal_context_helpers(cls):
    """Put a closure-free helper (``_ContextHelper``) in place of each ``contextlib.contextmanager`` helper
    of class ``cls`` (unittest's ``_Outcome.testPartExecutor``, ``TestCase.subTest``), before it is frozen."""
    for name, value in list(vars(cls).items()):
        if (
            type(value) is types.FunctionType
            and value.__code__ is _CONTEXT_HELPER_CODE
            and value.__closure__ is not None
            and len(value.__closure__) == 1
        ):
            fn = value.__closure__[0].cell_contents
            case = sys.modules.get("unittest.case")
            if case is not None and cls is getattr(case, "_Outcome", None) and name == "testPartExecutor":
                type.__setattr__(cls, name, _PartExecutor((fn, case._ShouldStop)))
            else:
                type.__setattr__(cls, name, _ContextHelper((fn,)))


def _flags_offset(ctypes):
    """Where a class's flags are (``tp_flags``, an unsigned long), found on a class of our own (its other
    fields hold small numbers and pointers) and proven there: set, Py_TPFLAGS_IMMUTABLETYPE refuses a
    change. Returns (the ctypes word, its offset)."""
    word = ctypes.c_ulong
    probe = type("_FlagsProbe", (), {})
    size = ctypes.sizeof(word)
    off = next((o for o in range(0, 64 * size, size) if word.from_address(id(probe) + o).value == probe.__flags__), None)
    if off is None:
        raise RuntimeError("the flags of a class were not found")
    word.from_address(id(probe) + off).value = probe.__flags__ | _IMMUTABLE_TYPE
    try:
        probe.x = 1
    except TypeError:
        pass
    else:
        raise RuntimeError("classes could not be made immutable here")
    return word, off


def _flags_of(cls, word, off):
    """The ctypes word of ``cls``'s flags (every class's flags are at the same place: read back first, to be sure)."""
    flags = word.from_address(id(cls) + off)
    if flags.value != cls.__flags__:
        raise RuntimeError(f"the flags of {cls.__qualname__} are not where a class's are")
    return flags


def freeze_classes(classes):
    """Make these classes immutable: setting or deleting one of their
    attributes raises ``TypeError`` (``type.__setattr__`` refuses it). A
    change to a class raises no audit event, so a method of the framework
    swapped by code under test and put back within one test (one assertion)
    would be seen by none of the guard's looks. Python has no API for it: the
    class's flags are set through ctypes (``recode_touch.with_ctypes``). Classes already
    immutable, and built-in types, are left as they are (so a second call
    imports nothing)."""
    todo = [c for c in classes if is_heap_class(c) and not c.__flags__ & _IMMUTABLE_TYPE]
    if not todo:
        return
    for cls in todo:
        seal_context_helpers(cls)

    def freeze(ctypes):
        word, off = _flags_offset(ctypes)
        for cls in todo:
            _flags_of(cls, word, off).value = cls.__flags__ | _IMMUTABLE_TYPE

    with_ctypes(freeze)
    if any(not c.__flags__ & _IMMUTABLE_TYPE for c in todo):
        raise RuntimeError("classes could not be made immutable here (no ctypes)")


def _set_builtin_attribute(ctypes, cls, name, value):
    """Set ``name`` of the immutable built-in type ``cls`` to ``value``: in the type's own dictionary
    (``type.__setattr__`` refuses, and from Python 3.12 it would write a built-in type's attribute where no
    lookup reads it), then the interpreter's caches of its lookups dropped (``PyType_Modified``)."""
    (real,) = [d for d in gc.get_referents(cls.__dict__) if type(d) is dict]
    real[name] = value
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))


def seal_reinitialising(objects):
    """Refuse to run again the initialiser of a descriptor object that is made
    already (``staticmethod.__init__``, ``classmethod.__init__``,
    ``property.__init__``, ``functools.partial``'s ``__setstate__``): run
    again, it swaps what the object wraps in place, with no audit event, while
    every dictionary holds the same object (a ``staticmethod`` around
    ``sys._getframe`` made to wrap C code that kept the frames it got;
    ``unittest.TestCase.setUpClass`` made to run the candidate's code; a
    test.py's own staticmethod made to return no bad inputs). Each type's
    method is replaced, in the type's own dictionary, by a function that
    refuses an object that wraps something already (a partial: one that holds
    arguments, or is given another function; a copy or an unpickled one is
    made with its function alone, then given its state), and the protected
    classes' and modules' own (by id: they live as long as the interpreter),
    and runs the original for any other. ``objects``: the
    protected (label, object, kind) triples. Takes ctypes: before
    ``hide_ctypes_classes``. A second call does nothing. Returns the new
    functions."""
    import functools

    partial = functools.partial
    methods = ((staticmethod, "__init__"), (classmethod, "__init__"), (property, "__init__"), (partial, "__setstate__"))
    if all(type(cls.__dict__[name]) is _FUNCTION for cls, name in methods):
        return [cls.__dict__[name] for cls, name in methods]
    kinds = tuple(cls for cls, _ in methods)
    # id -> the object (held here, the ids stay theirs).
    held = {id(v): v for _, obj, kind in objects if kind in ("class", "module") for v in list(vars(obj).values()) if type(v) in kinds}
    made = []
    # Whether an object already wraps something (read with the type's own descriptors, not the object's class's).
    func_of = {cls: cls.__dict__["__func__"].__get__ for cls in (staticmethod, classmethod)}
    accessors = [property.__dict__[k].__get__ for k in ("fget", "fset", "fdel")]
    func_of[property] = lambda obj: next((v for v in (get(obj) for get in accessors) if v is not None), None)
    p_func, p_args, p_keywords = (partial.__dict__[k].__get__ for k in ("func", "args", "keywords"))

    def initialised(cls, obj, args):
        if cls is not partial:
            return func_of[cls](obj) is not None
        # A copy or an unpickled partial is made with its function alone, then given its state (a tuple of four,
        # its function first): refused when it already holds arguments or is given anything else.
        state = args[0] if len(args) == 1 else None
        return bool(p_args(obj) or p_keywords(obj)) or type(state) is not tuple or len(state) != 4 or state[0] is not p_func(obj)

    def refusing(real, what, cls):
        # (What it refuses and runs is in its closure, which no code under test can read: seal_closures.)
        def method(self, /, *args, **kwargs):
            if id(self) in held or initialised(cls, self, args):
                raise TypeError(f"{what} cannot be run again on an object that is made already (by code under test)")
            return real(self, *args, **kwargs)

        method.__doc__ = real.__doc__
        return method

    def install(ctypes):
        for cls, name in methods:
            real = cls.__dict__[name]
            if type(real) is not _FUNCTION:
                new = refusing(real, f"{cls.__name__}.{name}", cls)
                _set_builtin_attribute(ctypes, cls, name, new)
                made.append(new)

    with_ctypes(install)
    if not all(type(cls.__dict__[name]) is _FUNCTION for cls, name in methods):
        raise RuntimeError("the framework's descriptors could not be sealed here")
    return made


def _abc_dump_shown(shown):
    """``abc._get_dump`` (and ``_abc``'s, which ``_imp.create_builtin`` gives again: recode_frames) with only the
    classes ``shown`` decides to show: an ABC's registry and caches of ``isinstance`` answers hold every class
    asked about, and logging's record asks whether its argument is a ``Mapping``: code under test read test.py's
    class there, and its namespace from a method's ``__globals__`` (both backends)."""
    import _abc
    import abc

    real = _abc._get_dump
    _set, _filter = set, filter

    def keep(ref):
        c = ref()
        try:
            return c is None or shown(c)
        except TypeError:  # (not a class: none is put there)
            return True

    def _get_dump(cls, /):
        registry, cache, negative, version = real(cls)
        return (*(_set(_filter(keep, refs)) for refs in (registry, cache, negative)), version)

    _get_dump.__doc__ = real.__doc__
    _abc._get_dump = abc._get_dump = _get_dump


def hide_ctypes_classes():
    """Leave ctypes' classes out of every ``__subclasses__()``. The guard
    keeps ctypes objects for its own use (its counts of changes read version
    tags through ctypes words; Pyodide's dictionary watcher is a ctypes
    callback), and natively ``_ctypes``'s types live as long as the process
    once it is loaded: code under test walked ``object.__subclasses__()`` to
    them, and ``py_object.__repr__.__globals__`` (ctypes' whole namespace,
    ``pythonapi`` included) or a pointer type of its own read and wrote the
    interpreter's memory (frames, the test object, closure cells). test.py's
    classes (their module is test.py's, which is in no ``sys.modules``) are
    left out too: they lead to test.py's data. ``type``'s
    ``__subclasses__`` becomes a function that leaves them out (the
    original, and the classes' ids, in its closure, which no code under test
    can read). Called once ctypes is done with (the other classes made after
    it stay visible); a second call does nothing. Returns the new
    function."""
    real = type.__dict__["__subclasses__"]
    if type(real) is _FUNCTION:
        return real
    made = []

    def install(ctypes):
        # (Walked now that ctypes is imported for the last time: each import makes its classes anew.)
        hidden, seen, stack = [], set(), [object]
        while stack:
            cls = stack.pop()
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            module = type.__dict__["__module__"].__get__(cls)
            if type(module) is str and module.split(".")[0] in ("ctypes", "_ctypes"):
                hidden.append(cls)
            stack.extend(real(cls))

        # The classes themselves are kept (the values of left_out, in this closure): ctypes' Python classes go with the module, and a
        # class made later at the same address (numbers.Integral) took the dead one's id and was left out too,
        # and with it every ABC check that walks __subclasses__ (isinstance(1, numbers.Rational) was False).
        left_out = {id(c): c for c in hidden}
        module_of = type.__dict__["__module__"].__get__

        def shown(c):
            if id(c) in left_out:
                return False
            try:
                return module_of(c) != TEST_MODULE
            except AttributeError:
                return True

        # (The original and the ids in its closure, not in defaults a caller could pass.)
        def __subclasses__(cls, /):
            return [c for c in real(cls) if shown(c)]

        __subclasses__.__doc__ = real.__doc__
        _set_builtin_attribute(ctypes, type, "__subclasses__", __subclasses__)
        made.append(__subclasses__)
        _abc_dump_shown(shown)

    with_ctypes(install)
    if not made or type.__dict__["__subclasses__"] is not made[0]:
        raise RuntimeError("ctypes' classes could not be left out of __subclasses__ here")
    return made[0]


def settle_lazy_globals():
    """Bind now what a protected module binds in its globals at its first use, before the guard notes it
    (and before the protected classes are frozen): an honest run's first use would change the module (3.14's
    ``Counter.most_common`` imports heapq into collections' globals), and a part of the framework imported
    at first use would be loaded by the run, neither frozen nor protected (``assertLogs`` imports
    ``unittest._log``: code under test that imported it first had its context's ``__exit__`` drop every
    failure)."""
    import collections
    import unittest._log  # noqa: F401

    collections.Counter((0,)).most_common(1)


def _closure_readable_codes():
    """The codes of the functions a protected module makes for a run's own class and then reads the closure
    of itself: dataclasses' ``__annotate__`` of a slotted dataclass's ``__init__`` (Python 3.14). Their cells
    hold that class and its fields' annotations, nothing of the framework's."""
    import dataclasses

    make = getattr(dataclasses, "_make_annotate_function", None)
    code = getattr(make, "__code__", None)
    return [c for c in (code.co_consts if code is not None else ()) if type(c) is types.CodeType and c.co_name == "__annotate__"]


# What ``seal_closures`` made, until the guard takes it (``take_sealed_closures``).
_SEALED_CLOSURES = []


def seal_closures():
    """Make the closures of the functions loaded before the run unreadable to
    code under test: reading ``__closure__`` of a function whose globals are
    those of a sealed module raises ``AttributeError`` (introspection that
    skips what it cannot read goes on). A closure cell's
    contents can be set with no audit event, and no dictionary counts the
    change, so a cell swapped and put back between two of the guard's looks
    was seen by none of them: a test.py's own test made by a helper
    (``def expect_error(fn, *args): def test(self): ...``) had its ``fn``
    swapped for one that raised the expected error and put itself back, and
    so did unittest's per-part executor, the framework's ``super()``
    cells and the wrappers of its deprecated aliases. Without the cell
    itself, nothing can be swapped. The function type's ``__closure__`` is
    replaced by a descriptor (an immutable class) whose ``__get__`` holds the
    interpreter's own in its defaults; the type is immutable, so the
    descriptor is put in its dictionary directly and the interpreter told
    through ctypes. Which modules are sealed is
    said later (the guard's ``protect`` seals every module it notes, test.py's
    included); the guard takes the reader of closures it needs itself with
    ``take_sealed_closures``. A second call does nothing.

    The same holds for ``__kwdefaults__``, the function's own dictionary,
    whose items can be set with no audit event: for a function of a sealed
    module it reads as a copy. Neither it nor ``__defaults__`` of such a
    function can be set or deleted. dataclasses' ``__annotate__`` functions are
    let through (``_closure_readable_codes``)."""
    function = types.FunctionType
    member = function.__dict__["__closure__"]
    if type(member) is not _MEMBER_DESCRIPTOR:
        return
    sealed = set()
    read, globals_of, code_of = member.__get__, function.__globals__.__get__, function.__code__.__get__
    kwdefaults = function.__dict__["__kwdefaults__"]
    read_kw, set_kw, delete_kw = kwdefaults.__get__, kwdefaults.__set__, kwdefaults.__delete__
    defaults = function.__dict__["__defaults__"]
    read_defaults, set_defaults, delete_defaults = defaults.__get__, defaults.__set__, defaults.__delete__
    # Codes whose functions dataclasses makes for a run's own class and then reads the closure of (3.14's
    # ``__annotate__`` of a slotted dataclass's ``__init__``, whose ``__class__`` cell it points at the new class).
    readable = tuple(_closure_readable_codes())

    def annotate(code, _names=frozenset(("__classdict__", "__conditional_annotations__"))):
        # The compiler's ``__annotate__`` of a class body (3.14, PEP 649), whose closure annotationlib reads to
        # evaluate the annotations in its FORWARDREF format (typing's NamedTuple and TypedDict classes): its
        # cells hold the class's namespace while it is made, nothing the class does not give.
        return code.co_name == "__annotate__" and bool(code.co_freevars) and _names.issuperset(code.co_freevars)

    class SealedClosure:
        """The function type's ``__closure__``: refused for a function of a sealed module (``seal_closures``)."""

        __slots__ = ()

        # (What it reads with is in its closure, not in defaults a caller could pass: seal_closures' own cells.)
        def __get__(self, fn, cls=None):
            if fn is None:
                return self
            if id(globals_of(fn)) in sealed and not any(code_of(fn) is c for c in readable) and not annotate(code_of(fn)):
                raise AttributeError(
                    "the closure of a function the run did not define cannot be read by code under test "
                    "(its cells could be changed with no trace)"
                )
            return read(fn, cls)

        def __set__(self, fn, value):
            raise AttributeError("readonly attribute")

        def __delete__(self, fn):
            raise AttributeError("readonly attribute")

    def refuse_if_sealed(fn, name):
        if id(globals_of(fn)) in sealed:
            raise AttributeError(f"the {name} of a function the run did not define cannot be changed by code under test")

    class SealedKeywordDefaults:
        """The function type's ``__kwdefaults__``: for a function of a sealed module, a copy that cannot be set
        (``seal_closures``). The interpreter's own is the function's dictionary itself, and an item set in it
        raises no audit event: json.dumps's encoder class, or a wrapper's keyword default, changed in place by
        code under test."""

        __slots__ = ()

        def __get__(self, fn, cls=None):
            if fn is None:
                return self
            # (No local holds the function's own dictionary: code under test run from C while this frame is the
            # current one, by a finalizer, can read the current frame's locals.)
            if id(globals_of(fn)) in sealed:
                return None if read_kw(fn, cls) is None else dict(read_kw(fn, cls))
            return read_kw(fn, cls)

        def __set__(self, fn, value):
            refuse_if_sealed(fn, "keyword-only defaults")
            set_kw(fn, value)

        def __delete__(self, fn):
            refuse_if_sealed(fn, "keyword-only defaults")
            delete_kw(fn)

    class SealedDefaults:
        """The function type's ``__defaults__``: for a function of a sealed module, it cannot be set
        (``seal_closures``). The audit hook refuses it only for the functions noted by then; a test.py's helper
        (``def assert_rejects_all(test, fn, *, bad=(...))``), or one it makes, is made during the run."""

        __slots__ = ()

        def __get__(self, fn, cls=None):
            return self if fn is None else read_defaults(fn, cls)

        def __set__(self, fn, value):
            refuse_if_sealed(fn, "defaults")
            set_defaults(fn, value)

        def __delete__(self, fn):
            refuse_if_sealed(fn, "defaults")
            delete_defaults(fn)

    def closure_of(fn, _get=member.__get__):
        return _get(fn)

    def seal_module(module, _sealed=sealed, _module=_MODULE, _dict_of=_MODULE.__dict__["__dict__"].__get__, _id=id):
        if type(module) is _module:
            _sealed.add(_id(_dict_of(module)))

    def install(ctypes):
        word, off = _flags_offset(ctypes)
        for made in (SealedClosure, SealedKeywordDefaults, SealedDefaults):
            _flags_of(made, word, off).value = made.__flags__ | _IMMUTABLE_TYPE
        _set_builtin_attribute(ctypes, function, "__closure__", SealedClosure())
        _set_builtin_attribute(ctypes, function, "__kwdefaults__", SealedKeywordDefaults())
        _set_builtin_attribute(ctypes, function, "__defaults__", SealedDefaults())

    with_ctypes(install)
    _SEALED_GLOBALS.append(sealed)
    if (
        type(function.__dict__["__closure__"]) is not SealedClosure
        or type(function.__dict__["__kwdefaults__"]) is not SealedKeywordDefaults
        or type(function.__dict__["__defaults__"]) is not SealedDefaults
        or not function.__flags__ & _IMMUTABLE_TYPE
    ):
        raise RuntimeError("the closures of functions could not be sealed here")
    _SEALED_CLOSURES.append((closure_of, seal_module, SealedClosure.__get__))


# The ids of the sealed modules' globals (seal_closures' own set), until seal_frame_builtins takes it.
_SEALED_GLOBALS = []
# What seal_frame_builtins installed (and the function that made them), to be hidden by the audit hook.
_FRAME_BUILTINS = []


def library_paths():
    """The folders of Python's own files (its standard library, zipped or not, and site-packages)."""
    import sysconfig

    paths = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths.add(os.path.dirname(os.__file__))
    paths.update(p for p in sys.path if type(p) is str and p.endswith(".zip"))
    return sorted(p for p in paths if p)


def _super_without_frames(ctypes):
    """Make the interpreter's own ``super`` type refuse to be called with no arguments. ``builtins.super`` is
    the frame-reading built-in's function (``recode_frame_builtins``), but the type is within reach
    (``type(super(C, obj))``), and called with no arguments by C code (an iterator, a finalizer) it read the
    running frame's first argument: test.py's ``setUp`` gave its test object. Its initialiser becomes a
    function that calls the type's own for one or two arguments and refuses none: the type's ``__init__`` is
    set in its own dictionary and its ``tp_init`` slot pointed at the interpreter's Python-level one (taken
    from a class of our own), found where ``PyType_GetSlot`` says it is."""
    api = ctypes.pythonapi
    get_slot = api.PyType_GetSlot
    get_slot.argtypes = [ctypes.py_object, ctypes.c_int]
    get_slot.restype = ctypes.c_void_p
    tp_init = 60  # Py_tp_init (Include/typeslots.h)
    real = type(super(int, 1))
    own = get_slot(real, tp_init)

    class _Probe:
        def __init__(self):
            pass

        def __del__(self):
            pass

    python_level = get_slot(_Probe, tp_init)
    word = ctypes.c_void_p
    size = ctypes.sizeof(word)
    off = next((o for o in range(0, type.__basicsize__, size) if word.from_address(id(real) + o).value == own), None)
    if off is None or word.from_address(id(property) + off).value != get_slot(property, tp_init):
        raise RuntimeError("the super type's initialiser was not found")
    # Its vectorcall (Python 3.11 and later), which initialises without the slot: the field after tp_finalize,
    # found on the generator type (whose finalizer PyType_GetSlot gives). Left empty, a call goes through tp_init.
    fin = get_slot(types.GeneratorType, 80)  # Py_tp_finalize
    at_fin = next((o for o in range(0, type.__basicsize__, size) if word.from_address(id(types.GeneratorType) + o).value == fin), None)
    # (The same field holds a class of our own's finalizer, and the super type has a vectorcall to take away.)
    probe_fin = get_slot(_Probe, 80)
    if at_fin is None or not probe_fin or word.from_address(id(_Probe) + at_fin).value != probe_fin:
        raise RuntimeError("the vectorcall field of a type was not found")
    vectorcall = at_fin + size
    if vectorcall + size > type.__basicsize__ or not word.from_address(id(real) + vectorcall).value:
        raise RuntimeError("the vectorcall field of a type was not found")
    original = real.__dict__["__init__"]

    def __init__(self, *args, **kwargs):
        if not args and not kwargs:
            raise RuntimeError(
                "super() with no arguments reads the running frame: call super by its name (or give it the class "
                "and the object); the super type itself, called by C code, is not available to code under test"
            )
        return original(self, *args, **kwargs)

    __init__.__qualname__ = "super.__init__"
    __init__.__doc__ = original.__doc__
    _set_builtin_attribute(ctypes, real, "__init__", __init__)
    word.from_address(id(real) + off).value = python_level
    word.from_address(id(real) + vectorcall).value = None
    api.PyType_Modified(ctypes.py_object(real))
    return __init__


def _entered_by_code(ctypes):
    """``called_by_code(frame)``: whether a running Python frame was started by an instruction of the frame
    below it (a call in its bytecode) rather than by C code (a ``functools.partial``, a finalizer, a
    collection), read from the interpreter's own frame record (``_PyInterpreterFrame``): CPython 3.11 marks a
    frame C code started (``is_entry``); 3.12 and later put a frame of their own between (``previous`` is not
    the frame below). The layout is proven here on frames of our own, called both ways, or ``RuntimeError``.
    Reads memory through ctypes objects made here (no audited call at each read)."""
    ptr = ctypes.sizeof(ctypes.c_void_p)
    holder = ctypes.py_object()
    holder_at = ctypes.c_void_p.from_buffer(holder)
    words = ctypes.POINTER(ctypes.c_void_p)()
    words_at = ctypes.c_void_p.from_buffer(words)
    bytes_ = ctypes.POINTER(ctypes.c_ubyte)()
    bytes_at = ctypes.c_void_p.from_buffer(bytes_)
    new = sys.version_info >= (3, 12)
    # PyFrameObject: the object's header (two words), f_back, f_frame. _PyInterpreterFrame: frame_obj is its
    # sixth word up to 3.11 (f_func, f_globals, f_builtins, f_locals, f_code), its seventh after (f_code or
    # f_executable, previous, f_funcobj, ...); 3.11's is_entry follows prev_instr (the eighth) and stacktop.
    f_frame, frame_obj = 3 * ptr, (6 if new else 5) * ptr
    previous, is_entry = ptr, 8 * ptr + 4

    # (The ctypes objects in the closures, which code under test cannot read, not in defaults: called_by_code
    # is reachable (recode_guard._FRAME_BUILTINS), and a caller could pass its own in their place, then read a
    # byte or a word of the interpreter's memory where it chose.)
    def interpreter_frame(frame):
        holder.value = frame
        words_at.value = holder_at.value + f_frame
        holder.value = None
        return words[0]

    def called_by_code(frame):
        own = interpreter_frame(frame)
        if new:
            below = frame.f_back
            if below is None:
                return False
            words_at.value = own + previous
            return words[0] == interpreter_frame(below)
        bytes_at.value = own + is_entry
        return bytes_[0] == 0

    def frame_object_of(frame):
        words_at.value = interpreter_frame(frame) + frame_obj
        found = words[0]
        holder.value = frame
        at = holder_at.value
        holder.value = None
        return found == at

    def probe():
        here = sys._getframe(0)
        return frame_object_of(here) and frame_object_of(here.f_back), called_by_code(here)

    by_code = probe()
    by_c = functools.partial(probe)()
    if by_code != (True, True) or by_c != (True, False):
        raise RuntimeError("the interpreter's frame records were not found where they were looked for")
    return called_by_code


def seal_frame_builtins():
    """Install the built-ins that read only a frame that called them itself (``recode_frame_builtins``), once,
    after ``seal_closures`` (they tell a sealed module's frame by its set). Returns them with the function that
    made them (whose code holds theirs): the audit hook refuses to read their code and closures, since a
    function made from the frame reader's code would be let take frames."""
    if not _FRAME_BUILTINS:
        if not _SEALED_GLOBALS:
            raise RuntimeError("the frame-reading built-ins are sealed after the closures")
        called_by_code = with_ctypes(_entered_by_code)
        if called_by_code is None:
            raise RuntimeError("the frame-reading built-ins could not be sealed here (no ctypes)")
        made = make_frame_builtins(_SEALED_GLOBALS.pop(), library_paths(), called_by_code)
        init = with_ctypes(_super_without_frames)
        if init is None:
            raise RuntimeError("the super type could not be sealed here (no ctypes)")
        _FRAME_BUILTINS.extend([make_frame_builtins, *made.values(), init, called_by_code])
    return list(_FRAME_BUILTINS)


def take_sealed_closures():
    """(``closure_of(fn)``, ``seal_module(module)``, the descriptor's ``__get__``) from ``seal_closures``,
    once: the guard takes them as it is made, before any code under test runs (a second taker gets
    ``None``)."""
    return _SEALED_CLOSURES.pop() if _SEALED_CLOSURES else None


def protected_classes():
    """The classes of the protected modules (see ``_protected_objects``)."""
    return [obj for _, obj, kind in _protected_objects() if kind == "class"]


def _protected_objects():
    """(label, object, kind) for every protected module, its own classes, and
    the objects it holds at module level that carry attributes (such as
    ``json._default_encoder`` or ``unittest.defaultTestLoader``), then the
    loaded modules of ``WATCHED_PACKAGES`` (modules alone)."""
    out = []
    for name in PROTECTED_MODULES:
        mod = sys.modules.get(name)
        if mod is None:
            continue
        out.append((name, mod, "module"))
        for k, v in list(vars(mod).items()):
            # (The native harness runs as __main__ and is registered as recode_harness: its classes say "__main__".)
            if is_heap_class(v) and getattr(v, "__module__", None) in (name, mod.__name__):
                if (name, k) not in _SELF_WRITING_CLASSES:
                    out.append((f"{name}.{k}", v, "class"))
            elif (
                not isinstance(v, (type, type(sys), int))
                and k not in _IMPORT_RECORDS
                and not callable(v)
                and isinstance(getattr(v, "__dict__", None), dict)
            ):
                # (Not the import system's records of the module, nor int constants: re's flags and opcodes.)
                out.append((f"{name}.{k}", v, "object"))
    for name, mod in list(sys.modules.items()):
        if type(name) is str and name.split(".")[0] in WATCHED_PACKAGES and type(getattr(mod, "__dict__", None)) is dict:
            out.append((name, mod, "module"))
    # The frame readers' modules that are not protected (recode_frames.fixed_frame_functions): their sys.
    for name, _ in READER_SYS:
        mod = sys.modules.get(name)
        if name not in PROTECTED_MODULES and mod is not None:
            out.append((name, mod, "reader"))
    out.append(("builtins", builtins, "builtins"))
    return out


# The same label objects every time, so that two states compare by identity.
_TOOL_LABELS = tuple(f"monitoring tool {tool}" for tool in range(6))


# The same label objects every time, as above; a callback of the collector past the eighth is seen by the count.
_GC_LABELS = tuple(f"collector callback {i}" for i in range(8))


_HOOK_READERS = types.MappingProxyType(
    {
        "callbacks": gc.callbacks,
        "gettrace": sys.gettrace,
        "getprofile": sys.getprofile,
        "monitoring": getattr(sys, "monitoring", None),
        "SIGINT": getattr(__import__("_signal"), "SIGINT", 2),
    }
)


def _hooks():
    """Interpreter-wide hooks that see or steer every call: tracing, profiling,
    sys.monitoring tools, the SIGINT handler, and the collector's callbacks
    (``gc.callbacks``: with ``gc.set_threshold(1, ...)`` they run at nearly
    every allocation, inside the harness, timed to the inside of one test).
    The harness sets none of them. (What it reads them with is taken as this module loads, pinned with
    its values: an ``import gc`` here read ``sys.modules``, where a module of the candidate's with no
    callbacks hid the collector's.)"""
    callbacks = _HOOK_READERS["callbacks"]
    state = {"trace": _HOOK_READERS["gettrace"](), "profile": _HOOK_READERS["getprofile"](), "the collector's callbacks": len(callbacks)}
    for label, callback in zip(_GC_LABELS, list(callbacks)):
        state[label] = callback
    mon = _HOOK_READERS["monitoring"]
    if mon is not None:
        for tool, label in enumerate(_TOOL_LABELS):
            try:
                state[label] = mon.get_tool(tool)
            except Exception:  # noqa: BLE001 - an unknown tool id
                pass
    try:
        # The installed object as the interpreter holds it (a stand-in for a Python handler, see
        # recode_frames.handlers_without_frames), read in C: signal.getsignal would make an enum of it,
        # whose error message would run the handler's __repr__ here.
        state["SIGINT handler"] = _real_getsignal(_HOOK_READERS["SIGINT"])
    except (AttributeError, ValueError):
        pass
    return state


def _family_check(real):
    # (The interpreter's own __subclasses__ in the closure, which code under test cannot read: held by the
    # module, it walked to ctypes' classes, which the guard's __subclasses__ leaves out.)
    _inst, _sub, _type, _tuple, _exc = isinstance, issubclass, type, tuple, BaseException

    def exception_family(cls, bases):
        """Whether the class ``cls`` (whose bases are being set to ``bases``), a class built on it, or one of
        the new bases is an exception class: its new bases give each of them a new MRO (``typing.NamedTuple``
        sets the bases of the class it makes, and may)."""
        if _type(bases) is _tuple and any(_inst(b, _type) and _sub(b, _exc) for b in bases):
            return True
        seen, stack = [], [cls]
        while stack:
            c = stack.pop()
            if any(c is s for s in seen) or not _inst(c, _type):
                continue
            seen.append(c)
            if _sub(c, _exc):
                return True
            stack.extend(real(c))
        return False

    return exception_family


_exception_family = _family_check(type.__dict__["__subclasses__"])
del _family_check


def _code_or_none(v):
    """A function's code, or None (not a function, or one whose code the audit hook hides)."""
    try:
        return getattr(v, "__code__", None)
    except RuntimeError:
        return None


_CODE_ATTRS = frozenset(("__code__", "__defaults__", "__kwdefaults__"))
_FUNCTION = type(_code_or_none)


# Modules that read and write the interpreter's memory (and so everything in it): ctypes, cffi's backend (its
# pointers read and write any address, as ctypes's: a candidate walked the interpreter's frames with it), and CPython's
# C-API test modules (they read and set a function's defaults, closure and globals, a frame's locals or
# a tuple's items through the C API, where no audit hook sees it). Refused to code under test.
MEMORY_ACCESS_MODULES = frozenset(
    (
        "ctypes",
        "_ctypes",
        "_ctypes_test",
        "_cffi_backend",
        "_testcapi",
        "_testinternalcapi",
        "_testlimitedcapi",
        "_testbuffer",
        "_testclinic",
        "_testclinic_limited",
        "_testmultiphase",
        "_testsinglephase",
        "_testimportmultiple",
        "_testexternalinspection",
        "_xxtestfuzz",
        "xxsubtype",
        "_remote_debugging",
    )
)

# Modules that make subinterpreters. A subinterpreter has no audit hook of the harness's and an _imp of its
# own; natively on 3.11 it shares the built-in super's __init__ (the harness's, which refuses a call with no
# arguments), so making one stops the process with a fatal error, whose message lists every frame of the
# stack: in a child forked for it, on a pipe of the parent's, test.py's method and line. Refused to code
# under test, on both backends.
SUBINTERPRETER_MODULES = frozenset(("_xxsubinterpreters", "_xxinterpchannels", "_interpreters", "_interpchannels", "_interpqueues"))

# Modules that load native code from any file into the interpreter, with no audit event: Tcl's `load` command
# (tkinter's ``Tcl().eval("load x.so X")``) opened a library the run wrote, whose constructor took the audit
# hooks away and let a wrong candidate pass natively. Refused to code under test (Pyodide has no tkinter).
NATIVE_CODE_MODULES = frozenset(("_tkinter", "tkinter"))

# Events that hand code under test every frame or every object (the harness's and the running test's
# included): tracing and profiling hooks, sys.monitoring callbacks and the gc walks; and sqlite3's loading of
# extensions, which puts native code from any file in the interpreter.
# Modules with a known memory-safety bug of this CPython (3.11 natively, 3.14 in Pyodide) that turns into
# reads and writes of any address: array's item assignment converts the value after checking the index, and
# a value whose __index__ empties the array writes past its buffer. Refused to code under test, on both
# backends; ``import array`` gives it a stand-in (the harness's ``_array_stand_in``).
MEMORY_BUG_MODULES = frozenset(("array",))

_REFUSED_EVENTS = frozenset(
    (
        "sys.settrace",
        "sys.setprofile",
        "sys._settraceallthreads",
        "sys._setprofileallthreads",
        "sys.monitoring.register_callback",
        # A library of any file loaded into the interpreter (where Python's build has them).
        "sqlite3.enable_load_extension",
        "sqlite3.load_extension",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
    )
)


def _forward_ref_classes():
    """annotationlib's ``(_Stringifier, ForwardRef)`` (Python 3.14), or ``(None, None)``: evaluating annotations
    in its ``FORWARDREF`` format (typing's ``NamedTuple`` and ``TypedDict`` classes do) turns its own
    stringifiers into forward references by setting their class."""
    found = sys.modules.get("annotationlib")
    if found is None:
        return (None, None)
    return (getattr(found, "_Stringifier", None), getattr(found, "ForwardRef", None))


def _forked_children_end_at_the_test_side(allow):
    """Natively, end a child forked while code under test runs as soon as control in it would return into a
    frame of the test side that was on the stack at the fork (a function of test.py's, unittest's or the
    harness's): the child is a copy of the running test, and one that raised where the parent was called and
    went on with the test saw whether unittest's assertRaises caught it (its ``__exit__`` calls the
    exception's ``with_traceback``), then told the parent through a pipe, which raised only then. A child
    that does its work and exits (multiprocessing's, ``if pid == 0: ... os._exit(0)``) never returns there.

    Registered once, before any code under test runs, as the interpreter's first ``after_in_child`` fork
    handler (none can be removed): it sets a profile function in the child, which the guard's audit hook lets
    it set while ``allow`` holds an item. The profile function reads the frames the interpreter hands it and
    nothing else; what it decides with is in its closure. It ends the child with exit code 1. Returns the
    code of the profile function (a signal handler that raises into it ends the child: recode_frames), or
    nothing where the interpreter cannot fork (Pyodide)."""
    if not hasattr(os, "register_at_fork") or not hasattr(os, "fork"):
        return ()
    from recode_stack import _test_side_folders, hidden_frame_check

    import faulthandler
    import signal

    hidden = hidden_frame_check(_test_side_folders())
    # (A crash handler the parent turned on would dump the child's stack, test.py's frames included, where the
    # parent said: off in the child.)
    _crash_handler_off = faulthandler.disable
    _exit, _setprofile, _id, _base = os._exit, sys.setprofile, id, BaseException
    _mask, _block, _restore, _every = signal.pthread_sigmask, signal.SIG_BLOCK, signal.SIG_SETMASK, signal.valid_signals()
    _gc_enabled, _gc_disable, _gc_enable = gc.isenabled, gc.disable, gc.enable

    def child():
        before = {}

        def end(frame, event, arg):
            try:
                if not before:
                    # The first event, still in the fork handler (its next call): the stack as the fork left it.
                    before[None] = None
                    f = frame.f_back
                    while f is not None:
                        if hidden(f):
                            before[_id(f)] = f
                        f = f.f_back
                    return
                if event == "return":
                    back = frame.f_back
                    if back is not None and before.get(_id(back)) is back:
                        _exit(1)
            except _base:
                _exit(1)

        # No code under test runs while the audit hook lets sys.setprofile through: no signal handler (the
        # signals blocked), no finalizer or weakref callback of the collector's (it is off).
        try:
            blocked = _mask(_block, _every)
            collecting = _gc_enabled()
            _gc_disable()
            _crash_handler_off()
        except _base:
            _exit(1)
        allow.append(True)
        try:
            _setprofile(end)
        except _base:
            _exit(1)
        finally:
            allow.clear()
        if collecting:
            _gc_enable()
        _mask(_restore, blocked)

    os.register_at_fork(after_in_child=child)
    # (The code of the profile function: a signal handler that raises as it begins ends the child.)
    return tuple(c for c in child.__code__.co_consts if isinstance(c, types.CodeType) and c.co_name == "end")


def _install_audit_guard(functions, own=(), seal_module=None, stack_views=None):
    """Install an audit hook (it cannot be removed) that refuses to set the
    attributes of these functions that the interpreter audits (``__code__``,
    ``__defaults__``, ``__kwdefaults__``), and refuses any later audit hook:
    code under test must not leave one behind to run inside later runs. The
    code of any function cannot be replaced (as Pyodide's seal refuses it):
    a nested function no dictionary holds (unittest's per-part executor
    behind its context manager, the harness's event sink) is no less the
    framework's.

    It also refuses the changes no dictionary shows, and that the restore
    after a run therefore could not undo, to what was there before the run
    (noted with ``protect``): the code or defaults of a noted function
    (``os.path.basename.__code__ = ...``), the class of a noted module or of
    an object whose class was noted (``json._default_encoder.__class__ =
    ...``), and the bases of a noted class. What the run itself loads or
    defines stays its own to change. Returns ``protect(objects, hide=False)``,
    which notes more modules, classes and functions (it can only add
    refusals, so it may be reachable); ``hide``: their defaults and code
    cannot be read either (the harness's event writer, whose defaults hold
    the run's key). ``own``: functions whose defaults hold what code under test must not have
    (the guard itself, see ``GuardHandle``): reading their defaults or code is
    refused too. ``seal_module``: called with each noted
    object, it seals the closures of a module's functions (``seal_closures``)."""
    ids = frozenset(map(id, functions))
    keep = list(functions)  # the ids stay theirs while the hook lives
    frames, stack_views = frame_wall(stack_views)
    # Functions whose defaults hold what code under test must not have (the original signal functions).
    # (And the functions the frame check allows by their code: a function made from one's code would be too.)
    # (The code a signal handler may not raise into in a forked child: filled below, once made.)
    uninterruptible = []
    hidden = (*handlers_without_frames(uninterruptible), *frame_reader_functions(), *stack_views, *seal_frame_builtins(), *own)
    hidden_ids = set(map(id, hidden))
    # (Holds an item while a forked child's handler sets its profile function, and only then.)
    allow = []
    uninterruptible.extend(_forked_children_end_at_the_test_side(allow))
    noted = set()
    held = []  # the noted objects, so that their ids stay theirs

    def protect(objects, hide=False, _noted=noted, _held=held, _hidden=hidden_ids, _id=id, _seal=seal_module):
        for o in objects:
            if _seal is not None:
                _seal(o)
            if _id(o) not in _noted:
                _noted.add(_id(o))
                _held.append(o)
            if hide:
                _hidden.add(_id(o))

    def audit(
        event,
        args,
        _ids=ids,
        _keep=keep,
        _noted=noted,
        _protect=protect,
        _id=id,
        _re=RuntimeError,
        _code=_CODE_ATTRS,
        _fn=_FUNCTION,
        _type=type,
        _frames=frames,
        _walks=_REFUSED_EVENTS,
        _hidden=hidden_ids,
        _kept=hidden,
        _no_import=MEMORY_ACCESS_MODULES,
        _bug=MEMORY_BUG_MODULES,
        _subinterpreters=SUBINTERPRETER_MODULES,
        _native=NATIVE_CODE_MODULES,
        _str=str,
        _ie=ImportError,
        _sub=issubclass,
        _exc=BaseException,
        _family=_exception_family,
        _forward=_forward_ref_classes(),
        _frame=types.FrameType,
        _allow=allow,
        _pid=os.getpid(),
        _getpid=os.getpid,
        _exit=os._exit,
    ):
        # (The most frequent events, which nothing here refuses: id(), and a frame's own audited attributes
        # (f_code), read by the frame check and the frame-reading built-ins at every look. A frame is no
        # noted or hidden function, and the frame check looks at the attributes that hand out a frame.)
        if event == "builtins.id" or (event == "object.__getattr__" and args and _type(args[0]) is _frame):
            return
        _frames(event, args)
        if event in _walks:
            if event == "sys.setprofile":
                if _allow:
                    return
                if _getpid() != _pid:
                    # In a forked child, the profile function that ends it failed and is being taken away
                    # (or code under test tries to): the child ends.
                    _exit(1)
            raise _re(f"{event} is not available to code under test")
        if event == "import":
            name = args[0] if args else None
            # (A str subclass is read as the plain string it holds: its own methods never run here.)
            root = _str.__str__(name).split(".")[0] if isinstance(name, _str) else None
            if root in _no_import:
                raise _ie(f"{_str.__str__(name)} is not available to code under test (it reads and writes the interpreter's memory)")
            if root in _bug:
                raise _ie(f"{_str.__str__(name)} is not available to code under test (a memory-safety bug of its item assignment)")
            if root in _native:
                raise _ie(f"{_str.__str__(name)} is not available to code under test (it loads native code from any file into the interpreter)")
            if root in _subinterpreters:
                raise _ie(f"{_str.__str__(name)} is not available to code under test (a subinterpreter has none of the harness's guards)")
            if root == "asyncio":
                # Its event loop reads the frames of running coroutines (a task's repr), and Pyodide's has no
                # way out to JavaScript: asyncio fails on both backends, here with a clear message.
                raise _ie("asyncio is not available to code under test (the tests run without an event loop)")
            return
        if event == "object.__setattr__":
            obj, name = args[0], args[1]
            if _id(obj) in _ids:
                raise _re("the functions of the test framework and the harness cannot be changed")
            if name in _code and _type(obj) is _fn:
                if name == "__code__":
                    raise _re("a function's code cannot be replaced by code under test")
                if _id(obj) in _noted or _id(obj) in _hidden:
                    raise _re(f"the {name} of a function the run did not define cannot be changed")
            elif name == "__class__":
                if (_id(obj) in _noted or _id(_type(obj)) in _noted) and not (
                    _forward[0] is not None and _type(obj) is _forward[0] and args[2] is _forward[1]
                ):
                    raise _re("the class of a module or object the run did not make cannot be changed")
                if _sub(_type(obj), _exc):
                    # unittest decides a test part's outcome on an exception's class in more than one place (a
                    # _ShouldStop or SkipTest is not a failure): one changed between them had a failure pass.
                    raise _re("the class of an exception cannot be changed by code under test")
            elif name == "__bases__" and (_id(obj) in _noted or _family(obj, args[2])):
                # (New bases give a class, and every class built on it, a new MRO, computed by their metaclass's
                # mro(): an exception class made one unittest swallows, after the per-part executor's check.)
                raise _re("the bases of a class the run did not define, or of an exception class or one built on, cannot be changed")
        elif event == "object.__getattr__" and args and (args[0] is _protect or _id(args[0]) in _hidden):
            raise _re("the guard's own functions cannot be inspected")
        elif event == "sys.addaudithook":
            raise _re("audit hooks are not available to code under test")

    uninterruptible.append(audit.__code__)
    sys.addaudithook(audit)
    return protect, hidden_ids


# The harness's own modules: no value they hold at module level changes during a run, data included.
HARNESS_MODULES = (
    "recode_harness",
    "recode_check",
    "recode_guard",
    "recode_frames",
    "recode_stack",
    "recode_readers",
    "recode_testpy",
    "recode_testtext",
    "recode_touch",
    "recode_super",
    "recode_module_fixtures",
)
# The modules whose values are pinned at a run's first watch (``_module_pins``): the harness's own.
_PINNED_MODULES = (*HARNESS_MODULES, "recode_frame_builtins")


def _module_pins():
    """``(pin, moved)``: ``pin(modules)`` notes the values of these modules' dictionaries (the harness's own, at
    a run's first watch, before code under test runs); ``moved()`` names those whose dictionary no longer holds
    the very same values, by identity, in C. Both read only their closures. The guard's looks read this
    module's globals (``dict_changed``, ``_MISSING``, ...) at every look: code under test that set two of
    them to a function of its own blinded every look after (the function passed for the value a look compares
    an accepted one with, and the run set unittest's assertRaises context to one that swallowed everything)."""
    from itertools import repeat
    from operator import is_

    _all, _map, _len, _tuple, _vars, _zip, _enumerate, _builtins = all, map, len, tuple, vars, zip, enumerate, builtins
    pinned = []
    missing = object()

    def pin(modules, builtin_names=()):
        """``builtin_names``: the built-ins pinned too (the harness's code reads them through its modules'
        ``__builtins__``: a fake ``all`` blinded the looks' every comparison), apart from the rest of the
        built-ins' dictionary (test.py may replace others)."""
        pinned.clear()
        for m in modules:
            d = _vars(m)
            pinned.append((m.__name__, d, _tuple(d), _tuple(d.values()), _len(d)))
        d = _vars(_builtins)
        names = _tuple(n for n in builtin_names if n in d)
        pinned.append(("builtins", d, names, _tuple(d[n] for n in names), None))

    def unpin(label, names):
        """Stop pinning these names of ``label``'s (the built-ins test.py's text patches itself)."""
        for i, (name, d, keys, values, n) in _enumerate(pinned):
            if name == label:
                kept = [(k, v) for k, v in _zip(keys, values) if k not in names]
                pinned[i] = (name, d, _tuple(k for k, _ in kept), _tuple(v for _, v in kept), n)

    def moved():
        return [
            name
            for name, d, keys, values, n in pinned
            if (n is not None and _len(d) != n) or not _all(_map(is_, _map(d.get, keys, repeat(missing)), values))
        ]

    return pin, unpin, moved


# Built-ins a test may well replace for the length of a test (``mock.patch("builtins.input")``), which the
# harness's code does not read at a look: not pinned.
_UNPINNED_BUILTINS = frozenset(("print", "open", "input", "help", "exit", "quit", "breakpoint", "copyright", "credits", "license", "_"))


def _pinned_builtin_names():
    """The names of the built-ins pinned at a run's first watch (``_module_pins``): all but those a test may
    replace for itself."""
    return sorted(n for n in vars(builtins) if n not in _UNPINNED_BUILTINS)


_CONTAINERS = (dict, list, set, bytearray)


def _contents(c):
    """A container's contents, to compare by identity (``_same_contents``): a dict's keys and values, a
    list's items, a set's items in iteration order, a bytearray's bytes."""
    if type(c) is dict:
        return (*c, *c.values())
    if type(c) is bytearray:
        return (bytes(c),)
    return tuple(c)


def _same_contents(c, saved):
    now = _contents(c)
    if type(c) is bytearray:
        return now == saved
    return len(now) == len(saved) and all(map(_is, now, saved))


# Containers of protected modules that decide what a test computes and that no honest code changes: copy's
# tables of how each type is copied (a candidate that put a copy of lists that gives [] there emptied what
# test.py's ``copy.deepcopy`` of its bad inputs gave, both backends).
_PROTECTED_CONTAINERS = (("copy", "_copy_dispatch"), ("copy", "_deepcopy_dispatch"))


def _watched_containers():
    """(label, container) for the dicts, lists, sets and bytearrays the harness's modules hold at module
    level (such as the harness's ranking of outcomes): their dictionaries show a new container, not a
    changed one. And those of ``_PROTECTED_CONTAINERS`` the interpreter has."""
    out = []
    for name, k in _PROTECTED_CONTAINERS:
        v = getattr(sys.modules.get(name), k, None)
        if type(v) in _CONTAINERS:
            out.append((f"{name}.{k}", v))
    for name in HARNESS_MODULES:
        mod = sys.modules.get(name)
        for k, v in list(vars(mod).items()) if mod is not None else ():
            # (``__builtins__`` is the builtins' dictionary, watched as the builtins module.)
            if type(v) in _CONTAINERS and k != "__builtins__":
                out.append((f"{name}.{k}", v))
    return out


def _only_settable_changed(now, snap, settable):
    """Whether an object's dictionary ``now`` holds what ``snap`` (its copy without the names ``settable``)
    holds, by identity, and besides only names of ``settable``."""
    return set(now) - settable == set(snap) and all(now[k] is v for k, v in snap.items())


def _slot_values(obj):
    """The objects in ``obj``'s slots, in order (compared by identity, see ``_same_slots``)."""
    return tuple(getattr(obj, n, _MISSING) for n in type(obj).__slots__)


def _same_slots(obj, saved):
    """Whether every slot of ``obj`` holds the same object as in ``saved`` (in C, no ``__eq__`` runs)."""
    now = _slot_values(obj)
    return len(now) == len(saved) and all(map(_is, now, saved))


def _added_name(module, key, value):
    """Whether a name added to a watched module during a run is a change:
    anything but a submodule the run imported (``unittest.mock``) or the
    registry of warnings the interpreter keeps there (``__warningregistry__``;
    another dunder, such as a module ``__getattr__``, is a change). A new name can
    shadow a built-in for every function of the module (``round`` in
    ``unittest.case`` decides ``assertAlmostEqual``)."""
    if key == "__warningregistry__":
        return False
    return not (type(value) is type(sys) and getattr(value, "__name__", None) == f"{module.__name__}.{key}")


def _cell_value(c):
    """What a closure cell holds (``_MISSING`` once emptied)."""
    try:
        return c.cell_contents
    except ValueError:
        return _MISSING


_contents_of = attrgetter("cell_contents")


def _cells_same(cells, saved):
    """Whether each cell holds the same object as in ``saved`` (``_MISSING`` for an emptied one): in C, but
    for a cell emptied since (whose read raises)."""
    try:
        return all(map(_is, map(_contents_of, cells), saved))
    except ValueError:
        return all(map(_is, map(_cell_value, cells), saved))


def _closure_state(functions, closure_of, hidden=frozenset()):
    """The cells and the defaults behind these functions: the cells of their
    closures and the tuples of their defaults, and the same for every function
    found in those (the harness's event sink holds the writer that holds the
    event channel). No dictionary shows a cell rewritten
    (``cell.cell_contents = ...``), and no audit event is raised for it.
    ``closure_of``: the guard's reader of closures (``seal_closures``). ``hidden``: ids of functions left
    out (their defaults cannot be read, nor set)."""
    cells, owners, seen, stack = [], [], set(), list(functions)
    while stack:
        fn = stack.pop()
        if type(fn) is not _FUNCTION or id(fn) in seen or id(fn) in hidden:
            continue
        seen.add(id(fn))
        owners.append(fn)
        for c in closure_of(fn) or ():
            cells.append(c)
            stack.append(_cell_value(c))
        stack.extend(fn.__defaults__ or ())
        stack.extend((fn.__kwdefaults__ or {}).values())
    return cells, owners


_defaults_of = attrgetter("__defaults__")
_mro_of = attrgetter("__mro__")
_kwdefaults_of = attrgetter("__kwdefaults__")


def loaded_modules_and_classes():
    """Every module in ``sys.modules``, the classes defined in Python and the
    functions its modules hold at top level, and the functions those classes
    hold: what ``protect`` notes before a run."""
    out = []
    for mod in list(sys.modules.values()):
        d = getattr(mod, "__dict__", None)
        if type(d) is not dict:
            continue
        out.append(mod)
        for v in list(d.values()):
            if type(v) is _FUNCTION:
                out.append(v)
            elif is_heap_class(v):
                out.append(v)
                out.extend(f for f in list(vars(v).values()) if type(f) is _FUNCTION)
    return out


def dict_changed(cur, saved):
    """Whether a dict (or a class's dictionary view) differs from its copy: by
    the identity of its keys and values, in order, so that no value's ``__eq__``
    runs (a look-alike that says it equals anything is still a change).
    Compared in C, without ``id()`` (which would call every audit hook)."""
    return len(cur) != len(saved) or not all(map(_is, cur, saved)) or not all(map(_is, cur.values(), saved.values()))


def dicts_same(live, saved):
    """Whether every dict in ``live`` holds the same keys and values (by
    identity, in order) as its copy in ``saved``; a few C-level passes for the
    whole list."""
    return (
        list(map(len, live)) == list(map(len, saved))
        and all(map(_is, chain.from_iterable(live), chain.from_iterable(saved)))
        and all(map(_is, chain.from_iterable(map(_values, live)), chain.from_iterable(map(_values, saved))))
    )


GuardHandle = namedtuple("GuardHandle", "changes expect watch_classes protect noted_modules noted_classes framework_codes patched test_log_summary")
GuardHandle.__doc__ = """What the harness holds of its guard: the guard's operations, as
functions whose defaults hold the guard (the audit hook refuses to read
them), in a tuple (its fields cannot be set). Code under test can reach the
handle, but not the guard's copies of what it watches: with them, it could
write its own changes into the copies and blind every look. What the handle
lets it do is harmless or refused: a look (``changes``), adding refusals
(``protect``), copies of what is noted; ``expect`` only before the run's
first watch, and ``watch_classes`` twice per run (the harness's two calls:
one made first by code under test makes the harness's fail, and the run is
not trusted); ``patched`` takes only patches test.py's own code made and
started (see ``Guard.patched``); ``test_log_summary`` only with the run's token
(see ``Guard.test_log_summary``)."""


def _handle_functions(guard):
    """The functions of a ``GuardHandle`` (but ``protect``), bound to ``guard`` through their defaults, not
    closures (a closure's cells can be read without an audit event)."""

    def changes(window=None, opening=False, _g=guard):
        return _g.changes(window, opening)

    def expect(module, name, value, _g=guard):
        return _g.expect(module, name, value)

    def watch_classes(
        classes,
        objects=(),
        slotted=(),
        modules=(),
        tests_patch="",
        test_codes=(),
        test_patches=frozenset(),
        counted=(),
        window=None,
        frozen=(),
        _g=guard,
    ):
        return _g.watch_classes(classes, objects, slotted, modules, tests_patch, test_codes, test_patches, counted, window, frozen)

    def noted_modules(_g=guard):
        return _g.noted_modules()

    def noted_classes(_g=guard):
        return _g.noted_classes()

    def patched(patcher, event, _g=guard):
        return _g.patched(patcher, event)

    def test_log_summary(tb, window, codes=None, _g=guard):
        return _g.test_log_summary(tb, window, codes)

    return changes, expect, watch_classes, noted_modules, noted_classes, patched, test_log_summary


class Guard:
    """Notes the protected objects once and says which of them a run changed.

    One guard serves every run of an interpreter: the restore after a run puts
    the protected objects back as they were, so a guard that still sees a
    change at the next run's start has found damage the restore could not
    undo. ``changes()`` runs at every test's start and before its result, so its common case (nothing
    changed) is a few comparisons done in C: each dictionary against a full
    copy, and the hooks. Only when one of those differs does it look closer,
    since some values may change (see ``expect``). The code of the protected
    functions cannot be rewritten: an audit hook refuses it."""

    def __init__(self, patches=None):
        self.saved = []
        self.views = []
        self.dict_labels = []
        self.dict_holders = []
        self.dict_views = []
        self.fulls = []
        self.keysets = []
        # (Read by ``patched`` from the guard, which code under test cannot reach, not from this module.)
        self.pin_harness, self.unpin_harness, self.harness_moved = _module_pins()
        self._getframe = sys._getframe
        # The interpreter's own table of modules, as imports use it: ``sys.modules`` rebound to a copy hid a change
        # to the table's protected entries from a look that read the attribute.
        self.module_table = sys.modules
        self._gc_switch = (gc.isenabled, gc.disable, gc.enable)
        fresh_patterns()
        settle_lazy_globals()
        fixed_frame_functions()
        # (What the frame check reads frames with, taken before the harness's modules are noted.)
        stack_views = take_stack_views("wall")
        self.summary = take_stack_views("test log summary")
        self.objects = _protected_objects()
        give_warning_registries(obj for _, obj, kind in self.objects if kind == "module")
        # Pyodide froze them at the seal, before its audit hook refuses ctypes (nothing to do here then).
        # (And the stand-in for sys that the frame readers get, fixed_frame_functions, made before they are noted.)
        freeze_classes([obj for _, obj, kind in self.objects if kind == "class"] + fixed_frame_functions())
        # Natively the closures are sealed here (Pyodide sealed them at the seal): the guard reads them itself.
        seal_closures()
        seal_frame_builtins()
        sealed = take_sealed_closures()
        if sealed is None:
            raise RuntimeError("the guard of this interpreter was made already")
        self.closure_of, seal_module, closure_get = sealed
        # The counter of dictionary changes (recode_touch), made before the harness's containers are noted.
        self.touches = touch_counter()
        reinit = seal_reinitialising(self.objects)
        # ctypes is done with: its classes leave every __subclasses__() (Pyodide did it at the seal).
        subclasses = hide_ctypes_classes()
        case = sys.modules.get("unittest.case")
        # What a test class could shadow of the framework's: TestCase's methods and other callables.
        self.framework_names = (
            frozenset(k for k in dir(case.TestCase) if callable(getattr(case.TestCase, k, None))) if case else frozenset()
        )
        for label, obj, kind in self.objects:
            self._note(label, obj, kind)
        self.base = len(self.saved)
        self.dict_base = len(self.dict_holders)
        # Protected functions and their code: a rewritten __code__ is seen by identity, without building strings.
        # (The function a _ContextHelper wraps too: its defaults are the executor's.)
        found = [
            (f"{label}.{k}", v, code)
            for label, obj, kind in self.objects
            if kind != "builtins"
            for k, item in list(vars(obj).items())
            if (code := _code_or_none(v := item[0] if type(item) in (_ContextHelper, _PartExecutor) else item)) is not None
        ]
        self.functions = [fn for _, fn, _ in found]
        # The closure cells of the protected functions (a contextmanager's wrapper keeps the function it wraps
        # in one: unittest's per-part executor): a cell's contents can be set with no audit event.
        held = [(label, c) for label, fn, _ in found if type(fn) is _FUNCTION for c in self.closure_of(fn) or ()]
        self.cell_labels = [label for label, _ in held]
        self.protected_cells = [c for _, c in held]
        self.protected_cell_values = list(map(_cell_value, self.protected_cells))
        self.hooks = _hooks()
        # The class of every protected module and object (a class swap shows in no dictionary).
        self.kind_objects = [obj for _, obj, _ in self.objects]
        self.kinds = list(map(type, self.kind_objects))
        # Objects with slots watched for one run (the harness's state and the restore's snapshot): their slot values.
        self.slotted = []
        self.slotted_saved = []
        # The settings accepted with ``expect`` (the check helper's sink), and the closure cells and defaults
        # behind them and behind the functions of the objects watched for one run.
        self.expected = {}
        self.cells = []
        self.cell_saved = []
        self.owners = []
        self.owner_defaults = []
        self.owner_kwdefaults = []
        found = _watched_containers()
        self.container_labels = [label for label, _ in found]
        self.containers = [c for _, c in found]
        self.container_contents = list(map(_contents, self.containers))
        # The modules under their names in sys.modules: test.py finds unittest there (a look-alike put there is not it).
        self.module_names = [label for label, _, kind in self.objects if kind == "module"]
        self.modules = [obj for _, obj, kind in self.objects if kind == "module"]
        self.watched_classes = []
        self.mros = []
        # The code of unittest.case's functions (its skip wrappers stand in test classes for skipped tests).
        found = code_objects(case).values() if case else ()
        self.framework_code_objects = list(found)
        self.framework_codes = frozenset(map(id, self.framework_code_objects))
        # Where the run is: 0 before its first watch, then one step per ``watch_classes``.
        self.stage = 0
        # Patches of unittest.mock (``patched``): id(patcher) -> (the patcher, the code that made it), and the
        # values of those test.py's code made and started (id of a protected module's dictionary, name) -> the
        # value set; test.py's code objects (by id), the code a patch passes through on its way (unittest.mock's,
        # and the harness's notes of it), and mock's class.
        self.made = {}
        self.accepted = {}
        self.test_codes = frozenset()
        self.test_patches = frozenset()
        self.patch_codes = frozenset()
        self.patch_class = None
        # The dictionaries in which a change put back is a change, their probe, and how often each was
        # changed when last looked at (recode_touch; Pyodide made the counter at the seal, before ctypes is refused).
        self.touch_at = [
            i for i, (label, _, kind, _) in enumerate(self.saved) if kind in ("module", "builtins", "reader") and label not in _CHURN
        ]
        self.touch_probe, self.touch_more = self.touches([self.views[i] for i in self.touch_at]) if self.touches else (None, None)
        # The same for test.py's module and the classes it defines, made at each run's second watch
        # (``watch_classes``); the token of the harness's looks at each test's start and result, and the counts
        # at the start of the test running now (``None`` between tests).
        self.run_touch_at = []
        self.run_touch_probe = None
        # Dictionaries counted at every look from the second watch on (``watch_classes``'s ``frozen``).
        self.frozen_at = []
        self.frozen_probe = None
        self.frozen_saved = []
        self.window = None
        self.window_counts = None
        # What the looks have found so far (``changes``).
        self.found = []
        self.touch_saved = []
        self.touch_exempt = frozenset()
        # The protected dictionaries a look compares: with the counts, those no count covers (warnings's, and the
        # objects': an instance's dictionary may live apart from its object's values); the protected classes are
        # immutable. Without the counts, all of them.
        counted = frozenset(self.touch_at) if self.touch_probe else frozenset()
        self.compare_at = [
            i for i, (_, _, kind, _) in enumerate(self.saved) if i not in counted and kind != "class" or kind == "object" or not counted
        ]
        self.compare_views = [self.views[i] for i in self.compare_at]
        changes, expect, watch, modules, classes, patched, summary = found = _handle_functions(self)
        if patches is not None:
            # (The handle's own function is on a patch's way too; its code is read before the audit hook hides it.)
            codes = [*patches[1], patched.__code__]
            self.patch_class = patches[0]
            self.patch_codes = frozenset(map(id, codes))
            self.patch_code_objects = codes
        readers = (self.touches, self.touch_probe, self.touch_more) if self.touches else ()
        # (The hidden functions' defaults and code can be neither read nor set: no look compares them.)
        self.protect, self.hidden = _install_audit_guard(
            self.functions, (*found, *readers, self.closure_of, seal_module, closure_get, subclasses, *reinit), seal_module, stack_views
        )
        self.protect(loaded_modules_and_classes())
        self.handle = GuardHandle(changes, expect, watch, self.protect, modules, classes, self.framework_codes, patched, summary)

    def _note(self, label, obj, kind, own_names=_NO_NAMES):
        d = vars(obj)
        # Copied first, and what is kept read from the copy by the values' own types (``isinstance`` would read
        # a property ``__class__``: code under test run while the copies are made).
        full = dict(d)
        if kind == "object":
            # (All but what honest use sets, ``_SETTABLE``.)
            settable = _SETTABLE.get(label, _NO_NAMES)
            snap = {k: v for k, v in full.items() if k not in settable}
        elif kind == "class" or (kind in ("module", "builtins") and own_names is _NO_NAMES and label not in _CHURN):
            # (The protected modules and the built-ins: no value changes during a run, data included (``math.pi``),
            # but for ``expect``. test.py's module and warnings's keep data that changes.)
            snap = dict(full)
        elif kind == "methods":
            snap = {k: v for k, v in full.items() if issubclass(type(v), _METHOD_TYPES)}
        elif kind == "reader":
            # (Only the sys a frame reader of this module calls: recode_frames.fixed_frame_functions.)
            snap = {k: full[k] for name, k in READER_SYS if name == label and k in full}
        else:
            settable = _SETTABLE.get(label, _NO_NAMES) if kind == "module" else _NO_NAMES
            snap = {k: v for k, v in full.items() if (callable(v) or type(v) is _MODULE) and k not in settable}
        self.saved.append((label, obj, kind, snap))
        # The names it holds now, and those its own text binds (a test's ``global`` name assigned later).
        self.keysets.append(frozenset(full) | own_names)
        # The live dictionaries (class dictionaries as their read-only views) and their full copies, side by side.
        self.views.append(d)
        if type(d) is dict:
            # An object's own dictionary can be replaced whole (``obj.__dict__ = {...}``, no audit event): the
            # copies would be compared with the old one, which no longer speaks for the object.
            self.dict_labels.append(label)
            self.dict_holders.append(obj)
            self.dict_views.append(d)
        self.fulls.append(full)

    def expect(self, module, name, value):
        """Accept that ``module.name`` is now ``value`` (a setting the harness
        itself changes for a run, such as the check helper's sink), before
        the run's first watch. Raises ``RuntimeError`` after it."""
        if self.stage:
            raise RuntimeError("the guard takes no setting once the run is watched")
        for (label, _, _, snap), full in zip(self.saved, self.fulls):
            if label == module:
                snap[name] = value
                full[name] = value
        self.expected[(module, name)] = value

    def watch_classes(
        self,
        classes,
        objects=(),
        slotted=(),
        modules=(),
        tests_patch="",
        test_codes=(),
        test_patches=frozenset(),
        counted=(),
        window=None,
        frozen=(),
    ):
        """Also watch the methods of these classes (the test module's, once its
        tests are loaded), the functions held by these objects (the harness's
        own objects for one run, such as its event sink), and every slot of
        these objects with slots (the harness's state between runs, the
        restore's snapshot) until the next call: data attributes of the first
        two may change, but a function replaced, added or removed during the
        run, or a slot set to another object, is tampering. ``modules``:
        (module, the names its text binds) pairs (test.py), watched as the
        protected modules are, a name its text binds being its own even when
        it first appears during the run. Twice per run (before test.py's import,
        then with its test classes): a third call raises ``RuntimeError``.
        ``tests_patch``: what test.py's text says it changes and puts back
        itself: ``"modules"`` (it patches, ``mock.patch``: the counts of the
        protected modules but unittest's, contextlib's and the harness's are
        not used), ``"builtins"`` (it names the built-ins: their count is not
        used), or ``""``. ``counted``: test.py's module and the classes it
        defines whose dictionaries must not change at all while a test runs
        (counted by ``recode_touch``), so that a change put back before the
        look at the test's result is seen (a class given ``assertRaises``,
        taken away again once the test's assertions have used it); leave out
        those test.py's text changes itself from inside its tests. ``window``:
        the token (an object only the harness holds) with which the harness
        says a look is at a test's start or result (``changes``). ``frozen``:
        objects among ``modules`` whose dictionaries must not change at all
        from this watch to the run's end, at every look, not only within a
        test: test.py's built-ins, which nothing of test.py's changes, and
        which its class and module fixtures read between two tests' looks."""
        if self.stage >= 2:
            raise RuntimeError("the guard's watch was set again during the run")
        self.stage += 1
        self.touch_exempt = frozenset(
            label
            for label in (self.saved[i][0] for i in self.touch_at)
            if (tests_patch == "modules" and not label.startswith(_NEVER_PATCHED)) or (tests_patch and label == "builtins")
        )
        if test_patches:
            # (Read from the harness's own object before any built-in is called: code under test has run by now.)
            self.unpin_harness("builtins", [name for label, name in test_patches if label == "builtins"])
        if test_codes:
            self.test_codes = frozenset(map(id, test_codes))
            self.test_code_objects = list(test_codes)
            self.test_patches = frozenset(test_patches)
        del self.saved[self.base :]
        del self.views[self.base :]
        del self.fulls[self.base :]
        del self.keysets[self.base :]
        del self.dict_labels[self.dict_base :]
        del self.dict_holders[self.dict_base :]
        del self.dict_views[self.dict_base :]
        self.slotted = list(slotted)
        self.slotted_saved = [_slot_values(obj) for obj in self.slotted]
        self.watched_classes = list(classes)
        self.mros = [cls.__mro__ for cls in self.watched_classes]
        for cls in classes:
            self._note(f"test class {cls.__name__}", cls, "methods")
        # Their methods' code cannot be rewritten either (Pyodide refuses any code replaced; this is native's).
        self.protect(
            f.__func__ if type(f) is staticmethod or type(f) is classmethod else f
            for cls in classes
            for f in list(vars(cls).values())
            if issubclass(type(f), _METHOD_TYPES)
        )
        for obj in objects:
            self._note(f"the harness's {type(obj).__name__.lower()} object", obj, "methods")
        for mod, own_names in modules:
            self._note(f"the module {mod.__name__}", mod, "module", own_names)
        # Each counted object's place among the noted ones (its label, dictionary and copy).
        at = {id(entry[1]): i for i, entry in enumerate(self.saved[self.base :], self.base)}
        counted = [o for o in counted if id(o) in at] if self.touch_more else []
        self.run_touch_at = [at[id(o)] for o in counted]
        self.run_touch_probe = self.touch_more(counted) if counted else None
        if self.run_touch_probe is not None:
            self.protect([self.run_touch_probe], hide=True)
        frozen = [o for o in frozen if id(o) in at] if self.touch_more else []
        self.frozen_at = [at[id(o)] for o in frozen]
        self.frozen_probe = self.touch_more(frozen) if frozen else None
        if self.frozen_probe is not None:
            self.protect([self.frozen_probe], hide=True)
            self.frozen_saved = self.frozen_probe()
        if window is not None:
            self.window = window
        held = [v for obj in objects for v in list(vars(obj).values()) if type(v) is _FUNCTION]
        self.cells, self.owners = _closure_state([*held, *self.expected.values()], self.closure_of, self.hidden)
        self.cell_saved = list(map(_cell_value, self.cells))
        self.owner_defaults = list(map(_defaults_of, self.owners))
        self.owner_kwdefaults = list(map(_kwdefaults_of, self.owners))
        if self.stage == 1:
            # The harness's own modules, as they are before any code under test runs (``changes``).
            self.pin_harness([sys.modules[n] for n in _PINNED_MODULES if n in sys.modules], _pinned_builtin_names())
            # The counts the looks start from: at the run's first watch, before any code under test has run
            # (the harness has set its own settings, ``expect``). Not at the second, once test.py and the code
            # under test are imported: code under test runs during a watch too (a property ``__class__`` of an
            # object on a test class, read by ``isinstance``), and would have its change counted as the state.
            self.touch_saved = self.touch_probe() if self.touch_probe else []

    def _touched(self):
        """Labels of the dictionaries changed since last looked at that hold what they held then: a change
        put back (by identity: a look-alike put in its place is a change too)."""
        if not self.touch_probe:
            return []
        now = self.touch_probe()
        return [
            f"{self.saved[i][0]} (changed and put back)"
            for i, was, is_ in zip(self.touch_at, self.touch_saved, now)
            if was != is_ and not dict_changed(self.views[i], self.fulls[i]) and self.saved[i][0] not in self.touch_exempt
        ]

    def _closures_same(self):
        return (
            _cells_same(self.cells, self.cell_saved)
            and all(map(_is, map(_defaults_of, self.owners), self.owner_defaults))
            and all(map(_is, map(_kwdefaults_of, self.owners), self.owner_kwdefaults))
        )

    def _new_behaviour(self, key, value, accepted, instance):
        """Whether setting ``key`` to ``value`` on a watched test class or
        harness object (not as it was last accepted) changes what it does: on
        a test class, a function, or anything under the name of one of the
        framework's callables (a class or a ``functools.partial`` as
        ``assertRaises``), or a descriptor (a property; anything with
        ``__get__``); on a harness object (``instance``), anything
        callable or a descriptor, which would shadow its class's methods.
        Data a test keeps on its class (set in ``setUpClass``, a callable
        model included) is not."""
        if accepted.get(key, _MISSING) is value:
            return False
        if instance:
            return callable(value) or is_descriptor(value)
        # (A data descriptor, such as a property, takes over what unittest writes on the test instance:
        # ``_outcome``, and with it the per-test result; any descriptor is handed the test object when
        # unittest reads the name, such as ``__unittest_expecting_failure__``, from the test.)
        return issubclass(type(value), _METHOD_TYPES) or is_descriptor(value) or key in self.framework_names

    def patched(self, patcher, event):
        """A patch of ``unittest.mock`` was made (``event`` "made"), started ("started") or stopped
        ("stopped"). A patch test.py's own code made and started, whose target is a protected module (the
        built-ins included: a test that patches ``builtins.print`` in ``setUpClass``), sets a value the looks
        accept until it is stopped: a change of test.py's, not of the code under test. Only a target test.py's
        text names (``test_patches``, never in unittest, contextlib or the harness), and only when made and
        started by test.py's code, told by the code objects of the first frame above unittest.mock's (code
        under test cannot make those; it can make C code that test.py's code runs start a patch, hence the
        named targets). A patch the code under test made or started is a change like any other. Anything
        else is ignored."""
        if type(patcher) is not self.patch_class:
            return
        # (The interpreter's own, bound to the guard as it was made: sys._getframe can be set by code under
        # test, and so can this module's globals, which a look-up reads at each call: a C chain bound there
        # kept the frame this call took.)
        # (The collector off while the frame object is made: its finalizers, C code of the candidate's, would
        # run at this very call, which the frame check lets take a frame.)
        enabled, disable, enable = self._gc_switch
        was = enabled()
        disable()
        try:
            f = self._getframe(1)
        finally:
            if was:
                enable()
        while f is not None and id(f.f_code) in self.patch_codes:
            f = f.f_back
        caller = f.f_code if f is not None else None
        key = id(patcher)
        if event == "made":
            self.made[key] = (patcher, caller)
            return
        made = self.made.get(key)
        if made is None or made[0] is not patcher:
            return
        tests = self.test_codes
        by_test = id(made[1]) in tests and id(caller) in tests
        target = getattr(patcher, "target", None)
        d = vars(target) if isinstance(target, _MODULE) else None
        name = getattr(patcher, "attribute", None)
        # Only a (module, attribute) test.py's text names as a patch's target (``patch_targets``): a patch made and
        # started from C code that test.py's code happens to run (an iterator it consumes) has test.py's frame
        # above unittest.mock's too.
        label = next((saved[0] for saved, view in zip(self.saved[: self.base], self.views) if view is d), None)
        if d is None or type(name) is not str or (label, name) not in self.test_patches:
            return
        if event == "started" and by_test:
            self.accepted[(id(d), name)] = d.get(name, _MISSING)
        elif event == "stopped":
            self.accepted.pop((id(d), name), None)

    def noted_modules(self):
        """Protected module name -> the module as noted before the run (not what ``sys.modules`` holds now)."""
        return dict(zip(self.module_names, self.modules))

    def noted_classes(self):
        """The protected classes, as noted before the run."""
        return [obj for _, obj, kind in self.objects if kind == "class"]

    def _base_same(self, counts):
        """Whether the protected modules' and classes' dictionaries hold what they held at the last look: no
        count of changes moved (``counts``: the counts as this look began), and the dictionaries no count covers
        hold the same objects as their copies (the classes cannot change). A few C-level passes over the counted
        dictionaries' numbers, not their contents."""
        fulls = self.fulls
        return (not self.touch_probe or counts == self.touch_saved) and dicts_same(self.compare_views, [fulls[i] for i in self.compare_at])

    def _in_test(self, window, opening):
        """At the harness's look at a test's start (``window`` its token, ``opening``): the counts of test.py's
        counted dictionaries as they are now. At its look before the test's result: labels of those changed
        since the start, whatever they hold now (a change put back included). Nothing at any other look."""
        if window is None or window is not self.window or self.run_touch_probe is None:
            return []
        counts = self.run_touch_probe()
        if opening:
            self.window_counts = counts
            return []
        was, self.window_counts = self.window_counts, None
        if was is None:
            return ["the guard's looks at the test's start and result (out of order)"]
        return [f"{self.saved[i][0]} (changed during a test)" for i, a, b in zip(self.run_touch_at, was, counts) if a != b]

    def _frozen_changed(self):
        """Labels of the ``frozen`` dictionaries (``watch_classes``) changed since that watch, whatever they
        hold now."""
        if self.frozen_probe is None:
            return []
        now = self.frozen_probe()
        return [f"{self.saved[i][0]} (changed during the run)" for i, a, b in zip(self.frozen_at, self.frozen_saved, now) if a != b]

    def _unchanged(self, base_same):
        """The common case, compared in C: every dictionary holds the same
        objects as its copy, and the hooks are the same objects.
        ``base_same``: the protected modules' and classes' dictionaries are."""
        hooks = _hooks()
        return (
            base_same
            and dicts_same(self.views[self.base :], self.fulls[self.base :])
            and dicts_same([hooks], [self.hooks])
            and all(map(_is, map(type, self.kind_objects), self.kinds))
            and all(map(_same_slots, self.slotted, self.slotted_saved))
            and all(map(_same_contents, self.containers, self.container_contents))
            and self._closures_same()
            and _cells_same(self.protected_cells, self.protected_cell_values)
            and sys.modules is self.module_table
            and all(map(_is, map(self.module_table.get, self.module_names), self.modules))
            and all(map(_is, map(_mro_of, self.watched_classes), self.mros))
            and all(map(_is, map(_vars, self.dict_holders), self.dict_views))
        )

    def test_log_summary(self, tb, window, codes=None):
        """A ``traceback.StackSummary`` of every frame of the traceback ``tb``, test side included, for the
        harness's text of a test's failure (traceback's own walk leaves out test.py's and unittest's frames:
        recode_stack). Only with the run's token (``window``, as the harness gave it to ``watch_classes``):
        code under test can reach the handle. Raises ``RuntimeError`` for any other. ``codes``: test.py's code
        objects, for an error raised while test.py was imported, before the watch that gives them (``test_codes``
        of ``watch_classes``); not taken after it."""
        if window is None or window is not self.window or self.summary is None:
            raise RuntimeError("a traceback's frames of the test side are not available to code under test")
        if codes is not None and self.stage < 2:
            return self.summary(tb, frozenset(map(id, codes)))
        return self.summary(tb, self.test_codes)

    def changes(self, window=None, opening=False):
        """Labels of the protected objects changed since the guard was made
        (empty when none). The code of protected functions is not looked at:
        the audit hook refuses to rewrite it. ``window``: the harness's token
        (``watch_classes``) at its look at a test's start (``opening``) or
        before its result: test.py's counted dictionaries must not change in
        between (``_in_test``). What one look found is said by every later
        look: a look moves on what the next compares with (the counts of
        changes, the copies), and one that code under test asked for (the
        guard's handle is within its reach) would otherwise see a change put
        back, say so to code under test alone, and leave the harness's next
        look nothing to see."""
        # First, and by code that reads no module's globals: what the looks below decide with are this
        # module's globals, and code under test can set them.
        moved = self.harness_moved()
        found = self._changes(window, opening)
        if moved:
            found = [*found, *(f"{name} (a value the harness reads, set during the run)" for name in moved)]
        if found:
            self.found.extend(label for label in found if label not in self.found)
        return list(self.found) if self.found else found

    def _changes(self, window, opening):
        """What this look finds (``changes``)."""
        # The run's own objects (its test classes, the harness's run object) change data at every test;
        # the protected modules and classes seldom do: looked at closer only when their copies differ.
        # The counts as the look begins, kept as what the next look compares with: code under test can run
        # during a look (a property ``__class__`` that ``isinstance`` reads, a finalizer of a copy the look lets
        # go, a collection), and a change it makes then must move the counts past these.
        counts = self.touch_probe() if self.touch_probe else []
        in_test = self._in_test(window, opening) + self._frozen_changed()
        base_same = self._base_same(counts)
        if self._unchanged(base_same):
            return in_test
        changed = []
        hooks = _hooks()
        changed += [k for k, v in self.hooks.items() if hooks.get(k, _MISSING) is not v]
        changed += [f"the class of {label}" for (label, obj, _), kind in zip(self.objects, self.kinds) if type(obj) is not kind]
        changed += [
            label for label, c, saved in zip(self.container_labels, self.containers, self.container_contents) if not _same_contents(c, saved)
        ]
        changed += [
            f"the harness's {type(obj).__name__.lower().strip('_')} object"
            for obj, saved in zip(self.slotted, self.slotted_saved)
            if not _same_slots(obj, saved)
        ]
        if sys.modules is not self.module_table:
            changed.append("sys.modules (set to another table)")
        changed += [
            f"sys.modules[{name!r}]" for name, mod in zip(self.module_names, self.modules) if self.module_table.get(name) is not mod
        ]
        changed += [f"the bases of test class {cls.__name__}" for cls, mro in zip(self.watched_classes, self.mros) if cls.__mro__ is not mro]
        changed += [
            f"{label} (its dictionary replaced)"
            for label, obj, d in zip(self.dict_labels, self.dict_holders, self.dict_views)
            if _vars(obj) is not d
        ]
        if not self._closures_same():
            changed.append("the harness's event sink (a closure cell or a default of its functions)")
        changed += self._touched()
        changed += in_test
        if not _cells_same(self.protected_cells, self.protected_cell_values):
            changed += sorted(
                {
                    f"the closure of {label}"
                    for label, c, saved in zip(self.cell_labels, self.protected_cells, self.protected_cell_values)
                    if _cell_value(c) is not saved
                }
            )
        for i in range(self.base if base_same else 0, len(self.saved)):
            label, obj, kind, snap = self.saved[i]
            d = _vars(obj)
            if label in changed or not dict_changed(d, self.fulls[i]):
                continue
            # Looked at as a copy, and the copy kept: what code under test changes while this look runs is in
            # the copy, and looked at, or differs from it at the next look.
            now = dict(d)
            if kind == "class" or (kind == "object" and not _only_settable_changed(now, snap, _SETTABLE.get(label, _NO_NAMES))):
                changed.append(label)
            elif any(now.get(k, _MISSING) is not v and self.accepted.get((id(d), k), _MISSING) is not now.get(k, _MISSING) for k, v in snap.items()):
                changed.append(label)
            elif kind == "methods" and any(self._new_behaviour(k, v, self.fulls[i], type(obj) is not type) for k, v in now.items()):
                changed.append(label)
            elif kind == "module" and any(_added_name(obj, k, v) for k, v in now.items() if k not in self.keysets[i]):
                changed.append(label)
            else:
                # Only data changed (a module's setting, unittest's mark on a test class): the fast path takes it from here.
                self.fulls[i] = now
        # (What was reported is not reported again; nor a change seen now, taken for a put-back one later. Not the
        # counts of now: a change made during this look is seen by the next.)
        self.touch_saved = counts
        return changed
