"""Value checks for task unit tests.

A task's ``test.py`` calls ``check(self, "key", value, rtol=..., atol=...)``.

Under the playground's harness (``SINK`` set) the value is encoded and sent
out of the interpreter; the host records it (recording the canonical solution)
or compares it with the recorded value (testing a candidate). The interpreter
that runs candidate code never holds the recorded values.

Outside the harness (``python3 -m unittest`` in a task folder, with
``RECODE_EXPECTED`` naming an ``expected.json``) the value is compared here, the
same way the host compares it, and a mismatch raises ``AssertionError`` with a
message that says where the values differ (type, length, shape, dtype, which
element, by how much).

Encoding of values (JSON): numbers, strings, booleans and ``None`` as
themselves (integers of any size exactly, floats as their repr); lists as
lists; non-finite floats as ``{"$float": "nan"|"inf"|"-inf"}``; tuples
``{"$tuple": [...]}``; sets ``{"$set": [...]}`` (sorted by repr); dicts
``{"$dict": [[key, value], ...]}``; what ``outcome`` gives for a call that raised
``{"$raised": {"type": "ValueError", "message": "..."}}`` (the nearest built-in
exception class; equal when the type is); numpy arrays
``{"$ndarray": {"dtype", "shape", "data"}}``; numpy scalars
``{"$npscalar": {"dtype", "value"}}``; a value of any other type (which can be
neither recorded nor equal to a recorded value) ``{"$other": {"type", "repr"}}``.

``expected.json`` (format 2): ``{"format": 2, "tests": {test id: [keys]},
"values": {key: encoded value}}``; format 1 was the bare ``values`` object.
"""

import builtins
import json
import math
import os
import sys
import traceback
import types
from itertools import islice as _islice

# "harness" while the playground's harness runs the tests, else "test".
MODE = "test"
# Where checked values go under the harness: SINK(key, value_json, rtol, atol, subtest).
SINK = None
EXPECTED = {}
last_mismatch = None

_json_dumps = json.dumps
# The built-in exception classes, by identity, read as the module loads (before any code under test runs): a
# class that names itself ValueError in builtins is not ValueError.
_BUILTIN_EXCEPTIONS = {id(c): (c, n) for n, c in vars(builtins).items() if isinstance(c, type) and issubclass(c, BaseException)}
_MRO = type.__dict__["__mro__"].__get__
_get_int_digits = getattr(sys, "get_int_max_str_digits", None)
_set_int_digits = getattr(sys, "set_int_max_str_digits", None)


def _any_int_digits(convert, arg):
    """``convert(arg)`` (json's dumps or load); an int of more than 4,300 digits (Python's limit on
    int-text conversion, 3.11 and later) is converted too, the limit lifted for this call."""
    try:
        return convert(arg)
    except ValueError as e:
        if "integer string conversion" not in str(e) or _set_int_digits is None:
            raise
    old = _get_int_digits()
    _set_int_digits(0)
    try:
        return convert(arg)
    finally:
        _set_int_digits(old)


def _dumps(obj):
    return _any_int_digits(_json_dumps, obj)


def compare_value(key, exp, act, rtol, atol):
    """``_compare`` of a whole value, ints of any size written in full in its messages (as the host writes them)."""
    old = _get_int_digits() if _get_int_digits is not None else None
    if old is not None:
        _set_int_digits(0)
    try:
        _compare(key, exp, act, "", rtol, atol)
    finally:
        if old is not None:
            _set_int_digits(old)


def load_expected(path):
    """The recorded values of an expected.json file (format 1 or 2)."""
    with open(path, encoding="utf-8") as f:
        data = _any_int_digits(json.loads, f.read())
    if isinstance(data, dict) and data.get("format") == 2:
        return data.get("values", {})
    return data


# Outside the harness (e.g. `python3 -m unittest test` in a task folder), the
# recorded values come from the file named by RECODE_EXPECTED.
if os.environ.get("RECODE_EXPECTED"):
    EXPECTED = load_expected(os.environ["RECODE_EXPECTED"])


