"""Who may take a frame while code under test runs.

A frame leads to every frame below it (``f_back``), and a frame's locals hold
what the code there holds: the running test object, unittest's per-test
outcome, the harness's run. Code under test that held one could change them
between two of the guard's looks. So no code gets a frame object unless it is
one of the few library functions below, each of which reads what it needs of
the frame (its module's name, its code, the names of its locals) and hands the
frame to nothing a run could replace.

The interpreter audits every way to a first frame: ``sys._getframe``,
``sys._current_frames``, a traceback's ``tb_frame`` and a generator's,
coroutine's or async generator's frame (``f_back`` needs a frame first).
Tracing and profiling hooks and the ``gc`` walks, which hand out frames and
every other object, are refused by the guard's audit hook outright.

``frame_wall()`` returns ``check(event, args)``, which the guard's audit hook
calls (directly: the check looks two frames up for the code at hand) for each
audit event: it raises ``RuntimeError`` when the code taking a
frame is not one of the allowed functions, identified by their code objects
(which code under test cannot make: a function compiled from a copy of the
same text has other code). One allowance depends on the caller's caller:
traceback's generator of a traceback's frames, only to the function that
turns them into a ``StackSummary`` without keeping locals, iterating the
generator itself; that generator is ``recode_stack``'s, which yields no frame
of the test side (the harness's text of a failure is made by
``recode_stack``'s summary, a reader of its own). The functions that make a class and read the module of a
frame above them for it get no frame of the test side (``recode_stack``):
``ValueError``, as past the end of the stack. Logging's caller of a record is
found by ``recode_stack``'s ``findCaller``.
"""

import sys
import types

from recode_readers import CLASS_MAKERS, FRAME_ATTRIBUTES, reader_sites, take_factories  # noqa: F401
from recode_stack import install_stack_views, take_stack_views

# Library functions that may take a frame (module, qualified name). Functions a module of this
# Python does not have are left out.
_FRAME_READERS = (
    # The sys._getframe of the class-making readers (typing's _caller, namedtuple, the functional Enum,
    # make_dataclass: recode_readers.CLASS_MAKERS), which gives them a frame at their own call alone.
    ("recode_readers", "_readers_getframe.<locals>._getframe"),
    ("unittest.result", "TestResult._is_relevant_tb_level"),
    ("traceback", "clear_frames"),
    ("traceback", "_compute_suggestion_error"),
    # Its stand-in, which gives it a traceback of a frame of the code under test's alone (recode_stack).
    ("recode_stack", "_suggestions_outside_test.<locals>._compute_suggestion_error"),
    # The harness's summary of every frame of a traceback, for the test log (recode_stack; the guard hands it
    # to the harness alone).
    ("recode_stack", "_tracebacks_outside_test.<locals>.summary"),
    # Where check() was called, for the traceback text of a failed check.
    ("recode_harness", "run_tests.<locals>.sink"),
    # Whose code made and started a patch of unittest.mock (test.py's, or the code under test's).
    ("recode_guard", "Guard.patched"),
    # The frame-reading built-ins (locals(), super(), ...), which read the frame that called them itself.
    ("recode_frame_builtins", "make_frame_builtins.<locals>.caller"),
    ("recode_frame_builtins", "make_frame_builtins.<locals>.own_frame"),
)

# The audit events that hand out a first frame, and the attributes that do ("object.__getattr__").
_FRAME_EVENTS = frozenset(("sys._getframe", "sys._current_frames", "sys._getframemodulename"))


# The modules of the frame readers above, and the name each has ``sys`` under.
READER_SYS = (("typing", "sys"), ("collections", "_sys"), ("enum", "sys"), ("dataclasses", "sys"), ("logging", "sys"))


