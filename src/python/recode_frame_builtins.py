"""The built-ins that read the frame that calls them, made to read only a frame that called them itself.

``locals()``, ``globals()``, ``vars()``, ``dir()``, ``eval`` and ``exec`` without a namespace, and zero-argument
``super()`` read the frame that is running when they are called. Called by C code on the candidate's behalf
(a ``functools.partial`` in a special-method slot, a C iterator, the finalizer of cyclic garbage the collector
frees), that frame is whichever happens to run: test.py's (its namespace, the test object), unittest's (the
run's result), the harness's (natively, the run's key in the event writer's frame). So each is replaced in the
built-ins by a function of the same name that looks at the frame below it:

- a frame of code the run brought (its globals are no sealed module's, and its file is a path in no library
  folder, not a name in angle brackets): read as the interpreter reads it, whoever called;
- a frame of a sealed module (every module loaded before the run, test.py's, the harness's), of a library
  file, or of code compiled from text (a file name in angle brackets, ``<string>``): read only when that frame's current instruction is a call of this very function, loaded there by its
  name (``LOAD_GLOBAL``/``LOAD_NAME``), with as many arguments as it was given. A Python function called from
  bytecode runs in a frame pushed at once (CPython 3.11 leaves the caller's last instruction at the call's
  last cache entry then, and at the call itself when C code called on), so no C code ran on that frame's
  behalf in between. Any other call raises ``RuntimeError``.

``super`` becomes a function that makes the interpreter's own super objects (``isinstance(x, super)`` and
subclasses of ``super`` are not available to code under test). ``make_frame_builtins`` is called once, before
the guard notes the built-ins; the functions it installs hold what they read with in closures of a sealed
module, and their code and closures cannot be read (``recode_guard``).
"""

import builtins
import opcode
import sys
import types

from recode_readers import once

NAMES = ("locals", "globals", "vars", "dir", "eval", "exec", "super")

# The other names under which the standard library calls one of them, bound at its module level to the built-in
# (``_globals = globals`` in timeit, for ``Timer``'s namespace): a call through such a name, still bound to the
# built-in, is a call by name. Only these: a name planted elsewhere is no call of the library's own.
ALIASES = {"globals": ("_globals",)}

# The future features a frame's code was compiled with, which eval() and exec() of source text inherit.
_FUTURE_FLAGS = 0
for _feature in __import__("__future__").all_feature_names:
    _FUTURE_FLAGS |= getattr(__import__("__future__"), _feature).compiler_flag


def _decoder():
    """``decode(code)`` -> tuple of ``(offset, name, arg, last)``: the instructions of a code object (its
    unspecialised bytecode; ``EXTENDED_ARG`` folded into the instruction it extends, whose offset it takes),
    ``last`` the offset of its last code unit (its last inline cache entry, or itself)."""
    ice = opcode._inline_cache_entries
    names = [None] * 256
    caches = [0] * 256
    for name, op in opcode.opmap.items():
        if op < 256:
            names[op] = name
            caches[op] = ice[op] if type(ice) is list else ice.get(name, 0)
    names, caches, ext = tuple(names), tuple(caches), opcode.EXTENDED_ARG

    def decode(code):
        raw = code.co_code
        out = []
        i, arg, start = 0, 0, None
        n = len(raw)
        while i < n:
            op, a = raw[i], raw[i + 1]
            if start is None:
                start = i
            if op == ext:
                arg = (arg | a) << 8
                i += 2
                continue
            arg |= a
            last = i + 2 * caches[op]
            out.append((i, names[op], arg, last))
            i = last + 2
            arg, start = 0, None
        return tuple(out)

    return decode


