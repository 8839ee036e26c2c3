"""Test harness shipped into the interpreter (Pyodide or native python3).

``run_tests(config, emit)`` runs a task's unittest file against the candidate
target file in ``config["workdir"]`` with unittest's own suite machinery (so
module and class fixtures and their cleanups run as CPython runs them) and
reports through ``emit(json_text)`` one event per step, so that a host that has
to kill the interpreter still knows what finished:

- ``{"type": "collected", "tests": [ids]}``
- ``{"type": "collection-error", "message", "file", "line", "traceback"}``
- ``{"type": "module-skipped", "message"}`` (SkipTest raised as test.py was imported: test.py's own, or a note of whose)
- ``{"type": "test-start", "id"}``
- ``{"type": "output", "stream", "text"}``: what the running test wrote to
  ``stdout`` or ``stderr``, as it writes it (its first ``OUTPUT_WRITES``
  writes to each, within ``OUTPUT_EVENTS`` events and ``OUTPUT_CHARS``
  characters a run): the host keeps it for a test whose result never comes
  (its interpreter replaced or dead); the result carries the whole output
- ``{"type": "check", "key", "value", "rtol", "atol", "subtest"}``: a value a
  test checked (``recode_check.check``), as encoded JSON text; the host
  compares it with the recorded value (the interpreter never holds those)
- ``{"type": "test-result", "id", "status", "durationMs", "message",
  "traceback", "testFrames", "line", "stdout", "stderr", "stdoutTruncated",
  "stderrTruncated", "subtests"}`` (each subTest with its ``testFrames`` too):
  ``testFrames``, the indices of the traceback's lines that are frames of
  test.py's own code, under which the host adds test.py's source line
- ``{"type": "fixture", "name", "phase", "status", "tests", "message", "traceback", "testFrames"}``:
  a module or class fixture (or cleanup) raised or skipped; ``tests`` are the
  tests it covers
- ``{"type": "fixture-start", "name", "tests"}``, ``{"type": "fixture-end"}``:
  a class or module fixture (or its cleanups) that does something runs
  (``WatchedSuite``); ``tests`` are the tests it covers
- ``{"type": "tampered", "what": [labels]}``
- ``{"type": "interrupted", "id", "line", "traceback", "testFrames"}``
- ``{"type": "end", "poisoned": reason_or_null}``

Statuses: passed, failed, error, skipped, xfail, xpass. Test ids are
``Class.method``. Run as a script (native backend) it reads the config from
``argv[1]`` and writes events as JSON lines to file descriptor 3.
"""

import _thread
import builtins
import codecs
import gc
import io
import json
import os
import random
import re
import signal
import stat
import sys
import time
import traceback
import types
import unittest
import unittest.case
import unittest.suite
import warnings
from contextvars import Context as _Context

import recode_check
from recode_frames import code_objects, fixed_frame_functions
from recode_guard import (
    MEMORY_ACCESS_MODULES,
    MEMORY_BUG_MODULES,
    PROTECTED_MODULES,
    SUBINTERPRETER_MODULES,
    NATIVE_CODE_MODULES,
    Guard,
    freeze_classes,
    hide_ctypes_classes,
    loaded_modules_and_classes,
    _protected_objects,
    protected_classes,
    seal_closures,
    seal_reinitialising,
    seal_frame_builtins,
    settle_lazy_globals,
    give_warning_registries,
    library_paths,
)
from recode_module_fixtures import handle_module_fixture, handle_module_teardown, hold_module_cleanups, module_fixture
from recode_super import library_super_without_frames
from recode_testpy import foreign_members, foreign_test_classes, look_alike_imports, nested_codes, stray_names
from recode_testtext import TEST_MODULE, TestFacts
from recode_touch import touch_counter, with_ctypes

MESSAGE_CAP = 2000
TRACEBACK_CAP = 20000
RANDOM_SEED = 0

# Bound at import so candidate code that patches json cannot break reporting.


def _event_encoder():
    """``dumps(obj)`` for the harness's events: json's C encoder made here, with the settings of
    ``json.dumps``, not through ``json._default_encoder``, whose own dictionary code under test can set or
    replace to see and rewrite every event before its line is signed (a C encoder's settings are read-only)."""
    from json import encoder as _encoder

    make = getattr(_encoder, "c_make_encoder", None)
    ascii_ = getattr(_encoder, "c_encode_basestring_ascii", None)
    if make is None or ascii_ is None:
        return json.dumps

    def default(o):
        raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")

    encode = make({}, default, ascii_, None, ": ", ", ", False, False, True)

    def dumps(obj, _encode=encode, _join="".join):
        return _join(_encode(obj, 0))

    return dumps


_dumps = _event_encoder()
_perf = time.perf_counter
# Held from the start: code under test may replace the builtins of these names before a collection error is read.
_open_file, _compile = io.open, builtins.compile


# What a run sends of its tests' output as they write it (``output`` events): enough to show what a test
# printed before it hung, never enough to crowd the event stream or slow a chatty test down (an event costs
# some 0.1 ms; the results carry the whole output). Per run, and writes per stream of one test.
OUTPUT_EVENTS = 2000
OUTPUT_CHARS = 400_000
OUTPUT_WRITES = 64
OUTPUT_MORE = "\n[later output was not sent as it was written: it comes with the test's result]\n"


def _keep_alive(*objects, _kept=[]):  # noqa: B006 - the list is the point: it lives as long as the process
    _kept.extend(objects)


def _interrupts_kept():
    """Set ``sys.unraisablehook`` (before the guard is made): a ``KeyboardInterrupt`` the
    interpreter can only report as ignored, raised where no code can catch it (in a finalizer, or in a callback
    from C), is raised again at the interpreter's next check; anything else is reported as CPython reports it.
    The time limit's interrupt is sent once: one that came while the guard's dictionary watcher ran (a ctypes
    callback at every change of a dictionary it watches, whose conversion of an address to text checks for
    signals) was reported as ignored, and the run's loop went on until the instance was replaced ("did not
    respond to the interrupt"); now and then as a run began, nearly always in a loop that changes such a
    dictionary. CPython reports such an interrupt as ignored and goes on. Code under test may set a hook of its
    own: an interrupt lost in it then ends the run at the grace period, as one the code catches does."""
    import _thread
    import signal

    class Interrupt(int):
        # The signal's number, whose ``again`` raises it again: ``_thread.interrupt_main`` as a property's getter,
        # which the interpreter does not follow with a look at pending signals, as it follows a call (the
        # interrupt would be raised in the hook itself at once, and reported as ignored again).
        again = property(_thread.interrupt_main)

    sigint, report, stop = Interrupt(signal.SIGINT), sys.__unraisablehook__, KeyboardInterrupt

    def unraisablehook(unraisable):
        if isinstance(getattr(unraisable, "exc_value", None), stop):
            sigint.again  # noqa: B018 - the property's getter is the point
        else:
            report(unraisable)

    sys.unraisablehook = unraisablehook


class CappedBytes(io.BufferedIOBase):
    """The ``buffer`` of a :class:`CappedStream`: bytes written to it are read as UTF-8 (a character cut
    between writes waits for its rest; bytes that are no UTF-8 become U+FFFD) and kept by the text stream."""

    def __init__(self, text):
        self.text = text
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self):
        return True

    def write(self, b):
        if self.closed:
            raise ValueError("write to closed file")
        data = bytes(memoryview(b))
        self.text.write(self.decoder.decode(data))
        return len(data)

    def fileno(self):
        return self.text.fileno()


class _Kept:
    """What a :class:`CappedStream` kept: at most ``cap`` characters in ``parts`` (``size`` of them), whether
    more was written (``truncated``), and where its text goes (``relay``, ``into``). The stream does not hold it:
    code under test holds the stream (``sys.stdout``) and could raise its cap, reset its size or put text of its
    own among what it kept. The harness holds it from the stream's opening (``_capped_streams``), and the stream
    finds it through a table in its methods' closures, which code under test cannot read."""

    __slots__ = ("cap", "parts", "size", "truncated", "relay", "stream_name", "relayed", "into")

    def __init__(self, cap, relay, stream_name, into):
        self.cap = cap
        self.parts = []
        self.size = 0
        self.truncated = False
        self.relay = relay
        self.stream_name = stream_name
        self.relayed = 0
        self.into = into

    def keep(self, s):
        """Keep the text ``s`` (encoded as the writing stream's error handler says) within the cap, and relay
        it; returns its length, as ``write`` does."""
        room = self.cap - self.size
        piece = s[:room] if room > 0 else ""
        if piece:
            self.parts.append(piece)
            self.size += len(piece)
        cut = len(s) > len(piece)
        if self.relay is not None and (piece or (cut and not self.truncated)) and self.relayed <= OUTPUT_WRITES:
            self.relayed += 1
            if self.relayed > OUTPUT_WRITES:
                self.relay(self.stream_name, OUTPUT_MORE)
            else:
                # The first cut sends one character past the cap: the host notes the cut as this stream does.
                self.relay(self.stream_name, s[: len(piece) + 1] if cut and not self.truncated else piece)
        if cut:
            self.truncated = True
        return len(s)

    def text(self):
        """The text kept, with the cut noted."""
        text = "".join(self.parts)
        if self.truncated:
            text += f"\n[output cut at {self.cap} characters]"
        return text


def _capped_streams():
    """The class of the harness's output streams (:class:`CappedStream`), and a function that opens one and returns
    it with what it keeps (``open_stream(cap, relay=None, stream_name="", into=None) -> (stream, kept)``; ``into``:
    a ``_Kept`` this stream's text joins). Which stream keeps what is in a table held in the closures of the
    class's methods and of that function, which code under test cannot read (nor a function that would empty it:
    the table lives as long as the interpreter's memory does, one run, as the restore after a run puts the memory
    back, or a native process); the harness holds the ``_Kept`` it is given and reads it, never the stream."""
    table = {}
    ident, plain, kept_class, capped_bytes = id, str.__str__, _Kept, CappedBytes

    def kept_of(stream):
        held = table.get(ident(stream))
        return held[1] if held is not None and held[0] is stream else None

    class CappedStream(io.TextIOBase):
        """A text stream that keeps at most ``cap`` characters and notes the cut;
        with ``relay`` (``relay(stream_name, text)``), it also sends each piece it keeps.

        It stands for ``sys.stdout`` and ``sys.stderr`` as a terminal's text stream does for code written for
        one: ``encoding``, ``errors``, ``buffer`` (bytes, read as UTF-8), ``fileno()`` (descriptor 2 for
        standard error, else 1: what is written there is dropped) and ``reconfigure()`` (its arguments are
        checked as CPython checks them; the text is kept as text whatever the encoding). Text the stream's
        encoding cannot take is refused as CPython's stream refuses it, with the error handler CPython gives it
        with a UTF-8 encoding: standard output ``strict`` (a surrogate such as ``"\\ud83d"`` raises
        ``UnicodeEncodeError``), standard error ``backslashreplace`` (written as ``\\ud83d``);
        ``reconfigure(errors=...)`` changes it.

        What it keeps is not its own (``_Kept``): a second ``__init__`` on a stream changes nothing of it."""

        encoding = "utf-8"
        # (A class attribute, so that each stream's own, set as it is made, is read before io.TextIOBase's.)
        errors = "strict"
        line_buffering = False
        write_through = True

        def __init__(self, cap, relay=None, stream_name="", into=None):
            self.errors = "backslashreplace" if stream_name == "stderr" else "strict"
            self.buffer = capped_bytes(self)
            # (The stream is held with what it keeps: its id stays its own while it is in the table.)
            if ident(self) not in table:
                table[ident(self)] = (self, kept_class(cap, relay, stream_name, into if type(into) is kept_class else None))

        def writable(self):
            return True

        def fileno(self):
            kept = kept_of(self)
            return 2 if kept is not None and kept.stream_name == "stderr" else 1

        def reconfigure(self, *, encoding=None, errors=None, newline=None, line_buffering=None, write_through=None):
            if encoding is not None:
                codecs.lookup(encoding)
            if errors is not None:
                codecs.lookup_error(errors)
            if newline not in (None, "", "\n", "\r", "\r\n"):
                raise ValueError(f"illegal newline value: {newline!r}")
            if errors is not None:
                self.errors = errors

        def write(self, s):
            if not isinstance(s, str):
                raise TypeError(f"write() argument must be str, not {type(s).__name__}")
            # (As a str: a subclass's methods never run here, nor in what the harness keeps.)
            s = plain(s)
            if not s.isascii():
                # As CPython's stream encodes it: a lone surrogate standard output cannot take raises here.
                errors = self.errors
                data = s.encode("utf-8", errors)
                if errors not in ("strict", "surrogateescape", "surrogatepass"):
                    s = data.decode("utf-8", "replace")
            kept = kept_of(self)
            if kept is None:
                return len(s)
            return (kept if kept.into is None else kept.into).keep(s)

    def open_stream(cap, relay=None, stream_name="", into=None):
        stream = CappedStream(cap, relay, stream_name, into)
        return stream, kept_of(stream)

    return CappedStream, open_stream


CappedStream, _open_stream = _capped_streams()


def _printed_while_importing(kept):
    """What the import stream kept (standard output and error while test.py was imported) under its header, or
    "" when nothing was printed."""
    return f"[printed while importing]\n{kept.text()}" if kept.size else ""


def _cut(text, cap, what):
    if len(text) <= cap:
        return text
    return f"{text[:cap]}\n[{what} cut at {cap} characters; {len(text) - cap} more]"


def _test_id(test):
    return f"{type(test).__name__}.{getattr(test, '_testMethodName', 'test')}"


def _flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


def _in_workdir(filename, workdir):
    return not filename.startswith("<") and os.path.abspath(filename).startswith(workdir + os.sep)


