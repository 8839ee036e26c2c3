/** A pack task's checks in one line (src/ui/tasks/task-packs.ts `checksSummary`), counted as `recode tasks validate` counts them. */
import { describe, expect, it } from "vitest";
import type { CheckOutcome } from "../../src/python/validate";
import { checksSummary } from "../../src/ui/tasks/task-packs";

const check = (ok: boolean, skipped = false): CheckOutcome => ({
  name: "canonical passes",
  ok,
  detail: "",
  ...(skipped ? { skipped: true as const } : {}),
});

describe("checksSummary", () => {
  it("counts a skipped check apart from the ok and the failed ones", () => {
    expect(checksSummary([check(true), check(true), check(true)])).toBe("3 of 3 checks ok");
    // (A check that could not run here is neither passed nor failed: the CLI's table says "skipped".)
    expect(checksSummary([check(true), check(true, true), check(false, true)])).toBe("1 of 3 checks ok, 2 skipped");
    expect(checksSummary([check(true), check(false), check(true, true)])).toBe("1 of 3 checks ok, 1 skipped, 1 failed");
  });
});
