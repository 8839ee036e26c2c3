/**
 * The JSON side of recorded values: reading JSON text without losing
 * numbers (lossless-json), decoding the `recode_check.encode` tags into
 * {@link PyValue}, and writing JSON byte for byte as Python's
 * `json.dumps(obj, indent=1, sort_keys=True)` does.
 */
import { isLosslessNumber, parse } from "lossless-json";
import type { PyValue } from "./values";
import { pyFloatRepr } from "./values-number";

/** A malformed encoded value; `path` is where, e.g. `["$tuple"][2]` (empty for the whole value). */
export class ValueFormatError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path ? `${path}: ${reason}` : reason);
  }
}

/** Path step for an object field: `["name"]`. */
export function fieldPath(name: string): string {
  return `[${JSON.stringify(name)}]`;
}

/** A JSON object as lossless-json returns it. */
export type JsonObject = Record<string, unknown>;

/** Whether a parsed JSON node is an object (not an array, not null, not a number). */
export function isJsonObject(raw: unknown): raw is JsonObject {
  return typeof raw === "object" && raw !== null && !Array.isArray(raw) && !isLosslessNumber(raw);
}

/** What a JSON node is, for messages: `object`, `array`, `string`, `number`, `boolean`, `null`. */
export function jsonKind(raw: unknown): string {
  if (raw === null) return "null";
  if (Array.isArray(raw)) return "array";
  if (isLosslessNumber(raw)) return "number";
  return typeof raw;
}

