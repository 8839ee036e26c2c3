/**
 * The host-side value check: a candidate's value (as the test encoded it)
 * against the recorded one. A line-by-line mirror of `_compare` in
 * `src/python/recode_check.py` (same rules, same `kind`, `where` and
 * `detail` text), working on decoded {@link PyValue} trees.
 */
import type { Mismatch } from "./results";
import type { PyValue } from "./values";
import { PyLookup, pyDictEntries, setEqual } from "./values-equality";
import { byCodePoint } from "./values-json";
import { pyFloatRepr, pyFormatG } from "./values-number";
import { isNumericDtype, pyRepr, pyShortRepr, pyTypeName } from "./values-repr";

/** `math.isclose` raised ValueError (a negative tolerance). */
const BAD_TOLERANCE = "bad-tolerance";
const BAD_TOLERANCE_DETAIL = "cannot compare: ValueError('tolerances must be non-negative')";

type Close = boolean | typeof BAD_TOLERANCE;

interface Check {
  key: string;
  rtol: number;
  atol: number;
}

/** `math.isclose(a, b, rel_tol=rtol, abs_tol=atol)` as CPython computes it. */
function isClose(a: number, b: number, c: Check): Close {
  if (c.rtol < 0 || c.atol < 0) return BAD_TOLERANCE;
  if (a === b) return true;
  if (a === Number.POSITIVE_INFINITY || a === Number.NEGATIVE_INFINITY) return false;
  if (b === Number.POSITIVE_INFINITY || b === Number.NEGATIVE_INFINITY) return false;
  const diff = Math.abs(b - a);
  return diff <= Math.abs(c.rtol * b) || diff <= Math.abs(c.rtol * a) || diff <= c.atol;
}

/** `_same_fast`: two plain floats within tolerance (nan equal to nan) or two equal plain ints. */
function sameFast(exp: PyValue, act: PyValue, c: Check): Close {
  if (exp.type === "float" && act.type === "float") {
    if (exp.value === act.value || (Number.isNaN(exp.value) && Number.isNaN(act.value))) return true;
    return isClose(exp.value, act.value, c);
  }
  if (exp.type === "int" && act.type === "int") return exp.value === act.value;
  return false;
}

/** `_is_number`: int, float or a numpy number scalar; not bool. */
function isNumber(v: PyValue): boolean {
  return v.type === "int" || v.type === "float" || (v.type === "npscalar" && isNumericDtype(v.dtype));
}

/** `float(v)` of a number; an int beyond float range gives ±Infinity (where Python raises OverflowError). */
function toFloat(v: PyValue): number {
  if (v.type === "int") return Number(v.value);
  if (v.type === "float") return v.value;
  if (v.type === "npscalar") return toFloat(v.value);
  return Number.NaN;
}

function str(s: string): PyValue {
  return { type: "str", value: s };
}

