/**
 * Float-to-text conversions exactly as CPython and numpy print them: `repr`
 * of a float, `format(x, ".3g")`, and the shortest digits of a float32 or
 * float16. Everything works on exact decimal digits (BigInt), so rounding is
 * the correctly rounded, round-half-even rounding CPython and numpy use
 * (`toPrecision` rounds ties up and cannot be used).
 */

/**
 * A non-negative decimal number `0.DIGITS × 10^point` (Python's `decpt`
 * convention): `digits` has no leading or trailing zeros; `""` is zero.
 * Example: 0.05 is `{ digits: "5", point: -1 }`, 120 is `{ digits: "12", point: 3 }`.
 */
export interface Decimal {
  digits: string;
  point: number;
}

/** Floating-point widths numpy prints: float64, float32, float16. */
export type FloatBits = 64 | 32 | 16;

/** Width in bits of a numpy float dtype name (`float32` gives 32), or null for other dtypes. */
export function floatBits(dtype: string): FloatBits | null {
  if (dtype === "float64") return 64;
  if (dtype === "float32") return 32;
  if (dtype === "float16") return 16;
  return null;
}

function trimZeros(digits: string, point: number): Decimal {
  let start = 0;
  while (start < digits.length && digits[start] === "0") start += 1;
  let end = digits.length;
  while (end > start && digits[end - 1] === "0") end -= 1;
  const kept = digits.slice(start, end);
  return { digits: kept, point: kept === "" ? 0 : point - start };
}

/** Exact decimal value of `|x|` for a finite `x` (every double is a finite decimal). */
export function exactDecimal(x: number): Decimal {
  if (x === 0) return { digits: "", point: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  let exp2 = -1074;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    exp2 = biased - 1075;
  }
  // |x| = mantissa × 2^exp2 = n × 10^shift
  const n = exp2 >= 0 ? mantissa << BigInt(exp2) : mantissa * 5n ** BigInt(-exp2);
  const text = n.toString();
  return trimZeros(text, text.length + Math.min(exp2, 0));
}

/**
 * `d` rounded half-even to `keep` significant digits (`keep` may be zero or
 * negative: rounding then happens left of the first digit).
 */
export function roundDecimal(d: Decimal, keep: number): Decimal {
  if (d.digits.length <= keep) return d;
  if (keep < 0) return { digits: "", point: 0 };
  const head = d.digits.slice(0, keep);
  const next = d.digits[keep] ?? "0";
  const tail = d.digits.length > keep + 1;
  const lastOdd = keep > 0 && Number(head[keep - 1]) % 2 === 1;
  const up = next > "5" || (next === "5" && (tail || lastOdd));
  if (!up) return trimZeros(head, d.point);
  let i = head.length - 1;
  while (i >= 0 && head[i] === "9") i -= 1;
  if (i < 0) return { digits: "1", point: d.point + 1 };
  return trimZeros(head.slice(0, i) + String(Number(head[i]) + 1), d.point);
}

/** `x` rounded to a float16 (round half even), as numpy stores it. */
export function toFloat16(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= 65520) return Math.sign(x) * Number.POSITIVE_INFINITY;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  if (2 ** (e + 1) <= a) e += 1;
  const ulp = 2 ** (Math.max(e, -14) - 10);
  const q = a / ulp;
  let r = Math.round(q);
  if (r - q === 0.5 && r % 2 !== 0) r -= 1;
  return Math.sign(x) * r * ulp;
}

function roundTo(bits: FloatBits, x: number): number {
  if (bits === 32) return Math.fround(x);
  if (bits === 16) return toFloat16(x);
  return x;
}

/** Digits of JavaScript's shortest round-trip text of a positive double (`String(x)`). */
function jsDigits(x: number): Decimal {
  const [mant = "", exp = "0"] = String(x).split("e");
  const dot = mant.indexOf(".");
  const int = dot < 0 ? mant : mant.slice(0, dot);
  const frac = dot < 0 ? "" : mant.slice(dot + 1);
  return trimZeros(int + frac, int.length + Number(exp));
}

/**
 * Shortest digits that read back (round to nearest) as `|x|` in the given
 * width, the closest to `|x|` among those: CPython's `repr` (float64) and
 * numpy's unique Dragon4 digits (float32, float16). `x` finite; its value
 * must be representable in that width (e.g. a float32 item of numpy).
 */
