/**
 * Values checked by task tests, on the host. A test's `check(self, key,
 * value)` sends the value out as JSON in the `recode_check.encode` encoding
 * (see the top of src/python/recode_check.py); the host decodes it into a
 * {@link PyValue} and compares it with the recorded one from expected.json
 * ({@link compareValues}), so the interpreter running candidate code never
 * holds the recorded values.
 *
 * Files: values-json.ts (JSON in and out), values-compare.ts (the
 * comparison), values-equality.ts (Python `==` for dict keys and sets),
 * values-repr.ts and values-ndarray.ts (Python and numpy reprs for
 * messages), values-number.ts (float text).
 */
import {
  byCodePoint,
  decodeAt,
  encodeValue,
  fieldPath,
  isJsonObject,
  type JsonNode,
  jsonKind,
  parseJsonText,
  ValueFormatError,
  writeJson,
} from "./values-json";

export { compareValues } from "./values-compare";
export { pyFloat } from "./values-json";

import { pyFloatRepr } from "./values-number";

export { pyFloatRepr, pyFormatG } from "./values-number";
export { pyRepr, pyShortRepr, pyStrRepr, pyTypeName } from "./values-repr";

/**
 * A decoded Python value: the object a test checked, as far as the encoding
 * keeps it.
 * - `int`: exact, any size. `float`: the double and its Python repr `text`
 *   (`0.1`, `1e-07`, `-0.0`, `nan`, `inf`, `-inf`; always `pyFloatRepr(value)`,
 *   which for a file Python wrote is the JSON text as written). `bool`,
 *   `none`, `str`.
 * - `list`, `tuple`, `set` (items in encoded order: sorted by repr), `dict`
 *   (entries in insertion order; keys may be any hashable value).
 * - `ndarray`: numpy array with `dtype` as `str(a.dtype)` (`float64`, `<U3`),
 *   `shape` (non-negative ints) and `data` = `a.tolist()` (nested lists, or a
 *   scalar for a 0-d array).
 * - `npscalar`: numpy scalar with `dtype` and `value` = `x.item()`.
 * - `raised`: what `recode_check.outcome` gives for a call that raised
 *   (`{"$raised": {"type", "message"}}`): `exception`, the name of the
 *   exception's nearest built-in class, and its `message` (at most 200
 *   characters); equal to a recorded `raised` of the same `exception`.
 * - `other`: a checked value the encoding cannot hold (`{"$other": {"type",
 *   "repr"}}`: its type name and `_short` repr); never recorded, never equal
 *   to a recorded value.
 */
export type PyValue =
  | { readonly type: "int"; readonly value: bigint }
  | { readonly type: "float"; readonly value: number; readonly text: string }
  | { readonly type: "bool"; readonly value: boolean }
  | { readonly type: "none" }
  | { readonly type: "str"; readonly value: string }
  | { readonly type: "list"; readonly items: readonly PyValue[] }
  | { readonly type: "tuple"; readonly items: readonly PyValue[] }
  | { readonly type: "set"; readonly items: readonly PyValue[] }
  | { readonly type: "dict"; readonly entries: readonly (readonly [PyValue, PyValue])[] }
  | { readonly type: "ndarray"; readonly dtype: string; readonly shape: readonly number[]; readonly data: PyValue }
  | { readonly type: "npscalar"; readonly dtype: string; readonly value: PyValue }
  | {
      readonly type: "raised";
      readonly exception: string;
      readonly message: string;
      /** Where a candidate's call raised (`stats/wmean.py, line 6`), for its message; never recorded. */
      readonly at?: string;
    }
  | { readonly type: "other"; readonly typeName: string; readonly repr: string };

/**
 * The most JSON text (characters) a value equal to `v` can take: 256 characters for each value it holds (a
 * float's repr and the tags of a tuple, a dict entry or a numpy scalar take far less; 512 for a float, which an
 * int of up to 309 digits can equal), and for a string 12
 * characters per character besides (`json.dumps` writes a character outside the BMP as two `\uXXXX` escapes).
 */
