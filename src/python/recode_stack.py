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
- faulthandler's stack dumps (``dump_traceback``, ``dump_traceback_later``, ``register``), and those of its
  crash handler (``enable`` turns on a flag, not the handler) and of a fatal error (``_fatal_error_c_thread``,
  which a child forked for it writes to a pipe of the parent's);
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

And traceback's walk of a traceback's frames yields none of the test side (``_tracebacks_outside_test``):
an exception that passed out through test.py carries test.py's frames in its traceback.

How the library functions that may take a frame get one is ``recode_readers``'s; what they and the frame
check use is made here, once, and taken once (``take_stack_views``): no module of the run holds it.
"""

import sys

from recode_readers import _drop, _generator_states, _Look, _readers_getframe, once

# CO_NEWLOCALS: a function's code (module and class bodies have no locals of their own).
_CO_NEWLOCALS = 0x0002

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


def take_stack_views(part):
    """``part`` of what ``install_stack_views`` made, once: "wall", ``(walk_code, functions, frame_of_caller,
    reading, guarded, gone_codes, readers)`` for the frame check (``walk_code``: traceback's walk of a
    traceback's frames; ``functions``: to hide from code under test; ``readers``: {(module, qualified name):
    code} of readers no module holds now); "readers' getframe", the ``sys._getframe`` the
    class-making readers call; or "test log summary", ``summary(tb)``, a ``traceback.StackSummary`` of every
    frame of ``tb``, test side included, for the test log (the guard hands it to the harness alone). None
    when taken already."""
    return _TAKE.pop(part, None)


def _once_quietly(factory):
    return once(factory, again=None)


@_once_quietly
def install_stack_views():
    """Put the functions above in place, once, before the guard notes the modules that hold them: the
    stand-ins for ``warnings.warn`` (wherever a loaded module holds the interpreter's), for
    ``logging.Logger.findCaller`` and ``sys._getframemodulename``, faulthandler's refusals, and the
    ``sys._getframe`` of the class-making readers (``take_stack_views``). Returns nothing. Formerly returned
    ``(hidden, functions)``: the check of a hidden frame, and the new functions (the frame check lets them
    take frames by their code, so the guard's audit hook hides their code and what they hold)."""
    import _warnings
    import faulthandler
    import logging
    import operator
    import warnings

    import gc

    hidden = hidden_frame_check(_test_side_folders())
    reading = []

    # (What the functions made here decide with is in their closures, which code under test cannot read, not
    # in defaults, which a caller can pass in their place.)
    def frame_of_caller():
        try:
            raise _Look
        except _Look as e:
            tb = e.__traceback__
        reading.append(tb)
        try:
            here = tb.tb_frame
        finally:
            _drop(reading, tb)
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

    # A dump names every frame of the stack, and one timed or on a signal samples it while a test runs. So does
    # a fatal error (_fatal_error_c_thread), and the crash handler (enable) when it fires: in a child forked for
    # it, on a pipe of the parent's. faulthandler's ways to crash go (they are for its own tests); enable stays
    # for the harness's process (a crash there ends the run), and a forked child's is off (recode_guard).
    def refuse(name):
        def refused(*args, **kwargs):
            raise RuntimeError(f"faulthandler.{name} is not available to code under test (it lists the running test's frames)")

        refused.__name__ = refused.__qualname__ = name
        refused.__module__ = "faulthandler"
        refused.__doc__ = getattr(faulthandler, name).__doc__
        return refused

    for name in (
        "dump_traceback",
        "dump_traceback_later",
        "register",
        "dump_c_stack",
        "_fatal_error",
        "_fatal_error_c_thread",
        "_sigsegv",
        "_sigabrt",
        "_sigfpe",
        "_read_null",
        "_stack_overflow",
    ):
        if hasattr(faulthandler, name):
            fn = refuse(name)
            setattr(faulthandler, name, fn)
            made.append(fn)
    # The crash handler code under test turns on is a flag, not the handler: a real one, given a file of the
    # candidate's, dumped the running test's frames there at a signal the candidate sent itself (its own
    # Python handler for SIGSEGV then let the process go on), and a forked child's would on a crash.
    # enable, disable and is_enabled agree with one another as in CPython; no dump is written.
    real_enable, real_disable, real_is_enabled, on = faulthandler.enable, faulthandler.disable, faulthandler.is_enabled, []

    def enable(file=None, all_threads=True):
        if file is not None and not isinstance(file, int) and not callable(getattr(file, "fileno", None)):
            raise AttributeError("'file' has no fileno()")
        on[:] = [True]

    def disable():
        was = bool(on) or real_is_enabled()
        on.clear()
        return was

    def is_enabled():
        return bool(on) or real_is_enabled()

    for fn, real in ((enable, real_enable), (disable, real_disable), (is_enabled, real_is_enabled)):
        fn.__doc__ = real.__doc__
        fn.__module__ = "faulthandler"
        setattr(faulthandler, fn.__name__, fn)
        made.append(fn)
    del warnings
    readers_getframe = _readers_getframe(
        frame_of_caller, lambda maker, frame: reaches_hidden(maker, frame, hidden), (gc_enabled, gc_disable, gc_enable)
    )
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
    suggest, suggest_code = _suggestions_outside_test(hidden)
    if suggest is not None:
        made.append(suggest)
    _TAKE["readers' getframe"] = readers_getframe[0]
    _TAKE["test log summary"] = test_log_summary
    # (traceback's own suggestion maker, now in no module: the frame check allows it by its code.)
    readers = {("traceback", "_compute_suggestion_error"): suggest_code} if suggest_code is not None else {}
    _TAKE["wall"] = (walk.__code__, made, frame_of_caller, reading, guarded, gone_codes, readers)
    return None


@once
def _tracebacks_outside_test(hidden):
    """traceback's walk of a traceback's frames (``traceback._walk_tb_with_full_positions``, behind
    ``extract_tb``, ``format_exception``, ``TracebackException`` and ``logging``'s text of an exception), put in
    place: it yields no frame of the test side. An exception of the candidate's that passed out through test.py
    (kept, or read with ``sys.exc_info()`` while unittest handles it) carries test.py's and unittest's frames in
    its traceback: walked, they named test.py's methods and lines, and on Python 3.14 each ``FrameSummary``
    kept the frame's code (``_code``), whose constants are the test's inputs and expected values. The frames
    of the test side are left out of the walk whoever asks (test.py's own text of an exception lacks its lines
    too), but for the harness's text of a test's failure: ``summary(tb)``, which the frame check allows a
    frame at its own look. Returns ``(walk, summary)``."""
    import traceback

    import itertools

    positions = traceback._get_code_position
    islice, frame_summary, from_list = itertools.islice, traceback.FrameSummary, traceback.StackSummary.from_list

    # (Each takes the traceback alone: what it decides with is in its closure, which code under test cannot
    # read. A hidden-frame check passed in place of a default was handed every frame.)
    def _walk_tb_with_full_positions(tb):
        # (As traceback's: the frame's code positions of the instruction, with the traceback's line where they
        # have none.)
        while tb is not None:
            frame = tb.tb_frame
            if not hidden(frame):
                at = positions(frame.f_code, tb.tb_lasti)
                yield frame, (at if at[0] is not None else (tb.tb_lineno,) + at[1:])
            del frame
            tb = tb.tb_next

    # (Made here from each frame's code, not by traceback's summary, which hands each frame's globals to
    # linecache.lazycache: a lazycache of the candidate's was given test.py's whole namespace. A frame reader
    # itself, at its own look.)
    # ``test_codes``: the ids of test.py's own code objects; the summary's ``test_frames`` says, frame by frame,
    # whether it runs one of them (the host adds test.py's source line under those frames alone: code compiled
    # under test.py's name, or a file name or line written by code under test, names lines of test.py too).
    def summary(tb, test_codes=frozenset()):
        found = []
        real = []
        while tb is not None:
            frame = tb.tb_frame
            code = frame.f_code
            lasti = tb.tb_lasti
            at = next(islice(code.co_positions(), lasti // 2, None)) if lasti >= 0 else (None, None, None, None)
            line, end_line, col, end_col = at if at[0] is not None else (tb.tb_lineno, *at[1:])
            found.append(frame_summary(code.co_filename, line, code.co_name, lookup_line=False, end_lineno=end_line, colno=col, end_colno=end_col))
            real.append(id(code) in test_codes)
            del frame, code
            tb = tb.tb_next
        stack = from_list(found)
        stack.test_frames = real
        return stack

    _walk_tb_with_full_positions.__doc__ = traceback._walk_tb_with_full_positions.__doc__
    _walk_tb_with_full_positions.__module__ = "traceback"
    traceback._walk_tb_with_full_positions = _walk_tb_with_full_positions
    return _walk_tb_with_full_positions, summary


@once
def _suggestions_outside_test(hidden):
    """traceback's maker of "Did you mean" suggestions (``traceback._compute_suggestion_error``, Python 3.12+),
    put in place: it reads the locals and globals of a traceback's innermost frame (``list(frame.f_locals)``),
    and a traceback of the candidate's own cut to end at test.py's method (``tb.tb_next = None``) handed that
    method's locals (the test object) and test.py's globals to a ``list`` of the candidate's. The stand-in
    gives traceback's a traceback of that frame alone, made here, or none when the frame is of the test side
    (no suggestion then). Returns ``(stand-in, traceback's code)``, or ``(None, None)`` where traceback has none."""
    import traceback
    import types

    original = getattr(traceback, "_compute_suggestion_error", None)
    if type(original) is not types.FunctionType:
        return None, None
    make_tb = types.TracebackType

    def _compute_suggestion_error(exc_value, tb, wrong_name):
        if tb is not None:
            while tb.tb_next is not None:
                tb = tb.tb_next
            frame = tb.tb_frame
            # (A traceback of its own, which no other code holds: the candidate's could be relinked meanwhile.)
            tb = None if hidden(frame) else make_tb(None, frame, tb.tb_lasti, tb.tb_lineno)
            del frame
        return original(exc_value, tb, wrong_name)

    _compute_suggestion_error.__doc__ = original.__doc__
    _compute_suggestion_error.__module__ = "traceback"
    traceback._compute_suggestion_error = _compute_suggestion_error
    return _compute_suggestion_error, original.__code__
