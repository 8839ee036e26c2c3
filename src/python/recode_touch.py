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

``touch_counter()`` gives ``touches(dicts)``: for each dictionary a number
that changes whenever it is changed (``0`` for anything but a plain dict).
Neither is offered by Python itself: the tag is read, and the watcher set up,
through ctypes, imported here before the audit hooks refuse it to code under
test, and taken out of ``sys.modules`` again. The ctypes objects stay in the
defaults of ``touches`` (and of the watcher it keeps), which the guard's audit
hook refuses to read: code under test may call ``touches`` (it only reads),
but gets nothing of ctypes.
"""

import sys

# The events a dictionary watcher is called with (Include/cpython/dictobject.h); the last one is a
# dictionary being freed, no change.
_DEALLOCATED = 5

_MADE = []


def touch_counter():
    """``touches(dicts) -> list[int]``, made once per interpreter (later calls
    give the same function), or ``None`` when this Python has neither
    version tags nor dictionary watchers, or ctypes cannot be imported (the
    guard then sees no change that was put back)."""
    if _MADE:
        return _MADE[0]
    had = {n for n in sys.modules if n.split(".")[0] in ("ctypes", "_ctypes")}
    try:
        import ctypes
    except ImportError:
        return None
    try:
        made = _version_tags(ctypes) or _watchers(ctypes)
    finally:
        for n in [n for n in sys.modules if n.split(".")[0] in ("ctypes", "_ctypes") and n not in had]:
            del sys.modules[n]
    _MADE.append(made)
    return made


def _version_tags(ctypes):
    """The reader of version tags, proven on a dictionary of our own (changed, its tag moves; read again
    unchanged, it stays), or ``None``."""
    word = ctypes.c_uint64
    # PyDictObject: the object's header, ma_used (a Py_ssize_t), then ma_version_tag.
    off = object.__basicsize__ + ctypes.sizeof(ctypes.c_ssize_t)
    if ctypes.sizeof(word) + off > dict.__basicsize__:
        return None
    probe = {}
    read = word.from_address
    first = read(id(probe) + off).value
    probe["changed"] = True
    second = read(id(probe) + off).value
    if first == second or read(id(probe) + off).value != second:
        return None
    probe["changed"] = False
    if read(id(probe) + off).value == second:
        return None

    def touches(dicts, _read=read, _off=off, _id=id, _type=type, _dict=dict):
        return [_read(_id(d) + _off).value if _type(d) is _dict else 0 for d in dicts]

    return touches


def _watchers(ctypes):
    """A dictionary watcher counting changes per dictionary, and the reader of its counts (which watches a
    dictionary from its first read on), or ``None``."""
    api = ctypes.pythonapi
    if not hasattr(api, "PyDict_AddWatcher"):
        return None
    counts = {}  # address of a watched dict -> changes seen

    # (Addresses, not objects: a dictionary being freed must not be made an object again.)
    def changed(event, address, key, new, _counts=counts, _get=dict.get, _pop=dict.pop, _freed=_DEALLOCATED):
        if event == _freed:
            _pop(_counts, address, None)
        else:
            _counts[address] = _get(_counts, address, 0) + 1
        return 0

    callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(changed)
    add = api.PyDict_AddWatcher
    add.argtypes = [ctypes.c_void_p]
    add.restype = ctypes.c_int
    watch = api.PyDict_Watch
    watch.argtypes = [ctypes.c_int, ctypes.py_object]
    watch.restype = ctypes.c_int
    wid = add(ctypes.cast(callback, ctypes.c_void_p))
    if wid < 0:
        return None

    def touches(dicts, _watch=watch, _wid=wid, _counts=counts, _callback=callback, _id=id, _type=type, _dict=dict, _get=dict.get):
        out = []
        for d in dicts:
            if _type(d) is not _dict:
                out.append(0)
                continue
            address = _id(d)
            if address not in _counts:
                _watch(_wid, d)
                _counts[address] = 0
            out.append(_get(_counts, address, 0))
        return out

    probe = {}
    first = touches([probe])
    probe["changed"] = True
    if touches([probe]) == first:
        return None
    return touches
