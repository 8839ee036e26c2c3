/** Task arguments of `tasks record|validate` (task-fs.ts `resolveTaskIds`): ids, globs, and a folder given by mistake. */
import { describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir, resolveTaskIds } from "../../src/cli/task-fs";

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

  it("suggests the task an unknown id is close to, and nothing when none is", () => {
    expect(() => resolveTaskIds(BUILTIN_TASKS, ["rmsnorm"])).toThrow(/unknown task "rmsnorm" \(did you mean rms-norm\?\)/);
    expect(() => resolveTaskIds(BUILTIN_TASKS, ["adam"])).toThrow(/did you mean adam-optimizer\?/);
    expect(() => resolveTaskIds(BUILTIN_TASKS, ["Pass-At-K2"])).toThrow(/did you mean pass-at-k\?/);
    expect(() => resolveTaskIds(BUILTIN_TASKS, ["zzzzzz"])).toThrow(
      /unknown task "zzzzzz"; for a task in another folder, give that folder as --dir; known tasks/,
    );
    expect(() => loadTaskDir(BUILTIN_TASKS, "focal_loss")).toThrow(
      /no such task folder \(did you mean focal-loss\?\); for a task in another folder, give that folder as --dir/,
    );
  });
});
