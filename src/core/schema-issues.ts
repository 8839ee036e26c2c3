/**
 * What a zod schema found wrong in a JSON file, one problem per field, in words for the person who wrote the
 * file: a field that is not there says "is required but missing", and a field the schema does not know names
 * the known field it is closest to ("did you mean ...?"), which then is not also reported missing.
 */
import { closest, distance } from "fastest-levenshtein";
import type { z } from "zod";

/** One problem: where (`path` into the value, `field` as written, e.g. `interfaces[0].name`) and what. */
export interface FieldIssue {
  path: (string | number)[];
  field: string;
  message: string;
}

/** zod's wrappers around a schema that say nothing of its fields. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/** The field names of the object schema at `path` inside `schema` (none when there is no object there). */
export function fieldsAt(schema: z.ZodType, path: readonly (string | number)[]): string[] {
  // (zod 4 describes each schema in `_zod.def`: its type and its parts.)
  type Def = { type?: string; innerType?: unknown; in?: unknown; element?: unknown; shape?: Record<string, unknown>; valueType?: unknown };
  const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } } | undefined)?._zod?.def;
  const unwrap = (s: unknown): unknown => {
    for (let i = 0; i < 16; i++) {
      const d = defOf(s);
      if (d?.type && WRAPPERS.has(d.type)) s = d.innerType;
      else if (d?.type === "pipe") s = d.in;
      else break;
    }
    return s;
  };
  let s: unknown = unwrap(schema);
  for (const p of path) {
    const d = defOf(s);
    if (typeof p === "number" && d?.type === "array") s = d.element;
    else if (typeof p === "string" && d?.type === "object" && d.shape) s = d.shape[p];
    else if (d?.type === "record") s = d.valueType;
    else return [];
    s = unwrap(s);
  }
  const d = defOf(s);
  return d?.type === "object" && d.shape ? Object.keys(d.shape) : [];
}

/**
 * The known field `key` was most likely meant as, or null: one that holds it or that it holds (four letters at
 * least), or the closest one when at most a third of its letters differ.
 */
export function suggestField(key: string, known: readonly string[]): string | null {
  if (known.length === 0) return null;
  const lower = key.toLowerCase();
  // (A name cut short or written in full, "level" for "maxLevel", is meant too.)
  const within = known.filter((k) => lower.length >= 4 && (k.toLowerCase().includes(lower) || lower.includes(k.toLowerCase())));
  if (within.length === 1) return within[0] ?? null;
  const best = closest(key, known as string[]);
  return distance(lower, best.toLowerCase()) <= Math.max(1, Math.floor(best.length / 3)) ? best : null;
}

function fieldName(path: readonly (string | number)[]): string {
  return (
    path
      .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
      .join(".")
      .replace(/\.\[/g, "[") || "(top level)"
  );
}

function valueAt(raw: unknown, path: readonly (string | number)[]): unknown {
  let v = raw;
  for (const p of path) v = v !== null && typeof v === "object" ? (v as Record<string | number, unknown>)[p] : undefined;
  return v;
}

/**
 * The problems of `issues` (from `schema.safeParse(raw)`), one per field, in the order zod gave them. An
 * unknown field says "is not a field of `what`" (of the object it is in, `interfaces[1]`, when it is nested), with the known field it is closest to when one is close and
 * not already there; that field is then not also reported missing.
 */
export function fieldIssues(schema: z.ZodType, raw: unknown, issues: readonly z.core.$ZodIssue[], what: string): FieldIssue[] {
  const out: FieldIssue[] = [];
  const meant = new Set<string>();
  for (const issue of issues) {
    const at = issue.path.filter((p): p is string | number => typeof p === "string" || typeof p === "number");
    if (issue.code === "unrecognized_keys") {
      const here = valueAt(raw, at);
      const present = new Set(here !== null && typeof here === "object" ? Object.keys(here) : []);
      const known = fieldsAt(schema, at).filter((k) => !present.has(k));
      for (const key of issue.keys) {
        const guess = suggestField(key, known);
        if (guess) meant.add(JSON.stringify([...at, guess]));
        const path = [...at, key];
        // (Inside an object of the file, the object is named: interfaces[1], not the file.)
        const owner = at.length > 0 ? fieldName(at) : what;
        out.push({ path, field: fieldName(path), message: `is not a field of ${owner}${guess ? ` (did you mean "${guess}"?)` : ""}` });
      }
      continue;
    }
    // zod says "expected string, received undefined" for a field that is not there.
    const missing = /received undefined$/.test(issue.message);
    out.push({ path: at, field: fieldName(at), message: missing ? "is required but missing" : issue.message });
  }
  return out.filter((i) => !(i.message === "is required but missing" && meant.has(JSON.stringify(i.path))));
}
