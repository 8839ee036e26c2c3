"""How often a dictionary was changed, to see a change that was put back.

The guard compares the protected modules' dictionaries with copies at every
test's start and before its result. A change made and undone between two
looks (a built-in shadowed in ``unittest.case`` by code under test, taken
away again by the shadow itself once an assertion has used it) leaves the
dictionary as it was, and no comparison can see it. The interpreter can:

- CPython up to 3.13 keeps a version tag in every dictionary
  (``ma_version_tag``, PEP 509), a number that changes at every change.
- CPython 3.12 and later calls dictionary watchers (``PyDict_AddWatcher``)
  at every change of a dictionary they watch (3.14 has no version tags).

``touch_counter()`` gives ``counter(dicts)``, which returns ``(probe, more)``:
``probe()`` gives, for each of those dictionaries, in order, a number that
changes whenever it is changed (``0`` for anything but a plain dict), and
``more(objects)`` makes another probe, over the dictionaries of objects known
only during a run (test.py's module and classes: a class's dictionary is the
one behind its ``__dict__`` view, reached through ctypes). The probe is what a look
calls: it calls no ``id()`` (an audited call: every audit hook would run for
each dictionary at every look). Neither way is offered by Python itself: the
tag is read, and the watcher set up, through ctypes, imported here before the
audit hooks refuse it to code under test, and taken out of ``sys.modules``
again. The ctypes objects stay in the defaults of ``counter`` and ``probe``
(and of the functions they hold), which the guard's audit hook refuses to
read. The counter serves once (the guard's probe): a probe made for code
under test would hand it ctypes. Code under test may call the probe (it
only reads), but gets nothing of ctypes.
"""

import sys
from operator import attrgetter

# The events a dictionary watcher is called with (Include/cpython/dictobject.h); the last one is a
# dictionary being freed, no change.
_DEALLOCATED = 5

_MADE = []


def touch_counter():
    """``counter(dicts) -> probe``, made once per interpreter (later calls
    give the same function; the counter itself can be called once), or ``None`` when this Python has neither
    version tags nor dictionary watchers, or ctypes cannot be imported (the
    guard then sees no change that was put back)."""
    if _MADE:
        return _MADE[0]

    def make_counter(ctypes):
        make = _version_tags(ctypes) or _watchers(ctypes)
        behind = _dict_behind(ctypes)
        return _once(make, behind) if make and behind else None

    made = with_ctypes(make_counter)
    _MADE.append(made)
    return made


def with_ctypes(use):
    """``use(ctypes)``, with ctypes imported for the call and out of ``sys.modules`` after it (the guard refuses
    ctypes to code under test: none of it is left loaded for a run to find). ``None`` when ctypes cannot be
    imported. Before the guard is made (its audit hook then refuses the import)."""
    had = {n for n in sys.modules if n.split(".")[0] in ("ctypes", "_ctypes")}
    try:
        import ctypes
    except ImportError:
        return None
    try:
        return use(ctypes)
    finally:
        for n in [n for n in sys.modules if n.split(".")[0] in ("ctypes", "_ctypes") and n not in had]:
            del sys.modules[n]


def _once(make, behind):
    """``make`` (which hands out a probe holding ctypes objects), callable once: by the guard, as it is made
    (a probe made for code under test would hand it ctypes through its defaults). It gives the probe of
    ``dicts`` and ``more(objects)``, the maker of probes of the dictionaries of modules and classes, which
    the guard keeps where code under test cannot reach it. ``behind``: a class's ``__dict__`` view -> the
    dictionary behind it."""

    # (What they hold is in their closures, which code under test cannot read, not in defaults: a caller can
    # pass its own in their place. A counter given a list of uses of its own was used again, and its probe,
    # given a reader of its own, handed out the ctypes words it reads.)
    _type, _proxy = type, type(type.__dict__)
    used = []

    def more(objects):
        dicts = []
        for o in objects:
            # (A module's or an object's own dictionary, a dict subclass included: test.py's built-ins.)
            view = _type.__dict__["__dict__"].__get__(o) if isinstance(o, _type) else vars(o)
            dicts.append(behind(view) if _type(view) is _proxy else view if isinstance(view, dict) else None)
        return make(dicts)

    def counter(dicts):
        if used:
            raise RuntimeError("the counter of dictionary changes serves the guard alone")
        used.append(True)
        return make(dicts), more

    return counter