function countCodePoints(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

/**
 * Parse JSON text keeping every number as its exact text (a lossless-json
 * `LosslessNumber`). Throws an Error `invalid JSON at line L, column C: ...`
 * (1-based, columns in characters) on a syntax error or a repeated key with
 * different values, `invalid JSON: nested too deeply` past the stack.
 */
export function parseJsonText(text: string): unknown {
  try {
    return parse(text);
  } catch (e) {
    if (e instanceof RangeError) throw new Error("invalid JSON: nested too deeply");
    if (!(e instanceof SyntaxError)) throw e;
    const m = /^(.*?)\s*(?:encountered )?at position (\d+)$/s.exec(e.message);
    if (!m) throw new Error(`invalid JSON: ${e.message}`);
    const pos = Math.min(Number(m[2]), text.length);
    const lineStart = text.lastIndexOf("\n", pos - 1) + 1;
    const line = text.slice(0, lineStart).split("\n").length;
    const column = countCodePoints(text.slice(lineStart, pos)) + 1;
    throw new Error(`invalid JSON at line ${line}, column ${column}: ${m[1]}`);
  }
}

const TAGS = ["$float", "$tuple", "$set", "$dict", "$ndarray", "$npscalar", "$raised", "$other"];

function list(raw: unknown, path: string, what: string): unknown[] {
  if (!Array.isArray(raw)) throw new ValueFormatError(path, `${what} must be a list, got ${jsonKind(raw)}`);
  return raw;
}

function fields(raw: unknown, path: string, names: readonly string[], optional: readonly string[] = []): JsonObject {
  if (!isJsonObject(raw)) throw new ValueFormatError(path, `expected an object with fields ${names.join(", ")}, got ${jsonKind(raw)}`);
  for (const k of Object.keys(raw))
    if (!names.includes(k) && !optional.includes(k)) throw new ValueFormatError(path, `unexpected field ${JSON.stringify(k)}`);
  for (const k of names) if (!(k in raw)) throw new ValueFormatError(path, `missing field ${JSON.stringify(k)}`);
  return raw;
}

function dtypeOf(spec: JsonObject, path: string): string {
  const dtype = spec.dtype;
  if (typeof dtype !== "string") throw new ValueFormatError(path + fieldPath("dtype"), `dtype must be a string, got ${jsonKind(dtype)}`);
  return dtype;
}

/** A float value with its repr text (`text` is always `pyFloatRepr(value)`). */
export function pyFloat(value: number): PyValue & { type: "float" } {
  return { type: "float", value, text: pyFloatRepr(value) };
}

function decodeNumber(text: string): PyValue {
  if (/[.eE]/.test(text)) return pyFloat(Number(text));
  return { type: "int", value: BigInt(text) };
}

function decodeTagged(tag: string, body: unknown, path: string, recorded: boolean): PyValue {
  const at = path + fieldPath(tag);
  const decode = (v: unknown, p: string) => decodeAt(v, p, recorded);
  const items = (what: string) => list(body, at, what).map((v, i) => decode(v, `${at}[${i}]`));
  switch (tag) {
    case "$float":
      if (body === "nan") return pyFloat(Number.NaN);
      if (body === "inf") return pyFloat(Number.POSITIVE_INFINITY);
      if (body === "-inf") return pyFloat(Number.NEGATIVE_INFINITY);
      throw new ValueFormatError(at, `must be "nan", "inf" or "-inf", got ${JSON.stringify(body) ?? jsonKind(body)}`);
    case "$tuple":
      return { type: "tuple", items: items("a tuple") };
    case "$set":
      return { type: "set", items: items("a set") };
    case "$dict": {
      const entries = list(body, at, "a dict").map((pair, i): [PyValue, PyValue] => {
        const p = list(pair, `${at}[${i}]`, "a dict entry");
        if (p.length !== 2) throw new ValueFormatError(`${at}[${i}]`, `a dict entry must be [key, value], got ${p.length} items`);
        return [decode(p[0], `${at}[${i}][0]`), decode(p[1], `${at}[${i}][1]`)];
      });
      return { type: "dict", entries };
    }
    case "$ndarray": {
      const spec = fields(body, at, ["dtype", "shape", "data"]);
      const shape = list(spec.shape, at + fieldPath("shape"), "shape").map((n, i) => {
        const v = isLosslessNumber(n) && /^\d+$/.test(n.value) ? Number(n.value) : -1;
        if (!Number.isSafeInteger(v) || v < 0)
          throw new ValueFormatError(`${at}${fieldPath("shape")}[${i}]`, "a dimension must be a non-negative integer");
        return v;
      });
      return { type: "ndarray", dtype: dtypeOf(spec, at), shape, data: decode(spec.data, at + fieldPath("data")) };
    }
    case "$npscalar": {
      const spec = fields(body, at, ["dtype", "value"]);
      return { type: "npscalar", dtype: dtypeOf(spec, at), value: decode(spec.value, at + fieldPath("value")) };
    }
    case "$raised": {
      const spec = fields(body, at, ["type", "message"], ["at"]);
      if (typeof spec.type !== "string" || typeof spec.message !== "string")
        throw new ValueFormatError(at, "type and message must be strings");
      // (Where it was raised: sent for a candidate's message, never recorded; see PyValue.)
      if (spec.at !== undefined && (typeof spec.at !== "string" || spec.at.length > 200 || recorded))
        throw new ValueFormatError(at, "at must be a short string, and is not recorded");
      // (Kept only in the form the check helper writes it, `<file>, line <n>`: code under test can make a
      // Raised of its own, and the place is shown in the message as it is.)
      return typeof spec.at === "string" && RAISED_AT.test(spec.at)
        ? { type: "raised", exception: spec.type, message: spec.message, at: spec.at }
        : { type: "raised", exception: spec.type, message: spec.message };
    }
    default: {
      const spec = fields(body, at, ["type", "repr"]);
      const [typeName, repr] = [spec.type, spec.repr];
      if (typeof typeName !== "string" || typeof repr !== "string") throw new ValueFormatError(at, "type and repr must be strings");
      if (recorded) throw new ValueFormatError(path, `a value of type ${typeName} cannot be recorded`);
      return { type: "other", typeName, repr };
    }
  }
}

/**
 * Where a candidate's call raised, as `recode_check` writes it (`$raised.at`): a file of the run's folder, relative,
 * and a line, `pkg/mod.py, line 12`; no control, format or separator character, no quote or comma in the name.
 */
export const RAISED_AT = /^[^\s",\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}][^",\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]{0,179}, line [1-9]\d{0,8}$/u;

/**
 * Decode one node of parsed JSON (from {@link parseJsonText}) in the
 * `recode_check.encode` encoding (plus `$other` from `encode_any`). `path`
 * prefixes error paths. Throws {@link ValueFormatError} on an unknown `$`
 * tag or a malformed value, and with `recorded` on `$other` (a value of an
 * unsupported type cannot be a recorded one).
 */
export function decodeAt(raw: unknown, path = "", recorded = false): PyValue {
  if (raw === null) return { type: "none" };
  if (typeof raw === "boolean") return { type: "bool", value: raw };
  if (typeof raw === "string") return { type: "str", value: raw };
  if (isLosslessNumber(raw)) return decodeNumber(raw.value);
  if (Array.isArray(raw)) return { type: "list", items: raw.map((v, i) => decodeAt(v, `${path}[${i}]`, recorded)) };
  if (!isJsonObject(raw)) throw new ValueFormatError(path, `unexpected ${jsonKind(raw)}`);
  const keys = Object.keys(raw);
  const [tag] = keys;
  if (keys.length !== 1 || tag === undefined || !tag.startsWith("$")) {
    const names = keys.map((k) => JSON.stringify(k)).join(", ") || "none";
    throw new ValueFormatError(path, `an object must be one tagged value such as {"$tuple": [...]}, got fields ${names}`);
  }
  if (!TAGS.includes(tag)) throw new ValueFormatError(path, `unknown tag ${JSON.stringify(tag)} (known: ${TAGS.join(", ")})`);
  return decodeTagged(tag, raw[tag], path, recorded);
}

/** JSON to write: numbers as exact text, objects as ordered entries. */
export type JsonNode =
  | null
  | boolean
  | string
  | { num: string }
  | readonly JsonNode[]
  | { fields: readonly (readonly [string, JsonNode])[] };

function obj(fields: [string, JsonNode][]): JsonNode {
  return { fields };
}

function isNodeList(node: JsonNode): node is readonly JsonNode[] {
  return Array.isArray(node);
}

/** A value in the `recode_check.encode` encoding, ready for {@link writeJson}. */
export function encodeValue(v: PyValue): JsonNode {
  switch (v.type) {
    case "int":
      return { num: v.value.toString() };
    case "float":
      if (Number.isNaN(v.value)) return obj([["$float", "nan"]]);
      if (!Number.isFinite(v.value)) return obj([["$float", v.value > 0 ? "inf" : "-inf"]]);
      return { num: v.text };
    case "bool":
      return v.value;
    case "none":
      return null;
    case "str":
      return v.value;
    case "list":
      return v.items.map(encodeValue);
    case "tuple":
      return obj([["$tuple", v.items.map(encodeValue)]]);
    case "set":
      return obj([["$set", v.items.map(encodeValue)]]);
    case "dict":
      return obj([["$dict", v.entries.map(([k, x]) => [encodeValue(k), encodeValue(x)])]]);
    case "ndarray": {
      const shape = v.shape.map((n) => ({ num: String(n) }));
      return obj([
        [
          "$ndarray",
          obj([
            ["dtype", v.dtype],
            ["shape", shape],
            ["data", encodeValue(v.data)],
          ]),
        ],
      ]);
    }
    case "npscalar":
      return obj([
        [
          "$npscalar",
          obj([
            ["dtype", v.dtype],
            ["value", encodeValue(v.value)],
          ]),
        ],
      ]);
    case "raised":
      return obj([
        [
          "$raised",
          obj([
            ["type", v.exception],
            ["message", v.message],
          ]),
        ],
      ]);
    case "other":
      return obj([
        [
          "$other",
          obj([
            ["type", v.typeName],
            ["repr", v.repr],
          ]),
        ],
      ]);
  }
}

/** Python's `json.dumps` string: ASCII only, `\uXXXX` (lowercase) for the rest. */
function writeString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    const ch = s[i] as string;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Python's str ordering: by code point (JavaScript's `<` compares UTF-16 units). */
export function byCodePoint(a: string, b: string): number {
  const x = Array.from(a, (ch) => ch.codePointAt(0) ?? 0);
  const y = Array.from(b, (ch) => ch.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return x.length - y.length;
}

/**
 * JSON text exactly as Python's `json.dumps(node, indent=1, sort_keys=True)`
 * writes it: one item per line with one space of indent per level, `,` at
 * line ends, `": "` after keys, empty containers as `[]` and `{}`, keys
 * sorted by code point, non-ASCII escaped as `\uXXXX`. No trailing newline.
 */
export function writeJson(node: JsonNode, level = 0): string {
  if (node === null) return "null";
  if (typeof node === "boolean") return node ? "true" : "false";
  if (typeof node === "string") return writeString(node);
  const inner = " ".repeat(level + 1);
  const close = " ".repeat(level);
  if (isNodeList(node)) {
    if (node.length === 0) return "[]";
    return `[\n${node.map((n) => inner + writeJson(n, level + 1)).join(",\n")}\n${close}]`;
  }
  if ("num" in node) return node.num;
  if (node.fields.length === 0) return "{}";
  const sorted = [...node.fields].sort(([a], [b]) => byCodePoint(a, b));
  return `{\n${sorted.map(([k, v]) => `${inner}${writeString(k)}: ${writeJson(v, level + 1)}`).join(",\n")}\n${close}}`;
}