function textBudget(v: PyValue): number {
  switch (v.type) {
    case "list":
    case "tuple":
    case "set":
      return v.items.reduce((n, x) => n + textBudget(x), 256);
    case "dict":
      return v.entries.reduce((n, [k, x]) => n + textBudget(k) + textBudget(x), 256);
    case "ndarray":
      return 256 + textBudget(v.data);
    case "npscalar":
      return 256 + textBudget(v.value);
    case "str":
      return 256 + 12 * v.value.length;
    case "float":
      // An int equal to a float has up to 309 digits.
      return 512;
    case "int":
      // Its digits: at most 0.302 per bit (log10 2), read from the hex text, which takes linear time.
      return 256 + Math.ceil(v.value.toString(16).length * 4 * 0.302);
    default:
      return 256;
  }
}

/**
 * The most JSON text (characters) a checked value sent for `recorded` may have and still be read: 64 KiB plus
 * what a value equal to it can take ({@link textBudget}). A longer text cannot equal it, and reading it could
 * hold the host for minutes (a deep list of lists takes some 65 times its text in memory), so it is a
 * mismatch unread.
 */
export function checkedTextLimit(recorded: PyValue): number {
  return 64 * 1024 + textBudget(recorded);
}

/**
 * Parse one encoded value from JSON text, e.g. `{"$tuple": [1, 0.5]}`.
 * Numbers keep their exact text: with `.`, `e` or `E` a float (as Python's
 * json reads them, so `1e400` is `inf`), otherwise an int (BigInt).
 *
 * Throws an Error: `invalid value JSON at line L, column C: ...` on a syntax
 * error; `invalid encoded value at ["$tuple"][1]: unknown tag "$x" ...` on
 * an unknown `$` tag, an untagged object or a malformed tagged value.
 */
export function parseValueJson(text: string): PyValue {
  let raw: unknown;
  try {
    raw = parseJsonText(text);
  } catch (e) {
    throw new Error(`${(e as Error).message.replace(/^invalid JSON/, "invalid value JSON")}`);
  }
  try {
    return decodeAt(raw);
  } catch (e) {
    if (!(e instanceof ValueFormatError)) throw e;
    throw new Error(`invalid encoded value${e.path ? ` at ${e.path}` : ""}: ${e.reason}`);
  }
}

/**
 * A parsed expected.json.
 * - `tests`: per unit test id (`Class.test_name`), the keys of the checks
 *   that test makes, in order; every key belongs to exactly one test. Null
 *   for a legacy file (format 1: a flat object key -> value).
 * - `values`: the recorded value of every key.
 * - `tolerances`: `[rtol, atol]` of the checks recorded with tolerances other
 *   than the default (1e-9, 0); the host compares with these, never with
 *   what the interpreter under test sends.
 * - `expectedFailures`: tests the canonical solution fails on purpose
 *   (`@unittest.expectedFailure`); an `xfail` from any other test is not
 *   trusted.
 * Maps iterate in key order (by code point, as Python's `sort_keys` writes them).
 */
export interface ExpectedFile {
  tests: ReadonlyMap<string, readonly string[]> | null;
  values: ReadonlyMap<string, PyValue>;
  tolerances?: ReadonlyMap<string, readonly [number, number]>;
  expectedFailures?: ReadonlySet<string>;
  /**
   * SHA-256 (64 lower-case hex digits) of the test.py the file was recorded from, line ends as `\n`
   * (`testPyDigest` in src/core/recording.ts); absent in files recorded before it was kept.
   */
  testPySha256?: string;
  /**
   * SHA-256 (64 lower-case hex digits) of the canonical solution and the repository files it was recorded
   * beside (`canonicalDigest` in src/core/recording.ts); absent in files recorded before it was kept.
   */
  canonicalSha256?: string;
}

