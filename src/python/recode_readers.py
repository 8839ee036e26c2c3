"""How the library functions that may take a frame get one: only at their own look.

The frame check (``recode_frames.frame_wall``) allows a few library functions a frame by their code. C code
that such a reader runs for code under test (a ``map`` its own ``list()`` drains, a finalizer its
``frame.clear()`` frees, a property it reads, an ``__index__`` converted inside its call) runs while the
reader's frame is the innermost, and would get a frame there, and through ``f_back`` the running test. So a
reader gets a frame only at one of its own looks (``reader_sites``): its own call of the frame function, with
plain int arguments, or its read of a frame attribute of the very object a local of its holds. The
class-making readers (``CLASS_MAKERS``) call a ``sys._getframe`` of the harness's that checks their call and
gives no frame of the test side; inspect's generator states are the harness's; every frame a reader gets is
made with the collector off. What the check and these functions use is made in ``recode_stack`` and taken
once (``recode_stack.take_stack_views``): no module of the run holds it.
"""

import sys


def _factories():
    made, taken = [], []

    def once(factory, again=RuntimeError):
        """``factory``, callable once per interpreter: the factories of the functions the frame check allows a
        frame to (their code is the allowed code: a second set, made for code under test with a hidden-frame
        check of its own, would be allowed too) and of what decides who may have one. Later calls raise
        ``RuntimeError``, or return ``None`` when ``again`` is None (for a factory the harness itself calls
        again). Whether it was called is kept in the closure, which code under test can neither read nor reset
        (a module's list can be emptied); the factory itself is in no module (``take_factories``)."""
        used = []

        def first(*args):
            if used:
                if again is None:
                    return None
                raise RuntimeError(f"{factory.__name__} serves the harness alone, once")
            used.append(True)
            return factory(*args)

        first.__name__ = factory.__name__
        first.__qualname__ = factory.__qualname__
        first.__doc__ = factory.__doc__
        made.append(factory)
        return first

    def take_factories():
        """The factories ``once`` wraps, once (for the frame check, which reads the code of the readers they
        make from theirs)."""
        if taken:
            raise RuntimeError("the factories of the frame readers serve the frame check alone, once")
        taken.append(True)
        return list(made)

    return once, take_factories


once, take_factories = _factories()
del _factories

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


def _drop(held, obj):
    """Take ``obj`` itself out of the list ``held`` (another thread's entry, added since, stays)."""
    for i in range(len(held) - 1, -1, -1):
        if held[i] is obj:
            del held[i]
            return


class _Look(Exception):
    """Raised and caught for a function's own frame (``frame_of_caller``)."""


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


@once
def _readers_getframe(frame_of_caller, beyond, gc_switch):
    """The ``sys._getframe`` the class-making readers get (their module's ``sys``, recode_frames): a frame
    only to one of them, at its own call of it, for a plain int depth, with the collector off while the frame
    is made; none of the test side or above it (``ValueError``, as past the end of the stack). Returns it in
    a list. ``beyond(maker, frame)``: whether the walk from the maker's frame up to ``frame`` meets the test
    side."""
    import types

    # (By identity: a code object equal to a maker's, compiled from a copy of its text, is not the maker's.)
    sites = []
    for module, qualname in CLASS_MAKERS:
        fn = _function(module, qualname)
        if type(fn) is types.FunctionType:
            sites.append((fn.__code__, reader_sites(fn.__code__)[0]))
    sites = tuple(sites)
    real_getframe = sys._getframe
    gc_enabled, gc_disable, gc_enable = gc_switch
    _type, _int = type, int

    # (What it decides with is in its closure, which code under test cannot read, not in defaults: a caller can
    # pass its own in their place. One that passed a lookup of its own took a frame here, and the whole stack.)
    def _getframe(depth=0):
        maker = frame_of_caller().f_back
        calls = None
        if maker is not None:
            code = maker.f_code
            for made, at in sites:
                if code is made:
                    calls = at
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
        if beyond(maker, frame):
            raise ValueError("call stack is not deep enough")
        return frame

    _getframe.__doc__ = real_getframe.__doc__
    _getframe.__module__ = "sys"
    return [_getframe]


@once
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