def _exception_text(exc):
    """``Type: message`` of an exception, cut before formatting when its text is huge."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__
        text = "<exception str() failed>"
    name = type(exc).__qualname__
    mod = type(exc).__module__
    if mod not in ("builtins", "__main__", None):
        name = f"{mod}.{name}"
    # Python's block for a syntax error (its place, the line, the marks) for the built-in classes alone: a subclass's
    # filename, lineno and text can be properties, code under test run here, inside the harness's report of a test.
    if type(exc) in _SYNTAX_ERRORS:
        return "".join(traceback.format_exception_only(type(exc), exc)).strip()
    text = _cut(text, MESSAGE_CAP * 4, "message")
    return f"{name}: {text}" if text else name


def format_exc(exc, target_abs, workdir, summary=None):
    """Traceback text without harness/unittest frames (paths relative to the
    run folder, capped), and the deepest line in the candidate file (or None).
    ``summary(tb)``: the ``StackSummary`` of a traceback's frames (``Run.summary``,
    with test.py's; by default traceback's, which leaves out the test side's)."""
    text, line, _test_lines = format_exc_marked(exc, target_abs, workdir, summary)
    return text, line


def _repeated(n):
    """CPython's line for a frame repeated ``n`` more times (``StackSummary.format``)."""
    return f"  [Previous line repeated {n} more time{'s' if n > 1 else ''}]\n"


def format_exc_marked(exc, target_abs, workdir, summary=None):
    """``format_exc``, and the indices (0-based) of the text's lines that are frames of test.py's own code
    (``summary``'s ``test_frames``): the host adds test.py's source line under those alone. A frame line at any
    other index that names test.py (code compiled under its name; a file name, function name or source line
    written by code under test, with newlines in it; an exception's message) gets none."""
    frames = (summary or traceback.extract_tb)(exc.__traceback__)
    real = getattr(frames, "test_frames", None) or [False] * len(frames)
    line = None
    for fr in frames:
        if os.path.abspath(fr.filename) == target_abs:
            line = fr.lineno
    if isinstance(exc, SyntaxError) and exc.filename and os.path.abspath(exc.filename) == target_abs:
        line = exc.lineno
    kept = [(fr, is_test) for fr, is_test in zip(frames, real) if _in_workdir(fr.filename, workdir)]
    shown = kept[-50:] if len(kept) > 60 else kept
    text = "Traceback (most recent call last):\n" if kept else ""
    lines_before = text.count("\n")
    test_lines = []
    # (As ``StackSummary.format`` writes them, frame by frame, counting the lines: a recursion's repeats past
    # three are left out and said in one line, as CPython says them. The stack is for its formatter alone.)
    stack = traceback.StackSummary.from_list([fr for fr, _ in shown])
    cutoff = traceback._RECURSIVE_CUTOFF
    last, count = None, 0
    for fr, is_test in shown:
        chunk = stack.format_frame_summary(fr)
        if chunk is None:
            continue
        place = (fr.filename, fr.lineno, fr.name)
        if place != last:
            if count > cutoff:
                text += _repeated(count - cutoff)
                lines_before += 1
            last, count = place, 0
        count += 1
        if count > cutoff:
            continue
        if is_test:
            test_lines.append(lines_before)
        text += chunk
        lines_before += chunk.count("\n")
    if count > cutoff:
        text += _repeated(count - cutoff)
    last = _exception_text(exc)
    # (A syntax error's place is indented in a traceback, as a frame's is: ``  File "x.py", line 2``.)
    if kept and isinstance(exc, SyntaxError) and last.startswith('File "'):
        last = "  " + last
    text += last + "\n"
    text = text.replace(workdir + os.sep, "")
    return _cut(text, TRACEBACK_CAP, "traceback"), line, test_lines


def message_of(exc, workdir=None):
    """One-line message: exception type and text, capped."""
    first = _exception_text(exc)
    if isinstance(exc, AssertionError):
        first = "AssertionError: " + first.split(": ", 1)[1] if ": " in first else "AssertionError"
    if workdir:
        first = first.replace(workdir + os.sep, "")
    return first[:MESSAGE_CAP]


_RANK = {"passed": 0, "xfail": 1, "skipped": 2, "xpass": 3, "failed": 4, "error": 5}
_FIXTURE = re.compile(r"^(\w+) \((.*)\)$")


class _Stop(Exception):
    """Ends the run early (the framework was changed)."""


# Set once, so that the check module's globals are the same before and after every run.
recode_check.MODE = "harness"


class _TestState:
    def __init__(self, tid):
        self.id = tid
        self.t0 = _perf()
        self.outcomes = []  # (status, message, traceback, line, test_frames)
        self.subtests = []
        self.subtest_lines = []  # the line of the target file where each subTest failed, or None
        # The streams it replaced and its own (the test's, not the run object's: the guard compares the run
        # object at every look, and one that changes at every test sends each look the long way).
        self.streams = None


class Run:
    """One run of the tests: the event sink, the current test and its capture."""

    def __init__(self, config, emit, guard, poison):
        self.emit = emit
        self.relay = None  # sends a running test's output as it is written (run_tests)
        self.workdir = os.path.abspath(config["workdir"])
        self.target_abs = os.path.abspath(os.path.join(self.workdir, config["target"]))
        self.cap = int(config.get("output_cap", 20000))
        self.guard = guard
        self.poison = poison
        self.current = None
        self.preface = ""
        self.held = {}  # the task's Python files as the run began (test.py and held_sources)
        self.packages = tuple(config.get("packages") or ())
        self.tests = []
        self.tampered = False
        self.tests_patch = ""
        self.test_codes = ()
        self.patch_targets = frozenset()
        self.changes_own = (True, True)
        self.test_classes = ()
        self.test_fixtures = None  # what sys.modules holds under test.py's module name (_import_tests)
        self.module_steps = None  # how test.py's module fixtures and cleanups are run (recode_module_fixtures)
        self.test_builtins = None  # test.py's __builtins__ (TestBuiltins)
        # The token of the harness's looks at a test's start and result (only the harness holds it).
        self.window = object()

    # -- helpers ---------------------------------------------------------
    def summary(self, tb):
        """The frames of the traceback ``tb`` for the test log, test.py's included (through the guard, with
        the run's token: traceback's own walk gives no frame of the test side); traceback's own, without
        them, before the guard holds the token."""
        try:
            # (test.py's code objects too: before the tests' watch, for an error of test.py's import.)
            return self.guard.test_log_summary(tb, self.window, self.test_codes)
        except RuntimeError:
            return traceback.extract_tb(tb)

    def describe(self, exc):
        """``(message, traceback, line, test_frames)``: see ``format_exc_marked``."""
        tb, line, test_frames = format_exc_marked(exc, self.target_abs, self.workdir, self.summary)
        if isinstance(exc, (MemoryError, RecursionError)):
            self.poison.reason = type(exc).__name__
        return message_of(exc, self.workdir), tb, line, test_frames

    def check_guard(self, opening=None):
        """The guard's look; ``opening`` True at a test's start, False before its result (test.py's counted
        dictionaries must not change in between: ``Guard.watch_classes``), None at any other look."""
        self.refuse(self.guard.changes(self.window, opening) if opening is not None else self.guard.changes())

    def refuse(self, changed):
        """End the run as "not trusted" when ``changed`` (descriptions of tampering) is not empty."""
        if changed:
            self.tampered = True
            self.emit({"type": "tampered", "what": changed})
            raise _Stop()

    def with_preface(self, printed):
        """What the first test printed (``printed``), after what was printed while test.py was imported, when
        anything was: each under a header, and no header over nothing."""
        if not self.preface:
            return printed
        return f"{self.preface}[printed by the test]\n{printed}" if printed else self.preface

    # -- test lifecycle ---------------------------------------------------
    def start(self, test):
        self.check_guard(opening=True)
        state = _TestState(_test_id(test))
        self.current = state
        self.emit({"type": "test-start", "id": state.id})
        (out, out_kept), (err, err_kept) = _open_stream(self.cap, self.relay, "stdout"), _open_stream(self.cap, self.relay, "stderr")
        # Kept for the rest of the process: another thread may be in print() with this stream, which CPython
        # before 3.12 holds without a reference of its own (freed under it, the interpreter crashes).
        _keep_alive(out, err)
        state.streams = (sys.stdout, sys.stderr, out_kept, err_kept)
        sys.stdout, sys.stderr = out, err
        state.t0 = _perf()

    def stop(self, test):
        state = self.current
        if state is None:
            return
        duration = (_perf() - state.t0) * 1000.0
        old_out, old_err, out, err = state.streams
        sys.stdout, sys.stderr = old_out, old_err
        if not state.outcomes and not state.subtests:
            # unittest reported nothing: the test is being unwound by an interrupt, which is reported as such.
            return
        self.current = None
        status, message, tb, line, test_frames = "passed", "", "", None, []
        subs = [
            (
                "skipped" if x["status"] == "skipped" else x["status"],
                f"subTest {x['params']}: {x['message']}",
                x["traceback"],
                line,
                x["testFrames"],
            )
            for x, line in zip(state.subtests, state.subtest_lines)
        ]
        for o in state.outcomes + subs:
            # The first outcome of the worst kind (error > failed > xpass > skipped > xfail > passed).
            if _RANK[o[0]] > _RANK[status]:
                status, message, tb, line, test_frames = o
        # Also before a test's result goes out: a change made during the test and undone once its result had
        # gone through would be seen by no check between tests (and one undone earlier leaves the result
        # disagreeing with the outcomes already sent).
        self.check_guard(opening=False)
        self.emit(
            {
                "type": "test-result",
                "id": state.id,
                "status": status,
                "durationMs": duration,
                "message": message,
                "traceback": tb,
                "testFrames": test_frames,
                "line": line,
                "stdout": self.with_preface(out.text()),
                "stderr": err.text(),
                "stdoutTruncated": out.truncated,
                "stderrTruncated": err.truncated,
                "subtests": state.subtests,
            }
        )
        self.preface = ""
        # (Their text is out: only the objects need to stay.)
        out.parts, err.parts = [], []

    def outcome(self, test, status, err=None, reason=None):
        # Out at once, before anything the test runs later (a cleanup, a later part) could rewrite the
        # harness's record of it: the host takes the worst outcome it saw, whatever the result then says.
        owner = test.test_case if isinstance(test, unittest.case._SubTest) else test
        self.emit({"type": "test-outcome", "id": _test_id(owner), "status": status})
        state = self.current
        if state is None:
            return
        message, tb, line, test_frames = "", "", None, []
        if err is not None:
            message, tb, line, test_frames = self.describe(err[1])
            if status == "xfail":
                message = f"expected failure: {message}"[:MESSAGE_CAP]
        elif reason is not None:
            message = f"skipped: {reason}"[:MESSAGE_CAP]
        elif status == "xpass":
            message = "unexpected success: the test is marked as an expected failure, and it passed"
        if isinstance(test, unittest.case._SubTest):
            try:
                params = test._subDescription()
            except Exception:  # noqa: BLE001 - a parameter's repr failed
                params = "(<subtest>)"
            state.subtests.append({"params": params[:500], "status": status, "message": message, "traceback": tb, "testFrames": test_frames})
            state.subtest_lines.append(line)
            return
        state.outcomes.append((status, message, tb, line, test_frames))

    def fixture_started(self, name, where):
        """A class fixture (``where``: the test class) or module fixture (``where``: the module's name) starts."""
        if isinstance(where, str):
            covered = [tid for tid, cls in self.tests if cls.__module__ == where]
            label = f"{name} of {self.config_tests}" if where == TEST_MODULE else f"{name} of {where}"
        else:
            covered = [tid for tid, cls in self.tests if cls is where]
            label = f"{name} of {where.__qualname__}"
        self.emit({"type": "fixture-start", "name": label[:300], "tests": covered})

    def fixture(self, holder, status, err=None, reason=None):
        desc = getattr(holder, "description", str(holder))
        m = _FIXTURE.match(desc)
        name, where = (m.group(1), m.group(2)) if m else (desc, "")
        covered = []
        for tid, cls in self.tests:
            qual = f"{cls.__module__}.{cls.__qualname__}"
            if not where or where == qual or where == cls.__module__:
                covered.append(tid)
        message, tb, test_frames = "", "", []
        if err is not None:
            message, tb, _line, test_frames = self.describe(err[1])
            message = f"{name} raised {message}"
        elif reason is not None:
            message = f"skipped in {name}: {reason}"[:MESSAGE_CAP]
        self.emit(
            {
                "type": "fixture",
                "name": desc[:300],
                "phase": "setup" if name.startswith("setUp") else "teardown",
                "status": status,
                "tests": covered,
                "message": message,
                "traceback": tb,
                "testFrames": test_frames,
            }
        )


class EventResult(unittest.TestResult):
    """A TestResult that turns unittest's callbacks into harness events.
    Tracebacks are never formatted whole (unittest's own lists stay empty)."""

    def __init__(self, run):
        super().__init__()
        self._run = run

    def startTest(self, test):
        self.testsRun += 1
        self._run.start(test)

    def stopTest(self, test):
        self._run.stop(test)

    def addSuccess(self, test):
        self._run.outcome(test, "passed")

    def addFailure(self, test, err):
        self._run.outcome(test, "failed", err)

    def addError(self, test, err):
        if isinstance(test, unittest.suite._ErrorHolder):
            self._run.fixture(test, "error", err)
        else:
            self._run.outcome(test, "error", err)

    def addSkip(self, test, reason):
        if isinstance(test, unittest.suite._ErrorHolder):
            self._run.fixture(test, "skipped", reason=reason)
        else:
            self._run.outcome(test, "skipped", reason=reason)

    def addExpectedFailure(self, test, err):
        self._run.outcome(test, "xfail", err)

    def addUnexpectedSuccess(self, test):
        self._run.outcome(test, "xpass")

    def addSubTest(self, test, subtest, err):
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self._run.outcome(subtest, "failed" if failed else "error", err)

    def addDuration(self, test, elapsed):
        pass


