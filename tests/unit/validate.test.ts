import { describe, expect, it } from "vitest";
import { firstDifference } from "../../src/python/validate";

describe("firstDifference (re-record check)", () => {
  it("accepts last-digit float differences between Python versions", () => {
    expect(firstDifference({ a: [0.2783333333333333] }, { a: [0.2783333333333334] }, "")).toBeNull();
  });
  it("names the first real difference", () => {
    expect(firstDifference({ a: [1, 2.5] }, { a: [1, 2.6] }, "")).toBe("a[1]");
    expect(firstDifference({ a: [1] }, { a: [1, 2] }, "")).toBe("a (length)");
    expect(firstDifference({ a: 1 }, { b: 1 }, "")).toBe("(root) (keys: missing a; new b)");
    expect(firstDifference({ $float: "nan" }, { $float: "inf" }, "")).toBe("$float");
  });
});
