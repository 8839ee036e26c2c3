/** `recode run --levels` (run.ts `parseLevels`). */
import { describe, expect, it } from "vitest";
import { parseLevels } from "../../src/cli/run";

describe("parseLevels", () => {
  it("takes a range, a list and one level", () => {
    expect(parseLevels("0-4")).toEqual([0, 1, 2, 3, 4]);
    expect(parseLevels("4,0,2")).toEqual([0, 2, 4]);
    expect(parseLevels("2")).toEqual([2]);
  });

  it("says a reversed range is reversed, and a level past L4 is outside", () => {
    expect(() => parseLevels("3-1")).toThrow(/"3-1" is reversed \(give the lower level first: 1-3\)/);
    expect(() => parseLevels("0-7")).toThrow(/outside L0-L4/);
  });
});