def fixed_frame_functions():
    """The frame readers call ``sys._getframe`` (``sys._getframemodulename``)
    through their module's ``sys``: recode_stack's, which give a frame only to a
    class-making reader at its own call and read no module of the test side's
    frames. Code under test could set ``sys._getframe``
    to C code that calls the real one and keeps what it gives (a
    ``defaultdict``'s ``__getitem__`` over a ``partial`` of it): the reader
    then seemed to take the frame, and the candidate had it (and through
    ``f_back`` the running test). So each reader module's ``sys`` becomes a
    class whose frame functions are fixed (the class
    and its metaclass are made immutable with the protected classes), and
    whose other attributes are ``sys``'s as they are at each use. The
    framework's modules that decide with ``sys.exc_info`` get the same kind of
    class, with the error functions fixed (below). Returns the three classes,
    to be frozen; a second call returns the same."""
    if _FIXED:
        return list(_FIXED)
    # (sys._getframemodulename replaced first: the readers' sys holds the replacement.)
    install_stack_views()
    # Every reader's module, loaded now (one imported later would keep the real sys).
    import dataclasses  # noqa: F401
    import enum  # noqa: F401
    import logging  # noqa: F401
    import typing  # noqa: F401

    class _SysWithFixed(type):
        """Reads every attribute but the class's own (fixed) ones from ``sys`` itself."""

        def __getattr__(cls, name, _sys=sys, _getattr=getattr):
            return _getattr(_sys, name)

        # (And sets every attribute on ``sys`` itself, as ``contextlib.redirect_stdout`` and unittest's buffered
        # output do: the fixed functions stay the class's.)
        def __setattr__(cls, name, value, _sys=sys, _setattr=setattr):
            _setattr(_sys, name, value)

        def __delattr__(cls, name, _sys=sys, _delattr=delattr):
            _delattr(_sys, name)

    # (The built-in functions themselves, which bind to nothing: a staticmethod around one could be made to
    # wrap another in place, staticmethod.__init__ run again.)
    # (recode_stack's: sys._getframe only to a class-making reader at its own call, and the module names.)
    fixed = {"_getframe": take_stack_views("readers' getframe")}
    if hasattr(sys, "_getframemodulename"):
        fixed["_getframemodulename"] = sys._getframemodulename
    frames_sys = _SysWithFixed("sys", (), {"__slots__": (), **fixed})
    for mod_name, attr in READER_SYS:
        mod = sys.modules.get(mod_name)
        if mod is not None and vars(mod).get(attr) is sys:
            setattr(mod, attr, frames_sys)
    # The framework learns that a part of a test failed, and what it raised, from ``sys.exc_info()`` (unittest's
    # part executor, a class or module fixture's error) and ``sys.exception()`` (contextlib's exit stacks): read
    # from ``sys`` at each use, code under test could set them to say "nothing was raised", and a failing test
    # would report nothing. So those modules' ``sys`` has the interpreter's own two functions, fixed; and its own
    # ``sys.modules``, where unittest finds a test module's fixtures (a dictionary set in its place is not the one
    # the interpreter imports with).
    errors_sys = _SysWithFixed("sys", (), {"__slots__": (), **{k: getattr(sys, k) for k in _FIXED_FOR_ERRORS if hasattr(sys, k)}})
    for mod_name in ERRORS_SYS:
        mod = sys.modules.get(mod_name)
        if mod is not None and vars(mod).get("sys") is sys:
            mod.sys = errors_sys
    _FIXED.extend((frames_sys, errors_sys, _SysWithFixed))
    return list(_FIXED)


# What the framework's modules below decide a failure with, fixed in their sys: the functions that say what is
# being raised, and the table of loaded modules.
_FIXED_FOR_ERRORS = ("exc_info", "exception", "modules")
ERRORS_SYS = ("unittest.case", "unittest.suite", "unittest.result", "contextlib", "traceback")


_FIXED = []

# The other functions the check allows by their code (see frame_wall): traceback's.
_OTHER_READERS = (
    ("traceback", "_walk_tb_with_full_positions"),
    ("traceback", "StackSummary._extract_from_extended_frame_gen"),
)


def frame_reader_functions():
    """The functions whose code the check allows a frame to (the readers above, logging's and
    traceback's), as loaded now. Their code must not be readable: a function made from a reader's code with
    globals of one's own (``FunctionType(namedtuple.__code__, {"_sys": ...})``) would be allowed a frame,
    and hand it to whatever its ``sys`` says. The guard refuses to read their code and defaults."""
    found = []
    for name, qualname in (*_FRAME_READERS, *_OTHER_READERS, *CLASS_MAKERS):
        holder = sys.modules.get(name)
        if holder is None or "<locals>" in qualname:
            continue
        for part in qualname.split("."):
            holder = vars(holder).get(part) if isinstance(getattr(holder, "__dict__", None), (dict, types.MappingProxyType)) else None
            if holder is None:
                break
        if isinstance(holder, (staticmethod, classmethod)):
            holder = holder.__func__
        if type(holder) is types.FunctionType:
            found.append(holder)
    return found


def _nested_codes(code):
    """{qualified name: code} of ``code`` and every code nested in it."""
    found = {}
    stack = [code]
    while stack:
        c = stack.pop()
        found.setdefault(c.co_qualname, c)
        stack.extend(k for k in c.co_consts if type(k) is types.CodeType)
    return found