def _own_fixture(cls, *names):
    """Whether test class ``cls`` has any of the class-fixture attributes ``names`` other than
    ``unittest.TestCase``'s (a classmethod, a staticmethod, any callable or descriptor, its own or a base's)."""
    for name in names:
        for klass in cls.__mro__:
            if name in vars(klass):
                if klass is not unittest.TestCase:
                    return True
                break
    return False


class TestBuiltins(dict):
    """test.py's built-ins (its module's ``__builtins__``): the interpreter's own ``__import__`` and
    ``__build_class__``, taken as the harness loaded, and every other name as the built-ins hold it when it is
    looked up (a test's ``mock.patch("builtins.input")`` applies). An import statement hands ``__import__`` its
    module's globals: one swapped by code under test for the length of test.py's next import, and put back, got
    test.py's namespace (a ``class`` statement hands ``__build_class__`` its body, whose globals are test.py's)."""

    __slots__ = ()

    def __missing__(self, key, _live=builtins.__dict__):
        return _live[key]


_OWN_BUILTINS = {"__import__": builtins.__import__, "__build_class__": builtins.__build_class__}


class _TestBuiltinsHolder:
    """What the guard watches test.py's built-ins (``TestBuiltins``) through: an object whose dictionary they are."""

    __name__ = "test.py's built-ins"


def _frame_builtins():
    """The frame-reading built-ins as the seal installed them (``recode_guard.seal_frame_builtins``), by name:
    test.py's calls of them by name reach them, whatever the built-ins hold then."""
    return {fn.__name__: fn for fn in seal_frame_builtins()[1:] if fn.__module__ == "builtins"}


class WatchedSuite(unittest.TestSuite):
    """unittest's own suite, which tells the host when a class or module
    fixture that does something starts and ends (``fixture-start``,
    ``fixture-end``): should the run stop inside one (the interpreter dies,
    the time limit, ``KeyboardInterrupt`` or ``SystemExit`` raised there), the
    tests it covers are not left passed."""

    def _tearDownPreviousClass(self, test, result):
        prev = getattr(result, "_previousTestClass", None)
        busy = (
            prev is not None
            and prev is not getattr(test, "__class__", None)
            and (_own_fixture(prev, "tearDownClass", "doClassCleanups") or getattr(prev, "_class_cleanups", None))
        )
        with _fixture_phase(result, busy and prev, "tearDownClass"):
            super()._tearDownPreviousClass(test, result)

    def _handleClassSetUp(self, test, result):
        cls = test.__class__
        busy = cls is not getattr(result, "_previousTestClass", None) and _own_fixture(cls, "setUpClass", "doClassCleanups")
        with _fixture_phase(result, busy and cls, "setUpClass"):
            super()._handleClassSetUp(test, result)

    def _handleModuleFixture(self, test, result):
        name = test.__class__.__module__
        _same_fixtures(result, name)
        module = sys.modules.get(name)
        busy = name != self._get_previous_module(result) and hasattr(module, "setUpModule")
        with _fixture_phase(result, busy and name, "setUpModule"):
            handle_module_fixture(self, test, result, _module_steps(result))

    def _handleModuleTearDown(self, result):
        name = self._get_previous_module(result)
        _same_fixtures(result, name)
        steps = _module_steps(result)
        busy = name is not None and (hasattr(sys.modules.get(name), "tearDownModule") or steps.pending())
        with _fixture_phase(result, busy and name, "tearDownModule"):
            handle_module_teardown(self, result, steps)


def _module_steps(result):
    """The run's ``ModuleSteps`` (recode_module_fixtures), through the result the suite is given (the harness's
    ``EventResult``, whose run has them from before test.py's import)."""
    return result._run.module_steps


# The module fixtures unittest's suite looks up in test.py's module (by its name, in sys.modules).
_MODULE_FIXTURES = frozenset(("setUpModule", "tearDownModule"))
# What a module made by types.ModuleType holds of its own.
_MODULE_OWN = frozenset(("__name__", "__doc__", "__package__", "__loader__", "__spec__"))


def _same_fixtures(result, name):
    """Before unittest's suite looks test.py's module fixtures up by the module's ``name``: what sys.modules holds
    there must be the harness's (``_import_tests``), or the run is not trusted (a module of the candidate's put
    there would have unittest run its ``tearDownModule`` instead of test.py's)."""
    run = getattr(result, "_run", None)
    if run is not None and name == TEST_MODULE and run.test_fixtures is not None and sys.modules.get(name) is not run.test_fixtures:
        run.refuse([f"sys.modules[{TEST_MODULE!r}] (test.py's module fixtures)"])


class _fixture_phase:
    """Around a suite's fixture step: ``where`` is the test class or module name whose fixture runs (falsy: none)."""

    def __init__(self, result, where, name):
        self.run = getattr(result, "_run", None) if where else None
        self.where, self.name = where, name

    def __enter__(self):
        if self.run is not None:
            self.run.fixture_started(self.name, self.where)

    def __exit__(self, *exc):
        if self.run is not None and exc[0] is None:
            self.run.emit({"type": "fixture-end"})
        return False


class _Poison:
    reason = None


def _import_tests(config, run, import_out, import_kept, cached):
    """Import test.py (which imports the candidate) and load its tests. ``cached``: test.py's bytes ->
    (its code, its ``TestFacts``), either None, as an earlier run compiled and read them (``cache_code``)."""
    import importlib.util

    saved = sys.stdout, sys.stderr
    # Two streams, as a process has (standard error's descriptor and error handler its own), kept as one text.
    sys.stdout, sys.stderr = import_out, _open_stream(run.cap, stream_name="stderr", into=import_kept)[0]
    try:
        path = os.path.join(run.workdir, config["tests_file"])
        # The classes test.py defines, read before it runs (and imports the candidate, which could rewrite it).
        with open(path, "rb") as f:
            source = f.read()
        run.held = held_sources(run.workdir, (run.target_abs, path))
        run.held[path] = source
        # test.py's text is not for code under test to read: a candidate that learns which line of test.py
        # calls it (a warning's location) would read there whether the call is inside assertRaises, and raise
        # only then. Its code is made from the text read here; the host puts its lines into the tracebacks.
        os.remove(path)
        # Read before any code under test runs in this run: what an earlier run left was undone by the restore.
        cached_code, cached_facts = cached.get(source, (None, None))
        facts = cached_facts or TestFacts.of(source, path)
        run.test_class_names = facts.class_names
        run.test_bound_names = facts.bound_names
        run.test_imports = facts.imports
        # What the tests change and put back themselves (the guard does not count those changes against the run).
        run.tests_patch = facts.tests_patch
        run.patch_targets = facts.patch_targets
        run.changes_own = facts.changes_own
        spec = importlib.util.spec_from_file_location(TEST_MODULE, path)
        module = importlib.util.module_from_spec(spec)
        # Its built-ins: the interpreter's own import and class statements (TestBuiltins).
        module.__builtins__ = run.test_builtins = TestBuiltins({**_OWN_BUILTINS, **_frame_builtins()})
        # Where warnings note what they said from test.py's code, there from the start: the first warning
        # changes it, not test.py's namespace, which must not change while a test runs (Guard.watch_classes);
        # one that says it is empty, which assertWarns does not rebind (recode_guard.WarningRegistry).
        give_warning_registries([module])
        # Noted at once: the audit hook refuses to change its class (a module class with __getattr__). It is in
        # no sys.modules: code under test, which test.py imports, cannot look it up by name (and empty the list of
        # bad inputs a test loops over, or change what an assertion compares with); it has what test.py hands it.
        # unittest's suite, and dataclasses while test.py is made, look the module up there by its name: they find
        # a module that holds test.py's module fixtures alone (setUpModule, tearDownModule), once it is made.
        run.guard.protect([module])
        run.test_module = module
        fixtures = types.ModuleType(TEST_MODULE, "test.py's module fixtures, where unittest's suite looks them up")
        run.guard.protect([fixtures])
        sys.modules[TEST_MODULE] = run.test_fixtures = fixtures
        # The code of the text read above (as the loader's exec_module would run it), kept: the functions of
        # the test classes must have been made by it.
        code = cached_code or spec.loader.source_to_code(source, path)
        # (Before it runs: a collection error raised in it marks its frames by these, ``_collection_error``.)
        run.test_codes = nested_codes(code)
        exec(code, vars(module))
        # What test.py's star imports bound is its text's too: the names those modules gave as it ran.
        if facts.star_imports:
            run.test_bound_names = run.test_bound_names | _star_names(facts.star_imports)
        # A look before the tests are made (a hook that made them would hold every test object): what the
        # import changed and has not put back, and test.py made by anything but its text (recode_testpy).
        run.check_guard()
        run.refuse(_foreign_in_test_module(run))
        # The classes test.py's text defines, as they are now, held by identity: what a class says of itself
        # (its __module__, its __name__) code under test can change while the tests load (a property
        # __class__ that the loader's isinstance reads), and a test class so renamed left the watch.
        names = run.test_class_names
        run.test_classes = tuple(v for k, v in list(vars(module).items()) if k in names and issubclass(type(v), type))
        # Its module fixtures, where unittest's suite finds them (watched as test.py's module is), and nothing
        # else: what code under test put there while test.py was made goes.
        for name in [k for k in list(vars(fixtures)) if k not in _MODULE_OWN]:
            delattr(fixtures, name)
        # Each as a function of the harness's that calls test.py's, at its step alone (recode_module_fixtures):
        # test.py's own function there led code under test, with nothing handed to it, to test.py's namespace
        # (``setUpModule.__globals__``), and the list of bad inputs a test loops over was emptied.
        # (None as it is: unittest's suite runs no fixture that is None.)
        for name in _MODULE_FIXTURES:
            if name in vars(module):
                found = vars(module)[name]
                setattr(fixtures, name, None if found is None else module_fixture(found, name, run.module_steps))
        return list(_flatten(unittest.defaultTestLoader.loadTestsFromModule(module)))
    finally:
        sys.stdout, sys.stderr = saved


def _star_names(modules):
    """The names a star import of each of ``modules`` (names in ``sys.modules``) binds: its ``__all__`` (a plain
    list or tuple of plain strings), or else its names that do not begin with an underscore."""
    names = set()
    for name in modules:
        mod = sys.modules.get(name)
        d = getattr(mod, "__dict__", None) if isinstance(mod, types.ModuleType) else None
        if type(d) is not dict:
            continue
        listed = d.get("__all__")
        if type(listed) in (list, tuple):
            names.update(n for n in tuple(listed) if type(n) is str)
        else:
            names.update(k for k in list(d) if type(k) is str and not k.startswith("_"))
    return frozenset(names)


def _foreign_in_test_module(run, classes=None):
    """What in test.py's module is not its own (empty when all is): names its text does not bind, imports
    of a protected module that are look-alikes, code in its test classes that its text did not make, and,
    given its test ``classes``, any built on a class test.py does not define."""
    module, guard = run.test_module, run.guard
    stray = stray_names(module, run.test_bound_names, run.test_builtins)
    codes = frozenset(map(id, run.test_codes)) | guard.framework_codes
    return (
        ([f"test.py's names {', '.join(stray[:5])} (its text does not bind them)"] if stray else [])
        + look_alike_imports(module, run.test_imports, guard.noted_modules())
        + foreign_members(module, codes, guard.noted_classes(), run.test_builtins)
        + (foreign_test_classes(classes, module, run.test_class_names, guard.noted_classes()) if classes is not None else [])
    )


_SYNTAX_ERRORS = (SyntaxError, IndentationError, TabError)


def held_sources(workdir, skip):
    """The text of every Python file of the run folder but those at the absolute paths ``skip`` (the target, and
    test.py, read already): the task's repository files, read before any code under test runs, as
    ``{absolute path: bytes}``. A syntax error a collection error claims for one of them is checked against this
    text, not against what the run may have written over it."""
    held = {}
    for folder, _dirs, names in os.walk(workdir):
        for name in names:
            path = os.path.join(folder, name)
            if name.endswith(".py") and path not in skip:
                try:
                    with _open_file(path, "rb") as f:
                        held[path] = f.read()
                except OSError:
                    pass
    return held


def _compiled_badly(path, frames, held, target_abs):
    """Whether compiling the file at ``path`` (absolute, in the run folder) fails, so that a SyntaxError naming it
    is one its compile met. Code can raise one naming any file (test.py, say): the claim is taken only for the
    target or a task's file (``held``: a file the run made, under a look-alike name, is the candidate's), not for
    one that a frame of the traceback (``frames``, its ``FrameSummary``s) runs (a file that failed to compile never
    ran), and a task's file is compiled from its text as the run began, whatever was written over it."""
    try:
        if path not in held and path != target_abs:
            return False
        if any(type(f.filename) is str and os.path.abspath(f.filename) == path for f in frames):
            return False
        text = held.get(path)
        if text is None:
            with _open_file(path, "rb") as f:
                text = f.read()
        _compile(text, path, "exec", dont_inherit=True)
    except SyntaxError:
        return True
    except BaseException:  # noqa: BLE001 - anything else (no file, no memory) is no compile that failed
        return False
    return False


def _written_over(path, text):
    """Whether the file at ``path`` holds other text than ``text`` (its text as the run began); not when it is gone
    (test.py's is taken away before code under test runs)."""
    try:
        with _open_file(path, "rb") as f:
            return f.read() != text
    except BaseException:  # noqa: BLE001 - gone or unreadable: nothing was written over it
        return False


