/**
 * Python's `==` between hashable values, as dict lookups and set comparisons
 * in `recode_check._compare` use it, with a hash-like key so lookups in big
 * dicts and sets stay linear.
 */
import type { PyValue } from "./values";

/**
 * Python `==` between a decoded recorded value `e` and an actual value `a`:
 * numbers by exact value (1 == 1.0 == True), nan never equal, tuples item by
 * item, sets as sets. A recorded numpy scalar decodes to a plain object with
 * identity equality, so it never equals anything; an actual numpy scalar
 * compares by its value. With `real` false both sides are decoded values.
 */
export function pyEq(e: PyValue, a: PyValue, real: boolean): boolean {
  if (e.type === "npscalar") return false;
  if (a.type === "npscalar") return real && pyEq(e, a.value, real);
  const num = (v: PyValue): bigint | number | null =>
    v.type === "int" ? v.value : v.type === "bool" ? (v.value ? 1n : 0n) : v.type === "float" ? v.value : null;
  const x = num(e);
  const y = num(a);
  if (x !== null && y !== null) {
    if (typeof x === typeof y) return x === y;
    const f = (typeof x === "number" ? x : y) as number;
    const i = (typeof x === "bigint" ? x : y) as bigint;
    return Number.isInteger(f) && BigInt(f) === i;
  }
  if (e.type === "str" && a.type === "str") return e.value === a.value;
  if (e.type === "none" && a.type === "none") return true;
  if ((e.type === "tuple" || e.type === "list") && a.type === "tuple") {
    return e.items.length === a.items.length && e.items.every((item, i) => pyEq(item, a.items[i] as PyValue, real));
  }
  if (e.type === "set" && a.type === "set") return setEqual(e.items, a.items, real);
  return false;
}

/**
 * A key such that two values are `==` exactly when their keys are equal
 * (`byValue`: a numpy scalar counts by its value, as an actual one does).
 * null: equal to nothing (nan, a recorded numpy scalar, unhashable values);
 * undefined: no key, compare with {@link pyEq} (sets, lists).
 */
function keyOf(v: PyValue, byValue: boolean): string | null | undefined {
  switch (v.type) {
    case "npscalar":
      return byValue ? keyOf(v.value, byValue) : null;
    case "int":
      return `n${v.value}`;
    case "bool":
      return v.value ? "n1" : "n0";
    case "float":
      if (Number.isNaN(v.value)) return null;
      return Number.isInteger(v.value) ? `n${BigInt(v.value)}` : `f${v.value}`;
    case "str":
      return `s${v.value}`;
    case "none":
      return "N";
    case "tuple": {
      const keys = v.items.map((item) => keyOf(item, byValue));
      if (keys.includes(null)) return null;
      if (keys.includes(undefined)) return undefined;
      // Each item's key after its length: unambiguous, and linear in the depth (an escaping encoding such as
      // JSON doubles at each level of nesting).
      return `t${(keys as string[]).map((k) => `${k.length}:${k}`).join("")}`;
    }
    case "list":
    case "set":
      return undefined;
    default:
      return null;
  }
}

/** Items found by Python equality: by key when they have one, else by scanning. */
export class PyLookup<T> {
  private readonly byKey = new Map<string, T>();
  private readonly rest: [PyValue, T][] = [];

  /** `items`: recorded values (`recorded` true) or actual ones; the first of equal items wins. */
  constructor(
    items: Iterable<readonly [PyValue, T]>,
    private readonly recorded: boolean,
  ) {
    for (const [v, item] of items) {
      const key = keyOf(v, !recorded);
      if (key === undefined) this.rest.push([v, item]);
      else if (key !== null && !this.byKey.has(key)) this.byKey.set(key, item);
    }
  }

  /** The item equal to `probe` (an actual value when the items are recorded ones, and the other way round), or undefined. */
  get(probe: PyValue): T | undefined {
    const key = keyOf(probe, this.recorded);
    if (key === null) return undefined;
    if (key !== undefined) return this.byKey.get(key);
    const found = this.rest.find(([v]) => (this.recorded ? pyEq(v, probe, true) : pyEq(probe, v, true)));
    return found?.[1];
  }
}

/**
 * Python's `set(act) == exp` for a recorded set's items and an actual set's (`real` false: both decoded).
 * The actual items are a set's: two equal ones (which no set holds, but a sent list can) are a mismatch.
 */
export function setEqual(exp: readonly PyValue[], act: readonly PyValue[], real: boolean): boolean {
  // set() of the decoded items: equal items collapse (nan and recorded numpy scalars never do).
  const keys = new Set<string>();
  let distinct = 0;
  for (const x of exp) {
    const key = keyOf(x, false);
    if (key === undefined) return slowSetEqual(exp, act, real);
    if (key === null || !keys.has(key)) distinct += 1;
    if (key !== null) keys.add(key);
  }
  if (distinct !== act.length) return false;
  const seen = new Set<string>();
  for (const a of act) {
    const key = keyOf(a, real);
    if (key === undefined) return slowSetEqual(exp, act, real);
    if (key === null || !keys.has(key) || seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

function slowSetEqual(exp: readonly PyValue[], act: readonly PyValue[], real: boolean): boolean {
  const e: PyValue[] = [];
  for (const x of exp) if (!e.some((o) => pyEq(o, x, false))) e.push(x);
  if (e.length !== act.length || act.some((a, i) => act.some((b, j) => j < i && pyEq(b, a, real)))) return false;
  return act.every((a) => e.some((x) => pyEq(x, a, real)));
}

/**
 * The entries of the dict `decode()` builds from recorded `$dict` pairs:
 * list keys become tuples; a repeated key keeps its first place and takes
 * the last value.
 */
export function pyDictEntries(pairs: readonly (readonly [PyValue, PyValue])[]): [PyValue, PyValue][] {
  const out: [PyValue, PyValue][] = [];
  const index = new Map<string, number>();
  for (const [key, v] of pairs) {
    const k: PyValue = key.type === "list" ? { type: "tuple", items: key.items } : key;
    const sig = keyOf(k, false);
    let i: number | undefined;
    if (typeof sig === "string") i = index.get(sig);
    else if (sig === undefined) i = out.findIndex(([k2]) => pyEq(k2, k, false));
    const old = i === undefined ? undefined : out[i];
    if (old) old[1] = v;
    else {
      if (typeof sig === "string") index.set(sig, out.length);
      out.push([k, v]);
    }
  }
  return out;
}
