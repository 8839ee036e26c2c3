"""What code under test may learn of the stack above it: nothing past the first frame of the test side.

Where a call stands in the stack tells which test runs and what it expects: the name of the test method
(``test_rejects_bad_p``), the line of test.py that called, and whether unittest is inside ``assertRaises``
(the collector runs the finalizers of cyclic garbage at nearly every allocation once ``gc.set_threshold(1)``
is set, inside unittest's own code too, and a finalizer can be C code: a ``functools.partial``). A candidate
that raised only inside ``assertRaises`` passed every error test of every task without one input check.
The frame check (``recode_frames``) gives code under test no frame, but some functions walk the stack
themselves and tell what they found there:

- ``warnings.warn`` (``stacklevel``): the file, line and module of the frame it names, seen in the
  warning shown or recorded, in the filters that match its module and in that module's registry;
- ``logging.Logger.findCaller`` (``stacklevel``): the file, line and function of a log record;
- ``sys._getframemodulename(depth)`` and the class-making functions that read it (``typing``'s
  ``_caller``, ``collections.namedtuple``, ``enum``'s ``_create_``, ``dataclasses.make_dataclass``; natively
  they read ``sys._getframe(depth).f_globals``): the module of the frame at that depth;
- faulthandler's stack dumps (``dump_traceback``, ``dump_traceback_later``, ``register``);
- a coroutine's origin (``cr_origin``, once ``sys.set_coroutine_origin_tracking_depth`` is set).

A frame of the test side is one of test.py's functions, or of unittest's or the harness's files. None of
the functions above looks at such a frame or past it: a warning whose location would be there gets the one
CPython gives past the end of the stack (module ``sys``, line 1), a log record's caller is
``"(unknown file)"``, line 0, a frame's module ``None`` (natively ``sys._getframe`` raises ``ValueError``,
"call stack is not deep enough", for the class-making functions, which fall back as CPython's do), and the
stack dumps are refused. This holds whoever calls them, test.py's own code included (its warnings and log
records have no location), since C code can call them on the candidate's behalf from within any frame.
test.py's module and class bodies are not hidden: the class-making functions read the module name there,
and no test runs while they do.

The same module holds how the library functions that may take a frame get one (the frame check's
``reader_sites``): only at their own look, with the collector off where a frame object is made, and through
nothing a module of the run can read (``take_stack_views``).
"""

import sys

# CO_NEWLOCALS: a function's code (module and class bodies have no locals of their own).
_CO_NEWLOCALS = 0x0002

_INSTALLED = []
# What the frame check and the readers' sys take, once (``take_stack_views``): nothing a module of the run
# could read holds a function that hands out frames.
_TAKE = {}


def _is_test_file(name):
    return name == "test.py" or name.endswith("/test.py")


def hidden_frame_check(prefixes):
    """``hidden(frame)``: whether ``frame`` is of the test side (a file under one of the folders ``prefixes``,
    each ending in "/", or a function of test.py) and so hidden from code under test, with every frame above
    it. A file name is the code's own (code under test that names its code after test.py only hides itself)."""

    def hidden(frame, _prefixes=tuple(prefixes), _test=_is_test_file, _type=type, _str=str):
        code = frame.f_code
        name = code.co_filename
        if _type(name) is not _str or name.startswith(_prefixes):
            return True
        return _test(name) and bool(code.co_flags & _CO_NEWLOCALS)

    return hidden


def reaches_hidden(start, target, hidden):
    """Whether the walk from ``start`` up to ``target`` (both included; ``target`` None: to the end)
    meets a hidden frame."""
    f = start
    while f is not None:
        if hidden(f):
            return True
        if f is target:
            return False
        f = f.f_back
    return False


def _test_side_folders():
    import os
    import unittest

    here = os.path.dirname(os.path.abspath(__file__))
    harness = sys.modules.get("recode_harness")
    folders = {here, os.path.dirname(os.path.abspath(unittest.__file__))}
    if harness is not None and getattr(harness, "__file__", None):
        folders.add(os.path.dirname(os.path.abspath(harness.__file__)))
    return tuple(sorted(f.rstrip("/") + "/" for f in folders))