/** Tolerances of `check()` when a test gives none. */
export const DEFAULT_TOLERANCE: readonly [number, number] = [1e-9, 0];

/** Current expected.json format version. */
export const EXPECTED_FORMAT = 2;

function sortedKeys(o: Record<string, unknown>): string[] {
  return Object.keys(o).sort(byCodePoint);
}

/** Consistency of tests and values; throws `path: reason` (path like `tests["A.test_x"][2]`). */
function checkTests(tests: ReadonlyMap<string, readonly string[]>, values: ReadonlyMap<string, unknown>): void {
  const owner = new Map<string, string>();
  for (const [id, keys] of tests) {
    keys.forEach((key, i) => {
      const at = `tests${fieldPath(id)}[${i}]`;
      const first = owner.get(key);
      if (first !== undefined) throw new Error(`${at}: key ${JSON.stringify(key)} is already listed at ${first}`);
      owner.set(key, at);
      if (!values.has(key)) throw new Error(`${at}: key ${JSON.stringify(key)} has no entry in "values"`);
    });
  }
  for (const key of values.keys()) {
    if (!owner.has(key)) throw new Error(`values${fieldPath(key)}: not listed by any test in "tests"`);
  }
}

function parseTests(raw: unknown): Map<string, string[]> {
  if (!isJsonObject(raw)) throw new Error(`tests: expected an object (test id -> list of keys), got ${jsonKind(raw)}`);
  const tests = new Map<string, string[]>();
  for (const id of sortedKeys(raw)) {
    const keys = raw[id];
    if (!Array.isArray(keys)) throw new Error(`tests${fieldPath(id)}: expected a list of keys, got ${jsonKind(keys)}`);
    tests.set(
      id,
      keys.map((k: unknown, i) => {
        if (typeof k !== "string") throw new Error(`tests${fieldPath(id)}[${i}]: expected a key (string), got ${jsonKind(k)}`);
        return k;
      }),
    );
  }
  return tests;
}

function parseValues(raw: unknown, prefix: string): Map<string, PyValue> {
  if (!isJsonObject(raw)) throw new Error(`${prefix || "top level"}: expected an object (key -> value), got ${jsonKind(raw)}`);
  const values = new Map<string, PyValue>();
  for (const key of sortedKeys(raw)) values.set(key, decodeAt(raw[key], prefix + fieldPath(key), true));
  return values;
}

function parseRoot(raw: unknown): ExpectedFile {
  if (!isJsonObject(raw)) throw new Error(`top level: expected an object, got ${jsonKind(raw)}`);
  const format = raw.format;
  if (jsonKind(format) !== "number") {
    return { tests: null, values: parseValues(raw, "") };
  }
  if (String(format) !== String(EXPECTED_FORMAT)) {
    throw new Error(`format: unsupported format ${String(format)} (this version reads format 2, and legacy files without "format")`);
  }
  const fields = ["canonicalSha256", "expectedFailures", "format", "testPySha256", "tests", "tolerances", "values"];
  for (const k of Object.keys(raw)) {
    if (!fields.includes(k)) throw new Error(`unexpected field ${JSON.stringify(k)} (expected ${fields.join(", ")})`);
  }
  for (const k of ["tests", "values"]) if (!(k in raw)) throw new Error(`missing field ${JSON.stringify(k)}`);
  const tests = parseTests(raw.tests);
  const values = parseValues(raw.values, "values");
  checkTests(tests, values);
  const tolerances = new Map<string, readonly [number, number]>();
  if ("tolerances" in raw) {
    const t = raw.tolerances;
    if (!isJsonObject(t)) throw new Error(`tolerances: expected an object (key -> [rtol, atol]), got ${jsonKind(t)}`);
    for (const key of sortedKeys(t)) {
      const pair = t[key];
      const nums = Array.isArray(pair) ? pair.map((x: unknown) => Number(String(x))) : [];
      if (nums.length !== 2 || !nums.every((x) => Number.isFinite(x) && x >= 0)) {
        throw new Error(`tolerances${fieldPath(key)}: expected [rtol, atol], two numbers >= 0`);
      }
      if (!values.has(key)) throw new Error(`tolerances${fieldPath(key)}: key has no entry in "values"`);
      tolerances.set(key, [nums[0] as number, nums[1] as number]);
    }
  }
  const expectedFailures = new Set<string>();
  if ("expectedFailures" in raw) {
    const x = raw.expectedFailures;
    if (!Array.isArray(x) || x.some((id: unknown) => typeof id !== "string" || !tests.has(id))) {
      throw new Error('expectedFailures: expected a list of test ids listed in "tests"');
    }
    for (const id of x as string[]) expectedFailures.add(id);
  }
  const file: ExpectedFile = { tests, values, tolerances, expectedFailures };
  for (const [field, what] of [
    ["testPySha256", "test.py"],
    ["canonicalSha256", "the canonical solution"],
  ] as const) {
    if (!(field in raw)) continue;
    const digest = raw[field];
    if (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest)) {
      throw new Error(`${field}: expected the SHA-256 of ${what}, 64 lower-case hex digits`);
    }
    file[field] = digest;
  }
  return file;
}