def _placed(frames, run):
    """Where a collection error is, as ``(file, line)`` (relative path, or None), from the traceback's frames
    (``FrameSummary``s, outermost first): the deepest frame of the target file; else the last of test.py's own
    frames, when only the task's files ran after it; else the target, without a line; else nowhere. test.py's own
    are its leading frames (its module's code imports the rest, and nothing it imports runs test.py's code then):
    a frame named test.py after another file's is code compiled under test.py's name, and a repository file's name
    is not taken either (code can be compiled under it)."""
    tests_abs = os.path.join(run.workdir, run.config_tests)
    named = [os.path.abspath(f.filename) if type(f.filename) is str else "" for f in frames]
    target = [f.lineno for f, path in zip(frames, named) if path == run.target_abs]
    if target:
        return run.config_target, target[-1]
    own = [i for i, path in enumerate(named) if path == tests_abs]
    if not own:
        return None, None
    # test.py's own frames lead; deeper than the last of them, only the task's files may have run (its repository,
    # importing): code of any other name (one made under "<frozen ...>", a file the run wrote) is the candidate's.
    last = own[0]
    while last + 1 < len(named) and named[last + 1] == tests_abs:
        last += 1
    if all(path in run.held for path in named[last + 1 :]):
        return run.config_tests, frames[last].lineno
    return run.config_target, None


_BASE_TRACEBACK = BaseException.__traceback__.__get__


def _collection_error(exc, run, import_kept):
    """The collection-error event for ``exc``, raised while test.py was imported. Whatever the exception's
    attributes do (properties that raise, or answer differently at each read), the event goes out."""
    printed = _printed_while_importing(import_kept)
    printed = f"\n{printed}" if printed else ""
    try:
        # test.py's own frames marked (by their code, as the harness compiled it), for the host to give them their
        # source lines, as under a test's failure; when the import failed before test.py was compiled, none.
        text, _line, test_frames = format_exc_marked(exc, run.target_abs, run.workdir, run.summary)
        message = message_of(exc, run.workdir)
        if _unlisted_module(exc, run):
            message = f"{message}{NOT_A_TASK_PACKAGE}"[: MESSAGE_CAP + len(NOT_A_TASK_PACKAGE)]
        frames = traceback.extract_tb(_BASE_TRACEBACK(exc))
        file, line = _placed(frames, run)
        if isinstance(exc, SyntaxError):
            # Read once, as the plain values a compile's own error has (a subclass's are code under test's).
            name, lineno, msg = (SyntaxError.filename.__get__(exc), SyntaxError.lineno.__get__(exc), SyntaxError.msg.__get__(exc))
            path = os.path.abspath(name) if type(name) is str and _in_workdir(name, run.workdir) else None
            exact = type(exc) in _SYNTAX_ERRORS and type(lineno) is int and path is not None
            if exact and _compiled_badly(path, frames, run.held, run.target_abs):
                file, line = os.path.relpath(path, run.workdir), lineno
            else:
                # Raised by code, not met in compiling: its text without the place it claims.
                message = f"{type(exc).__name__}: {msg}"[:MESSAGE_CAP] if type(msg) is str else type(exc).__name__
                if exact and path in run.held and _written_over(path, run.held[path]):
                    # A file of the task the run wrote over, which then failed to compile: the candidate's doing.
                    rel = os.path.relpath(path, run.workdir)
                    message += f" (in {rel}, a file of the task that the run wrote over; the task's own text compiles)"
                    file, line = run.config_target, None
        return {"type": "collection-error", "message": message, "file": file, "line": line, "traceback": text + printed, "testFrames": test_frames}
    except BaseException:  # noqa: BLE001 - the error's own code raised while it was read: said by its type alone
        kind = type(exc).__name__
        return {
            "type": "collection-error",
            "message": f"{kind if type(kind) is str else 'an exception'} (raised while test.py was imported; its details could not be read)",
            "file": None,
            "line": None,
            "traceback": printed,
        }


def _raised_by_tests(exc, run):
    """Whether test.py's own code raised ``exc`` as test.py was imported: every frame of its traceback from
    test.py's module frame on runs code of test.py's text (by the identity of its code objects, ``run.test_codes``;
    a frame of code compiled under test.py's name is not). The frames before that one are the harness's."""
    marks = list(getattr(run.summary(_BASE_TRACEBACK(exc)), "test_frames", ()))
    return True in marks and all(marks[marks.index(True) :])


def _plain_place(text):
    """Whether a file or function name can stand in a caller's line as it is: a plain string of printable
    characters with no quote (the host reads the line's parts by its quotes)."""
    return type(text) is str and text.isprintable() and '"' not in text


def _stopped(run, exc):
    """The "interrupted" event for ``exc``, which stopped the suite: where the code was (its line is marked in the
    editor), the test running then, and what it printed until then (where a hanging test got to)."""
    text, line, test_frames = format_exc_marked(exc, run.target_abs, run.workdir, run.summary)
    state = run.current
    current = state.id if state else None
    printed = {}
    if state is not None and state.streams:
        sys.stdout, sys.stderr = state.streams[0], state.streams[1]
        if current is not None:
            out, err = state.streams[2], state.streams[3]
            printed = {
                "stdout": run.with_preface(out.text()),
                "stderr": err.text(),
                "stdoutTruncated": out.truncated,
                "stderrTruncated": err.truncated,
            }
    return {"type": "interrupted", "id": current, "line": line, "traceback": text, "testFrames": test_frames, **printed}


def _empty_stdin():
    """Standard input as ``python -m unittest`` has it with nothing to read (``< /dev/null``): a text stream over
    descriptor 0, which is at its end on both backends (natively the host wrote the run's key there and closed it,
    the harness read it; Pyodide's standard input gives nothing): ``buffer``, ``fileno()``, ``reconfigure()``
    and ``encoding`` as CPython's, ``input()`` raises ``EOFError``. An empty text buffer where there is no
    descriptor 0."""
    try:
        return io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8")
    except (OSError, ValueError):
        return io.StringIO("")


def run_tests(config, emit_text):
    """Run the task tests. ``config``: workdir, target (path relative to
    workdir), tests_file, output_cap (characters per stream per test), only
    (optional list of test ids: run just these, e.g. after a crash)."""

    # What they hold is in their closures, not in defaults: the sink is reachable (``recode_check.SINK``), and
    # the relay may be (``run.relay``), and a caller can pass its own in place of a
    # default (a sink given an event writer of the candidate's handed it where check() was called: test.py's
    # method and line). The closures of the harness's functions cannot be read (``seal_closures``), and
    # whoever held the event writer would write lines the host takes for the harness's.
    dumps, held = _dumps, HELD_EVENTS

    def emit(event):
        emit_text(dumps(event), event["type"] in held)

    left = [OUTPUT_EVENTS, OUTPUT_CHARS]
    _str, _len, _type, _float = str, len, type, float

    # It may be reachable (``run.relay``): it sends output events only, within the run's budget.
    def relay(name, text):
        if name not in ("stdout", "stderr") or left[0] <= 0 or left[1] <= 0:
            return
        text = _str(text)
        # A plain string (a subclass's slicing and length are its own), within the budget.
        text = (text if _type(text) is _str else _str.__str__(text))[: left[1]]
        left[0] -= 1
        left[1] -= _len(text)
        emit({"type": "output", "stream": name, "text": text})

    poison = _Poison()
    random.seed(RANDOM_SEED)
    sys.stdin = _empty_stdin()
    run = Run(config, emit, None, poison)
    run.relay = relay

    # The sink holds the event writer and the run's folder, not the run.
    prefix = run.workdir + os.sep

    getframe = sys._getframe
    gc_enabled, gc_disable, gc_enable = gc.isenabled, gc.disable, gc.enable
    # The ids of test.py's own code objects, once it is imported: a caller in test.py is named only from one of
    # them (code compiled under test.py's name that called check() would have the host add that line of test.py).
    tests_name = config["tests_file"]
    test_code_ids = [frozenset()]

    def sink(key, value, rtol, atol, subtest, calls):
        # What check() sends, and nothing else: the sink is reachable, and the host reads these fields.
        # (``calls``: the texts of the outcome() calls the value holds, for a failed item's message alone.)
        if not (
            _type(key) is _str and _type(value) is _str and _type(rtol) is _float and _type(atol) is _float
        ) or not ((subtest is None or _type(subtest) is _str) and (calls is None or _type(calls) is _str)):
            raise TypeError("recode_check.SINK takes what recode_check.check sends: use check()")
        caller = ""
        try:
            # Where check() was called, as a traceback's line shows it; the host adds the source line from the task's files.
            # (The interpreter's own, in the closure as the sink is made: not a default a caller could pass, and
            # sys._getframe can be set by code under test.)
            # (The collector off while the frame object is made: its finalizers, C code of the candidate's,
            # would run at this very call, which the frame check lets take a frame.)
            was = gc_enabled()
            gc_disable()
            try:
                frame = getframe(2)
            finally:
                if was:
                    gc_enable()
            code = frame.f_code
            name = code.co_filename.replace(prefix, "")
            # (A plain name alone: one written by code under test as `test.py", line 60, in q` read as test.py's
            # line 60 to the host.)
            if (name != tests_name or id(code) in test_code_ids[0]) and _plain_place(name) and _plain_place(code.co_name):
                caller = f'  File "{name}", line {frame.f_lineno}, in {code.co_name}\n'
        except Exception:  # noqa: BLE001 - the caller is only for the traceback text
            pass
        emit(
            {"type": "check", "key": key, "value": value, "rtol": rtol, "atol": atol, "subtest": subtest, "caller": caller, "calls": calls}
        )

    recode_check.SINK = sink
    # test.py's code and what its text says, kept compiled from an earlier run (cache_code), taken out of the
    # harness's state for this run, which code under test can read (its code would tell which calls are
    # inside assertRaises as its text would): held here alone. The restore after the run puts them back.
    test_path = os.path.abspath(os.path.join(run.workdir, config["tests_file"]))
    _only_this_runs_code(config.get("cached_files"))
    cached_test = {}
    for key in [k for k in _STATE.code if os.path.abspath(k[0]) == test_path]:
        cached_test[key[1]] = (_STATE.code.pop(key), _STATE.facts.pop(key, None))
    for key in [k for k in _STATE.facts if os.path.abspath(k[0]) == test_path]:
        cached_test.setdefault(key[1], (None, _STATE.facts.pop(key)))
    # The numpy the checks encode with: the task's package, loaded before code under test runs, or none.
    recode_check.NUMPY = sys.modules.get("numpy")
    guard = run.guard = _guard()
    # Before any code under test runs (test.py's import): from here unittest.doModuleCleanups is refused.
    run.module_steps = _BEGIN_MODULE_STEPS()
    # Natively (a new process for each run), after the guard, which takes ctypes as it is made.
    sealed = [_installed_extensions_only(config.get("packages") or ()), *_CODE_FROM_SOURCE] if sys.platform != "emscripten" else []
    # The event writer's defaults (the descriptor, what it must lead to, the run's key) cannot be changed
    # nor read, nor those of the functions that hold it.
    guard.protect([emit_text, emit, sink, relay, *sealed], hide=True)
    guard.expect("recode_check", "SINK", sink)
    # The run object holds the event sink (``run.emit``): code that replaced it could rewrite every result.
    # The harness's state between runs too (slots).
    slotted = (_STATE,)
    # (The run's token from here: a collection error's traceback marks test.py's own frames, ``_collection_error``.)
    guard.watch_classes((), objects=(run,), slotted=slotted, window=run.window)
    run.config_target = config["target"]
    run.config_tests = config["tests_file"]
    import_out, import_kept = _open_stream(run.cap)
    try:
        try:
            tests = _import_tests(config, run, import_out, import_kept, cached_test)
        except KeyboardInterrupt as exc:
            text, line = format_exc(exc, run.target_abs, run.workdir)
            if import_kept.size:
                text += f"\n{_printed_while_importing(import_kept)}"
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
            return run
        except _Stop:
            raise
        except unittest.SkipTest as exc:
            # As CPython's discover: the whole module is skipped. Unless test.py raised it, the message says so
            # (test.py did not skip itself), with the target's line where a frame of the target raised it. test.py
            # raised it when every frame from its module's on runs test.py's own code, told by the code objects
            # (a frame of any other code, the import machinery's or code compiled under test.py's name included,
            # ran code test.py imported).
            _text, line = format_exc(exc, run.target_abs, run.workdir)
            if _raised_by_tests(exc, run):
                where = ""
            elif line is not None:
                where = f" (raised by {config['target']}, line {line}, as it was imported)"
            else:
                where = " (not raised by test.py itself: raised by code test.py imported)"
            try:
                reason = str(exc)
            except Exception:  # noqa: BLE001 - a skip of code under test whose __str__ raises
                reason = f"{type(exc).__name__} (its message could not be read)"
            reason = reason[: max(0, MESSAGE_CAP - len(where) - len("skipped: "))]
            emit({"type": "module-skipped", "message": f"skipped: {reason}{where}"})
            return run
        except BaseException as exc:  # noqa: BLE001 - any import failure is a collection error
            if isinstance(exc, (MemoryError, RecursionError)):
                poison.reason = type(exc).__name__
            emit(_collection_error(exc, run, import_kept))
            return run
        only = config.get("only")
        if only is not None:
            wanted = set(only)
            tests = [t for t in tests if _test_id(t) in wanted]
        # Ids and classes, not the test objects: nothing code under test can reach leads to a running test.
        run.tests = [(_test_id(t), type(t)) for t in tests]
        test_code_ids[0] = frozenset(map(id, run.test_codes))
        emit({"type": "collected", "tests": [_test_id(t) for t in tests]})
        # What the loading changed is seen before the test classes join the watch (which notes the run object again).
        run.check_guard()
        run.refuse(foreign_test_classes({type(t) for t in tests}, run.test_module, run.test_class_names, guard.noted_classes()))
        made = {id(c) for c in run.test_classes}
        classes = {type(t) for t in tests if id(type(t)) in made}
        # test.py's module and the classes it defines that the tests are built on: not changed while a test runs
        # (but those test.py's text changes itself from inside its tests).
        own = list(dict.fromkeys(c for t in classes for c in t.__mro__ if id(c) in made))
        # test.py's built-ins, counted over the whole run whatever test.py does: it has no name for them (C code
        # that makes a function while test.py's code runs, FunctionType(code, {}), gives it the built-ins of that
        # code's globals), and its class and module fixtures read them between two tests' looks.
        builtins_of_tests = _TestBuiltinsHolder()
        builtins_of_tests.__dict__ = run.test_builtins
        counted = ([] if run.changes_own[0] else own) + ([] if run.changes_own[1] else [run.test_module])
        try:
            guard.watch_classes(
                set(own),
                objects=(run,),
                slotted=slotted,
                modules=(
                    (run.test_module, run.test_bound_names),
                    (run.test_fixtures, _MODULE_FIXTURES),
                    (builtins_of_tests, frozenset(run.test_builtins)),
                ),
                tests_patch=run.tests_patch,
                test_codes=run.test_codes,
                test_patches=run.patch_targets,
                counted=counted,
                window=run.window,
                frozen=(builtins_of_tests,),
            )
        except RuntimeError:
            run.refuse(["the guard's watch (set by code under test)"])
        # Again, now that the watch has copied what the looks compare with: code under test can run during the
        # watch (a property ``__class__`` that its ``isinstance`` reads), and what it changed then would be in
        # the copies. A change made after this is not in them, and the next look sees it.
        run.refuse(_foreign_in_test_module(run, {type(t) for t in tests}))
        if import_kept.size:
            run.preface = f"{_printed_while_importing(import_kept)}\n"
        run.check_guard()
        # As ``python -m unittest`` runs a suite (TextTestRunner, warnings "default" when no -W option is given):
        # every warning shown once per place, DeprecationWarning and ResourceWarning included, whatever test.py
        # set as it was imported.
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.filterwarnings("module", category=DeprecationWarning, message=r"Please use assert\w+ instead.")
            WatchedSuite(tests).run(EventResult(run))
    except _Stop:
        pass
    except KeyboardInterrupt as exc:
        emit(_stopped(run, exc))
    except BaseException as exc:
        if isinstance(exc, Exception):
            raise
        # SystemExit (sys.exit in a class or module fixture, which unittest lets out), GeneratorExit or another
        # BaseException: the suite stops there, as python -m unittest stops; said as the interrupt is, naming it.
        emit({**_stopped(run, exc), "raised": message_of(exc, run.workdir)})
    finally:
        # (Not the code of every protected function: reading it is audited, a few milliseconds for them all, and
        # the audit hook refuses to replace it.)
        changed = guard.changes()
        recode_check.SINK = None
        if changed:
            run.tampered = True
            emit({"type": "tampered", "what": changed})
        emit({"type": "end", "poisoned": poison.reason})
    return run