def code_objects(module):
    """{qualified name: code} of the functions a module defines: its functions,
    the methods of its classes (and their classes, two levels down), and every
    function nested in them. The first code of a name wins."""
    found = {}
    seen = set()

    def walk(code):
        if id(code) in seen:
            return
        seen.add(id(code))
        found.setdefault(code.co_qualname, code)
        for c in code.co_consts:
            if type(c) is types.CodeType:
                walk(c)

    def visit(holder, depth):
        for v in list(vars(holder).values()):
            if isinstance(v, (staticmethod, classmethod)):
                v = v.__func__
            if type(v) is types.FunctionType and v.__module__ in (module.__name__, "__main__"):
                walk(v.__code__)
            elif isinstance(v, type) and v.__module__ in (module.__name__, "__main__") and depth < 3:
                visit(v, depth + 1)

    visit(module, 0)
    return found


def frame_wall(views):
    """The frame check for the guard's audit hook (see the module's text), and the functions to hide from
    code under test. ``views``: what recode_stack's ``take_stack_views("wall")`` gave."""
    import traceback

    # (Keyed by qualified name, a plain string, not by id(): id() is itself an audited call.)
    # (The readers that a factory called once makes are found in the factory's own code: the module holds
    # only what calls it once, recode_readers.once.)
    made_by = {}
    for factory in take_factories():
        for qualname, code in _nested_codes(factory.__code__).items():
            made_by.setdefault((factory.__module__, qualname), code)
    if views is None:
        raise RuntimeError("the frame check is made once, with the stack views taken as the guard is made")
    # (traceback's walk is recode_stack's, which yields no frame of the test side but to the harness's summary;
    # traceback's suggestion maker is in no module now, its code given here.)
    walk_tb, made, frame_of_caller, reading, guarded, gone_codes, moved_readers = views
    made_by.update(moved_readers)
    readers = {}
    for name, qualname in _FRAME_READERS:
        mod = sys.modules.get(name)
        code = made_by.get((name, qualname)) or (code_objects(mod).get(qualname) if mod is not None else None)
        if code is not None:
            if qualname in readers:
                raise RuntimeError(f"two frame readers are named {qualname}")
            readers[qualname] = code
    summary = code_objects(traceback).get("StackSummary._extract_from_extended_frame_gen")
    sites = {name: reader_sites(code) for name, code in readers.items()}
    walk_tb_sites = reader_sites(walk_tb)

    def check(
        event,
        args,
        _events=_FRAME_EVENTS,
        _attrs=FRAME_ATTRIBUTES,
        _readers=readers,
        _walk_tb=walk_tb,
        _summary=summary,
        _frame=types.FrameType,
        _gen=types.GeneratorType,
        _get=dict.get,
        _type=type,
        _str=str,
        _int=int,
        _re=RuntimeError,
        _reading=reading,
        _guarded=guarded,
        _gone_codes=gone_codes,
        _own_frame=frame_of_caller,
        _sites=sites,
        _walk_tb_sites=walk_tb_sites,
    ):
        if event == "object.__getattr__":
            if len(args) < 2 or _type(args[1]) is not _str or args[1] not in _attrs:
                return
            for held in _reading:
                if args[0] is held:
                    return  # this check's own look (at its caller, below)
            guarded_read = False
            for held in _guarded:
                if args[0] is held:
                    guarded_read = True
        elif event not in _events:
            return
        else:
            guarded_read = False
        # This check is called by the guard's audit hook, which the interpreter called for the code at hand.
        # (Its own frame from a traceback of its own, not from sys._getframe: the frame a sys._getframe gives
        # cannot tell who asked, and code under test run inside this check by C code (a finalizer the collector
        # runs, a signal handler) would be given this check's frame, and through f_back the running test.)
        caller = _own_frame().f_back.f_back
        if caller is None:
            return
        code = caller.f_code
        if guarded_read:
            # (inspect's generator states, recode_readers: read by their frame_gone alone.)
            for gone in _gone_codes:
                if code is gone:
                    return
        name = code.co_qualname
        reader = _type(name) is _str and _get(_readers, name) is code
        walking = False
        if not reader and code is _walk_tb:
            up = caller.f_back
            if up is not None and up.f_code is _summary:
                seen = up.f_locals
                gen = seen.get("frame_gen")
                # The summary iterates the generator itself (not a copy a replaced islice or deque made)
                # and keeps no locals.
                # (Running, with traceback's code: its frame is the caller's, read without taking it.)
                walking = not seen.get("capture_locals") and _type(gen) is _gen and gen.gi_running and gen.gi_code is code
        if reader or walking:
            # Only at one of the reader's own looks (reader_sites), and of the object it looks at.
            calls, loads = _walk_tb_sites if walking else _sites[name]
            lasti = caller.f_lasti
            if event == "object.__getattr__":
                local = _get(loads, lasti)
                at_own = local is not None and caller.f_locals.get(local) is args[0]
            else:
                # (Its arguments plain ints: an __index__ of the candidate's would run inside the call.)
                used = _get(calls, lasti)
                at_own = used is not None
                if at_own and used:
                    seen = caller.f_locals
                    at_own = all(_type(seen.get(n)) is _int for n in used)
            if at_own:
                return
        what = event if event != "object.__getattr__" else f"the {args[1]} of a {_type(args[0]).__name__}"
        raise _re(f"frames are not available to code under test ({what}, taken in {code.co_qualname} at {code.co_filename}, line {caller.f_lineno})")

    return check, made


