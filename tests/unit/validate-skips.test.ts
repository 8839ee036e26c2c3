/** Which skipped checks mean "the packages are missing here" (validate.ts `skippedForPackages`). */
import { describe, expect, it } from "vitest";
import { type CheckOutcome, skippedForPackages } from "../../src/python/validate";

describe("skippedForPackages", () => {
  it("is true when the canonical run was skipped for the task's packages", () => {
    const checks: CheckOutcome[] = [{ name: "canonical passes", ok: true, skipped: true, detail: "skipped in this backend: numpy" }];
    expect(skippedForPackages(checks)).toBe(true);
  });

  it("is false when the checks were skipped because the tests do not load (a stdlib task's broken canonical solution)", () => {
    const checks: CheckOutcome[] = [
      { name: "canonical passes", ok: false, detail: "collection error in smooth/ema.py, line 3: ImportError" },
      { name: "starter fails", ok: true, skipped: true, detail: "not run: the tests do not load (see canonical passes)" },
    ];
    expect(skippedForPackages(checks)).toBe(false);
  });
});