def _dict_behind(ctypes):
    """``behind(view)``: the dictionary a class's ``__dict__`` view (a mappingproxy) shows, read from the
    view's one field after the object header, proven on a class of our own; or ``None``."""
    field = object.__basicsize__

    read, _id = ctypes.py_object.from_address, id

    def behind(view):
        return read(_id(view) + field).value

    probe = type("_DictProbe", (), {"x": object()})
    view = type.__dict__["__dict__"].__get__(probe)
    try:
        found = behind(view)
    except ValueError:
        return None
    if type(found) is not dict or found.get("x") is not view["x"] or len(found) != len(view):
        return None
    found["y"] = True
    return behind if view.get("y") is True else None


def _version_tags(ctypes):
    """The maker of probes of version tags, proven on a dictionary of our own (changed, its tag moves; read again
    unchanged, it stays), or ``None``."""
    word = ctypes.c_uint64
    # PyDictObject: the object's header, ma_used (a Py_ssize_t), then ma_version_tag.
    off = object.__basicsize__ + ctypes.sizeof(ctypes.c_ssize_t)
    if ctypes.sizeof(word) + off > dict.__basicsize__:
        return None

    at, value, zero, _map, _list = word.from_address, attrgetter("value"), word(), map, list

    def make(dicts):
        # The words are made once (the dicts are kept alive with them), and read in C at every look.
        words = tuple(at(id(d) + off) if isinstance(d, dict) else zero for d in dicts)
        kept = tuple(dicts)

        def probe():
            return _list(_map(value, words)) if kept is not None else None

        return probe

    probe_dict = {}
    probe = make([probe_dict])
    first = probe()
    probe_dict["changed"] = True
    second = probe()
    if first == second or probe() != second:
        return None
    probe_dict["changed"] = False
    if probe() == second:
        return None
    return make


def _watchers(ctypes):
    """A dictionary watcher that logs every change of a watched dictionary, and the maker of probes that count
    them per dictionary, or ``None``. The watcher is C all the way (``print`` to a ``StringIO``, through a
    ``functools.partial``): a watcher written in Python cannot run where code under test has used up the
    recursion limit (its change would then go uncounted), a C call still can."""
    api = ctypes.pythonapi
    if not hasattr(api, "PyDict_AddWatcher"):
        return None
    import functools
    import io

    log = io.StringIO()
    # One line per change: the event, the dictionary's address, the key's and the new value's (or None).
    # (A void pointer for the result: print gives None, which is 0, the watcher's "done".)
    callback = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(
        functools.partial(print, file=log)
    )
    add = api.PyDict_AddWatcher
    add.argtypes = [ctypes.c_void_p]
    add.restype = ctypes.c_int
    watch = api.PyDict_Watch
    watch.argtypes = [ctypes.c_int, ctypes.py_object]
    watch.restype = ctypes.c_int
    wid = add(ctypes.cast(callback, ctypes.c_void_p))
    if wid < 0:
        return None

    freed = str(_DEALLOCATED)

    def make(dicts):
        addresses = []
        for d in dicts:
            if isinstance(d, dict):
                watch(wid, d)
                addresses.append(str(id(d)))
            else:
                addresses.append("")
        counts = dict.fromkeys(a for a in addresses if a)
        for a in counts:
            counts[a] = 0
        read = [log.tell()]
        kept, at = tuple(dicts), tuple(addresses)

        def probe():
            end = log.tell()
            if end != read[0] and kept is not None and callback is not None:
                log.seek(read[0])
                for line in log.read(end - read[0]).splitlines():
                    event, address = (line.split(" ", 2) + ["", ""])[:2]
                    if address in counts and event != freed:
                        counts[address] += 1
                read[0] = end
            return [counts.get(a, 0) for a in at]

        return probe

    probe_dict = {}
    probe = make([probe_dict])
    first = probe()
    probe_dict["changed"] = True
    if probe() == first:
        return None
    return make