def _main():
    """Native entry: python3 harness.py CONFIG.json, the run's key on standard input; events to fd 3."""
    # Descriptors beyond the four the host gave (0-2, and 3 for events) were inherited from whatever started
    # recode (a shell's open folder leads out of the box): closed before any code under test runs.
    os.closerange(4, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 65536)
    # Protected under its library name (recode_guard.PROTECTED_MODULES), as in Pyodide: code under test that
    # reaches it through sys.modules["__main__"] changes a protected module.
    sys.modules["recode_harness"] = sys.modules[__name__]
    _not_dumpable()
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    # The run's key for its event lines, in hex on standard input (which the host then closes): before any code
    # under test runs, and nowhere it could read it (no file, no environment).
    given = b""
    while chunk := os.read(0, 4096):
        given += chunk
    emit_text = event_writer(3, bytes.fromhex(given.decode("ascii").strip()))
    del given

    install_array_stand_in()
    _interrupts_kept()
    # The task's packages, imported before the guard is made, so that it watches them (recode_guard.WATCHED_PACKAGES),
    # and before the run's folder joins the import path (where a file could stand in for one).
    import_packages(config.get("packages") or ())
    task_packages_only(config.get("packages") or (), config["workdir"])
    # unittest.mock imports asyncio, which code under test may not import (recode_guard): tests and candidates
    # that use it get it imported here, before the guard is made (Pyodide has asyncio loaded from its start).
    for name in (config["tests_file"], config["target"]):
        try:
            with open(os.path.join(config["workdir"], name), "rb") as f:
                if b"mock" in f.read():
                    import unittest.mock  # noqa: F401

                    break
        except (OSError, ImportError):
            pass
    _patch_notes()
    os.chdir(config["workdir"])
    sys.path.insert(0, os.path.abspath(config["workdir"]))
    sys.dont_write_bytecode = True
    # From here on no .pyc is read (code under test may not unmarshal code: ``_code_from_source_only``): the
    # modules imported during the run compile from their source. (Before the guard, which notes sys.)
    sys.pycache_prefix = os.path.join(os.sep, "recode-no-bytecode")
    _CODE_FROM_SOURCE.extend(_code_from_source_only())
    try:
        run_tests(config, emit_text)
    finally:
        # Do not wait for threads the submission left running.
        os._exit(0)


def _installed_extensions_only(packages):
    """Native, once the guard is made and before any code under test runs: an extension module loads only from the interpreter's own
    folders (its standard library, and the folders of the extension modules loaded now, all read-only in the
    box), and from site-packages only those of the task's packages (``packages``, distribution names) and of
    the packages imported now, never from a file a run wrote. A compiled module is native code in this process:
    one written to the run folder and loaded through importlib's ``ExtensionFileLoader`` took frames and
    set ``assertRaises`` on the running test, and could have read the run's key from memory; one of another
    installed package, loaded by its path or through a link in the run folder (which ``task_packages_only``'s
    finder does not see), did too (cffi's backend reads and writes memory). Nor one of
    the modules that read and write memory (``recode_guard.MEMORY_ACCESS_MODULES``). ``_imp.create_dynamic``
    is replaced (Pyodide replaces it at the seal: only modules loaded before it); the original stays in the
    replacement's closure, which the guard refuses to code under test. A second ``_imp`` module is the loaded
    one (``recode_frames.handlers_without_frames``). Returns the replacement."""
    import _imp
    import importlib.machinery as machinery
    import sysconfig

    paths = sysconfig.get_paths()
    suffixes = tuple(machinery.EXTENSION_SUFFIXES)
    site_dirs = _site_folders()
    roots = {paths.get(k) for k in ("stdlib", "platstdlib")} | set(site_dirs)
    loaded = set()
    for mod in list(sys.modules.values()):
        file = getattr(mod, "__file__", None)
        if isinstance(file, str) and file.endswith(suffixes):
            roots.add(os.path.dirname(file))
            loaded.add(os.path.realpath(file))

    def folders(dirs):
        return tuple(os.path.join(os.path.realpath(r), "") for r in dirs if isinstance(r, str) and r)

    # The folders of the task's packages and of the packages imported now (task_packages_only's allowed names).
    package_dirs = folders(p for n in _allowed_packages(packages) for p in (getattr(sys.modules.get(n), "__path__", None) or ()))
    roots, loaded = folders(roots), frozenset(loaded)

    real, spec_type, get = _imp.create_dynamic, machinery.ModuleSpec, object.__getattribute__
    refused = MEMORY_ACCESS_MODULES | MEMORY_BUG_MODULES | SUBINTERPRETER_MODULES | NATIVE_CODE_MODULES

    # (What it checks with is in its closure, not in defaults a caller could pass: roots of its own.)
    def create_dynamic(spec, file=None, /):
        d = get(spec, "__dict__") if type(spec) is spec_type else None
        name = d.get("name") if type(d) is dict else None
        origin = d.get("origin") if type(d) is dict else None
        if type(name) is not str or type(origin) is not str or file is not None:
            raise ImportError("an extension module from an unusual spec is not available to code under test")
        path = os.path.realpath(origin)
        # Every part of the name (the last one names the init function: x._ctypes runs _ctypes's) and the file's.
        if any(part in refused for part in name.split(".")) or os.path.basename(path).split(".")[0] in refused:
            raise ImportError(f"{name} is not available to code under test (it reads and writes the interpreter's memory, or has a memory-safety bug)")
        if not path.startswith(roots):
            raise ImportError(
                f"the extension module {name} is not one of Python's own: compiled code from elsewhere is not available to code under test",
                name=name,
            )
        # (Any site-packages: a virtual environment's Python has its base's under the standard library's folder.)
        in_site = path.startswith(site_dirs) or "/site-packages/" in path or "/dist-packages/" in path
        if in_site and not path.startswith(package_dirs) and path not in loaded:
            raise ImportError(
                f"the extension module {name} ({path}) is not of the task's packages: the tests run with the standard"
                " library and the task's packages alone, as in the page",
                name=name,
            )
        return real(spec_type(name, None, origin=path))

    _imp.create_dynamic = create_dynamic
    return create_dynamic


def frozen_objects_only():
    """Replace ``_imp.get_frozen_object`` (both backends, before any code under test runs) with one that hands out
    the frozen modules' code, made now, and takes no data: given bytes, the original unmarshals them into code with
    no audit event. Returns the replacement, for the guard or the seal to protect."""
    import _imp

    frozen_codes = {}
    for name in _imp._frozen_module_names():
        try:
            frozen_codes[name] = _imp.get_frozen_object(name)
        except Exception:  # noqa: BLE001 - an alias without code of its own
            pass

    _ie, _str, _type = ImportError, str, type

    def get_frozen_object(name, data=None, /):
        if data is not None:
            raise _ie("get_frozen_object with data is not available to code under test")
        code = frozen_codes.get(name) if _type(name) is _str else None
        if code is None:
            raise _ie(f"No such frozen object named {name!r}" if _type(name) is _str else "a frozen module's name must be a str", name=name)
        return code

    _imp.get_frozen_object = get_frozen_object
    return get_frozen_object


# The replacement of get_frozen_object and the audit hook of ``_code_from_source_only`` (native).
_CODE_FROM_SOURCE = []


def _code_from_source_only():
    """Native, before the guard is made (which refuses new audit hooks), once the task's packages are imported
    and before any code under test runs: code objects come from source only.
    Code made from its parts (``types.CodeType``, ``code.replace``) or from bytes (``marshal``, a ``.pyc``,
    ``_imp.get_frozen_object`` with data, which unmarshals with no audit event) can hold crafted bytecode, which
    reads and writes any address of the interpreter (as in Pyodide, where the seal refuses the same). A frozen
    module's code is made now; ``.pyc`` files are not read (``sys.pycache_prefix``, set before the guard). Returns
    the replacement of ``get_frozen_object`` and the audit hook, for the guard to protect."""

    def audit(event, args, _re=RuntimeError):
        if event == "code.__new__" or event == "marshal.loads" or event == "marshal.load":
            raise _re("code objects made from bytes or parts are not available to code under test (compile source instead)")

    get_frozen_object = frozen_objects_only()
    sys.addaudithook(audit)
    return [get_frozen_object, audit]


def _not_dumpable():
    """Native, first thing: mark this process not dumpable (``prctl(PR_SET_DUMPABLE, 0)``), so that no other
    process of the box reads or writes its memory (``process_vm_readv``, ptrace), the run's key included: code
    under test may start processes, and a fresh python3 there has no audit hook and has ctypes. Where that
    cannot be done (no prctl), the box is the only wall."""

    def set_not_dumpable(ctypes):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
        except (OSError, AttributeError):
            pass

    with_ctypes(set_not_dumpable)


# The submodules of a package whose functions tests call to decide (``np.testing.assert_allclose``), or whose
# functions decide them (``np.random`` makes their inputs), imported with it: numpy imports them only when asked.
_PACKAGE_SUBMODULES = {"numpy": ("numpy.testing", "numpy.random", "numpy.linalg", "numpy.fft")}


def import_packages(names):
    """Native, before a run: import each of the task's packages (a distribution name: ``-`` is ``_``) and the
    submodules of ``_PACKAGE_SUBMODULES``. One that does not import is left for the run's own import to report.
    (Pyodide imports every module of a task's packages before it is sealed: ``preload``.)"""
    import importlib

    for name in names:
        if not isinstance(name, str):
            continue
        module = name.replace("-", "_")
        for mod in (module, *_PACKAGE_SUBMODULES.get(module, ())):
            try:
                importlib.import_module(mod)
            except Exception:  # noqa: BLE001 - reported by the run's own import
                break


def _site_folders():
    """The folders of the packages installed for this Python (its site-packages, the user's too), each as its
    real path ending in a separator."""
    import site
    import sysconfig

    dirs = {sysconfig.get_paths().get(k) for k in ("purelib", "platlib")}
    try:
        dirs.update(site.getsitepackages())
    except AttributeError:
        pass
    dirs.add(getattr(site, "getusersitepackages", lambda: None)())
    return tuple(os.path.join(os.path.realpath(d), "") for d in dirs if isinstance(d, str) and d)


# What a module that no file of the run, no module of the standard library and no package of the task provides is
# said to be, on both backends (Pyodide has no other packages; natively the finder of the task's packages says it).
NOT_A_TASK_PACKAGE = (
    " (not among the task's packages: the tests run with the standard library and the task's packages alone, as in the page)"
)


