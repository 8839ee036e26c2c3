/**
 * The `outcome()` calls a check event names (`recode_check.check` sends their texts beside the value): which
 * call an item that differs came from, which other items of a list of calls differ too, and where a call
 * raised. The texts and places are written inside the interpreter under test: they name calls in messages and
 * decide nothing.
 */
import type { PyValue } from "../core/values";
import { compareValues } from "../core/values";

/**
 * The longest `calls` text read (characters): the check helper writes at most 50,000 characters of texts
 * (`recode_check._LABELS_CHARS`), which their JSON quotes and escapes can lengthen.
 */
export const CALLS_TEXT_LIMIT = 120_000;

/**
 * A check event's `calls` (JSON text written by `recode_check.check`): the text of the one `outcome()`
 * call the checked value is, or those of the calls its items are, in order; null when absent or of any
 * other shape (code under test can call the sink itself: the texts name calls in messages and decide nothing).
 */
export function callsOf(raw: unknown): string | string[] | null {
  // (Not read past what the check helper ever writes: code under test that called the sink with ten million
  // texts held the host for seconds and hundreds of megabytes.)
  if (typeof raw !== "string" || raw.length > CALLS_TEXT_LIMIT) return null;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  const fits = (s: unknown): s is string => typeof s === "string" && s.length <= 200;
  // (As plain text: a newline, a bidirectional control or a lone surrogate written by code under test is a "?".)
  const plain = (s: string) => s.replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, "?");
  if (fits(v)) return plain(v) || null;
  return Array.isArray(v) && v.every(fits) ? v.map(plain) : null;
}

/**
 * The indices after the first mismatch's (`where`, `[i]...`) at which the items of a list or tuple of equal
 * lengths differ too, compared as {@link compareValues} compares them. Empty for values of any other shape.
 */
export function otherItemsThatDiffer(key: string, expected: PyValue, actual: PyValue, rtol: number, atol: number, where: string): number[] {
  const first = /^\[(\d+)\]/.exec(where);
  if (!first) return [];
  if (!((expected.type === "list" || expected.type === "tuple") && actual.type === expected.type)) return [];
  if (expected.items.length !== actual.items.length) return [];
  const out: number[] = [];
  for (let i = Number(first[1]) + 1; i < expected.items.length; i++) {
    if (compareValues(key, expected.items[i] as PyValue, actual.items[i] as PyValue, rtol, atol)) out.push(i);
  }
  return out;
}

/** The call a mismatch at `where` (`[3]`, `[3][0]`, or empty for the whole value) came from, if known. */
export function callAt(calls: string | string[] | null, where: string): string | null {
  if (typeof calls === "string") return calls;
  const index = /^\[(\d+)\]/.exec(where);
  return (calls && index && calls[Number(index[1])]) || null;
}

/**
 * `v` with each `$raised` place (`at`, where a candidate's call raised) kept only when it names one of the
 * files code under test may show (`shown(file)`: the target file and the repository's, never test.py): a place
 * of a `Raised` made by code under test, or of code it compiled under test.py's name, names test.py's lines.
 */
export function withPlacesShown(v: PyValue, shown: (file: string) => boolean): PyValue {
  switch (v.type) {
    case "raised": {
      if (v.at === undefined) return v;
      const file = v.at.slice(0, v.at.lastIndexOf(", line "));
      if (shown(file)) return v;
      const { at: _dropped, ...rest } = v;
      return rest;
    }
    case "list":
    case "tuple":
    case "set":
      return v.items.some(hasPlace) ? { ...v, items: v.items.map((x) => withPlacesShown(x, shown)) } : v;
    case "dict":
      return v.entries.some(([k, x]) => hasPlace(k) || hasPlace(x))
        ? { ...v, entries: v.entries.map(([k, x]) => [withPlacesShown(k, shown), withPlacesShown(x, shown)] as const) }
        : v;
    default:
      return v;
  }
}

/** Whether `v` holds a `$raised` place anywhere. */
function hasPlace(v: PyValue): boolean {
  switch (v.type) {
    case "raised":
      return v.at !== undefined;
    case "list":
    case "tuple":
    case "set":
      return v.items.some(hasPlace);
    case "dict":
      return v.entries.some(([k, x]) => hasPlace(k) || hasPlace(x));
    default:
      return false;
  }
}