class RecordError(Exception):
    """A value cannot be recorded (unsupported type, duplicate key)."""


# Under the harness: the numpy module loaded before code under test ran (a task's package), or None. ``_np``
# gives no other: a module code under test put in ``sys.modules["numpy"]`` would have its code run by every check.
NUMPY = None


def _np():
    return NUMPY if MODE == "harness" else sys.modules.get("numpy")


def _dtype_text(dtype):
    """A dtype's name as it holds values, whatever the byte order or record view: a big-endian
    float64 array and a record array hold what a native one and a structured one hold."""
    np = _np()
    if issubclass(dtype.type, np.record):
        dtype = np.dtype((np.void, dtype))
    return str(dtype.newbyteorder("="))


# Types encode() sends as they are (a float only when finite); exactly these, not their subclasses.
_AS_IS = frozenset((int, bool, type(None)))


def _plain_numbers(items, _as_is=_AS_IS, _float=float, _type=type):
    """Whether every item of ``items`` is an int, bool, None or finite float, of exactly that type (so that
    encode() would send each as it is)."""
    for v in items:
        t = _type(v)
        if t is _float:
            # nan and inf: v - v is nan, which equals nothing.
            if v - v != 0.0:
                return False
        elif t not in _as_is:
            return False
    return True


def encode(value, path="value"):
    np = _np()
    # numpy first: np.float64 is also a Python float.
    if np is not None:
        if isinstance(value, np.ndarray):
            # Read as a plain array: a subclass's own dtype, shape or tolist() does not decide what is sent.
            plain = np.ndarray.view(value, np.ndarray)
            ma = sys.modules.get("numpy.ma")
            data = plain.tolist()
            if ma is not None and isinstance(value, ma.MaskedArray):
                # A masked array's masked items are None (as its tolist() gives them), read from the plain
                # data and the mask: its own tolist() reads a data view whose class the array names.
                mask = np.ndarray.view(np.asarray(ma.getmaskarray(value)), np.ndarray)
                if mask.shape != plain.shape or mask.dtype != np.bool_:
                    raise RecordError(f"cannot record {path}: a masked array with a structured mask is not supported")
                items = plain.astype(object)
                items[mask] = None
                data = items.tolist()
            return {"$ndarray": {"dtype": _dtype_text(plain.dtype), "shape": list(plain.shape), "data": encode(data, path)}}
        if isinstance(value, np.generic):
            dtype = np.generic.dtype.__get__(value)
            item = np.generic.item(value)
            if isinstance(item, np.generic):
                # item() keeps a long double (float128) a numpy scalar: it is sent as the float it equals, and
                # one that no float equals (more digits, or beyond float range) is not sent: rounded, a wrong
                # value would pass a check with no tolerance.
                f = float(np.float64(item)) if isinstance(item, np.floating) else None
                if f is None or not (np.equal(np.longdouble(f), item) or f != f):
                    raise RecordError(
                        f"cannot record {path}: a numpy {type(value).__name__} that no float equals is not supported: convert it with float()"
                    )
                item = f
            return {"$npscalar": {"dtype": str(dtype), "value": encode(item, path)}}
    if isinstance(value, str):
        try:
            str.encode(value, "utf-8")
        except UnicodeEncodeError:
            # A lone surrogate: its JSON escape is the same as a character's beyond the BMP (two surrogates
            # sent for one emoji would pass as it), so such a string is not sent.
            raise RecordError(f"cannot record {path}: a str that holds a lone surrogate code point is not supported") from None
        return value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"$float": "nan"}
        if math.isinf(value):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if type(value) is Raised:
        at = {"at": str.__str__(value.at)} if value.at else {}
        return {"$raised": {"type": str.__str__(value.type), "message": str.__str__(value.message), **at}}
    # A container is sent by what it holds, read with the built-in type's own methods: a subclass whose
    # iteration or items() says otherwise does not decide what is compared.
    if isinstance(value, tuple):
        return {"$tuple": [encode(v, f"{path}[{i}]") for i, v in enumerate(tuple.__iter__(value))]}
    if isinstance(value, list):
        items = list(list.__iter__(value))
        # The common case, a list of plain numbers, each sent as it is: one pass, no call per item.
        if _plain_numbers(items):
            return items
        return [encode(v, f"{path}[{i}]") for i, v in enumerate(items)]
    if isinstance(value, (set, frozenset)):
        items = set.__iter__(value) if isinstance(value, set) else frozenset.__iter__(value)
        return {"$set": [encode(v, path) for v in sorted(items, key=repr)]}
    if isinstance(value, dict):
        return {"$dict": [[encode(k, path), encode(v, f"{path}[{k!r}]")] for k, v in dict.items(value)]}
    raise RecordError(f"cannot record {path}: values of type {type(value).__name__} are not supported")


