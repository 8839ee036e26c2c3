/**
 * The `outcome()` calls a check event names (`recode_check.check` sends their texts beside the value): which
 * call an item that differs came from, and which other items of a list of calls differ too. The texts are
 * written inside the interpreter under test: they name calls in messages and decide nothing.
 */
import type { PyValue } from "../core/values";
import { compareValues } from "../core/values";

/**
 * A check event's `calls` (JSON text written by `recode_check.check`): the text of the one `outcome()`
 * call the checked value is, or those of the calls its items are, in order; null when absent or of any
 * other shape (code under test can call the sink itself: the texts name calls in messages and decide nothing).
 */
export function callsOf(raw: unknown): string | string[] | null {
  if (typeof raw !== "string") return null;
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
