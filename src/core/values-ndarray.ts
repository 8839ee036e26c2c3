/**
 * Numpy 2's `repr` of an array (default print options: precision 8,
 * threshold 1000, edgeitems 3, linewidth 75), rebuilt from an encoded
 * array's dtype, shape and `tolist()` data. Follows `numpy/_core/arrayprint.py`:
 * FloatingFormat (positional or scientific, Dragon4 digits), IntegerFormat,
 * BoolFormat, line wrapping and summarisation.
 */
import type { PyValue } from "./values";
import {
  type Decimal,
  exactDecimal,
  exponentText,
  type FloatBits,
  floatBits,
  positional,
  roundDecimal,
  shortestDecimal,
  toFloat16,
} from "./values-number";

const THRESHOLD = 1000;
const EDGE = 3;
const LINE_WIDTH = 75;
const PREFIX = "array(";
/** Dtypes the repr leaves implied (`_typelessdata`). */
const IMPLIED = new Set(["int64", "float64", "complex128", "bool"]);
/** `np.finfo(dtype).precision` by width. */
const FINFO_PRECISION: Record<FloatBits, number> = { 64: 15, 32: 6, 16: 3 };

type Format = (v: PyValue) => string;

/** The data does not have the shape it claims. */
class ShapeError extends Error {}