def decode(obj):
    if isinstance(obj, list):
        return [decode(v) for v in obj]
    if isinstance(obj, dict):
        if "$float" in obj:
            return float(obj["$float"])
        if "$tuple" in obj:
            return tuple(decode(v) for v in obj["$tuple"])
        if "$set" in obj:
            return set(decode(v) for v in obj["$set"])
        if "$dict" in obj:
            return {_hashable(decode(k)): decode(v) for k, v in obj["$dict"]}
        if "$ndarray" in obj:
            return _NdArray(obj["$ndarray"])
        if "$npscalar" in obj:
            return _NpScalar(obj["$npscalar"])
        if "$raised" in obj:
            return Raised(obj["$raised"]["type"], obj["$raised"].get("message", ""))
    return obj


def _hashable(v):
    return tuple(v) if isinstance(v, list) else v


class _NdArray:
    def __init__(self, spec):
        self.dtype = spec["dtype"]
        self.shape = tuple(spec["shape"])
        self.data = decode(spec["data"])


class _NpScalar:
    def __init__(self, spec):
        self.dtype = spec["dtype"]
        self.value = decode(spec["value"])


class Mismatch(AssertionError):
    def __init__(self, key, kind, where, expected, actual, detail):
        self.info = {
            "key": key,
            "kind": kind,
            "where": where,
            "expected": _short(expected),
            "actual": _short(actual),
            "detail": detail,
        }
        place = f" at {where}" if where else ""
        super().__init__(f"{key}{place}: {detail}")


def _short(v, limit=200):
    try:
        text = repr(v)
    except Exception as e:  # an int too long to print, a repr that raises
        text = f"<{_type_name(v)}: repr failed with {type(e).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_number(v):
    np = _np()
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    # (a timedelta64 is a numpy integer, but no number to the host, whose dtype names say int, uint, float, complex)
    return np is not None and isinstance(v, np.generic) and np.issubdtype(type(v), np.number) and not isinstance(v, np.timedelta64)


def _int_value(v):
    """The int an int or a numpy integer scalar holds, else None."""
    np = _np()
    if isinstance(v, int):
        return int.__index__(v)
    if np is not None and isinstance(v, np.integer) and not isinstance(v, np.timedelta64):
        return int(v)
    return None


def _type_name(v):
    return type(v).__name__


def _same_fast(exp, act, rtol, atol):
    """True when two plain floats or ints agree (floats within tolerance,
    nan equal to nan); False means "compare in full"."""
    te, ta = type(exp), type(act)
    if te is float and ta is float:
        return exp == act or (exp != exp and act != act) or math.isclose(exp, act, rel_tol=rtol, abs_tol=atol)
    if te is int and ta is int:
        return exp == act
    return False


