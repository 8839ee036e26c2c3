import { describe, expect, it } from "vitest";
import { JsonSyntaxError, nodeAt, scanJson } from "../../src/core/json-locate";

/** The offset scanJson reports for a text that is not JSON. */
function errorAt(text: string): number {
  try {
    scanJson(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return e.offset;
    throw e;
  }
  throw new Error(`no error for ${text}`);
}

describe("scanJson", () => {
  it("reads what JSON.parse reads, and finds keys, values and items by path", () => {
    const text = '{\n  "a": [1, {"b": "x\\\\y\\u0041"}],\n  "c": -1.5e3, "a2": true, "n": null\n}';
    expect(() => JSON.parse(text)).not.toThrow();
    const root = scanJson(text);
    expect(nodeAt(root, ["a"])?.keyOffset).toBe(text.indexOf('"a"'));
    expect(nodeAt(root, ["a", 1, "b"])?.offset).toBe(text.indexOf('"x'));
    expect(nodeAt(root, ["a", 0])?.offset).toBe(text.indexOf("1"));
    expect(nodeAt(root, ["c"])?.offset).toBe(text.indexOf("-1.5e3"));
    expect(nodeAt(root, ["missing"])).toBeUndefined();
    expect(nodeAt(root, ["a", "b"])).toBeUndefined();
  });

  it("a comma after the last field or item is named where the comma is", () => {
    const obj = '{\n  "a": 1,\n  "b": 2,\n}';
    expect(errorAt(obj)).toBe(obj.lastIndexOf(","));
    const arr = '{"a": [1, 2, ],\n "b": 3}';
    expect(errorAt(arr)).toBe(arr.indexOf(", ]"));
    try {
      scanJson(obj);
    } catch (e) {
      expect((e as Error).message).toContain("a comma after the last field, which JSON does not allow: remove it");
    }
  });

  it("a repeated key counts at its last place, as in JSON.parse", () => {
    const text = '{"k": 1, "k": 2}';
    expect(nodeAt(scanJson(text), ["k"])?.offset).toBe(text.lastIndexOf("2"));
  });

  it("refuses what JSON.parse refuses, at the place it goes wrong", () => {
    for (const [text, at] of [
      ['{"a": 1,}', 7],
      ['{"a" 1}', 5],
      ["[1, // no\n 2]", 4],
      ['{"a": tru}', 6],
      ['{"a": "b}', 6],
      ["[1] 2", 4],
      ["01", 1],
      ["", 0],
    ] as const) {
      expect(() => JSON.parse(text)).toThrow();
      expect(errorAt(text)).toBe(at);
    }
  });
});
