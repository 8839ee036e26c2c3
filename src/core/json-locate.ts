/**
 * Where things are in a JSON text, for error messages that name a line: the
 * offset of the first syntax error, and the offset of the value (or the key of
 * the property) at a path. Strict JSON, as `JSON.parse` reads it (no comments,
 * no trailing commas); a repeated key counts at its last place, as there.
 */

/** A JSON syntax error at `offset` (characters from the start of the text). */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = "JsonSyntaxError";
  }
}

/** A value of the text: where it starts, where its property's key starts, and its members. */
export interface JsonNode {
  offset: number;
  /** For a property's value: the offset of its key. */
  keyOffset?: number;
  /** An object's properties by name, or an array's items. */
  children?: Map<string, JsonNode> | JsonNode[];
}

// (A string may not hold a raw control character, U+0000 to U+001F: JSON's rule.)
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what the class excludes
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/**
 * Read the structure of a JSON text.
 * @throws JsonSyntaxError at the first place the text is not JSON.
 */
export function scanJson(text: string): JsonNode {
  let i = 0;
  const fail = (what: string): never => {
    throw new JsonSyntaxError(what, i);
  };
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const token = (re: RegExp, what: string): string => {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) return fail(what);
    i += m[0].length;
    return m[0];
  };
  const value = (depth: number): JsonNode => {
    if (depth > 512) fail("nested too deeply");
    ws();
    const offset = i;
    const c = text[i];
    if (c === "{") {
      i++;
      const children = new Map<string, JsonNode>();
      ws();
      if (text[i] === "}") {
        i++;
        return { offset, children };
      }
      let comma = -1;
      for (;;) {
        ws();
        if (text[i] === "}" && comma >= 0) {
          // (Said where the comma is: the line after it only holds the brace.)
          i = comma;
          fail("a comma after the last field, which JSON does not allow: remove it");
        }
        if (text[i] !== '"') fail("a property name in double quotes was expected");
        const keyOffset = i;
        const key = JSON.parse(token(STRING, "a string that is not closed, or a bad escape")) as string;
        ws();
        if (text[i] !== ":") fail("':' was expected after a property name");
        i++;
        const v = value(depth + 1);
        v.keyOffset = keyOffset;
        children.delete(key);
        children.set(key, v);
        ws();
        if (text[i] === ",") {
          comma = i;
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return { offset, children };
        }
        fail("',' or '}' was expected");
      }
    }
    if (c === "[") {
      i++;
      const children: JsonNode[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return { offset, children };
      }
      for (;;) {
        children.push(value(depth + 1));
        ws();
        if (text[i] === ",") {
          const comma = i;
          i++;
          ws();
          if (text[i] === "]") {
            i = comma;
            fail("a comma after the last item, which JSON does not allow: remove it");
          }
          continue;
        }
        if (text[i] === "]") {
          i++;
          return { offset, children };
        }
        fail("',' or ']' was expected");
      }
    }
    if (c === '"') token(STRING, "a string that is not closed, or a bad escape");
    else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) token(NUMBER, "a number was expected");
    else token(LITERAL, i < text.length ? "a value was expected" : "the text ends before its value");
    return { offset };
  };
  const root = value(0);
  ws();
  if (i < text.length) fail("unexpected text after the JSON value");
  return root;
}

/** The node at `path` (property names and array indexes), or undefined when there is none. */
export function nodeAt(root: JsonNode, path: readonly (string | number)[]): JsonNode | undefined {
  let node: JsonNode | undefined = root;
  for (const seg of path) {
    const c: JsonNode["children"] = node?.children;
    if (c instanceof Map) node = typeof seg === "string" ? c.get(seg) : undefined;
    else if (Array.isArray(c)) node = typeof seg === "number" ? c[seg] : undefined;
    else node = undefined;
    if (!node) return undefined;
  }
  return node;
}