def _compare(key, exp, act, where, rtol, atol):
    """Compare ``act`` with the recorded ``exp``. Raises only ``Mismatch``
    (MemoryError and RecursionError pass: they mark the interpreter suspect)."""
    try:
        _compare_unchecked(key, exp, act, where, rtol, atol)
    except (Mismatch, MemoryError, RecursionError):
        raise
    except Exception as e:  # e.g. a bad tolerance, an __eq__ that raises
        raise Mismatch(key, "type", where, exp, act, f"cannot compare: {_short(e)}") from None


def _compare_unchecked(key, exp, act, where, rtol, atol):
    # Fast paths for plain floats, ints and lists/tuples of them; anything
    # unusual (or a mismatch) goes through the full comparison below.
    if _same_fast(exp, act, rtol, atol):
        return
    if type(exp) is Raised or type(act) is Raised:
        _compare_raised(key, exp, act, where)
        return
    te = type(exp)
    if (te is list or te is tuple) and type(act) is te and len(exp) == len(act):
        for i, (e, a) in enumerate(zip(exp, act)):
            if not _same_fast(e, a, rtol, atol):
                _compare(key, e, a, f"{where}[{i}]", rtol, atol)
        return
    np = _np()
    if isinstance(exp, _NdArray):
        if np is None or not isinstance(act, np.ndarray):
            raise Mismatch(key, "type", where, "ndarray", act, f"expected a numpy array, got {_type_name(act)}")
        if tuple(act.shape) != exp.shape:
            raise Mismatch(key, "shape", where, exp.shape, tuple(act.shape), f"expected shape {exp.shape}, got {tuple(act.shape)}")
        if _dtype_text(act.dtype) != exp.dtype:
            got = _dtype_text(act.dtype)
            raise Mismatch(key, "dtype", where, exp.dtype, got, f"expected dtype {exp.dtype}, got {got}")
        _compare(key, exp.data, act.tolist(), where, rtol, atol)
        return
    if isinstance(exp, _NpScalar):
        # A numpy scalar must have the recorded dtype; a plain Python number, bool or str is compared by value.
        if np is not None and isinstance(act, np.generic):
            if str(act.dtype) != exp.dtype:
                raise Mismatch(key, "dtype", where, exp.dtype, str(act.dtype), f"expected dtype {exp.dtype}, got {act.dtype}")
            act = act.item()
        elif not (_is_number(act) or isinstance(act, bool) or (isinstance(act, str) and isinstance(exp.value, str))):
            raise Mismatch(key, "type", where, exp.dtype, act, f"expected a numpy {exp.dtype} scalar, got {_type_name(act)}")
        _compare(key, exp.value, act, where, rtol, atol)
        return
    if isinstance(exp, bool) or exp is None or isinstance(exp, str):
        # A numpy bool or str scalar is compared by value, as a numpy number is.
        value = act.item() if np is not None and isinstance(act, (np.bool_, np.str_)) else act
        if type(value) is not type(exp) or value != exp:
            raise Mismatch(key, "value", where, exp, act, f"expected {_short(exp)}, got {_short(act)}")
        return
    if _is_number(exp):
        if not _is_number(act):
            raise Mismatch(key, "type", where, exp, act, f"expected a number, got {_type_name(act)} {_short(act)}")
        ie, ia = _int_value(exp), _int_value(act)
        if ie is not None and ia is not None:
            if ie != ia:
                raise Mismatch(key, "value", where, exp, act, f"expected {ie}, got {ia} (off by {ia - ie})")
            return
        try:
            e, a = float(exp), float(act)
        except OverflowError:  # an int beyond float range (about 1.8e308) against a float
            if isinstance(act, int):
                detail = f"expected a number within float range, got an int of {len(str(abs(act)))} digits"
            else:
                detail = f"expected an int of {len(str(abs(exp)))} digits (beyond float range), got {float(act)!r}"
            raise Mismatch(key, "value", where, exp, act, detail) from None
        if math.isnan(e) and math.isnan(a):
            return
        close = math.isclose(e, a, rel_tol=rtol, abs_tol=atol)  # (raises for a negative tolerance)
        diff = abs(e - a) if not (math.isinf(e) or math.isinf(a)) else math.inf
        if ie is not None:
            # A recorded int against a float: matched exactly (an equal float), or within atol; rtol is for
            # recorded floats (a float within 1e-9 of a 64-bit hash is not that hash).
            close = math.isfinite(a) and (abs(ie - int(a)) if a.is_integer() else abs(ie - a)) <= atol
            if math.isfinite(a) and a.is_integer():
                diff = float(abs(ie - int(a)))
            if not close:
                raise Mismatch(
                    key, "value", where, exp, act,
                    f"expected the int {exp!r}, got {a!r} (abs diff {diff:.3g}; an int is matched exactly, or within atol {atol:g})",
                )
            return
        if ia is not None and float(ia) != ia and e.is_integer():
            # An int that no float holds (beyond 2**53) against a whole float: float(ia) rounded it,
            # so the difference is taken exactly, and the tolerance applies to it.
            d = abs(ia - int(e))
            close, diff = d <= atol or d <= abs(rtol * e) or d <= abs(rtol * float(ia)), float(d)
        if not close:
            got = ia if ia is not None and float(ia) != ia else a
            raise Mismatch(
                key, "value", where, exp, act, f"expected {exp!r}, got {got!r} (abs diff {diff:.3g}; rtol {rtol:g}, atol {atol:g})"
            )
        return
    if isinstance(exp, (tuple, list)):
        if type(act) is not type(exp):
            raise Mismatch(key, "type", where, exp, act, f"expected {_type_name(exp)}, got {_type_name(act)}")
        if len(act) != len(exp):
            raise Mismatch(key, "length", where, len(exp), len(act), f"expected length {len(exp)}, got {len(act)}")
        for i, (e, a) in enumerate(zip(exp, act)):
            _compare(key, e, a, f"{where}[{i}]", rtol, atol)
        return
    if isinstance(exp, set):
        if not isinstance(act, (set, frozenset)) or set(act) != exp:
            raise Mismatch(key, "value", where, exp, act, f"expected the set {_short(exp)}, got {_short(act)}")
        return
    if isinstance(exp, dict):
        if not isinstance(act, dict):
            raise Mismatch(key, "type", where, exp, act, f"expected dict, got {_type_name(act)}")
        missing = [k for k in exp if k not in act]
        extra = [k for k in act if k not in exp]
        if missing or extra:
            raise Mismatch(key, "keys", where, sorted(map(repr, exp)), sorted(map(repr, act)), f"missing keys {missing}, unexpected keys {extra}")
        for k in exp:
            _compare(key, exp[k], act[k], f"{where}[{k!r}]", rtol, atol)
        return
    raise Mismatch(key, "type", where, exp, act, f"cannot compare with recorded {_type_name(exp)}")