# Instructions an argument of a call may be computed with, and how deep each reaches into the stack (what it pops,
# or reads or writes below its top; never less than the truth). Any other instruction (a return, an await, a
# with block) and the call is not taken for a call by name.
_REACH_ZERO = frozenset((
    "LOAD_CONST", "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW", "LOAD_DEREF", "LOAD_CLOSURE", "LOAD_NAME",
    "LOAD_SMALL_INT", "LOAD_COMMON_CONSTANT", "LOAD_ASSERTION_ERROR", "LOAD_CLASSDEREF", "PUSH_NULL", "LOAD_GLOBAL",
    "LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW", "LOAD_FAST_AND_CLEAR", "KW_NAMES", "NOP", "CACHE",
    "NOT_TAKEN", "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "RESUME",
))  # fmt: skip
_REACH_ONE = frozenset((
    "LOAD_ATTR", "LOAD_METHOD", "UNARY_NEGATIVE", "UNARY_NOT", "UNARY_INVERT", "UNARY_POSITIVE", "TO_BOOL",
    "FORMAT_SIMPLE", "CONVERT_VALUE", "CALL_INTRINSIC_1", "GET_ITER", "FOR_ITER", "STORE_FAST", "POP_TOP",
    "POP_ITER", "UNPACK_SEQUENCE", "UNPACK_EX", "STORE_FAST_LOAD_FAST", "LIST_TO_TUPLE", "STORE_DEREF",
    "STORE_NAME", "STORE_GLOBAL", "LOAD_FROM_DICT_OR_DEREF", "LOAD_FROM_DICT_OR_GLOBALS", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP",
))  # fmt: skip
_REACH_TWO = frozenset((
    "BINARY_OP", "BINARY_SUBSCR", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "FORMAT_WITH_SPEC",
    "END_FOR", "CALL_INTRINSIC_2", "SET_FUNCTION_ATTRIBUTE", "BUILD_TEMPLATE", "STORE_FAST_STORE_FAST",
))  # fmt: skip
# The instructions after which a path goes nowhere in the code (a return, a raise).
_TERMINAL = frozenset(("RETURN_VALUE", "RETURN_CONST", "RERAISE", "RAISE_VARARGS"))
# The jumps an argument's code may hold (a conditional expression, `and`/`or`, a comprehension's loop).
_JUMPS = frozenset(
    n for n in (*_REACH_ZERO, *_REACH_ONE) if "JUMP" in n
) | {"FOR_ITER"}


def _reach(name, arg):
    """How deep into the stack an instruction of a call's arguments reaches (see ``_REACH_ZERO``), or ``None``."""
    if name in _REACH_ZERO:
        return 0
    if name in _REACH_ONE:
        return 1
    if name in _REACH_TWO:
        return 2
    if name in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_STRING", "BUILD_SLICE", "SWAP", "COPY"):
        return arg
    if name == "FORMAT_VALUE":
        return 2 if arg & 4 else 1
    if name == "BUILD_MAP":
        return 2 * arg
    if name in ("BUILD_CONST_KEY_MAP", "LIST_APPEND", "SET_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE"):
        return arg + 1
    if name == "MAP_ADD":
        return arg + 2
    if name in ("BINARY_SLICE", "BUILD_INTERPOLATION", "LOAD_SUPER_ATTR"):
        return 3
    if name in ("CALL", "PRECALL"):
        return arg + 2
    if name == "CALL_KW":
        return arg + 3
    if name == "CALL_FUNCTION_EX":
        return 4
    if name == "MAKE_FUNCTION":
        # (Up to 3.12 its flags say how many of defaults, keyword defaults, annotations and closure it pops.)
        return 1 + ((arg & 1) + (arg >> 1 & 1) + (arg >> 2 & 1) + (arg >> 3 & 1))
    return None


def _exception_targets(table):
    """The offsets of the exception handlers of a code object's exception table (``co_exceptiontable``)."""
    targets = set()
    values = []
    i, n = 0, len(table)
    while i < n:
        b = table[i]
        i += 1
        value = b & 63
        while b & 64 and i < n:
            b = table[i]
            i += 1
            value = (value << 6) | (b & 63)
        values.append(value)
        # (Each entry: start, length, target, depth and lasti, in code units.)
        if len(values) == 4:
            targets.add(values[2] * 2)
            values = []
    return targets