function shapeValue(shape: readonly number[]): PyValue {
  return { type: "tuple", items: shape.map((n) => ({ type: "int", value: BigInt(n) })) };
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

/** The int an int or a numpy integer scalar holds (`_int_value`), else null. */
function intValue(v: PyValue): bigint | null {
  if (v.type === "int") return v.value;
  if (v.type === "npscalar" && v.value.type === "int" && isNumericDtype(v.dtype)) return v.value.value;
  return null;
}

/** `d <= t` exactly, for an integer `d` and a float `t` (as Python compares int with float). */
function atMost(d: bigint, t: number): boolean {
  if (Number.isNaN(t)) return false;
  if (t === Number.POSITIVE_INFINITY) return true;
  if (t === Number.NEGATIVE_INFINITY) return false;
  return d <= BigInt(Math.floor(t));
}

/**
 * `type(act) is type(exp) and act == exp` for a recorded bool, None or str; a numpy bool or str scalar
 * is compared by its value, as a numpy number is.
 */
function sameScalar(exp: PyValue, actual: PyValue): boolean {
  const act = actual.type === "npscalar" && (actual.value.type === "bool" || actual.value.type === "str") ? actual.value : actual;
  if (exp.type === "bool") return act.type === "bool" && act.value === exp.value;
  if (exp.type === "str") return act.type === "str" && act.value === exp.value;
  return exp.type === "none" && act.type === "none";
}

/** Compare one value (the body of `_compare`, including its ValueError-to-Mismatch wrapper for bad tolerances). */
function compareAt(c: Check, exp: PyValue, act: PyValue, where: string): Mismatch | null {
  const mismatch = (kind: Mismatch["kind"], e: PyValue, a: PyValue, detail: string): Mismatch => ({
    key: c.key,
    kind,
    where,
    expected: pyShortRepr(e),
    actual: pyShortRepr(a),
    detail,
  });
  const fast = sameFast(exp, act, c);
  if (fast === BAD_TOLERANCE) return mismatch("type", exp, act, BAD_TOLERANCE_DETAIL);
  if (fast) return null;
  if ((exp.type === "list" || exp.type === "tuple") && act.type === exp.type && exp.items.length === act.items.length) {
    for (let i = 0; i < exp.items.length; i += 1) {
      const e = exp.items[i] as PyValue;
      const a = act.items[i] as PyValue;
      const same = sameFast(e, a, c);
      if (same === BAD_TOLERANCE) return mismatch("type", exp, act, BAD_TOLERANCE_DETAIL);
      const m = same ? null : compareAt(c, e, a, `${where}[${i}]`);
      if (m) return m;
    }
    return null;
  }
  if (exp.type === "raised" || act.type === "raised") {
    // (The recorded side without its message: the canonical solution's words are not the candidate's to match.)
    if (exp.type === "raised" && exp.message !== "") return compareAt(c, { ...exp, message: "" }, act, where);
    // (recode_check.outcome: a call that raised, compared by its exception's nearest built-in class.)
    if (exp.type !== "raised") return mismatch("raised", exp, act, `expected ${pyShortRepr(exp)}, got ${pyShortRepr(act)}`);
    if (act.type !== "raised" || act.exception !== exp.exception)
      return mismatch("raised", exp, act, `expected ${exp.exception} to be raised, got ${pyShortRepr(act)}`);
    return null;
  }
  if (act.type === "other" && act.typeName === pyTypeName(exp) && exp.type !== "other") {
    // encode_any gave up on the whole value: something inside it has an unsupported type (a str: it holds a
    // lone surrogate, whose escape would read as a character beyond the BMP).
    const why =
      exp.type === "str"
        ? "the str holds a lone surrogate code point, which is not sent"
        : `the ${act.typeName} holds a value of an unsupported type`;
    return mismatch("type", exp, act, `cannot compare: ${why}`);
  }
  switch (exp.type) {
    case "other":
      return mismatch("type", exp, act, `cannot compare with recorded ${exp.typeName}`);
    case "ndarray": {
      if (act.type !== "ndarray") return mismatch("type", str("ndarray"), act, `expected a numpy array, got ${pyTypeName(act)}`);
      if (!sameShape(exp.shape, act.shape)) {
        const [e, a] = [shapeValue(exp.shape), shapeValue(act.shape)];
        return mismatch("shape", e, a, `expected shape ${pyRepr(e)}, got ${pyRepr(a)}`);
      }
      if (act.dtype !== exp.dtype)
        return mismatch("dtype", str(exp.dtype), str(act.dtype), `expected dtype ${exp.dtype}, got ${act.dtype}`);
      return compareAt(c, exp.data, act.data, where);
    }
    case "npscalar": {
      // A numpy scalar must have the recorded dtype; a plain Python number, bool or str is compared by value.
      let a: PyValue = act;
      if (act.type === "npscalar") {
        if (act.dtype !== exp.dtype)
          return mismatch("dtype", str(exp.dtype), str(act.dtype), `expected dtype ${exp.dtype}, got ${act.dtype}`);
        a = act.value;
      } else if (!(isNumber(act) || act.type === "bool" || (act.type === "str" && exp.value.type === "str"))) {
        return mismatch("type", str(exp.dtype), act, `expected a numpy ${exp.dtype} scalar, got ${pyTypeName(act)}`);
      }
      return compareAt(c, exp.value, a, where);
    }
    case "bool":
    case "none":
    case "str":
      if (!sameScalar(exp, act)) return mismatch("value", exp, act, `expected ${pyShortRepr(exp)}, got ${pyShortRepr(act)}`);
      return null;
    case "int":
    case "float":
      return compareNumbers(c, exp, act, mismatch);
    case "list":
    case "tuple": {
      if (act.type !== exp.type) return mismatch("type", exp, act, `expected ${exp.type}, got ${pyTypeName(act)}`);
      const [n, m] = [exp.items.length, act.items.length];
      if (n !== m)
        return mismatch("length", { type: "int", value: BigInt(n) }, { type: "int", value: BigInt(m) }, `expected length ${n}, got ${m}`);
      return null; // same type and length: handled by the loop above
    }
    case "set":
      if (act.type !== "set" || !setEqual(exp.items, act.items, true)) {
        return mismatch("value", exp, act, `expected the set ${pyShortRepr(exp)}, got ${pyShortRepr(act)}`);
      }
      return null;
    case "dict":
      return compareDicts(c, exp, act, where, mismatch);
  }
}

type MakeMismatch = (kind: Mismatch["kind"], e: PyValue, a: PyValue, detail: string) => Mismatch;

function compareNumbers(c: Check, exp: PyValue & { type: "int" | "float" }, act: PyValue, mismatch: MakeMismatch): Mismatch | null {
  if (!isNumber(act)) return mismatch("type", exp, act, `expected a number, got ${pyTypeName(act)} ${pyShortRepr(act)}`);
  const [ie, ia] = [intValue(exp), intValue(act)];
  if (ie !== null && ia !== null) {
    if (ie === ia) return null;
    return mismatch("value", exp, act, `expected ${ie}, got ${ia} (off by ${ia - ie})`);
  }
  const e = toFloat(exp);
  const a = toFloat(act);
  if (exp.type === "int" && !Number.isFinite(e)) {
    return mismatch("value", exp, act, `expected an int of ${digitCount(exp.value)} digits (beyond float range), got ${pyFloatRepr(a)}`);
  }
  if (act.type === "int" && !Number.isFinite(a)) {
    return mismatch("value", exp, act, `expected a number within float range, got an int of ${digitCount(act.value)} digits`);
  }
  if (Number.isNaN(e) && Number.isNaN(a)) return null;
  let close = isClose(e, a, c);
  if (close === BAD_TOLERANCE) return mismatch("type", exp, act, BAD_TOLERANCE_DETAIL);
  const infinite = (x: number) => x === Number.POSITIVE_INFINITY || x === Number.NEGATIVE_INFINITY;
  let diff = infinite(e) || infinite(a) ? Number.POSITIVE_INFINITY : Math.abs(e - a);
  if (ie !== null) {
    // A recorded int against a float: matched exactly (an equal float), or within atol; rtol is for recorded
    // floats (a float within 1e-9 of a 64-bit hash is not that hash).
    const whole = Number.isFinite(a) && Number.isInteger(a);
    const d = whole ? (ie > BigInt(a) ? ie - BigInt(a) : BigInt(a) - ie) : null;
    if (d !== null) diff = Number(d);
    if (d !== null ? atMost(d, c.atol) : Number.isFinite(a) && Math.abs(Number(ie) - a) <= c.atol) return null;
    const why = `abs diff ${pyFormatG(diff, 3)}; an int is matched exactly, or within atol ${pyFormatG(c.atol)}`;
    return mismatch("value", exp, act, `expected the int ${pyRepr(exp)}, got ${pyFloatRepr(a)} (${why})`);
  }
  const inexact = (n: bigint | null): n is bigint => n !== null && BigInt(Number(n)) !== n;
  if (inexact(ia) && Number.isInteger(e)) {
    // An int that no float holds (beyond 2**53) against a whole float: float(ia) rounded it, so the
    // difference is taken exactly, and the tolerance applies to it.
    const d = ia > BigInt(e) ? ia - BigInt(e) : BigInt(e) - ia;
    close = atMost(d, c.atol) || atMost(d, Math.abs(c.rtol * e)) || atMost(d, Math.abs(c.rtol * Number(ia)));
    diff = Number(d);
  }
  if (close) return null;
  const got = inexact(ia) ? String(ia) : pyFloatRepr(a);
  const tol = `rtol ${pyFormatG(c.rtol)}, atol ${pyFormatG(c.atol)}`;
  return mismatch("value", exp, act, `expected ${pyRepr(exp)}, got ${got} (abs diff ${pyFormatG(diff, 3)}; ${tol})`);
}

function compareDicts(c: Check, exp: PyValue & { type: "dict" }, act: PyValue, where: string, mismatch: MakeMismatch): Mismatch | null {
  if (act.type !== "dict") return mismatch("type", exp, act, `expected dict, got ${pyTypeName(act)}`);
  const entries = pyDictEntries(exp.entries);
  const inAct = new PyLookup(act.entries, false);
  const inExp = new PyLookup(entries, true);
  const missing = entries.filter(([k]) => inAct.get(k) === undefined).map(([k]) => k);
  const extra = act.entries.filter(([k]) => inExp.get(k) === undefined).map(([k]) => k);
  if (missing.length > 0 || extra.length > 0) {
    const reprs = (keys: readonly PyValue[]): PyValue => ({ type: "list", items: keys.map(pyRepr).sort(byCodePoint).map(str) });
    const list = (keys: PyValue[]) => pyRepr({ type: "list", items: keys });
    return mismatch(
      "keys",
      reprs(entries.map(([k]) => k)),
      reprs(act.entries.map(([k]) => k)),
      // (Each said when there is one: "unexpected keys []" said nothing.)
      [missing.length > 0 ? `missing keys ${list(missing)}` : "", extra.length > 0 ? `unexpected keys ${list(extra)}` : ""]
        .filter(Boolean)
        .join(", "),
    );
  }
  // Every key is in both: more entries sent than recorded means a key repeats, which no dict holds (keys of a
  // subclass that hashes apart from the value it encodes as).
  if (act.entries.length !== entries.length) {
    return mismatch("keys", exp, act, `${act.entries.length} entries sent for ${entries.length} keys: a key repeats`);
  }
  for (const [k, v] of entries) {
    const m = compareAt(c, v, inAct.get(k) as PyValue, `${where}[${pyRepr(k)}]`);
    if (m) return m;
  }
  return null;
}

/**
 * Compare a candidate's value with the recorded one, exactly as
 * `recode_check._compare` does: ints (and numpy integer scalars) exactly,
 * floats (and int against float) with `math.isclose(rel_tol=rtol,
 * abs_tol=atol)`, taking the difference exactly for an int beyond 2**53 that
 * no float holds, nan equal to nan, bool not
 * a number, list and tuple distinct, sets and dict keys by Python equality,
 * arrays by shape, dtype, then element by element, numpy scalars by dtype
 * then value. `rtol` and `atol` are the relative and absolute tolerances
 * (non-negative; a negative one gives a `cannot compare` mismatch, as
 * Python's ValueError does).
 *
 * Returns null when the values agree, else the first difference in Python's
 * order: its `kind`, `where` (element path such as `[2][0]` or `['a']`),
 * short reprs (200 characters) and `detail` text, identical to
 * `Mismatch.info` on the Python side. Never throws: values nested too deeply
 * for the stack give a `cannot compare` mismatch.
 */
export function compareValues(key: string, expected: PyValue, actual: PyValue, rtol: number, atol: number): Mismatch | null {
  try {
    return compareAt({ key, rtol, atol }, expected, actual, "");
  } catch (e) {
    const short = (v: PyValue): string => {
      try {
        return pyShortRepr(v);
      } catch {
        return `<${pyTypeName(v)}>`;
      }
    };
    const why = e instanceof RangeError ? "values nested too deeply" : String(e);
    return { key, kind: "type", where: "", expected: short(expected), actual: short(actual), detail: `cannot compare: ${why}` };
  }
}