def _compare_raised(key, exp, act, where):
    # (The recorded side without its message: the canonical solution's words are not the candidate's to match.)
    if type(exp) is Raised:
        exp = Raised(exp.type, "")
    if type(exp) is not Raised:
        raise Mismatch(key, "raised", where, exp, act, f"expected {_short(exp)}, got {act!r}")
    if type(act) is not Raised:
        raise Mismatch(key, "raised", where, exp, act, f"expected {exp.type} to be raised, got {_short(act)}")
    if act.type != exp.type:
        raise Mismatch(key, "raised", where, exp, act, f"expected {exp.type} to be raised, got {act!r}")


def _subtest_params(testcase):
    sub = getattr(testcase, "_subtest", None)
    if sub is None:
        return None
    try:
        text = sub._subDescription()
        return str.__str__(text)[:500] if isinstance(text, str) else "(<subtest>)"
    except Exception:  # noqa: BLE001 - a parameter's repr failed
        return "(<subtest>)"


def encode_any(value, key):
    """JSON text of ``encode(value)``; a value of an unsupported type becomes ``$other``. Ints of any
    size are written in full (see ``_any_int_digits``), in keys and set items too."""
    return _any_int_digits(_encode_any, (value, key))


def _encode_any(value_key):
    value, key = value_key
    return _json_dumps(_encode_or_other(value, key))