function cpLength(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

function at(data: PyValue, index: readonly number[]): PyValue {
  let v = data;
  for (const i of index) {
    if (v.type !== "list") throw new ShapeError("not a list");
    const item = v.items[i < 0 ? v.items.length + i : i];
    if (item === undefined) throw new ShapeError("index out of range");
    v = item;
  }
  return v;
}

/** The elements the formatter sees: all of them, or the corners when summarising. */
function elements(data: PyValue, shape: readonly number[], summarise: boolean): PyValue[] {
  const out: PyValue[] = [];
  const visit = (v: PyValue, axis: number): void => {
    if (axis === shape.length) {
      out.push(v);
      return;
    }
    if (v.type !== "list") throw new ShapeError("not a list");
    const n = v.items.length;
    const keep = (i: number) => !summarise || n <= 2 * EDGE || i < EDGE || i >= n - EDGE;
    v.items.forEach((item, i) => {
      if (keep(i)) visit(item, axis + 1);
    });
  };
  visit(data, 0);
  return out;
}

function asNumber(v: PyValue): number {
  if (v.type === "float") return v.value;
  if (v.type === "int") return Number(v.value);
  if (v.type === "bool") return v.value ? 1 : 0;
  throw new ShapeError("not a number");
}

function roundTo(bits: FloatBits, x: number): number {
  return bits === 32 ? Math.fround(x) : bits === 16 ? toFloat16(x) : x;
}

function negative(x: number): boolean {
  return x < 0 || Object.is(x, -0);
}

/** Dragon4 digits with a cutoff: the shortest unique digits, or the exact value rounded half-even at the cutoff. */
function digitsWithin(x: number, bits: FloatBits, sci: boolean, precision: number): Decimal {
  const d = shortestDecimal(x, bits);
  const keep = sci ? precision + 1 : d.point + precision;
  return d.digits.length <= keep ? d : roundDecimal(exactDecimal(x), keep);
}

/** `FloatingFormat` with floatmode `maxprec`, precision 8, sign `-`. */
function floatFormat(values: readonly number[], bits: FloatBits): Format {
  const finite = values.filter(Number.isFinite);
  const nonZero = finite.filter((x) => x !== 0).map(Math.abs);
  let sci = false;
  if (nonZero.length > 0) {
    let max = nonZero[0] ?? 0;
    let min = max;
    for (const x of nonZero) {
      max = Math.max(max, x);
      min = Math.min(min, x);
    }
    const cutoff = roundTo(bits, 10 ** Math.min(8, FINFO_PRECISION[bits]));
    sci = max >= cutoff || min < roundTo(bits, 1e-4) || roundTo(bits, max / min) > 1000;
  }
  const parts = finite.map((x) => {
    const d = digitsWithin(x, bits, sci, 8);
    const sign = negative(x) ? "-" : "";
    if (sci) return { int: sign + (d.digits[0] ?? "0"), frac: d.digits.slice(1), exp: exponentText(d.digits ? d.point - 1 : 0) };
    const p = positional(d);
    return { int: sign + p.int, frac: p.frac, exp: "" };
  });
  let padLeft = 0;
  let precision = 0;
  let expSize = 0;
  for (const p of parts) {
    padLeft = Math.max(padLeft, p.int.length);
    precision = Math.max(precision, p.frac.length);
    expSize = Math.max(expSize, p.exp.length - 1);
  }
  const padRight = sci ? expSize + 2 + precision : precision;
  if (finite.length !== values.length) {
    const negInf = values.some((x) => x === Number.NEGATIVE_INFINITY) ? 1 : 0;
    padLeft = Math.max(padLeft, 3 - (padRight + 1), 3 + negInf - (padRight + 1));
  }
  return (v) => {
    const x = asNumber(v);
    if (!Number.isFinite(x)) {
      const text = Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
      return text.padStart(padLeft + padRight + 1);
    }
    const sign = negative(x) ? "-" : "";
    if (sci) {
      // min_digits = precision: digits past the unique ones continue the exact value.
      const d = roundDecimal(exactDecimal(x), precision + 1);
      const exp = exponentText(d.digits ? d.point - 1 : 0, expSize);
      return `${(sign + (d.digits[0] ?? "0")).padStart(padLeft)}.${d.digits.slice(1).padEnd(precision, "0")}e${exp}`;
    }
    const p = positional(digitsWithin(x, bits, false, 8));
    return `${(sign + p.int).padStart(padLeft)}.${p.frac.padEnd(padRight)}`;
  };
}

function intFormat(values: readonly PyValue[]): Format {
  let width = 0;
  for (const v of values) width = Math.max(width, v.type === "int" ? v.value.toString().length : 0);
  return (v) => {
    if (v.type !== "int") throw new ShapeError("not an int");
    return v.value.toString().padStart(width);
  };
}

function formatFor(dtype: string, values: readonly PyValue[], ndim: number, repr: Format): Format {
  if (dtype === "bool") {
    const t = ndim > 0 ? " True" : "True";
    return (v) => (v.type === "bool" ? (v.value ? t : "False") : repr(v));
  }
  if (/^u?int\d+$/.test(dtype)) return intFormat(values);
  const bits = floatBits(dtype) ?? (dtype === "float128" ? 64 : null);
  dtype === "float64" || dtype === "float128" ? 64 : dtype === "float32" ? 32 : dtype === "float16" ? 16 : null;
  if (bits !== null) return floatFormat(values.map(asNumber), bits);
  if (dtype === "object") return (v) => (v.type === "list" ? `list(${repr(v)})` : repr(v));
  return repr;
}

function extendLine(s: string, line: string, word: string, width: number, nextPrefix: string): [string, string] {
  const wrap = cpLength(line) + cpLength(word) > width && cpLength(line) > nextPrefix.length;
  if (wrap) return [`${s + line.trimEnd()}\n`, nextPrefix + word];
  return [s, line + word];
}

/** `_formatArray` for the default separator `, ` and the repr's line width (75 minus the closing parenthesis). */
function formatArray(data: PyValue, shape: readonly number[], format: Format, summarise: boolean): string {
  const recurse = (index: number[], hanging: string, width: number): string => {
    const axis = index.length;
    const left = shape.length - axis;
    if (left === 0) return format(at(data, index));
    const nextHanging = `${hanging} `;
    const nextWidth = width - 1;
    const len = shape[axis] ?? 0;
    const summary = summarise && 2 * EDGE < len;
    const leading = summary ? EDGE : 0;
    const trailing = summary ? EDGE : len;
    let s = "";
    if (left === 1) {
      const elemWidth = width - 1;
      let line = hanging;
      for (let i = 0; i < leading; i += 1) {
        [s, line] = extendLine(s, line, recurse([...index, i], nextHanging, nextWidth), elemWidth, hanging);
        line += ", ";
      }
      if (summary) {
        [s, line] = extendLine(s, line, "...", elemWidth, hanging);
        line += ", ";
      }
      for (let i = trailing; i > 1; i -= 1) {
        [s, line] = extendLine(s, line, recurse([...index, -i], nextHanging, nextWidth), elemWidth, hanging);
        line += ", ";
      }
      [s, line] = extendLine(s, line, recurse([...index, -1], nextHanging, nextWidth), elemWidth, hanging);
      s += line;
    } else {
      const sep = `,${"\n".repeat(left - 1)}`;
      for (let i = 0; i < leading; i += 1) s += hanging + recurse([...index, i], nextHanging, nextWidth) + sep;
      if (summary) s += `${hanging}...${sep}`;
      for (let i = trailing; i > 1; i -= 1) s += hanging + recurse([...index, -i], nextHanging, nextWidth) + sep;
      s += hanging + recurse([...index, -1], nextHanging, nextWidth);
    }
    return `[${s.slice(hanging.length)}]`;
  };
  return recurse([], " ".repeat(PREFIX.length + 1), LINE_WIDTH - 1);
}

function shapeRepr(shape: readonly number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
}

function dtypeRepr(dtype: string): string {
  return /^[A-Za-z][A-Za-z0-9]*$/.test(dtype) ? dtype : `'${dtype}'`;
}

/**
 * Numpy's `repr` of the array with this dtype (`str(a.dtype)`), shape and
 * `a.tolist()` data, e.g. `array([1. , 2.5])`, `array([], shape=(0, 3), dtype=float64)`,
 * `array([0, 1, 2, ..., 1997, 1998, 1999], shape=(2000,))`. `repr` writes
 * elements of str and object arrays. Data that does not fit the shape gives
 * `array(<data repr>, dtype=...)` instead of throwing.
 */
export function ndarrayRepr(dtype: string, shape: readonly number[], data: PyValue, repr: Format): string {
  const size = shape.reduce((a, b) => a * b, 1);
  const summarise = size > THRESHOLD;
  let body: string;
  try {
    body = size === 0 ? "[]" : formatArray(data, shape, formatFor(dtype, elements(data, shape, summarise), shape.length, repr), summarise);
  } catch (e) {
    if (!(e instanceof ShapeError)) throw e;
    return `${PREFIX}${repr(data)}, dtype=${dtypeRepr(dtype)})`;
  }
  const extras: string[] = [];
  if ((size === 0 && !(shape.length === 1 && shape[0] === 0)) || summarise) extras.push(`shape=${shapeRepr(shape)}`);
  if (!IMPLIED.has(dtype) || size === 0) extras.push(`dtype=${dtypeRepr(dtype)}`);
  if (extras.length === 0) return `${PREFIX}${body})`;
  const head = `${PREFIX}${body},`;
  const tail = `${extras.join(", ")})`;
  const lastLine = cpLength(head.slice(head.lastIndexOf("\n") + 1));
  const spacer = lastLine + cpLength(tail) + 1 > LINE_WIDTH ? `\n${" ".repeat(PREFIX.length)}` : " ";
  return head + spacer + tail;
}
