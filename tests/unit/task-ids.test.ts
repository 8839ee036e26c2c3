/** Task arguments of `tasks record|validate` (task-fs.ts `resolveTaskIds`): ids, globs, and a folder given by mistake. */
import { describe, expect, it } from "vitest";
import { BUILTIN_TASKS, resolveTaskIds } from "../../src/cli/task-fs";

describe("resolveTaskIds", () => {
  it("takes ids and * globs", () => {
    expect(resolveTaskIds(BUILTIN_TASKS, ["pass-at-k", "min-p-*"])).toEqual(["pass-at-k", "min-p-sampling"]);
  });

  it("says how to name a task folder given where an id goes (its parent as --dir)", () => {
    expect(() => resolveTaskIds(BUILTIN_TASKS, ["/tmp/mine/ema-smoothing/"])).toThrow(/--dir \/tmp\/mine ema-smoothing/);
  });

  it("lists the known tasks for an unknown id", () => {
    expect(() => resolveTaskIds(BUILTIN_TASKS, ["no-such"])).toThrow(/known tasks: .*pass-at-k/);
  });
});