def _encode_or_other(value, path):
    """``encode(value)``, or, for a value that cannot be sent, ``$other``: a plain list or tuple item by item
    (a list of ``outcome`` of a constructor holds the object of a call that did not raise beside the errors
    of those that did: the host then says which item differs), anything else as a whole."""
    try:
        return encode(value, path)
    except RecordError:
        pass
    kind = type(value)
    if kind is list or kind is tuple:
        items = [_encode_or_other(v, f"{path}[{i}]") for i, v in enumerate(value)]
        return items if kind is list else {"$tuple": items}
    return {"$other": {"type": _type_name(value), "repr": _short(value)}}


class Raised:
    """What ``outcome`` gives for a call that raised: ``type``, the name of the nearest built-in exception
    class of the exception (``ValueError`` for a subclass of ValueError of the code's own), and ``message``,
    its text (at most 200 characters), and ``at``, where it was raised (``"stats/wmean.py, line 6"``: the
    deepest frame in a file under the working folder, as a traceback names it), or "". ``check`` compares it
    by ``type``; ``at`` is for the message alone, and is not recorded."""

    __slots__ = ("type", "message", "at")

    def __init__(self, type_name, message, at=""):
        self.type = type_name
        self.message = message
        self.at = at

    def __repr__(self):
        return f"{self.type} raised" + (f": {self.message}" if self.message else "") + (f" ({self.at})" if self.at else "")

    def __eq__(self, other):
        return isinstance(other, Raised) and other.type == self.type

    __hash__ = None


def _raised(exc):
    name = "Exception"
    for c in _MRO(type(exc)):
        found = _BUILTIN_EXCEPTIONS.get(id(c))
        if found is not None and found[0] is c:
            name = found[1]
            break
    try:
        text = str(exc)
        message = str.__str__(text)[:200] if isinstance(text, str) else ""
    except Exception:  # noqa: BLE001 - a broken __str__
        message = "<str() failed>"
    return Raised(name, message, _raised_at(exc))


# (As loaded, before code under test runs: ``os`` is a module it may change, and the place of a raise is found
# while a check runs.)
_getcwd = os.getcwd


def _raised_at(exc):
    """``"<file>, line <n>"`` of the deepest frame of ``exc``'s traceback in a file under the working folder
    (the run's: the candidate's file or a repository helper); "" when none."""
    try:
        tb = BaseException.__dict__["__traceback__"].__get__(exc)
        here = _getcwd() + os.sep
        found = ""
        # (traceback's own listing, which leaves out the frames of the test side and hands out no frame; with no
        # line read, unlike ``extract_tb``, which reads each file's lines through linecache: milliseconds a run
        # for the error calls of the checks, whose place is seldom shown. Before Python 3.11, outside the
        # playground, ``extract_tb``.)
        extract = getattr(traceback.StackSummary, "_extract_from_extended_frame_gen", None)
        walk = getattr(traceback, "_walk_tb_with_full_positions", None)
        for frame in extract(walk(tb), lookup_lines=False) if extract and walk else traceback.extract_tb(tb):
            name = str.__str__(frame.filename)
            if name.startswith(here) and name != __file__:
                found = f"{name[len(here):]}, line {int(frame.lineno)}"
        return _printable(found) if len(found) <= 200 else ""
    except Exception:  # noqa: BLE001 - where it was raised is for the message alone
        return ""


_LABEL_LIMIT = 120
_LOGGED_CALLS = 10_000
_LABELS_CHARS = 50_000
_TYPE_NAME = type.__dict__["__name__"].__get__
_FUNCTION_QUALNAME = types.FunctionType.__dict__["__qualname__"].__get__
_BUILTIN_QUALNAME = types.BuiltinFunctionType.__dict__["__qualname__"].__get__
_CLASS_QUALNAME = type.__dict__["__qualname__"].__get__