def _unlisted_module(exc, run):
    """Whether ``exc`` is a ModuleNotFoundError for a top-level module that is no file or folder of the run folder,
    no module of the standard library and no package of the task, not already said to be so."""
    name = getattr(exc, "name", None)
    if type(exc) is not ModuleNotFoundError or type(name) is not str or not name or "." in name:
        return False
    if NOT_A_TASK_PACKAGE in str(exc):
        return False
    here = os.path.join(run.workdir, name)
    return (
        name not in _stdlib_names()
        and name not in _task_package_names(run.packages)
        and not os.path.exists(here)
        and not os.path.exists(here + ".py")
    )


def _stdlib_names():
    """The names of the standard library's top-level modules, built-in ones included."""
    return frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names)


def _task_package_names(names):
    """The top-level module names of the task's packages (``names``, distribution names: ``-`` is ``_``)."""
    return frozenset(n.replace("-", "_") for n in names if isinstance(n, str))


def _allowed_packages(names):
    """The top-level names code under test may import from site-packages: the task's packages (``names``) and
    those imported now."""
    return _task_package_names(names) | frozenset(n.split(".")[0] for n in list(sys.modules) if isinstance(n, str))


def task_packages_only(names, workdir):
    """Native, before the guard is made: code under test imports, of the packages installed for this Python
    (its site-packages), the task's (``names``) and what is imported now alone, as in the page, whose Python has
    the standard library and the task's packages only: a file that imports numpy for a task without it is a
    collection error on both backends, not solved natively and refused in the page. Modules of the run's folder
    and the standard library import as ever. Returns the finder (put first in ``sys.meta_path``)."""
    from importlib.machinery import PathFinder

    installed = _site_folders()
    allowed = _allowed_packages(names)
    stdlib = _stdlib_names()
    run_folder = [os.path.abspath(workdir)]
    find, realpath, _str, _type = PathFinder.find_spec, os.path.realpath, str, type

    class TaskPackagesOnly:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if path is not None or _type(name) is not _str or "." in name or name in allowed or name in stdlib:
                return None
            if find(name, run_folder) is not None:
                return None
            spec = find(name)
            where = (spec.origin or (list(spec.submodule_search_locations or ()) or [""])[0]) if spec is not None else ""
            if where and realpath(where).startswith(installed):
                raise ModuleNotFoundError(f"No module named {name!r}{NOT_A_TASK_PACKAGE}", name=name)
            return None

    finder = TaskPackagesOnly()
    sys.meta_path.insert(0, finder)
    return finder


# The exit status of an interpreter whose event channel was taken from it.
CHANNEL_LOST_EXIT = 75


try:
    # HMAC-SHA256 in C (3.14's HACL*; OpenSSL before it): a Python-level hmac reads module globals that code
    # under test could replace, and would hand them the key.
    from _hmac import compute_digest as _hmac_digest
except ImportError:
    from _hashlib import hmac_digest as _hmac_digest

# Bytes of a line's HMAC kept (hex: twice as many characters).
EVENT_MAC_BYTES = 16
# Between the events of one line (ASCII's record separator: the event encoder escapes every control
# character, so no event's text holds it). ``src/python/event-auth.ts`` splits a line there.
EVENT_SEPARATOR = b"\x1e"
# Events that count for nothing without a later one (a test's outcomes and checks, without its result):
# held and written with the next event that is not one of them, in one line, one MAC and one write.
HELD_EVENTS = frozenset(("test-outcome", "check"))


def event_writer(fd, key):
    """``emit_text(text, hold=False)`` for the event channel open on ``fd``:
    each event's text is written with ``os.write`` (a file object's
    attributes could be set by code under test), at once, or with ``hold``
    kept and written before the next one not held, in the same line (they
    are then apart by ``EVENT_SEPARATOR``): a line per event the host must
    have at once, and fewer lines to sign, write and check. Each line is ``MAC TEXT``: the first
    ``EVENT_MAC_BYTES`` of HMAC-SHA256 under the run's ``key`` (bytes, given
    by the host, never seen by code under test) of the line's number (from 0)
    and a space and the text, in hex (``src/python/event-auth.ts``). Code under test can
    write to the channel too (natively its descriptor is inherited; in
    Pyodide the device can be opened again), but not the key: the host drops
    every line without the right MAC, and the run is not trusted. Before every write, the descriptor must still lead
    where it led when the writer was made (the same pipe natively, the event
    device in Pyodide): code under test that pointed it elsewhere (``os.dup2``
    a file onto it, or closed it and opened another) would take the harness's
    events and write back its own, failures turned into passes, through a
    copy of the descriptor it kept. No look of the guard sees a descriptor.
    If it does not, or cannot be looked at, the interpreter ends at once
    (exit status ``CHANNEL_LOST_EXIT``): the host reports it dead, and the test
    that was running is an error."""
    st = os.fstat(fd)
    ident = (st.st_dev, st.st_ino, st.st_rdev, stat.S_IFMT(st.st_mode))
    key = bytes(key)

    # Natively, the signals are held back while a line is numbered and written (a handler of code under test
    # runs between bytecodes: one that prints would number its line between another's number and its write).
    # Not in Pyodide: its mask holds nothing back (the interrupt is Pyodide's own, no signal), and each call
    # costs some 100 microseconds there (0.2 ms per event).
    sigmask = None if sys.platform == "emscripten" else getattr(signal, "pthread_sigmask", None)
    try:
        every = signal.valid_signals() if sigmask else ()
    except (AttributeError, OSError):
        every = ()

    # (What it writes with is in its closure, which code under test cannot read, not in defaults: a caller
    # that reached it could pass its own MAC function in their place, and be handed the key.)
    _held = []  # the texts held, of this writer alone
    _sep, _lock, _pid, _getpid = EVENT_SEPARATOR, _thread.RLock(), os.getpid(), os.getpid
    _fd, _ident, _fstat, _write, _fmt = fd, ident, os.fstat, os.write, stat.S_IFMT
    _oserror, _exit, _lost = OSError, os._exit, CHANNEL_LOST_EXIT
    _key, _mac, _next, _cut = key, _hmac_digest, [0], EVENT_MAC_BYTES
    _sigmask, _every = (sigmask if every else None), every
    _block, _set, _len = getattr(signal, "SIG_BLOCK", 0), getattr(signal, "SIG_SETMASK", 2), len

    def emit_text(text, hold=False):
        # Only the harness's own process reports: a child forked by code under test holds a copy of the
        # line counter, and its lines would take numbers the harness's lines need.
        if _getpid() != _pid:
            return
        # One line at a time, numbered in the order written: threads of code under test print too, and the
        # MAC and the write let other threads run between a line's number and its write.
        with _lock:
            if hold:
                _held.append(text.encode("utf-8"))
                return
            held = _sigmask(_block, _every) if _sigmask is not None else None
            try:
                try:
                    st = _fstat(_fd)
                    same = (st.st_dev, st.st_ino, st.st_rdev, _fmt(st.st_mode)) == _ident
                except _oserror:
                    # Closed, or another file's: the channel is not ours. (The interrupt, or an exception of a
                    # handler, raised here goes on as any other: no number was taken, nothing was written.)
                    same = False
                if not same:
                    _exit(_lost)
                body = text.encode("utf-8")
                if _held:
                    body = _sep.join((*_held, body))
                n = _next[0]
                written = 0
                try:
                    _next[0] = n + 1
                    data = b"%s %s\n" % (_mac(_key, b"%d " % n + body, "sha256")[:_cut].hex().encode("ascii"), body)
                    while written < _len(data):
                        written += _write(_fd, data[written:])
                    _held.clear()
                except BaseException:
                    # Stopped before any of the line went out (an exception from a handler, the interrupt in
                    # Pyodide): its number is free again. Part of a line out: the channel is broken.
                    if written:
                        _exit(_lost)
                    _next[0] = n
                    raise
            finally:
                if held is not None:
                    _sigmask(_set, held)

    return emit_text


def _only_this_runs_code(cached_files):
    """Pyodide, before any code under test runs: of the code compiled between runs (``cache_code``), leave in the
    harness's state, which code under test can read, only that of this run's files (``cached_files``, their paths,
    as the worker found their texts among those compiled): what earlier runs brought, another task's repository,
    is not this run's to see. The restore after the run puts it all back. None (natively): nothing is cached."""
    if cached_files is None:
        return
    keep = set(cached_files)
    versions = {}
    for key in _STATE.code:
        versions.setdefault(key[0], []).append(key)
    for path, keys in versions.items():
        mine = None
        if path in keep:
            if len(keys) == 1:
                mine = keys[0]
            else:
                # (Another text of the same path, compiled for another run: the one that is this run's file now stays.)
                try:
                    with open(path, "rb") as f:
                        mine = (path, f.read())
                except OSError:
                    pass
        for key in keys:
            if key != mine:
                del _STATE.code[key]
                _STATE.facts.pop(key, None)
    for key in [k for k in _STATE.facts if k not in _STATE.code]:
        del _STATE.facts[key]


class _RunState:
    """What the harness keeps for one interpreter. Slots, not a dictionary:
    the guard watches them during a run (see ``run_tests``)."""

    __slots__ = ("guard", "code", "facts")

    def __init__(self):
        self.guard = None  # the guard's handle (recode_guard.GuardHandle), made by prepare() (or at the first run)
        self.code = {}  # (path, source bytes) -> its code, compiled between runs (see cache_code)
        self.facts = {}  # (path, source bytes) -> its TestFacts, read between runs (see cache_code)


_STATE = _RunState()
# unittest's addModuleCleanup and doModuleCleanups, the harness's, given before the guard notes unittest's modules;
# a run's ModuleSteps come from here, once (recode_module_fixtures).
_BEGIN_MODULE_STEPS = hold_module_cleanups()
_os_write = os.write
_os_open = os.open
_os_close = os.close

# Modules through which Python reaches JavaScript in Pyodide (globals, the
# worker's messages, the host's file system under Node). Code under test gets
# none of them (see ``seal``).
_BRIDGE_ROOTS = frozenset(("js", "pyodide", "_pyodide", "pyodide_js", "_pyodide_core"))

# Modules built into Pyodide that code under test must not have either: those that read and write the
# interpreter's memory (recode_guard.MEMORY_ACCESS_MODULES, refused on both backends; in Pyodide ctypes
# also calls any C function, emscripten_run_script_string among them: JavaScript), and array
# (recode_guard.MEMORY_BUG_MODULES), and the subinterpreters' (recode_guard.SUBINTERPRETER_MODULES).
_REFUSED_ROOTS = _BRIDGE_ROOTS | MEMORY_ACCESS_MODULES | MEMORY_BUG_MODULES | SUBINTERPRETER_MODULES | NATIVE_CODE_MODULES


# The _imp module as sealed (a run that swaps it in sys.modules is tainted).
_SEALED_IMP = []