def handlers_without_frames(uninterruptible=()):
    """Signal handlers get no frame. CPython calls a Python signal handler
    with the frame that was running when the signal came (``handler(signum,
    frame)``, no audit event), and from it ``f_back`` leads to the running
    test. So ``_signal.signal`` (behind ``signal.signal``) installs, for a
    handler written in Python, a stand-in that calls it with ``None`` for the
    frame, and ``_signal.getsignal`` gives the handler back. A second
    ``_signal`` or ``_imp`` module (``_imp.create_builtin``) would hold the
    originals: ``_imp.create_builtin`` gives the loaded ones instead. The
    same for ``gc.set_debug`` (refused: ``gc.DEBUG_SAVEALL`` would keep the
    frames of finished calls in ``gc.garbage``) and ``sys.getrefcount``
    (refused: a count tells whether the test holds an ``assertRaises``
    context), ``sys.call_tracing`` (refused: a fork inside it left the child
    untraced), ``sys.monitoring.use_tool_id`` (refused: a tool claimed and
    left so was taken for a change to the hooks) and ``tracemalloc.start`` (refused: where live memory was made
    tells it too). ``uninterruptible``: code objects (filled by the guard once
    made) that a handler must not interrupt with an exception in a child
    forked by code under test: such a child ends instead (exit code 1). The
    profile function that ends a forked child as it returns into the running
    test, and the audit hook, are Python functions: a pending handler that
    raised as one began was raised in its place, and the child went on with
    the test. Returns the new functions:
    the guard's audit hook refuses to read their code; their closures, which
    hold the originals, are sealed."""
    import _imp
    import _signal

    stand_ins = {}  # id(stand-in) -> (stand-in, handler)

    # (What they decide with is in their closures, which code under test cannot read, not in defaults, which a
    # caller can pass in their place: create_builtin given a table of its own made sys again.)
    real_signal, real_getsignal, _id = _signal.signal, _signal.getsignal, id
    import os

    _getpid, _pid, _exit, _base = os.getpid, os.getpid(), os._exit, BaseException

    # The handler each signal had before any code under test ran (Python's own for SIGINT, default_int_handler,
    # which raises KeyboardInterrupt and keeps no frame): put back on that signal as it is, not behind a
    # stand-in, so that code that sets a handler of its own and then puts the old one back leaves the handler as
    # it was. On that signal alone: on another (a timer's SIGALRM) it goes behind the stand-in, which ends a
    # forked child that it would interrupt inside the guard's profile function.
    originals = {}
    for signum in _signal.valid_signals():
        try:
            held = real_getsignal(signum)
        except (OSError, ValueError):
            continue
        if callable(held):
            originals[signum] = held

    def signal(signalnum, handler, /):
        # (Any callable: a C method such as list.insert, or a class that says it is of builtins, gets the frame too.)
        if callable(handler) and originals.get(signalnum) is not handler:

            def stand_in(signum, frame, _handler=handler):
                if frame is not None and _getpid() != _pid:
                    code = frame.f_code
                    for held in uninterruptible:
                        if code is held:
                            try:
                                return _handler(signum, None)
                            except _base:
                                _exit(1)
                return _handler(signum, None)

            stand_ins[_id(stand_in)] = (stand_in, handler)
            installed = stand_in
        else:
            installed = handler
        old = real_signal(signalnum, installed)
        found = stand_ins.get(_id(old))
        return found[1] if found is not None and found[0] is old else old

    def getsignal(signalnum, /):
        now = real_getsignal(signalnum)
        found = stand_ins.get(_id(now))
        return found[1] if found is not None and found[0] is now else now

    import gc

    # gc.DEBUG_SAVEALL keeps every object a collection frees in gc.garbage: frames of finished calls
    # (and through f_back the running ones), with no audit event. Code under test sets no gc debugging.
    def set_debug(flags, /):
        raise RuntimeError("gc.set_debug is not available to code under test")

    set_debug.__doc__ = gc.set_debug.__doc__
    gc.set_debug = set_debug

    # A reference count tells code under test what the running test holds: inside `with
    # self.assertRaises(E):` unittest holds a context object, and the count of its class (and of E, where E
    # is not immortal) rises. A candidate that raised only then passed every error test of every task, with
    # no input check. Code under test counts no references.
    def getrefcount(obj, /):
        raise RuntimeError("sys.getrefcount is not available to code under test")

    getrefcount.__doc__ = sys.getrefcount.__doc__
    sys.getrefcount = getrefcount

    # sys.call_tracing puts back, as its call returns, whether the caller's C frame is traced: natively (3.11)
    # a child forked inside it ran on untraced, and so past the profile function that ends a forked child
    # as it returns into the running test (recode_guard._forked_children_end_at_the_test_side). It is for
    # debuggers; code under test calls nothing through it.
    def call_tracing(func, args, /):
        raise RuntimeError("sys.call_tracing is not available to code under test")

    call_tracing.__doc__ = sys.call_tracing.__doc__
    sys.call_tracing = call_tracing

    # sys.monitoring's callbacks are refused (the guard's audit hook), but claiming a tool raises no audit event:
    # cProfile claimed one and was then refused its callbacks, and the tool left claimed was taken for a change
    # to the interpreter's hooks ("not trusted"). Code under test claims no tool: a clean refusal, as 3.11's
    # sys.setprofile gives.
    monitoring = getattr(sys, "monitoring", None)
    claim = []
    if monitoring is not None:

        def use_tool_id(tool_id, name, /):
            raise RuntimeError("sys.monitoring is not available to code under test")

        use_tool_id.__doc__ = monitoring.use_tool_id.__doc__
        monitoring.use_tool_id = use_tool_id
        claim.append(use_tool_id)

    # tracemalloc tells where every live block of memory was made: inside `with self.assertRaises(E):` the
    # context object unittest made in assertRaises (which passed every error test of every task, as the
    # count did), and the lines of test.py that called into code under test. Code under test traces nothing.
    import _tracemalloc
    import tracemalloc

    def start(nframe=1, /):
        raise RuntimeError("tracemalloc is not available to code under test")

    start.__doc__ = _tracemalloc.start.__doc__
    _tracemalloc.start = start
    tracemalloc.start = start
    import builtins

    # (builtins made again holds the interpreter's own frame-reading built-ins: recode_frame_builtins.)
    import _warnings
    import faulthandler

    # (And the modules whose functions recode_stack replaced: made again, they would hold the interpreter's.)
    given = {
        "_abc": sys.modules["_abc"],
        "_signal": _signal,
        "_imp": _imp,
        "gc": gc,
        "builtins": builtins,
        "sys": sys,
        "_tracemalloc": _tracemalloc,
        "_warnings": _warnings,
        "faulthandler": faulthandler,
    }

    real_create_builtin, _get, _str, _type, _ns = _imp.create_builtin, dict.get, str, type, types.SimpleNamespace

    def create_builtin(spec, /):
        # The name read once, and asked for by it alone: natively, making sys again puts back the whole of
        # its dict as it was at the start (sys.getrefcount included), so sys is given, not made; and a spec
        # whose name says one thing here and another to C code cannot pass for another module.
        name = spec.name
        if _type(name) is not _str:
            raise TypeError(f"a module spec's name must be a str, not {_type(name).__name__}")
        if name in given:
            return given[name]
        made = real_create_builtin(_ns(name=name))
        name = _get(vars(made), "__name__") if _type(vars(made)) is dict else None
        if _type(name) is _str and name in given:
            return given[name]
        return made

    signal.__doc__ = _signal.signal.__doc__
    getsignal.__doc__ = _signal.getsignal.__doc__
    _signal.signal = signal
    _signal.getsignal = getsignal
    _imp.create_builtin = create_builtin
    return (signal, getsignal, create_builtin, set_debug, getrefcount, call_tracing, start, *claim)