def _callable_name(fn):
    """What a call's text names: a function's, method's or class's qualified name, read through the built-in
    types' own descriptors (no code of the candidate's runs: a metaclass's ``__qualname__`` is not asked)."""
    if type(fn) is types.MethodType:
        fn = fn.__func__
    kind = type(fn)
    if kind is types.FunctionType:
        return _name_text(_FUNCTION_QUALNAME(fn))
    if kind is types.BuiltinFunctionType:
        return _name_text(_BUILTIN_QUALNAME(fn))
    # (By identity: ``in`` would ask a metaclass's ``__eq__``.)
    if any(c is type for c in _MRO(kind)):
        return _name_text(_CLASS_QUALNAME(fn))
    return f"<{_name_text(_TYPE_NAME(kind))} object>"


def _name_text(name):
    """A qualified name as a call's text gives it: at most 60 characters, each one that a qualified name does
    not hold (a letter, a digit, ``_``, ``.``, ``<``, ``>``) as ``?`` (a name set by code under test to a
    sentence, ``f(1): ok] [all other items match``, would read as part of the message)."""
    text = str.__str__(name)[:60]
    return "".join(c if c.isalnum() or c in "_.<>" else "?" for c in text)


def _printable(name):
    """A name as plain text (a ``str`` subclass's own methods never run): at most 60 characters, each one
    that is not printable (a newline, a bidirectional control) as its escape, as ``repr`` writes it."""
    text = str.__str__(name)[:60]
    return text if str.isprintable(text) else str.__str__(repr(text))[1:-1]


def _arg_text(v, depth):
    """A short text of one argument, as its ``repr`` begins, for values of the built-in types alone (anything
    else is ``<TypeName>``, and no code of the candidate's runs): at most 4 items of a container, 40
    characters of a string, 4 levels."""
    kind = type(v)
    if v is None or kind is bool or kind is float:
        return repr(v)
    if kind is int:
        return repr(v) if v.bit_length() <= 256 else f"<int of {v.bit_length()} bits>"
    if kind is str or kind is bytes:
        return repr(v[:40]) + ("..." if len(v) > 40 else "")
    if kind is list or kind is tuple or kind is dict:
        if depth <= 0:
            return "[...]" if kind is list else "(...)" if kind is tuple else "{...}"
        # (At most five read: a dict of a million items is not copied.)
        items = list(_islice(dict.items(v), 5)) if kind is dict else list(v[:5])
        shown = [f"{_arg_text(k, 0)}: {_arg_text(x, depth - 1)}" for k, x in items[:4]] if kind is dict else [_arg_text(x, depth - 1) for x in items[:4]]
        if len(items) > 4:
            shown.append("...")
        inner = ", ".join(shown)
        if kind is list:
            return f"[{inner}]"
        return f"{{{inner}}}" if kind is dict else f"({inner}{',' if len(v) == 1 else ''})"
    np = _np()
    if np is not None and kind is np.ndarray:
        return f"<ndarray of shape {tuple(int(n) for n in v.shape)}>"
    return f"<{_name_text(_TYPE_NAME(kind))}>"


def _call_label(fn, args, kwargs):
    """``name(arg, ..., key=arg)``, at most ``_LABEL_LIMIT`` characters, or None if it cannot be made."""
    try:
        parts = [_arg_text(a, 3) for a in args]
        parts += [f"{str.__str__(k)}={_arg_text(v, 3)}" for k, v in kwargs.items()]
        text = f"{_callable_name(fn)}({', '.join(parts)})"
    except Exception:  # noqa: BLE001 - the text is for a message alone
        return None
    return text if len(text) <= _LABEL_LIMIT else text[: _LABEL_LIMIT - 4] + "...)"