def _array_stand_in():
    """What ``import array`` gives code under test: a module whose ``array`` is written in Python over a
    ``bytearray``, which code under test has anyway: the stand-in's own code makes every item's value before it
    touches the buffer, and adds no way to memory that a plain ``bytearray`` does not give (the interpreter's
    array writes past its buffer when an item's ``__index__`` empties it: ``recode_guard.MEMORY_BUG_MODULES``;
    a ``bytearray``'s own bugs, reads of a freed buffer, are in docs/security.md). It holds the
    typecodes of numbers (``b B h H i I l L q Q f d``, with the interpreter's sizes) and does what the standard
    library does with an array: multiprocessing (its ``reduction``, whose forkserver start method passes file
    descriptors in one, and a manager's ``Array``) and socket (``send_fds``, ``recv_fds``). It pickles as
    ``array.array`` (a spawned process, outside the harness, makes the interpreter's own). Its buffer is its
    items, in the format of its typecode (from Python 3.12, ``__buffer__``: a ``memoryview`` of it, numpy's
    ``asarray``, ``struct``), as the interpreter's array gives it. Differs from CPython: ``u`` and ``w`` are
    refused; ``buffer_info`` is not available (no memory addresses); iterating goes over its items as they were
    when it began; the object is a ``bytearray`` (with its methods besides), whose buffer before Python 3.12 is its
    items' bytes (format ``B``)."""
    import operator
    import struct

    codes = "bBhHiIlLqQfd"
    _index, _pack, _unpack_from, _iter_unpack, _calcsize, _error = (
        operator.index,
        struct.pack,
        struct.unpack_from,
        struct.iter_unpack,
        struct.calcsize,
        struct.error,
    )
    _ba = bytearray

    class array(bytearray):  # noqa: N801 - the standard library's name
        __slots__ = ("_typecode", "_itemsize", "_fmt")

        def __init__(self, typecode, initializer=None, /):
            if type(typecode) is not str or len(typecode) != 1 or typecode not in codes:
                raise ValueError(f"bad typecode (must be one of {', '.join(codes)}; u and w are not available here)")
            _ba.__init__(self)
            self._typecode = typecode
            self._fmt = "@" + typecode
            self._itemsize = _calcsize(self._fmt)
            if initializer is None:
                return
            if isinstance(initializer, array):
                self.extend(initializer.tolist())
            elif isinstance(initializer, (str, bytes, bytearray)):
                if isinstance(initializer, str):
                    raise TypeError(f"cannot use a str to initialize an array with typecode '{typecode}'")
                self.frombytes(initializer)
            else:
                self.extend(initializer)

        def _one(self, value):
            # The item's bytes, made before the buffer is touched: its __index__ or __float__ runs here.
            try:
                if self.typecode in "fd":
                    return _pack(self._fmt, float(value))
                return _pack(self._fmt, _index(value))
            except _error as exc:
                raise OverflowError(f"array item out of range for typecode '{self.typecode}'") from exc

        def _at(self, i):
            n = len(self)
            k = _index(i)
            if k < 0:
                k += n
            if not 0 <= k < n:
                raise IndexError("array index out of range")
            return k

        # (Read-only, as the interpreter's: what its items are is fixed when it is made.)
        typecode = property(lambda self: self._typecode, doc="the typecode character used to create the array")
        itemsize = property(lambda self: self._itemsize, doc="the size, in bytes, of one array item")

        if hasattr(_ba, "__buffer__"):

            def __buffer__(self, flags):
                # The bytearray's own export (which keeps its size while it lasts), seen as the items it holds.
                return _ba.__buffer__(self, flags).cast(self.typecode)

        def _same_kind(self, other, what):
            # (CPython's words: "can only append array (not "list") to array".)
            if not isinstance(other, array):
                raise TypeError(what.replace("{}", f'(not "{type(other).__name__}")'))
            if other.typecode != self.typecode:
                raise TypeError("bad argument type for built-in operation")

        def _replace(self, items):
            data = b"".join([self._one(v) for v in items])
            _ba.__setitem__(self, slice(None), data)

        def __len__(self):
            return _ba.__len__(self) // self.itemsize

        def __iter__(self):
            return iter(self.tolist())

        def tolist(self):
            return [v for (v,) in _iter_unpack(self._fmt, bytes(self))]

        def tobytes(self):
            return bytes(self)

        def __getitem__(self, i):
            if isinstance(i, slice):
                return array(self.typecode, self.tolist()[i])
            k = self._at(i)
            return _unpack_from(self._fmt, bytes(self), k * self.itemsize)[0]

        def __setitem__(self, i, value):
            if isinstance(i, slice):
                self._same_kind(value, "can only assign array {} to array slice")
                items = self.tolist()
                items[i] = value.tolist()
                self._replace(items)
                return
            data = self._one(value)
            k = self._at(i)
            _ba.__setitem__(self, slice(k * self.itemsize, (k + 1) * self.itemsize), data)

        def __delitem__(self, i):
            size = self.itemsize
            if isinstance(i, slice):
                start, stop, step = i.indices(len(self))
                if step != 1:
                    items = self.tolist()
                    del items[i]
                    self._replace(items)
                    return
                i, end = start, max(start, stop)
            else:
                i = self._at(i)
                end = i + 1
            _ba.__delitem__(self, slice(i * size, end * size))

        def __contains__(self, value):
            return value in self.tolist()

        def __eq__(self, other):
            return isinstance(other, array) and self.tolist() == other.tolist()

        def __ne__(self, other):
            return not self == other

        # Item by item, as the interpreter's (not bytearray's, which compares the bytes).
        def _compare(self, other, op):
            if not isinstance(other, array):
                return NotImplemented
            return op(self.tolist(), other.tolist())

        def __lt__(self, other):
            return self._compare(other, operator.lt)

        def __le__(self, other):
            return self._compare(other, operator.le)

        def __gt__(self, other):
            return self._compare(other, operator.gt)

        def __ge__(self, other):
            return self._compare(other, operator.ge)

        # (Not bytearray's formatting: an array takes no % as the interpreter's takes none.)
        def __mod__(self, other):
            return NotImplemented

        def __rmod__(self, other):
            return NotImplemented

        __hash__ = None

        def __repr__(self):
            name = type(self).__name__
            return f"{name}('{self.typecode}', {self.tolist()})" if len(self) else f"{name}('{self.typecode}')"

        __str__ = __repr__

        def __reduce_ex__(self, protocol):
            # (bytearray's own would win over a __reduce__.)
            return (type(self), (self.typecode, self.tolist()))

        def __copy__(self):
            return self._of_bytes(bytes(self))

        def __deepcopy__(self, memo):
            return self.__copy__()

        def _of_bytes(self, data):
            new = array(self.typecode)
            _ba.extend(new, data)
            return new

        def __add__(self, other):
            # (Not NotImplemented: bytearray's concatenation would then take bytes, and give a bytearray.)
            self._same_kind(other, "can only append array {} to array")
            return self._of_bytes(bytes(self) + bytes(other))

        def __iadd__(self, other):
            self._same_kind(other, "can only extend array with array {}")
            self.extend(other)
            return self

        def __mul__(self, n):
            return self._of_bytes(bytes(self) * _index(n))

        __rmul__ = __mul__

        def __imul__(self, n):
            _ba.__setitem__(self, slice(None), bytes(self) * _index(n))
            return self

        def append(self, value):
            _ba.extend(self, self._one(value))

        def extend(self, iterable):
            if isinstance(iterable, array) and iterable.typecode != self.typecode:
                raise TypeError("can only extend with array of same kind")
            _ba.extend(self, b"".join([self._one(v) for v in iterable]))

        def fromlist(self, items):
            if type(items) is not list:
                raise TypeError("arg must be list")
            self.extend(items)

        def frombytes(self, data):
            data = bytes(memoryview(data))
            if len(data) % self.itemsize:
                raise ValueError("bytes length not a multiple of item size")
            _ba.extend(self, data)

        def insert(self, i, value):
            items = self.tolist()
            items.insert(_index(i), value)
            self._replace(items)

        def pop(self, i=-1):
            items = self.tolist()
            value = items.pop(_index(i))
            self._replace(items)
            return value

        def remove(self, value):
            items = self.tolist()
            items.remove(value)
            self._replace(items)

        def index(self, value, *args):
            return self.tolist().index(value, *args)

        def count(self, value):
            return self.tolist().count(value)

        def reverse(self):
            self._replace(self.tolist()[::-1])

        def tofile(self, f):
            f.write(self.tobytes())

        def fromfile(self, f, n, /):
            n = _index(n)
            if n < 0:
                raise ValueError("negative count")
            want = n * self.itemsize
            data = f.read(want)
            if not isinstance(data, bytes):
                raise TypeError("read() didn't return bytes")
            # (As the interpreter's: what was read is taken whole, an item cut short refused.)
            self.frombytes(data)
            if len(data) != want:
                raise EOFError("read() didn't return enough bytes")

        def byteswap(self):
            if self.itemsize not in (1, 2, 4, 8):
                raise RuntimeError("don't know how to byteswap this array type")
            size, data = self.itemsize, bytes(self)
            _ba.__setitem__(self, slice(None), b"".join([data[k : k + size][::-1] for k in range(0, len(data), size)]))

        def buffer_info(self):
            raise NotImplementedError("array.buffer_info is not available here (code under test gets no memory addresses)")

    array.__module__ = "array"
    array.__qualname__ = "array"
    mod = types.ModuleType("array", "Stands in for the array module: array.array written in Python (see the harness).")
    mod.array = mod.ArrayType = array
    mod.typecodes = codes
    return mod


# The stand-in, once put in sys.modules (``install_array_stand_in``).
_ARRAY_STAND_IN = []


def install_array_stand_in():
    """Put the stand-in in ``sys.modules["array"]`` (found there, an import of array raises no audit event and
    loads nothing): natively before anything imports the real module (socket does as it loads, and its
    classes would be among ``object.__subclasses__()``), in Pyodide at the seal."""
    _ARRAY_STAND_IN.append(_array_stand_in())
    sys.modules["array"] = _ARRAY_STAND_IN[0]


def _bridge_modules():
    found = [
        n
        for n in list(sys.modules)
        if isinstance(n, str)
        and n.split(".")[0] in _REFUSED_ROOTS
        and not (n == "array" and _ARRAY_STAND_IN and sys.modules.get(n) is _ARRAY_STAND_IN[0])
    ]
    if _SEALED_IMP and sys.modules.get("_imp") is not _SEALED_IMP[0]:
        found.append("_imp replaced")
    return found


# Modules the bridge's C functions and JsProxy types say they come from (its converters say "builtins").
_BRIDGE_MODULES = frozenset({"_pyodide_core", "pyodide.ffi"})

# The bridge's functions that stay in its modules (time.sleep needs them, and they take a JavaScript
# awaitable, which Python cannot make); every other function of the bridge goes from them (they turn
# Python objects into JavaScript ones: create_once_callable, create_proxy, to_js, create_promise_converter).
_KEEP = frozenset({"run_sync", "can_run_sync"})