export function shortestDecimal(x: number, bits: FloatBits = 64): Decimal {
  const a = Math.abs(x);
  if (a === 0) return { digits: "", point: 0 };
  if (bits === 64) return jsDigits(a);
  const exact = exactDecimal(a);
  for (let n = 1; n < 17; n += 1) {
    // The nearest n-digit decimal (ties to even, like Dragon4), else the next one on either side.
    const near = roundDecimal(exact, n);
    const width = near.point - n;
    const m = BigInt(near.digits.padEnd(n, "0"));
    for (const c of [m, m - 1n, m + 1n]) {
      if (c > 0n && roundTo(bits, Number(`${c}e${width}`)) === a) {
        const text = c.toString();
        return trimZeros(text, text.length + width);
      }
    }
  }
  return jsDigits(a);
}

/** Digits placed around a decimal point, e.g. `12.5`, `0.05`, `120` (no exponent). */
export function positional(d: Decimal): { int: string; frac: string } {
  if (d.digits === "") return { int: "0", frac: "" };
  if (d.point <= 0) return { int: "0", frac: "0".repeat(-d.point) + d.digits };
  if (d.point >= d.digits.length) return { int: d.digits + "0".repeat(d.point - d.digits.length), frac: "" };
  return { int: d.digits.slice(0, d.point), frac: d.digits.slice(d.point) };
}

/** Exponent as C's printf writes it: sign and at least `width` digits, e.g. `-05`, `+16`, `+308`. */
export function exponentText(exp: number, width = 2): string {
  return (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(width, "0");
}

/** `d` in scientific form with all its digits, e.g. `1e+16`, `1.5e-07` (`0e+00` for zero). */
function scientific(d: Decimal): string {
  const digits = d.digits || "0";
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${mant}e${exponentText(d.digits === "" ? 0 : d.point - 1)}`;
}

/**
 * A float's text as CPython's `repr` (and numpy's scalar repr) writes it,
 * from its shortest digits: positional (`0.0001`, `1.0`, `1234.5`) when
 * `sci` is false, else scientific (`1e-05`, `1.5e+16`).
 */
export function reprDigits(negative: boolean, d: Decimal, sci: boolean): string {
  const sign = negative ? "-" : "";
  if (sci) return sign + scientific(d);
  const { int, frac } = positional(d);
  return `${sign}${int}.${frac || "0"}`;
}

/** Where numpy's scalar repr switches to scientific notation, by width (float64 as CPython). */
const NP_SCALAR_SCI: Record<FloatBits, number> = { 64: 1e16, 32: 1e6, 16: 1e3 };

/**
 * CPython's `repr(x)` of a float: `0.1`, `1e-07`, `1e+16`, `-0.0`, `nan`,
 * `inf`, `-inf` (scientific when the decimal exponent is below -4 or at
 * least 16). With `bits` 32 or 16, the digits are the shortest that identify
 * `x` as a float32 or float16 (numpy's scalar repr inside `np.float32(...)`).
 */
export function pyFloatRepr(x: number, bits: FloatBits = 64): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const negative = x < 0 || Object.is(x, -0);
  const d = shortestDecimal(x, bits);
  if (bits !== 64) {
    // numpy decides on the value, with a cutoff by width; CPython on the digits.
    const a = Math.abs(x);
    return reprDigits(negative, d, !(a === 0 || (a >= 1e-4 && a < NP_SCALAR_SCI[bits])));
  }
  return reprDigits(negative, d, d.digits !== "" && (d.point <= -4 || d.point > 16));
}

/**
 * CPython's `format(x, f".{precision}g")` (and `%.{precision}g`), e.g.
 * `pyFormatG(0.05000001, 3)` is `0.05`, `pyFormatG(1e-9)` is `1e-09`,
 * `pyFormatG(123456789, 3)` is `1.23e+08`, `pyFormatG(0)` is `0`, and
 * non-finite values give `nan`, `inf`, `-inf`. `precision` defaults to 6
 * (`format(x, "g")`); 0 counts as 1.
 */
export function pyFormatG(x: number, precision = 6): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const p = Math.max(1, Math.trunc(precision));
  const d = roundDecimal(exactDecimal(x), p);
  const exp = d.digits === "" ? 0 : d.point - 1;
  if (exp < -4 || exp >= p) return sign + scientific(d);
  const { int, frac } = positional(d);
  return sign + int + (frac ? `.${frac}` : "");
}