def _call_log():
    """``(note, take)`` over the calls ``outcome`` made since the last check, held in their closure (not at
    module level, where the guard holds every value still): ``note(result, label)`` after each call;
    ``take(actual)`` empties the log and gives what a failed item's message names, as JSON text: the label of
    the last call when ``actual`` is its result, the labels of the last calls in order when ``actual`` is a
    plain list or tuple of their results (``[outcome(f, x) for x in cases]``), else None."""
    calls = []

    def note(result, label):
        # (A label is a plain string or none: ``note`` is reachable, and ``label or ""`` would ask an object's
        # ``__bool__``.)
        calls.append((result, label if type(label) is str else None))
        if len(calls) > _LOGGED_CALLS:
            del calls[: len(calls) - _LOGGED_CALLS]

    def take(actual):
        if not calls:
            return None
        try:
            kind, n = type(actual), len(calls)
            text = None
            if calls[-1][0] is actual and calls[-1][1] is not None:
                text = _json_dumps(calls[-1][1])
            elif (kind is list or kind is tuple) and 0 < len(actual) <= n:
                tail = calls[n - len(actual) :]
                if all(r is a for (r, _), a in zip(tail, actual)):
                    text = _json_dumps(["" if label is None else label for _, label in tail])
            # (Within a share of the run's event budget: past it, a message names the item by its place alone.)
            return text if text is not None and len(text) <= _LABELS_CHARS else None
        finally:
            calls.clear()

    return note, take


_note_call, _take_calls = _call_log()


def outcome(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, or a ``Raised`` for the exception it raised (an ``Exception``; anything else
    passes through). For error tests as checks: ``check(self, "key", outcome(fn, bad_input))`` records that
    the canonical solution raised (its exception's built-in class), and a candidate's call passes when it
    raises the same. Put good and bad inputs through the same ``outcome`` call (a loop over cases): then
    nothing but the input tells code under test which calls are to raise, as ``with self.assertRaises(...)``
    would."""
    label = _call_label(fn, args, kwargs)
    try:
        result = fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the outcome is what is checked
        result = _raised(exc)
    _note_call(result, label)
    return result


def check(testcase, key, actual, rtol=1e-9, atol=0.0):
    """Check ``actual`` against the value recorded under ``key`` from the
    canonical solution. Floats compare with ``math.isclose(rtol, atol)``;
    everything else exactly. Under the harness the value is sent to the host,
    which compares it; otherwise it is compared here and a mismatch raises
    ``AssertionError`` (a ``Mismatch``)."""
    global last_mismatch
    if not isinstance(key, str):
        raise TypeError(f"check key must be a str, not {type(key).__name__}")
    key, rtol, atol = str.__str__(key), float(rtol), float(atol)
    calls = _take_calls(actual)
    if SINK is not None:
        SINK(key, encode_any(actual, key), rtol, atol, _subtest_params(testcase), calls)
        return
    if key not in EXPECTED:
        if not os.environ.get("RECODE_EXPECTED"):
            raise RecordError(f"no recorded values: set RECODE_EXPECTED to the task's expected.json to check {key!r} outside the playground")
        raise RecordError(f"no recorded value for key {key!r} in {os.environ['RECODE_EXPECTED']}: record the task again")
    try:
        compare_value(key, decode(EXPECTED[key]), actual, rtol, atol)
    except Mismatch as m:
        call = _call_of(calls, m.info["where"])
        if call is not None:
            m.info["call"] = call
            place = f" at {m.info['where']}" if m.info["where"] else ""
            m.args = (f"{key}{place}, for {call}: {m.info['detail']}",)
        last_mismatch = m.info
        raise


def _call_of(calls, where):
    """The call a mismatch at ``where`` (``[3]...``) came from, given what ``_take_calls`` gave, or None."""
    if calls is None:
        return None
    labels = json.loads(calls)
    if type(labels) is str:
        return labels or None
    head = where[1 : where.find("]")] if where.startswith("[") else ""
    return (labels[int(head)] or None) if head.isdigit() and int(head) < len(labels) else None