# The attributes that hand out a frame ("object.__getattr__"), and the names the readers call a frame function by.
FRAME_ATTRIBUTES = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))
_FRAME_CALLEES = frozenset(("_getframe", "getframe", "_GETFRAME", "real_getframe"))


def reader_sites(code):
    """Where ``code`` takes a frame itself: ``(calls, loads)``. ``calls``: ``{offset: local names}`` for its
    calls of a frame function (the name or attribute loaded, then the call whose source starts where that
    name does): every offset of the call (CPython 3.11's PRECALL, which makes a built-in's call itself, the
    call and its cache entries, where a frame that called a Python function stands), with the locals its
    arguments read, which must hold plain ints (no ``__index__`` of the candidate's runs inside the call).
    ``loads``: ``{offset: local name}`` for its reads of a frame attribute of a local variable
    (``tb.tb_frame``). The frame check lets a reader take a frame only at one of these: C code run while the
    reader's frame is the innermost (a ``map`` its own ``list()`` drains, a finalizer freed by its
    ``frame.clear()``, a property it reads) takes it at another instruction, or of another object."""
    import dis

    calls, loads = {}, {}
    ins = list(dis.get_instructions(code))
    for i, x in enumerate(ins):
        if x.opname in ("LOAD_ATTR", "LOAD_METHOD") and x.argval in FRAME_ATTRIBUTES and i > 0:
            before = ins[i - 1]
            if before.opname.startswith("LOAD_FAST"):
                name = before.argval[-1] if isinstance(before.argval, tuple) else before.argval
                if isinstance(name, str):
                    loads[x.offset] = name
        if x.argval in _FRAME_CALLEES and x.opname.startswith(("LOAD_ATTR", "LOAD_METHOD", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_FAST", "LOAD_NAME")):
            at = x.positions
            if at is None or at.lineno is None:
                continue
            for j in range(i + 1, len(ins)):
                y, p = ins[j], ins[j].positions
                if y.opname in ("CALL", "CALL_KW") and p is not None and p.lineno == at.lineno and p.col_offset == at.col_offset:
                    args = []
                    for a in ins[i + 1 : j]:
                        if a.opname.startswith("LOAD_FAST"):
                            args.extend(a.argval if isinstance(a.argval, tuple) else (a.argval,))
                    start = ins[j - 1].offset if ins[j - 1].opname == "PRECALL" else y.offset
                    end = ins[j + 1].offset if j + 1 < len(ins) else y.offset + 2
                    for offset in range(start, end, 2):
                        calls[offset] = tuple(a for a in args if isinstance(a, str))
                    break
    return calls, loads


def take_stack_views(part):
    """``part`` of what ``install_stack_views`` made, once: "wall", ``(walk_code, functions, frame_of_caller,
    reading, guarded, gone_codes)`` for the frame check (``walk_code``: traceback's walk of a traceback's
    frames; ``functions``: to hide from code under test); "readers' getframe", the ``sys._getframe`` the
    class-making readers call; or "test log summary", ``summary(tb)``, a ``traceback.StackSummary`` of every
    frame of ``tb``, test side included, for the test log (the guard hands it to the harness alone). None
    when taken already."""
    return _TAKE.pop(part, None)


def _drop(held, obj):
    """Take ``obj`` itself out of the list ``held`` (another thread's entry, added since, stays)."""
    for i in range(len(held) - 1, -1, -1):
        if held[i] is obj:
            del held[i]
            return


class _Look(Exception):
    """Raised and caught for a function's own frame (``frame_of_caller``)."""


def install_stack_views():
    """Put the functions above in place, once, before the guard notes the modules that hold them: the
    stand-ins for ``warnings.warn`` (wherever a loaded module holds the interpreter's), for
    ``logging.Logger.findCaller`` and ``sys._getframemodulename``, faulthandler's refusals, and the
    ``sys._getframe`` of the class-making readers (``take_stack_views``). Returns nothing. Formerly returned
    ``(hidden, functions)``: the check of a hidden frame, and the new functions (the frame check lets them
    take frames by their code, so the guard's audit hook hides their code and what they hold)."""
    if _INSTALLED:
        return None
    import _warnings
    import faulthandler
    import logging
    import operator
    import warnings

    import gc

    hidden = hidden_frame_check(_test_side_folders())
    reading = []

    def frame_of_caller(_look=_Look, _reading=reading, _drop=_drop):
        try:
            raise _look
        except _look as e:
            tb = e.__traceback__
        _reading.append(tb)
        try:
            here = tb.tb_frame
        finally:
            _drop(_reading, tb)
        del tb
        return here.f_back

    # Garbage collection, off while a reader takes a frame: the finalizers it runs can be C code (a
    # functools.partial over a map), which would run at the reader's own look, with the reader's frame the
    # innermost (the creation of a frame object starts one).
    gc_enabled, gc_disable, gc_enable = gc.isenabled, gc.disable, gc.enable

    def without_collection(fn, *args):
        was = gc_enabled()
        gc_disable()
        try:
            return fn(*args)
        finally:
            if was:
                gc_enable()

    real_warn = _warnings.warn
    index = operator.index
    maxsize = sys.maxsize

    def internal(frame):
        # (CPython's warnings skip the import system's frames, and those whose file has a prefix it was told.)
        name = frame.f_code.co_filename
        return "importlib" in name and "_bootstrap" in name

    def warn(message, category=None, stacklevel=1, source=None, **kwargs):
        level = max(index(stacklevel), 1)
        skip = kwargs.get("skip_file_prefixes", ())
        skip = tuple(p for p in skip if type(p) is str) if type(skip) is tuple else ()
        f = frame_of_caller()
        for _ in range(level):
            f = f.f_back
            while f is not None and (internal(f) or (skip and f.f_code.co_filename.startswith(skip))):
                if hidden(f):
                    break
                f = f.f_back
            if f is None or hidden(f):
                break
        if f is None or hidden(f):
            # Past the end of the stack, as CPython places a warning whose stack level runs out.
            return real_warn(message, category, maxsize, source, **kwargs)
        return real_warn(message, category, level + 1, source, **kwargs)

    warn.__doc__ = real_warn.__doc__
    warn.__module__ = "warnings"

    srcfile = logging._srcfile

    def find_caller(self, stack_info=False, stacklevel=1):
        if stack_info:
            raise RuntimeError("frames are not available to code under test (a log record's stack_info)")
        f = frame_of_caller()
        while stacklevel > 0:
            next_f = f.f_back
            if next_f is None:
                break
            if hidden(next_f):
                return "(unknown file)", 0, "(unknown function)", None
            f = next_f
            name = f.f_code.co_filename
            if not (name == srcfile or ("importlib" in name and "_bootstrap" in name)):
                stacklevel -= 1
        co = f.f_code
        return co.co_filename, f.f_lineno, co.co_name, None

    find_caller.__doc__ = logging.Logger.findCaller.__doc__
    find_caller.__name__ = find_caller.__qualname__ = "findCaller"
    find_caller.__module__ = "logging"

    made = [warn, find_caller, frame_of_caller, without_collection]
    if hasattr(sys, "_getframemodulename"):

        def getframemodulename(depth=0):
            d = max(index(depth), 0)
            caller = frame_of_caller().f_back
            f = caller
            for _ in range(d):
                if f is None:
                    return None
                f = f.f_back
            if f is None or reaches_hidden(caller, f, hidden):
                return None
            # (CPython gives the module of the frame's function, which is its globals' unless changed.)
            name = f.f_globals.get("__name__")
            return name if type(name) is str else None

        getframemodulename.__doc__ = sys._getframemodulename.__doc__
        getframemodulename.__name__ = getframemodulename.__qualname__ = "_getframemodulename"
        getframemodulename.__module__ = "sys"
        sys._getframemodulename = getframemodulename
        made.append(getframemodulename)

    for mod in list(sys.modules.values()):
        d = getattr(mod, "__dict__", None)
        if type(d) is dict:
            for k in [k for k, v in list(d.items()) if v is real_warn]:
                d[k] = warn
    logging.Logger.findCaller = find_caller

    # A dump names every frame of the stack, and one timed or on a signal samples it while a test runs.
    def refuse(name):
        def refused(*args, **kwargs):
            raise RuntimeError(f"faulthandler.{name} is not available to code under test (it lists the running test's frames)")

        refused.__name__ = refused.__qualname__ = name
        refused.__module__ = "faulthandler"
        refused.__doc__ = getattr(faulthandler, name).__doc__
        return refused

    for name in ("dump_traceback", "dump_traceback_later", "register", "dump_c_stack"):
        if hasattr(faulthandler, name):
            fn = refuse(name)
            setattr(faulthandler, name, fn)
            made.append(fn)
    del warnings
    readers_getframe = _readers_getframe(frame_of_caller, hidden, (gc_enabled, gc_disable, gc_enable))
    made.extend(readers_getframe)
    guarded = []
    states = _generator_states(guarded, without_collection)
    made.extend(states)
    gone_codes = tuple(fn.__code__ for fn in states if fn.__name__ == "frame_gone")

    # A coroutine's origin (``cr_origin``, once ``sys.set_coroutine_origin_tracking_depth`` is set) lists the
    # file, line and function of every frame that made it: the test method's, unittest's, the harness's.
    real_origin_depth = sys.set_coroutine_origin_tracking_depth

    def set_coroutine_origin_tracking_depth(depth):
        if index(depth) != 0:
            raise RuntimeError("coroutine origin tracking is not available to code under test (it lists the running test's frames)")
        return real_origin_depth(0)

    set_coroutine_origin_tracking_depth.__doc__ = real_origin_depth.__doc__
    set_coroutine_origin_tracking_depth.__module__ = "sys"
    sys.set_coroutine_origin_tracking_depth = set_coroutine_origin_tracking_depth
    made.append(set_coroutine_origin_tracking_depth)
    walk, test_log_summary = _tracebacks_outside_test(hidden)
    made.extend((walk, test_log_summary))
    _TAKE["readers' getframe"] = readers_getframe[0]
    _TAKE["test log summary"] = test_log_summary
    _TAKE["wall"] = (walk.__code__, made, frame_of_caller, reading, guarded, gone_codes)
    _INSTALLED.append(True)
    return None


# The functions that make a class and read the module of a frame above them for it (natively with
# ``sys._getframe(depth).f_globals``): module, qualified name.
CLASS_MAKERS = (("typing", "_caller"), ("collections", "namedtuple"), ("enum", "EnumType._create_"), ("dataclasses", "make_dataclass"))


def _function(module, qualname):
    holder = sys.modules.get(module)
    for part in qualname.split("."):
        holder = vars(holder).get(part) if holder is not None else None
    if isinstance(holder, (staticmethod, classmethod)):
        holder = holder.__func__
    return holder


def _readers_getframe(frame_of_caller, hidden, gc_switch):
    """The ``sys._getframe`` the class-making readers get (their module's ``sys``, recode_frames): a frame
    only to one of them, at its own call of it, for a plain int depth, with the collector off while the frame
    is made; none of the test side or above it (``ValueError``, as past the end of the stack). Returns it in
    a list."""
    import types

    sites = {}
    for module, qualname in CLASS_MAKERS:
        fn = _function(module, qualname)
        if type(fn) is types.FunctionType:
            sites[fn.__code__] = reader_sites(fn.__code__)[0]
    real_getframe = sys._getframe
    gc_enabled, gc_disable, gc_enable = gc_switch

    def _getframe(depth=0, _sites=sites, _type=type, _int=int, _get=dict.get):
        maker = frame_of_caller().f_back
        calls = _get(_sites, maker.f_code) if maker is not None else None
        if calls is None or maker.f_lasti not in calls or _type(depth) is not _int:
            code = maker.f_code if maker is not None else None
            where = f", taken in {code.co_qualname} at {code.co_filename}, line {maker.f_lineno}" if code is not None else ""
            raise RuntimeError(f"frames are not available to code under test (sys._getframe{where})")
        was = gc_enabled()
        gc_disable()
        try:
            frame = real_getframe(depth + 1)
        finally:
            if was:
                gc_enable()
        if reaches_hidden(maker, frame, hidden):
            raise ValueError("call stack is not deep enough")
        return frame

    _getframe.__doc__ = real_getframe.__doc__
    _getframe.__module__ = "sys"
    return [_getframe]


def _generator_states(guarded, without_collection):
    """inspect's ``getgeneratorstate``, ``getcoroutinestate`` and ``getasyncgenstate``, put in place: they
    read whether the frame is gone with the collector off and hand the frame to nothing. The frame check lets
    the read through for the generator in ``guarded`` while it is there, to their ``frame_gone`` alone (a
    signal handler or another thread that read the same generator's frame then got it). Returns them, with
    their ``frame_gone``."""
    import inspect
    import types

    made = []
    for name, kind, prefix, states in (
        ("getgeneratorstate", types.GeneratorType, "gi", ("GEN_RUNNING", "GEN_SUSPENDED", "GEN_CLOSED", "GEN_CREATED")),
        ("getcoroutinestate", types.CoroutineType, "cr", ("CORO_RUNNING", "CORO_SUSPENDED", "CORO_CLOSED", "CORO_CREATED")),
        ("getasyncgenstate", types.AsyncGeneratorType, "ag", ("AGEN_RUNNING", "AGEN_SUSPENDED", "AGEN_CLOSED", "AGEN_CREATED")),
    ):
        original = getattr(inspect, name, None)
        if original is None:
            continue
        running, suspended, closed, created = (getattr(inspect, s) for s in states)

        def frame_gone(obj, attr, _kind=kind, _reading=guarded, _drop=_drop):
            if type(obj) is not _kind:
                return getattr(obj, attr) is None
            _reading.append(obj)
            try:
                return getattr(obj, attr) is None
            finally:
                _drop(_reading, obj)

        def state(obj, _p=prefix, _gone=frame_gone, _r=running, _s=suspended, _c=closed, _n=created):
            if getattr(obj, f"{_p}_running"):
                return _r
            if getattr(obj, f"{_p}_suspended"):
                return _s
            if without_collection(_gone, obj, f"{_p}_frame"):
                return _c
            return _n

        state.__name__ = state.__qualname__ = name
        state.__doc__ = original.__doc__
        state.__module__ = "inspect"
        setattr(inspect, name, state)
        made.extend((state, frame_gone))
    return made


def _tracebacks_outside_test(hidden):
    """traceback's walk of a traceback's frames (``traceback._walk_tb_with_full_positions``, behind
    ``extract_tb``, ``format_exception``, ``TracebackException`` and ``logging``'s text of an exception), put in
    place: it yields no frame of the test side. An exception of the candidate's that passed out through test.py
    (kept, or read with ``sys.exc_info()`` while unittest handles it) carries test.py's and unittest's frames in
    its traceback: walked, they named test.py's methods and lines, and on Python 3.14 each ``FrameSummary``
    kept the frame's code (``_code``), whose constants are the test's inputs and expected values. The frames
    of the test side are left out of the walk whoever asks (test.py's own text of an exception lacks its lines
    too), but for the harness's text of a test's failure: ``summary(tb)``. Returns ``(walk, summary)``."""
    import traceback

    positions = traceback._get_code_position
    extract = traceback.StackSummary._extract_from_extended_frame_gen
    every = object()

    def _walk_tb_with_full_positions(tb, everything=None, _hidden=hidden, _every=every, _positions=positions):
        # (As traceback's: the frame's code positions of the instruction, with the traceback's line where they
        # have none.)
        shown = everything is _every
        while tb is not None:
            frame = tb.tb_frame
            if shown or not _hidden(frame):
                at = _positions(frame.f_code, tb.tb_lasti)
                yield frame, (at if at[0] is not None else (tb.tb_lineno,) + at[1:])
            del frame
            tb = tb.tb_next

    def summary(tb, _walk=_walk_tb_with_full_positions, _every=every, _extract=extract):
        return _extract(_walk(tb, _every))

    _walk_tb_with_full_positions.__doc__ = traceback._walk_tb_with_full_positions.__doc__
    _walk_tb_with_full_positions.__module__ = "traceback"
    traceback._walk_tb_with_full_positions = _walk_tb_with_full_positions
    return _walk_tb_with_full_positions, summary