/**
 * Parse expected.json text: format 2 (`{"format": 2, "tests": {...},
 * "values": {...}}`) or a legacy format-1 file (a flat object key -> encoded
 * value, no `"format"` field; returned with `tests: null`). A legacy file
 * whose top level has a numeric `"format"` key is not supported.
 *
 * Throws an Error naming the file and where: `expected.json: invalid JSON at
 * line 3, column 5: ...`, `expected.json: tests["A.test_x"][2]: key "k" has
 * no entry in "values"`, `expected.json: values["k"]["$tuple"][0]: unknown tag ...`.
 */
export function parseExpected(text: string, file = "expected.json"): ExpectedFile {
  try {
    return parseRoot(parseJsonText(text));
  } catch (e) {
    if (e instanceof RangeError) throw new Error(`${file}: values nested too deeply`);
    throw new Error(`${file}: ${(e as Error).message}`);
  }
}

/**
 * expected.json text exactly as Python's `json.dumps(obj, indent=1,
 * sort_keys=True)` writes it (no trailing newline; files add one), so
 * recording again gives identical bytes: format 2, or the legacy flat object
 * when `tests` is null. Ints as digits, floats as their repr text,
 * non-finite floats as `{"$float": ...}`.
 *
 * Throws an Error when `tests` and `values` disagree (a key listed twice or
 * without a value, a value no test lists).
 */
export function formatExpected(file: ExpectedFile): string {
  const values: [string, JsonNode][] = [...file.values].map(([k, v]) => [k, encodeValue(v)]);
  if (file.tests === null) return writeJson({ fields: values });
  checkTests(file.tests, file.values);
  const tests: [string, JsonNode][] = [...file.tests].map(([id, keys]) => [id, keys]);
  const xfail = [...(file.expectedFailures ?? [])].sort(byCodePoint);
  const tolerances: [string, JsonNode][] = [...(file.tolerances ?? [])]
    .sort(([a], [b]) => byCodePoint(a, b))
    .map(([k, [r, a]]) => [k, [{ num: pyFloatRepr(r) }, { num: pyFloatRepr(a) }]]);
  return writeJson({
    fields: [
      ...(file.canonicalSha256 ? [["canonicalSha256", file.canonicalSha256] as [string, JsonNode]] : []),
      ...(xfail.length ? [["expectedFailures", xfail] as [string, JsonNode]] : []),
      ["format", { num: String(EXPECTED_FORMAT) }],
      ...(file.testPySha256 ? [["testPySha256", file.testPySha256] as [string, JsonNode]] : []),
      ["tests", { fields: tests }],
      ...(tolerances.length ? [["tolerances", { fields: tolerances }] as [string, JsonNode]] : []),
      ["values", { fields: values }],
    ],
  });
}