def seal():
    """Hide the JavaScript bridge from code under test (Pyodide, once the
    harness is loaded): its modules leave ``sys.modules`` and its import hook
    leaves ``sys.meta_path``, and an audit hook, which cannot be removed,
    refuses to import them again (the guard's audit hook refuses the ``gc``
    walks that would find them, and frames). The harness itself reports through a device file, not a JavaScript
    function, so no JavaScript object is left on the Python heap for frames
    to reach."""
    _interrupts_kept()
    # The protected classes are made immutable first, and the counter of dictionary changes made (the
    # guard's, see recode_touch): both take ctypes, which the seal then refuses.
    # unittest.mock before the classes are frozen: its patches tell the guard who made them (_patch_notes).
    import unittest.mock  # noqa: F401

    _patch_notes()
    # (What the framework loads or binds at first use, loaded now: frozen and protected with the rest.)
    settle_lazy_globals()
    # (The library's super().name without a frame look, while code can still be made from its parts.)
    library_super_without_frames(library_paths(), PROTECTED_MODULES)
    freeze_classes([*protected_classes(), *fixed_frame_functions()])
    seal_closures()
    seal_frame_builtins()
    touch_counter()
    # (The protected objects as the guard will note them: prepare() makes it, after this.)
    seal_reinitialising(_protected_objects())
    # The last use of ctypes: its classes then leave every __subclasses__().
    hide_ctypes_classes()
    hidden = {name: sys.modules.pop(name) for name in _bridge_modules()}
    install_array_stand_in()
    sys.meta_path[:] = [f for f in sys.meta_path if (type(f).__module__ or "").split(".")[0] not in ("_pyodide", "pyodide")]
    sealed = []

    import importlib.machinery as _machinery

    # The bridge's types (pyodide.ffi's JsProxy family): a constructor among them makes a JavaScript object
    # (JsException("TypeError", ...) is a new JavaScript error, whose `constructor` is JavaScript's TypeError,
    # and so on to every intrinsic). Their constructors refuse, and the audit hook below refuses any change
    # to these types (putting a constructor back, deleting the refusal).
    def no_new(cls, *args, **kwargs):
        raise TypeError("the JavaScript bridge's types cannot be made by code under test")

    import builtins as _builtins

    # _pyodide_core's converter and signature types say they come from "builtins": they are found in the
    # bridge's modules, as types builtins does not have.
    bridge_types = [
        value
        for mod in hidden.values()
        if isinstance(getattr(mod, "__dict__", None), dict)
        for value in list(vars(mod).values())
        if isinstance(value, type)
        and type.__dict__["__module__"].__get__(value) == "builtins"
        and getattr(_builtins, value.__name__, None) is not value
    ]
    stack, seen = [object], set()
    while stack:
        cls = stack.pop()
        if id(cls) in seen:
            continue
        seen.add(id(cls))
        try:
            stack += type.__subclasses__(cls)
        except TypeError:
            pass
        module = type.__dict__["__module__"].__get__(cls)
        # The bridge's own types: the JsProxy family, and the converters and signatures of _pyodide_core
        # (Py2JsConverter().py2js_convert makes JavaScript objects).
        if module in _BRIDGE_MODULES:
            bridge_types.append(cls)
    # And every class below them (JsException, JsArray, JsBuffer, ...).
    family, stack = [], list(bridge_types)
    while stack:
        cls = stack.pop()
        if any(cls is f for f in family):
            continue
        family.append(cls)
        stack += type.__subclasses__(cls)
    bridge_types = family
    for cls in bridge_types:
        try:
            cls.__new__ = no_new
        except (TypeError, AttributeError):
            pass  # a static type: nothing can be changed on it
    bridge_ids = frozenset(id(cls) for cls in bridge_types)

    def audit(
        event,
        args,
        _roots=_REFUSED_ROOTS,
        _sealed=sealed,
        _str=str,
        _type=type,
        _ie=ImportError,
        _re=RuntimeError,
        _spec=_machinery.ModuleSpec,
        _bridge=bridge_ids,
        _id=id,
        _frame=types.FrameType,
    ):
        if event == "builtins.id" or (event == "object.__getattr__" and args and _type(args[0]) is _frame):
            return  # (the most frequent events: id(), a frame's f_code; nothing here is about them)
        if event in ("object.__setattr__", "object.__delattr__") and args and args[0] is _spec:
            # The wrappers below read a spec's name: the class must not gain a property that runs code there.
            raise _re("ModuleSpec cannot be changed by code under test")
        if event in ("object.__setattr__", "object.__delattr__") and args and _id(args[0]) in _bridge:
            raise _re("the JavaScript bridge's types cannot be changed by code under test")
        if event == "import":
            name = args[0] if args else None
            # A str subclass is read as the plain string it holds (its own methods never run here).
            if issubclass(_type(name), _str) and _str.__str__(name).split(".")[0] in _roots:
                raise _ie(f"{_str.__str__(name)} is not available to code under test")
        elif event == "code.__new__" or event in ("marshal.loads", "marshal.load"):
            # Code from bytes or from its parts (types.CodeType, code.replace, a .pyc, marshal): crafted
            # bytecode reads and writes the whole WebAssembly memory. Code comes from source, compiled here.
            raise _re("code objects made from bytes or parts are not available to code under test (compile source instead)")
        elif event == "object.__setattr__" and len(args) > 1 and _type(args[1]) is _str and args[1] == "__code__":
            raise _re("a function's code cannot be replaced by code under test")
        elif event == "object.__getattr__" and args and any(args[0] is f for f in _sealed):
            raise _re("the harness's own functions cannot be inspected")

    sys.addaudithook(audit)

    # JavaScript objects Pyodide's own modules hold at module level (found by walking their
    # globals from any of their functions): the import hook's table of `js` and `pyodide_js`,
    # the event loop's timer, the package loader's registry. The harness needs none of them.
    for name, attr in (("pyodide.webloop", "scheduleCallback"), ("pyodide._package_loader", "loadedPackages")):
        mod = hidden.get(name)
        if mod is not None and hasattr(mod, attr):
            setattr(mod, attr, None)
    # The bridge's own functions and objects that Pyodide's modules keep at module level (the event loop's
    # create_once_callable, the documented stubs of pyodide.ffi, _pyodide.jsbind's converters, whose
    # py2js_convert turns a dict into a live JavaScript object): each hands out JavaScript objects.
    # Types stay (their constructors refuse, below); every other object of the bridge goes.
    for mod in hidden.values():
        if not isinstance(getattr(mod, "__dict__", None), dict):
            continue  # the js module itself is a JavaScript object
        for name, value in list(vars(mod).items()):
            if isinstance(value, type) and type.__dict__["__module__"].__get__(value) == getattr(mod, "__name__", None):
                # A class of the bridge's modules (_pyodide.jsbind's Deep and Json hold converters): its
                # attributes that are objects of the bridge go too.
                for attr, held in list(value.__dict__.items()):
                    if id(type(held)) in bridge_ids:
                        setattr(value, attr, None)
                continue
            if isinstance(value, type) or type(value) is type(sys):
                continue
            made_by = getattr(value, "__module__", None) if callable(value) else None
            if id(type(value)) in bridge_ids or (made_by in _BRIDGE_MODULES and name not in _KEEP):
                setattr(mod, name, None)
    # A bridge function left in a module's globals (the event loop's run_sync) leads through its
    # __self__ to the bridge's own builtin module, with its converters and raw calls: empty that
    # module's namespace. Functions bound elsewhere keep working; nothing can look them up by name.
    for mod in {id(m): m for m in hidden.values()}.values():
        mod_name = getattr(mod, "__name__", "") if isinstance(getattr(mod, "__dict__", None), dict) else ""
        if isinstance(mod_name, str) and mod_name.startswith("_pyodide_core"):
            for name in [n for n in vars(mod) if not (n.startswith("__") and n.endswith("__"))]:
                delattr(mod, name)
    hook = hidden.get("_pyodide._importhook")
    finder = getattr(hook, "jsfinder", None)
    if finder is not None:
        finder.jsproxies.clear()
    # typing keeps every @overload it saw, by module: those of Pyodide's modules lead to their globals.
    import typing

    registry = getattr(typing, "_overload_registry", None)
    if isinstance(registry, dict):
        for key in [k for k in registry if isinstance(k, str) and k.split(".")[0] in ("pyodide", "_pyodide", "_pyodide_core")]:
            del registry[key]

    # A builtin module can be created without an import statement (_imp.create_builtin), and an
    # extension module from any file (_imp.create_dynamic): ctypes, the bridge's core, or a library a run
    # wrote. No original of either function stays where Python can reach it: a frame that held one would
    # give it away (a refusal's traceback, a profile or trace hook, sys.monitoring, a str-subclass key of
    # sys.modules whose __eq__ runs inside the original). Every builtin module code under test may have
    # is created now, and the replacements hand out the modules made before the run, nothing else.
    import _imp
    import importlib

    # _imp itself is refused too: a second _imp would hold the original functions.
    refused = _REFUSED_ROOTS | {"_imp"}
    for name in sys.builtin_module_names:
        if name not in sys.modules and name.split(".")[0] not in refused:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a module that cannot start here is not available
                pass
    builtin_modules = {n: sys.modules[n] for n in sys.builtin_module_names if n in sys.modules and n.split(".")[0] not in refused}
    extension_modules = {}

    # A spec is read only when it is a real ModuleSpec whose instance dictionary is a plain dict with
    # plain-str keys (a str-subclass key's __eq__ would run at the lookup of "name"), and whose name and
    # origin are plain strs. Nothing of it is ever formatted but the plain name.
    _roots, _str, _type, _dict, _ie, _spec, _get = refused, str, type, dict, ImportError, _machinery.ModuleSpec, object.__getattribute__

    def spec_name(spec):
        if _type(spec) is not _spec:
            raise _ie("a module spec that is not a ModuleSpec is not available to code under test")
        d = _get(spec, "__dict__")
        if _type(d) is not _dict:
            raise _ie("a module spec with an unusual dictionary is not available to code under test")
        for k in d:
            if _type(k) is not _str:
                raise _ie("a module spec with an unusual attribute is not available to code under test")
        name = d.get("name")
        origin = d.get("origin")
        if _type(name) is not _str or (origin is not None and _type(origin) is not _str):
            raise _ie("a module name that is not a str is not available to code under test")
        if name.split(".")[0] in _roots:
            raise _ie(f"{name} is not available to code under test")
        return name

    # (What they decide with is in their closures, not in defaults: a caller can pass its own in their place,
    # and a spec_name of its own let any module loaded before the run through, the refused ones included.)
    def create_builtin(spec):
        name = spec_name(spec)
        mod = builtin_modules.get(name)
        if mod is None:
            raise _ie(f"no built-in module named {name}", name=name)
        return mod

    def create_dynamic(spec, file=None):
        name = spec_name(spec)
        if file is not None:
            raise _ie("create_dynamic with a file is not available to code under test")
        mod = extension_modules.get(name)
        if mod is None:
            raise _ie(f"the extension module {name} was not loaded before the run: it is not available to code under test", name=name)
        return mod

    def note_extensions(_modules=extension_modules, _loader=_machinery.ExtensionFileLoader):
        # Every extension module loaded now (the packages' were imported by ``preload``, before the seal).
        for name, mod in list(sys.modules.items()):
            if type(name) is str and isinstance(getattr(getattr(mod, "__spec__", None), "loader", None), _loader):
                _modules[name] = mod

    note_extensions()
    del note_extensions
    sealed.append(frozen_objects_only())
    _imp.create_builtin = create_builtin
    _imp.create_dynamic = create_dynamic
    sealed.extend((create_builtin, create_dynamic, spec_name))
    _SEALED_IMP.append(_imp)

    # A task file whose text was compiled between runs (cache_code) is not compiled again: its code is
    # in the interpreter's memory as restored. Keyed by path and bytes, so a changed file is compiled.
    from importlib import _bootstrap_external

    loader = _bootstrap_external.SourceLoader

    compile_source, _bytes = loader.source_to_code, bytes

    def source_to_code(self, data, path, *, _optimize=-1):
        if _type(data) is _bytes and _type(path) is _str and _optimize == -1:
            code = _STATE.code.get((path, data))
            if code is not None:
                return code
        return compile_source(self, data, path, _optimize=_optimize)

    loader.source_to_code = source_to_code


_PATCH_NOTES = []


def _note_patch(patcher, event, _state=_STATE):
    """Tell the guard that a patch of unittest.mock was made, started or stopped (``Guard.patched``)."""
    guard = _state.guard
    if guard is not None:
        try:
            guard.patched(patcher, event)
        except Exception:  # noqa: BLE001 - a patch that cannot be told of is a change like any other
            pass


def _patch_notes():
    """Once unittest.mock is loaded: wrap its ``_patch``'s ``__init__``, ``__enter__`` and ``__exit__`` so that
    the guard hears of every patch made, started and stopped, and return (``_patch``, the code objects a
    patch passes through on its way from test.py to the guard: unittest.mock's, and these wrappers');
    ``None`` before (the guard then hears of none). Done once, before the guard is made and the protected
    classes are frozen: test.py's ``setUpClass`` may patch ``builtins.print`` for all its tests."""
    if _PATCH_NOTES:
        return _PATCH_NOTES[0]
    mock = sys.modules.get("unittest.mock")
    if mock is None:
        return None
    cls = mock._patch
    # (Before the wrapping: the code of the functions wrapped is on a patch's way too.)
    found = list(code_objects(mock).values())

    # (The wrapped functions in the closure, not in defaults a caller could pass in their place.)
    init, enter, exit_, note = cls.__init__, cls.__enter__, cls.__exit__, _note_patch

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        note(self, "made")

    def __enter__(self):
        result = enter(self)
        note(self, "started")
        return result

    def __exit__(self, *exc_info):
        try:
            return exit_(self, *exc_info)
        finally:
            note(self, "stopped")

    cls.__init__, cls.__enter__, cls.__exit__ = __init__, __enter__, __exit__
    codes = [*found, *(f.__code__ for f in (__init__, __enter__, __exit__, _note_patch))]
    _PATCH_NOTES.append((cls, codes))
    return _PATCH_NOTES[0]


def _guard():
    """The interpreter's guard, made at its first run (see ``recode_guard.Guard``)."""
    if _STATE.guard is None:
        _STATE.guard = Guard(patches=_patch_notes()).handle
    return _STATE.guard


def prepare():
    """Pyodide, once the harness is sealed and again after packages are
    loaded: make the guard and note what is loaded now as protected, then
    collect and freeze what lives, so that the collections of a run see only
    the run's objects. The host then snapshots the interpreter's memory, and
    every run starts from that snapshot (see memory-snapshot.ts)."""
    if _STATE.guard is None:
        _STATE.guard = Guard(patches=_patch_notes()).handle  # notes what is loaded now as protected
    else:
        _STATE.guard.protect(loaded_modules_and_classes())
    gc.collect()
    gc.freeze()


def preload(names):
    """Pyodide, once a run's packages are loaded and before the harness seals
    the interpreter (``seal``): import each package and every module inside it,
    so that their native libraries are loaded before the snapshot (one loaded
    during a run cannot be restored away) and their code is unmarshalled
    while that is still allowed (a package may ship ``.pyc`` files alone). A
    module that does not import on its own is not available to runs."""
    import importlib
    import importlib.machinery

    _preload(names, importlib, importlib.machinery)


def _preload(names, importlib, machinery):
    """Import each package of ``names`` and every module in its folders (its
    extension modules, and its Python modules, which a package may ship as
    ``.pyc`` alone: once sealed, no run may unmarshal code), but its tests."""
    suffixes = tuple(machinery.EXTENSION_SUFFIXES) + (".py", ".pyc")
    for name in names:
        try:
            pkg = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - reported by the run's own import
            continue
        for root in list(getattr(pkg, "__path__", ())):
            for folder, dirs, files in os.walk(root):
                dirs[:] = [d for d in dirs if d not in ("tests", "test", "__pycache__")]
                rel = os.path.relpath(folder, root)
                prefix = name if rel == "." else f"{name}.{rel.replace(os.sep, '.')}"
                for f in files:
                    if f.endswith(suffixes) and not f.startswith("__init__."):
                        try:
                            importlib.import_module(f"{prefix}.{f.split('.')[0]}")
                        except BaseException:  # noqa: BLE001 - a module that needs its package's import order
                            pass


def bridge_reached():
    """Pyodide, after a run and before its memory is restored: the bridge
    modules the run got into ``sys.modules`` (JavaScript objects it may have
    made outlive the restore, so the instance must be replaced), or ""."""
    try:
        reached = _bridge_modules()
    except Exception:  # noqa: BLE001 - sys.modules replaced
        reached = ["sys.modules"]
    return f"tainted: the run reached the JavaScript bridge ({', '.join(reached[:3])})" if reached else ""


EVENT_DEVICE = "/dev/recode-events"


# Most files whose code the cache keeps (test and repository files of the tasks an instance ran).
CODE_CACHE_FILES = 400


def cache_code(paths_and_texts):
    """Pyodide, between runs (the interpreter restored, no code under test
    running): compile task files and keep their code for later runs (the host
    then snapshots the memory again), and read what each one's text says
    (``TestFacts``). ``paths_and_texts``: JSON text of
    [[absolute path, text], ...]. Returns how many were added."""
    from importlib import _bootstrap_external

    added = 0
    for path, text in json.loads(paths_and_texts):
        if len(_STATE.code) >= CODE_CACHE_FILES:
            break
        data = text.encode("utf-8")
        if (path, data) in _STATE.code:
            continue
        try:
            _STATE.code[(path, data)] = _bootstrap_external.SourceLoader.source_to_code(None, data, path)
            # And what its text says, should it be the tests (``_import_tests``).
            _STATE.facts[(path, data)] = TestFacts.of(data, path)
            added += 1
        except Exception:  # noqa: BLE001 - a file that does not compile is compiled (and reported) by the run
            pass
    gc.collect()
    gc.freeze()
    return added


def run_json(config_text, key_hex):
    """Pyodide entry: config as JSON text (see ``run_tests``), and the run's
    key for its event lines in hex (``event_writer``); events go to the
    event device, one line each. The tests run from the run's folder with
    a fresh ``sys.path`` entry and in a fresh ``contextvars.Context`` (context
    variables are not the interpreter's memory alone). Nothing is undone here:
    the host restores the interpreter's memory after the run."""
    # The interrupt can come at any point from here (the first run of an interpreter takes longest before its
    # tests start): before the tests' own handling of it begins, it is said as an interrupt that stopped no
    # test, or, before the event writer is made, not said at all (the host knows it sent one).
    emit_text = fd = None
    try:
        config = json.loads(config_text)
        fd = _os_open(EVENT_DEVICE, os.O_WRONLY)
        emit_text = event_writer(fd, bytes.fromhex(key_hex))
        del key_hex
        workdir = config["workdir"]
        os.chdir(workdir)
        sys.path.insert(0, workdir)
        _Context().run(run_tests, config, emit_text)
    except KeyboardInterrupt:
        if emit_text is not None:
            try:
                emit_text(_dumps({"type": "interrupted", "id": None, "line": None, "traceback": ""}))
            except BaseException:  # noqa: BLE001 - a second interrupt: the host's clock ends the run
                pass
    finally:
        if fd is not None:
            try:
                _os_close(fd)
            except OSError:
                pass


if __name__ == "__main__":
    _main()