def _direct_call_finder(decode):
    """``find(code, name)`` -> the values of ``f_lasti`` at which a frame of ``code`` is calling the global (or, at
    module and class level, the name) ``name`` with no other callable between, each with the number of arguments
    the call passes: ``{lasti: (positional, keyword names, loaded as a global)}``. A call counts when the two
    stack slots the name's load pushes (the callable and its NULL) are the ones the call takes: every path of
    the instructions between (its arguments' code: jumps, loops and inlined comprehensions included) starts at
    the load, reaches no deeper than above those two slots, and leaves exactly the arguments above them; no jump
    and no exception handler elsewhere leads into those instructions."""
    version = sys.version_info[:2]
    new = version >= (3, 12)
    null_first = version < (3, 13)  # where the NULL of a call goes: below the callable up to 3.12, above after
    inline_marker = version < (3, 12)  # 3.11 leaves an inlined call's frame at the call's last cache entry
    effect, opmap = opcode.stack_effect, opcode.opmap
    relative = frozenset(opcode.opname[op] for op in (*opcode.hasjrel, *opcode.hasjabs))

    def net(op, arg, jump):
        # (3.11 splits a call's effect: PRECALL takes the arguments off, CALL the callable and its NULL. The
        # arguments stay on the stack until CALL, whose reach counts them: here PRECALL takes nothing.)
        if not new and op in ("PRECALL", "CALL"):
            return 0 if op == "PRECALL" else -(arg + 1)
        try:
            return effect(opmap[op], arg, jump=jump)
        except ValueError:
            return effect(opmap[op], jump=jump)

    def flow(code, ins):
        """(index of each jump's target, sources of the jumps into each index, indices of exception handlers)."""
        at = {offset: k for k, (offset, _, _, _) in enumerate(ins)}
        targets = [None] * len(ins)  # (-1: a target that is no instruction's offset)
        into = {}
        for k, (_, op, arg, last) in enumerate(ins):
            if op in relative or op in _JUMPS:
                to = at.get(last + 2 - 2 * arg if "BACKWARD" in op else last + 2 + 2 * arg, -1)
                targets[k] = to
                into.setdefault(to, []).append(k)
        handlers = {at.get(t) for t in _exception_targets(code.co_exceptiontable)}
        return targets, into, handlers

    def calls(code, name):
        found = {}
        ins = decode(code)
        names = code.co_names
        consts = code.co_consts
        graph = None
        for k, (offset, op, arg, last) in enumerate(ins):
            if op == "LOAD_SUPER_ATTR" and name == "super" and not arg & 2 and _zero_super(ins, k, names):
                # 3.12 and later: ``super().name`` calls the global super with no arguments from this instruction
                # (and the interpreter's own super then reads the frame for the class and the first argument).
                found[offset] = (0, (), True, True)
                continue
            if op not in ("CALL", "CALL_KW"):
                continue
            argc = arg
            kwnames = ()
            end = k  # the instructions before the call's own (3.11's PRECALL and KW_NAMES are part of it)
            if op == "CALL_KW":
                prev = ins[k - 1] if k else None
                if prev is None or prev[1] != "LOAD_CONST" or type(consts[prev[2]]) is not tuple:
                    continue
                kwnames = consts[prev[2]]
            elif not new:
                if k == 0 or ins[k - 1][1] != "PRECALL" or ins[k - 1][2] != argc:
                    continue
                end = k - 1
                if end and ins[end - 1][1] == "KW_NAMES":
                    end -= 1
                    kwnames = consts[ins[end][2]]
            graph = graph or flow(code, ins)
            loaded = _by_name(ins, graph, end, k, argc + (1 if op == "CALL_KW" else 0), name, names)
            if loaded:
                found[last if inline_marker else offset] = (argc - len(kwnames), tuple(sorted(kwnames)), loaded == "LOAD_GLOBAL", False)
        return found

    def _zero_super(ins, k, names):
        # What the compiler emits before it for ``super()``: the global super (no NULL), __class__, the first argument.
        if k < 3:
            return False
        (_, op0, arg0, _), (_, op1, _, _), (_, op2, _, _) = ins[k - 3 : k]
        return (
            op0 == "LOAD_GLOBAL" and not arg0 & 1 and names[arg0 >> 1] == "super"
            and op1 in ("LOAD_DEREF", "LOAD_CLOSURE") and op2 in ("LOAD_FAST", "LOAD_FAST_BORROW", "LOAD_FAST_CHECK", "LOAD_DEREF")
        )  # fmt: skip

    def _by_name(ins, graph, end, call, argc, name, names):
        # The nearest few loads of the name before the call: is one of them the call's callable?
        tried = 0
        j = end - 1
        while j >= 0 and tried < 4:
            _, op, arg, _ = ins[j]
            if (op == "LOAD_GLOBAL" and names[arg >> 1] == name and arg & 1) or (op == "LOAD_NAME" and names[arg] == name):
                tried += 1
                # The load and its NULL: [PUSH_NULL, LOAD_NAME] up to 3.12, [LOAD_NAME, PUSH_NULL] after.
                start, after = j, j + 1
                if op == "LOAD_NAME":
                    if null_first and j and ins[j - 1][1] == "PUSH_NULL":
                        start = j - 1
                    elif not null_first and after < end and ins[after][1] == "PUSH_NULL":
                        after += 1
                    else:
                        start = -1
                if start >= 0 and _arguments_above(ins, graph, start, after, end, call, argc):
                    return op
            j -= 1
        return None

    def _arguments_above(ins, graph, start, after, end, call, argc):
        # Whether every path from ``after`` (the callable and its NULL pushed) that reaches ``end`` has exactly
        # ``argc`` values above them there, and none reached into them on the way. A path that leaves the
        # arguments' code (a return, a jump out: 3.14 copies a call into each branch of a conditional expression)
        # comes back only through ``start``: no jump and no exception handler elsewhere leads into it.
        targets, into, handlers = graph
        for k in range(start + 1, call + 1):
            if k in handlers or any(src < start or src >= end or k < after for src in into.get(k, ())):
                return False
        depth = {after: 2}
        todo = [after]
        spent = []  # instructions that take the callable or its NULL: no path from them may reach the call
        while todo:
            i = todo.pop()
            d = depth[i]
            if i == end or i < after or i > end:
                continue
            _, op, arg, _ = ins[i]
            if op in _TERMINAL:
                continue
            reach = _reach(op, arg)
            if reach is None:
                return False
            if d - reach < 2:
                spent.append(i)
                continue
            nexts = []
            if op in _JUMPS:
                if targets[i] is None or targets[i] < 0:
                    return False
                nexts.append((targets[i], net(op, arg, True)))
            if op not in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"):
                nexts.append((i + 1, net(op, arg, False)))
            for to, change in nexts:
                if d + change < 2:
                    return False
                seen = depth.get(to)
                if seen is None:
                    depth[to] = d + change
                    todo.append(to)
                elif seen != d + change:
                    return False
        return depth.get(end) == argc + 2 and not _reaches(ins, targets, spent, start, end, call)

    def _reaches(ins, targets, sources, start, end, call):
        # Whether a path from the instructions after ``sources`` within the arguments' code reaches the call.
        seen = set()
        todo = []
        for i in sources:
            op = ins[i][1]
            if targets[i] is not None:
                todo.append(targets[i])
            if op not in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"):
                todo.append(i + 1)
        while todo:
            i = todo.pop()
            if i < 0 or (end <= i <= call):
                return True
            if i in seen or i < start or i > call:
                continue
            seen.add(i)
            op = ins[i][1]
            if op in _TERMINAL:
                continue
            if targets[i] is not None:
                todo.append(targets[i])
            if op not in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"):
                todo.append(i + 1)
        return False

    return calls


