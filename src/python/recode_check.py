"""Value checks for task unit tests: record values from the canonical solution,
compare candidate values against them later.

A task's ``test.py`` calls ``check(self, "key", value, rtol=..., atol=...)``.
In record mode the value is stored under ``key`` (the run writes them to
``expected.json``); in test mode it is compared with the recorded value and a
mismatch raises ``AssertionError`` with a message that says where the values
differ (type, length, shape, dtype, which element, by how much). The structured
mismatch is also kept for the researcher (``last_mismatch``).

Encoding of recorded values (JSON): numbers, strings, booleans and ``None`` as
themselves; lists as lists; non-finite floats as ``{"$float": "nan"|"inf"|"-inf"}``;
tuples ``{"$tuple": [...]}``; sets ``{"$set": [...]}`` (sorted); dicts
``{"$dict": [[key, value], ...]}``; numpy arrays
``{"$ndarray": {"dtype", "shape", "data"}}``; numpy scalars
``{"$npscalar": {"dtype", "value"}}``.
"""

import json
import math
import os

MODE = "test"
EXPECTED = {}
RECORDED = {}
last_mismatch = None

# Outside the harness (e.g. `python3 -m unittest test` in a task folder), the
# recorded values come from the file named by RECODE_EXPECTED.
if os.environ.get("RECODE_EXPECTED"):
    with open(os.environ["RECODE_EXPECTED"], encoding="utf-8") as _f:
        EXPECTED = json.load(_f)


class RecordError(Exception):
    """A value cannot be recorded (unsupported type, duplicate key)."""


def _np():
    import sys

    return sys.modules.get("numpy")


def encode(value, path="value"):
    np = _np()
    # numpy first: np.float64 is also a Python float.
    if np is not None:
        if isinstance(value, np.ndarray):
            return {
                "$ndarray": {
                    "dtype": str(value.dtype),
                    "shape": list(value.shape),
                    "data": encode(value.tolist(), path),
                }
            }
        if isinstance(value, np.generic):
            return {"$npscalar": {"dtype": str(value.dtype), "value": encode(value.item(), path)}}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"$float": "nan"}
        if math.isinf(value):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, tuple):
        return {"$tuple": [encode(v, f"{path}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [encode(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        return {"$set": [encode(v, path) for v in sorted(value, key=repr)]}
    if isinstance(value, dict):
        return {"$dict": [[encode(k, path), encode(v, f"{path}[{k!r}]")] for k, v in value.items()]}
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
    text = repr(v)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_number(v):
    np = _np()
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    return np is not None and isinstance(v, np.generic) and np.issubdtype(type(v), np.number)


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
    # Fast paths for plain floats, ints and lists/tuples of them; anything
    # unusual (or a mismatch) goes through the full comparison below.
    if _same_fast(exp, act, rtol, atol):
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
        if str(act.dtype) != exp.dtype:
            raise Mismatch(key, "dtype", where, exp.dtype, str(act.dtype), f"expected dtype {exp.dtype}, got {act.dtype}")
        _compare(key, exp.data, act.tolist(), where, rtol, atol)
        return
    if isinstance(exp, _NpScalar):
        # A numpy scalar must have the recorded dtype; a plain Python number is compared by value.
        if np is not None and isinstance(act, np.generic):
            if str(act.dtype) != exp.dtype:
                raise Mismatch(key, "dtype", where, exp.dtype, str(act.dtype), f"expected dtype {exp.dtype}, got {act.dtype}")
            act = act.item()
        elif not (_is_number(act) or isinstance(act, bool)):
            raise Mismatch(key, "type", where, exp.dtype, act, f"expected a numpy {exp.dtype} scalar, got {_type_name(act)}")
        _compare(key, exp.value, act, where, rtol, atol)
        return
    if isinstance(exp, bool) or exp is None or isinstance(exp, str):
        if type(act) is not type(exp) or act != exp:
            raise Mismatch(key, "value", where, exp, act, f"expected {_short(exp)}, got {_short(act)}")
        return
    if _is_number(exp):
        if not _is_number(act):
            raise Mismatch(key, "type", where, exp, act, f"expected a number, got {_type_name(act)} {_short(act)}")
        e, a = float(exp), float(act)
        if math.isnan(e) and math.isnan(a):
            return
        if isinstance(exp, int) and isinstance(act, int):
            if exp != act:
                raise Mismatch(key, "value", where, exp, act, f"expected {exp}, got {act} (off by {act - exp})")
            return
        if not math.isclose(e, a, rel_tol=rtol, abs_tol=atol):
            diff = abs(e - a) if not (math.isinf(e) or math.isinf(a)) else math.inf
            raise Mismatch(
                key, "value", where, exp, act, f"expected {exp!r}, got {a!r} (abs diff {diff:.3g}; rtol {rtol:g}, atol {atol:g})"
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


def check(testcase, key, actual, rtol=1e-9, atol=0.0):
    """Record ``actual`` under ``key`` (record mode) or compare it with the
    recorded value (test mode). Floats compare with ``math.isclose(rtol, atol)``;
    everything else exactly. Raises ``AssertionError`` (a ``Mismatch``)."""
    global last_mismatch
    if MODE == "record":
        if key in RECORDED:
            raise RecordError(f"key {key!r} is recorded twice; every check needs its own key")
        RECORDED[key] = encode(actual, key)
        return
    if key not in EXPECTED:
        raise RecordError(f"no recorded value for key {key!r}: record the task again")
    try:
        _compare(key, decode(EXPECTED[key]), actual, "", rtol, atol)
    except Mismatch as m:
        last_mismatch = m.info
        raise
