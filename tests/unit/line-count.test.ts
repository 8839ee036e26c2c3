import { describe, expect, it } from "vitest";
import { lineCount } from "../../src/core/line-count";

describe("lineCount", () => {
  it.each([
    ["", 1],
    ["x = 1", 1],
    ["x = 1\n", 1],
    ["a\nb\n", 2],
    ["a\nb", 2],
    ["a\n\n", 2],
  ])("%j has %i lines", (text, n) => {
    expect(lineCount(text)).toBe(n);
  });
});
