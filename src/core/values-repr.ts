/**
 * Python's `repr` of decoded values ({@link PyValue}), character for
 * character as CPython 3.11 with numpy 2 writes it, so mismatch messages made
 * on the host read exactly like the ones `recode_check.py` makes.
 */
import type { PyValue } from "./values";
import { ndarrayRepr } from "./values-ndarray";
import { floatBits, pyFloatRepr } from "./values-number";

/** Characters `str.isprintable()` rejects: other (Cc, Cf, Cs, Co, Cn) and separators (Zs, Zl, Zp). */
const NOT_PRINTABLE = /^[\p{C}\p{Z}]$/u;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, "0");
}

/**
 * Python's `repr` of a str: single quotes unless the text has a single quote
 * and no double quote; `\\`, the quote, `\t`, `\n`, `\r` escaped; other
 * control and non-printable characters as `\xhh`, `\uhhhh` or `\Uhhhhhhhh`;
 * printable non-ASCII kept. Example: `it's` gives `"it's"`.
 */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code < 0x7f || !NOT_PRINTABLE.test(ch)) out += ch;
    else if (code <= 0xff) out += `\\x${hex(code, 2)}`;
    else if (code <= 0xffff) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return out + quote;
}

/** Whether a numpy dtype name is a number type (`np.issubdtype(dtype, np.number)`): ints, uints, floats, complex. */
export function isNumericDtype(dtype: string): boolean {
  return /^(u?int\d+|float\d+|complex\d+)$/.test(dtype);
}

/** Whether a numpy dtype name is a str dtype (`<U3`). */
export function isStrDtype(dtype: string): boolean {
  return /^[<>=|]?U\d+$/.test(dtype);
}

/**
 * Text written inside the interpreter under test (an exception's message, an object's repr) as one line of a
 * message: a newline, return or tab as its escape (`\\n`), any other control, format or separator character,
 * or a lone surrogate, as `?`. A message built from it then holds no line code under test wrote (a traceback's
 * frame line, a test's "passed").
 */
export function oneLine(text: string): string {
  return text
    .replace(/[\n\r\t]/g, (c) => (c === "\n" ? "\\n" : c === "\r" ? "\\r" : "\\t"))
    .replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, "?");
}

/**
 * Python's `type(v).__name__` of the object the value was encoded from:
 * `int`, `float`, `bool`, `NoneType`, `str`, `list`, `tuple`, `set`, `dict`,
 * `ndarray`, and numpy scalar classes by dtype (`float64`, `int64`, `bool`,
 * `str_`, `longdouble` for `float128`).
 */
export function pyTypeName(v: PyValue): string {
  switch (v.type) {
    case "none":
      return "NoneType";
    case "ndarray":
      return "ndarray";
    case "other":
      return oneLine(v.typeName);
    case "raised":
      return oneLine(v.exception);
    case "npscalar":
      if (isStrDtype(v.dtype)) return "str_";
      if (v.dtype === "float128") return "longdouble";
      if (v.dtype === "complex256") return "clongdouble";
      if (/^[<>=|]?S\d+$/.test(v.dtype)) return "bytes_";
      return v.dtype;
    default:
      return v.type;
  }
}

/** Numpy 2's repr of a scalar: `np.float64(0.5)`, `np.float32(0.1)`, `np.int64(3)`, `np.True_`, `np.str_('a')`. */
function npScalarRepr(dtype: string, value: PyValue, out: ReprOut): void {
  const bits = floatBits(dtype);
  if (dtype === "bool" && value.type === "bool") out.add(value.value ? "np.True_" : "np.False_");
  else if (bits !== null && value.type === "float") out.add(`np.${dtype}(${pyFloatRepr(value.value, bits)})`);
  else if (isStrDtype(dtype) && value.type === "str") out.add(`np.str_(${pyStrRepr(value.value)})`);
  else if (dtype === "float128") {
    out.add("np.longdouble(");
    out.add(pyStrRepr(value.type === "float" ? value.text : ""));
    out.add(")");
  } else {
    out.add(`np.${dtype}(`);
    write(value, out);
    out.add(")");
  }
}

/** Text collected up to a budget (UTF-16 units); past it, writing stops early. */
class ReprOut {
  parts: string[] = [];
  length = 0;
  constructor(readonly budget: number) {}
  get full(): boolean {
    return this.length > this.budget;
  }
  add(s: string): void {
    if (this.full) return;
    this.parts.push(s);
    this.length += s.length;
  }
}

function writeItems(items: readonly PyValue[], out: ReprOut): void {
  items.forEach((item, i) => {
    if (out.full) return;
    if (i > 0) out.add(", ");
    write(item, out);
  });
}

/** The repr of a scalar (not a container), or null. */
function scalarRepr(v: PyValue): string | null {
  switch (v.type) {
    case "int":
      return v.value.toString();
    case "float":
      return v.text;
    case "bool":
      return v.value ? "True" : "False";
    case "none":
      return "None";
    case "str":
      return pyStrRepr(v.value);
    case "ndarray":
      return ndarrayRepr(v.dtype, v.shape, v.data, pyRepr);
    case "other":
      return oneLine(v.repr);
    case "raised":
      return `${oneLine(v.exception)} raised${v.message ? `: ${oneLine(v.message)}` : ""}${v.at ? ` (${v.at})` : ""}`;
    default:
      return null;
  }
}

function write(v: PyValue, out: ReprOut): void {
  if (out.full) return;
  const scalar = scalarRepr(v);
  if (scalar !== null) out.add(scalar);
  else if (v.type === "list") {
    out.add("[");
    writeItems(v.items, out);
    out.add("]");
  } else if (v.type === "tuple") {
    out.add("(");
    writeItems(v.items, out);
    out.add(v.items.length === 1 ? ",)" : ")");
  } else if (v.type === "set") {
    out.add(v.items.length === 0 ? "set()" : "{");
    writeItems(v.items, out);
    if (v.items.length > 0) out.add("}");
  } else if (v.type === "dict") {
    out.add("{");
    v.entries.forEach(([k, val], i) => {
      if (out.full) return;
      if (i > 0) out.add(", ");
      write(k, out);
      out.add(": ");
      write(val, out);
    });
    out.add("}");
  } else if (v.type === "npscalar") npScalarRepr(v.dtype, v.value, out);
}

/**
 * Python's `repr(v)` of the object `v` was encoded from, e.g. `[1, 2.5]`,
 * `(1,)`, `{'a': None}`, `set()`, `np.float32(0.1)`, `array([1. , 2.5])`.
 * Sets print in their encoded order (sorted by repr), where CPython prints
 * them in hash order. Throws only RangeError, for values nested deeper than
 * the JavaScript stack.
 */
export function pyRepr(v: PyValue): string {
  const out = new ReprOut(Number.POSITIVE_INFINITY);
  write(v, out);
  return out.parts.join("");
}

/**
 * `recode_check._short`: the repr cut to `limit` characters (code points),
 * the last three replaced by `...` when cut. Stops writing once past the
 * limit, so huge values cost little.
 */
export function pyShortRepr(v: PyValue, limit = 200): string {
  const out = new ReprOut(2 * limit + 8);
  write(v, out);
  const chars = Array.from(out.parts.join(""));
  return chars.length <= limit ? chars.join("") : `${chars.slice(0, limit - 3).join("")}...`;
}