@once
def make_frame_builtins(sealed_ids, library_paths, called_by_code):
    """Install the frame-reading built-ins (``NAMES``) that read only a frame that called them itself (see the
    module's text), and return them (name -> function), for the guard to hide and note. ``sealed_ids``: the
    set of ``id()`` of the globals of sealed modules (``recode_guard.seal_closures``' own, which grows as the
    guard notes test.py's module); ``library_paths``: the folders of Python's own files (a module loaded from
    there during the run is taken for a sealed one); ``called_by_code(frame)``: whether a running frame was
    started by an instruction of the frame below it, not by C code (``recode_guard._entered_by_code``)."""
    real = {n: getattr(builtins, n) for n in NAMES}
    getframe = sys._getframe
    # (Module values read at each call are taken now: code under test can set this module's globals.)
    aliases, future_flags = {k: tuple(v) for k, v in ALIASES.items()}, _FUTURE_FLAGS
    import gc

    gc_enabled, gc_disable, gc_enable = gc.isenabled, gc.disable, gc.enable

    def own_frame(depth):
        was = gc_enabled()
        gc_disable()
        try:
            return getframe(depth + 1)
        finally:
            if was:
                gc_enable()
    decode = _decoder()
    calls = _direct_call_finder(decode)
    prefixes = tuple(p.rstrip("/") + "/" for p in library_paths if p)
    cache = {}  # (file, first line, qualified name) -> (code, {name: {lasti: (positional, keyword names)}})
    proxy_type = type(getframe(0).f_locals) if sys.version_info >= (3, 13) else None
    made = {}
    _id, _dict, _type, _str, _tuple, _len, _sorted = id, dict, type, str, tuple, len, sorted
    _get, _getitem = dict.get, dict.__getitem__
    missing = object()
    keywords_taken = sys.version_info >= (3, 13)  # eval's and exec's globals and locals by keyword

    sealed_codes = {}  # (file, first line, qualified name) -> a code seen running with a sealed module's globals

    def sealed(frame, code):
        # (A code seen once with a sealed module's globals is taken for sealed code with any: stricter, never
        # laxer. id() is an audited call from Python 3.13: skipped for code seen before.)
        key = (code.co_filename, code.co_firstlineno, code.co_qualname)
        if sealed_codes.get(key) is code:
            return True
        # (Code compiled from text, whose file name is ``<string>`` or the like, is sealed too: namedtuple's __new__ and dataclasses'
        # __init__ are made with a namespace of their own, and test.py's exec(text, {...}) runs in one; their
        # frames hold what test.py hands them.)
        if _id(frame.f_globals) in sealed_ids or code.co_filename.startswith(prefixes) or code.co_filename.startswith("<"):
            sealed_codes[key] = code
            return True
        return False

    def bound(frame, name, by_global):
        """What ``name`` is bound to where the frame's code loads it (its locals first at module or class
        level)."""
        if not by_global:
            here = frame.f_locals
            value = _get(here, name, missing) if isinstance(here, _dict) else missing
            if value is not missing:
                return value
        value = _get(frame.f_globals, name, missing)
        if value is not missing:
            return value
        try:
            return _getitem(frame.f_builtins, name)
        except KeyError:
            return missing

    def direct(frame, code, name, positional, keywords):
        """The call site (see ``_direct_call_finder``) at which ``frame`` calls ``name`` by its name with these
        arguments, when its name there is bound to the built-in; else ``None``."""
        key = (code.co_filename, code.co_firstlineno, code.co_qualname)
        entry = cache.get(key)
        if entry is None or entry[0] is not code:
            entry = cache[key] = (code, {})
        for called in (name, *_get(aliases, name, ())):
            sites = entry[1].get(called)
            if sites is None:
                sites = entry[1][called] = calls(code, called)
            site = sites.get(frame.f_lasti)
            if site is None or site[0] != positional or site[1] != _tuple(_sorted(keywords)):
                continue
            return site if bound(frame, called, site[2]) is made[name] else None
        return None

    def caller(name, positional, keywords, depth=2, reading=True):
        """The frame that called ``name`` (``depth`` frames up: this one, the built-in's own, ..., then its
        caller), when it may be read (``reading``: its namespaces are); raises ``RuntimeError`` otherwise."""
        # (The collector off while a frame object is made: its finalizers, C code of the candidate's, would
        # run at this very call, which the frame check lets take a frame.)
        was = gc_enabled()
        gc_disable()
        try:
            frame = getframe(depth)
        except ValueError:
            raise SystemError(f"{name}(): no current frame") from None
        finally:
            if was:
                gc_enable()
        if not reading:
            return frame
        code = frame.f_code
        if not sealed(frame, code):
            return frame
        site = direct(frame, code, name, positional, keywords)
        # (And the built-in's own frame was started by that call, not by C code: its arguments' teardown, the
        # traceback of an exception it raised, a collection then. 3.12+'s LOAD_SUPER_ATTR calls super from C,
        # site[3]. The own frame is taken only when it is looked at: each look is an audited call.)
        if site is None or not (site[3] or called_by_code(own_frame(depth - 1))):
            raise RuntimeError(
                f"{name}() reads the frame of the code that calls it; called by C code while {code.co_qualname} "
                f"({code.co_filename}, line {frame.f_lineno}) was running, it is not available to code under test"
            )
        return frame

    def frame_locals(frame):
        here = frame.f_locals
        # (3.13 and later: a function's locals() is a new dictionary each call, f_locals a proxy of the frame.)
        return _dict(here) if proxy_type is not None and _type(here) is proxy_type else here

    def locals():
        return frame_locals(caller("locals", 0, ()))

    def globals():
        return caller("globals", 0, ()).f_globals

    # Each function that takes arguments lets go of them before it returns or raises, while its own frame runs:
    # its frame is taken off the stack before it is cleared, and what died with it then (a namespace given to
    # exec, the last reference to an object the candidate made) ran its finalizer while the caller's frame was
    # still at this very call, which the check above takes for a call by name.

    def vars(*args):
        try:
            if args:
                return real["vars"](*args)
            return frame_locals(caller("vars", 0, ()))
        finally:
            args = None

    def dir(*args):
        try:
            if args:
                return real["dir"](*args)
            return _sorted(frame_locals(caller("dir", 0, ())))
        finally:
            args = None

    def namespaces(name, args, kwargs):
        """eval's and exec's arguments with the caller's globals and locals put in where they are left out or
        None, and source text compiled with the caller's future features (as the interpreter's own inherit
        them); ``None`` when the interpreter's own is to be called as it was (it then says what is wrong)."""
        if not args or _len(args) > 3 or (kwargs and not keywords_taken and set(kwargs) != {"closure"}):
            return None
        glob = args[1] if _len(args) > 1 else kwargs.get("globals")
        loc = args[2] if _len(args) > 2 else kwargs.get("locals")
        # (Only the code's flags of a frame read without a namespace: what it was compiled with is no secret.)
        flags = caller(name, 0, (), 3, False).f_code.co_flags & future_flags
        if glob is None:
            frame = caller(name, _len(args), _tuple(kwargs), 3)
            glob = frame.f_globals
            if loc is None:
                loc = frame_locals(frame)
            frame = None
        elif flags == 0:
            return None
        source = args[0]
        if flags and isinstance(source, (_str, bytes, bytearray)):
            text = source.lstrip(" \t" if isinstance(source, _str) else b" \t") if name == "eval" else source
            source = compile(text, "<string>", name, flags, True)
        other = {k: v for k, v in kwargs.items() if k not in ("globals", "locals")}
        return (source, glob, loc) if loc is not None else (source, glob), other

    def eval(*args, **kwargs):
        filled = None
        try:
            filled = namespaces("eval", args, kwargs)
            if filled is None:
                return real["eval"](*args, **kwargs)
            return real["eval"](*filled[0], **filled[1])
        finally:
            args = kwargs = filled = None

    def exec(*args, **kwargs):
        filled = None
        try:
            filled = namespaces("exec", args, kwargs)
            if filled is None:
                return real["exec"](*args, **kwargs)
            return real["exec"](*filled[0], **filled[1])
        finally:
            args = kwargs = filled = None

    def super(*args):
        if args:
            try:
                return real["super"](*args)
            finally:
                args = None
        frame = caller("super", 0, ())
        code = frame.f_code
        if code.co_argcount == 0:
            raise RuntimeError("super(): no arguments")
        here = frame.f_locals
        first = here.get(code.co_varnames[0], missing)
        if first is missing:
            raise RuntimeError("super(): arg[0] deleted")
        if "__class__" not in code.co_freevars:
            raise RuntimeError("super(): __class__ cell not found")
        cls = here.get("__class__", missing)
        if cls is missing:
            raise RuntimeError("super(): empty __class__ cell")
        if not isinstance(cls, type):
            raise RuntimeError(f"super(): __class__ is not a type ({_type(cls).__name__})")
        return real["super"](cls, first)

    for fn in (locals, globals, vars, dir, eval, exec, super):
        fn.__module__ = "builtins"
        fn.__qualname__ = fn.__name__
        fn.__doc__ = real[fn.__name__].__doc__
        made[fn.__name__] = fn
    for n, fn in made.items():
        setattr(builtins, n, fn)
    return dict(made)
