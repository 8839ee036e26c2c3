"""Zero-argument ``super().name`` in the library's code, without a look at the calling frame.

Code under test gets a ``super`` that reads the frame that called it (``recode_frame_builtins``): zero-argument
``super()`` finds its class and instance there, and a frame is what code under test must not be handed. That
look (an audited ``sys._getframe``, checked by the frame wall) costs some 20 microseconds a call in Pyodide, and
the standard library calls ``super()`` where a run spends its time: ``Counter("text")`` once per counter.

From Python 3.12 the compiler turns ``super().name`` (and ``super().name(...)``) in a method into one
instruction, ``LOAD_SUPER_ATTR``, with the class (the ``__class__`` cell) and the first argument already on the
stack. When ``super`` is not the interpreter's own type, that instruction calls it with no arguments (bit 2 of
its argument clear) or with both (set: the two-argument form ``super(__class__, self).name``, which compiles to
the same loads). So setting the bit changes nothing the code computes, and the call then reads no frame. This is
done once in Pyodide, as the interpreter is sealed (code made later from its parts is refused), to the functions
of the modules whose globals the guard watches (``recode_guard.PROTECTED_MODULES``: collections, unittest,
functools, ...), loaded by then; every run starts from that interpreter. (The form hands the class and instance
to whatever ``super`` is in the function's globals: planted in a module the guard watches, it is a change the
guard sees; in another, it would be handed what the zero-argument form handed nothing.) (Natively each run is a new
process, which would pay for the walk at every run: there the library's calls look at the frame.) Other calls of ``super()`` (one whose result is kept, code compiled during a
run, Python 3.11's) still read the frame, as before.
"""

import opcode
import sys
import types

# (None before Python 3.12, where zero-argument super() is a call like any other.)
_LOAD_SUPER_ATTR = opcode.opmap.get("LOAD_SUPER_ATTR")
_TWO_ARGUMENTS = 2


def two_argument_code(code):
    """``code`` with each zero-argument ``LOAD_SUPER_ATTR`` (its own and its nested code's) given the
    two-argument form's flag; ``code`` itself when it has none. Needs ``code.replace``, so only before the
    seal (its audit event is refused after)."""
    if _LOAD_SUPER_ATTR is None:
        return code
    consts = code.co_consts
    nested = tuple(two_argument_code(c) if type(c) is types.CodeType else c for c in consts)
    changed = any(a is not b for a, b in zip(nested, consts))
    raw = code.co_code
    fixed = None
    # (Code units of two bytes, opcode then argument; inline caches are zero in co_code. An EXTENDED_ARG
    # holds the argument's high bytes: the flag is in the instruction's own low byte.)
    for at in range(0, len(raw), 2):
        if raw[at] == _LOAD_SUPER_ATTR and not raw[at + 1] & _TWO_ARGUMENTS:
            if fixed is None:
                fixed = bytearray(raw)
            fixed[at + 1] |= _TWO_ARGUMENTS
    if fixed is None and not changed:
        return code
    return code.replace(co_code=raw if fixed is None else bytes(fixed), co_consts=nested)


def library_super_without_frames(library_paths, modules=None):
    """Give the two-argument form (``two_argument_code``) to the functions of the library loaded now: those of
    every loaded module, its classes (and theirs), their static and class methods and properties, whose code is
    in a file under one of ``library_paths`` (folders) and whose globals are those of one of ``modules`` (names;
    None: any). The form hands the class and instance to whatever ``super`` names in the function's globals:
    the harness gives the modules whose globals the guard watches (a ``super`` planted there is a change it
    sees), so that none other gets them where the zero-argument form handed it nothing. Returns how many
    functions changed."""
    if _LOAD_SUPER_ATTR is None:
        return 0
    prefixes = tuple(p.rstrip("/") + "/" for p in library_paths if p)
    watched = None
    if modules is not None:
        watched = {id(vars(sys.modules[m])) for m in modules if m in sys.modules}
    seen = set()
    changed = 0

    def fix(fn):
        nonlocal changed
        if type(fn) is not types.FunctionType or id(fn) in seen:
            return
        seen.add(id(fn))
        code = fn.__code__
        if watched is not None and id(fn.__globals__) not in watched:
            return
        # (Not the harness's own modules, whose code the frame wall knows by identity.)
        if code.co_filename.startswith(prefixes) and not str(fn.__module__).startswith("recode_"):
            new = two_argument_code(code)
            if new is not code:
                fn.__code__ = new
                changed += 1

    def visit(holder, depth):
        if id(holder) in seen:
            return
        seen.add(id(holder))
        for value in list(vars(holder).values()):
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if isinstance(value, property):
                for part in (value.fget, value.fset, value.fdel):
                    fix(part)
            elif type(value) is types.FunctionType:
                fix(value)
            elif isinstance(value, type) and depth < 4:
                visit(value, depth + 1)

    for module in list(sys.modules.values()):
        if isinstance(getattr(module, "__dict__", None), dict):
            visit(module, 0)
    return changed
