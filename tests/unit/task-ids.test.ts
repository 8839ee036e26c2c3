/** Task arguments of `tasks record|validate|doc` (task-fs.ts `placeTaskArgs`, `resolveTaskIds`): ids, globs, and task folders by path. */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir, placeTaskArgs, resolveTaskIds } from "../../src/cli/task-fs";

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

  it("with a near id, names where the others are listed instead of listing them all", () => {
    const near = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as Error).message;
      }
      return "";
    };
    const byId = near(() => resolveTaskIds(BUILTIN_TASKS, ["rmsnorm"]));
    expect(byId).toMatch(/\(did you mean rms-norm\?\); .*; `recode tasks list` names all \d+$/);
    expect(byId).not.toContain("pass-at-k");
    expect(near(() => loadTaskDir(BUILTIN_TASKS, "focal_loss"))).toMatch(/`recode tasks list` names all \d+$/);
    // Another folder's list is that folder's.
    const mine = mkdtempSync(join(tmpdir(), "recode-near-"));
    cpSync(join(BUILTIN_TASKS, "pass-at-k"), join(mine, "pass-at-k"), { recursive: true });
    try {
      expect(near(() => resolveTaskIds(mine, ["pass-at-kk"]))).toContain(`\`recode tasks list --dir ${mine}\` names all 1`);
    } finally {
      rmSync(mine, { recursive: true, force: true });
    }
  });
});

describe("placeTaskArgs", () => {
  const mine = mkdtempSync(join(tmpdir(), "recode-args-"));
  cpSync(join(BUILTIN_TASKS, "pass-at-k"), join(mine, "pass-at-k"), { recursive: true });
  cpSync(join(BUILTIN_TASKS, "focal-loss"), join(mine, "focal-loss"), { recursive: true });
  writeFileSync(join(mine, "notes.txt"), "");
  afterAll(() => rmSync(mine, { recursive: true, force: true }));

  it("leaves ids and globs in --dir as they are", () => {
    expect(placeTaskArgs(BUILTIN_TASKS, ["pass-at-k", "min-p-*"])).toEqual({ dir: BUILTIN_TASKS, ids: ["pass-at-k", "min-p-*"] });
    expect(placeTaskArgs(BUILTIN_TASKS, [])).toEqual({ dir: BUILTIN_TASKS, ids: [] });
  });

  it("takes a task folder by path, as recode test does, and ids beside it as tasks of the same folder", () => {
    expect(placeTaskArgs(BUILTIN_TASKS, [`${mine}/pass-at-k/`])).toEqual({ dir: mine, ids: ["pass-at-k"] });
    expect(placeTaskArgs(BUILTIN_TASKS, [`${mine}/pass-at-k,focal-loss`])).toEqual({ dir: mine, ids: ["pass-at-k", "focal-loss"] });
    expect(placeTaskArgs(BUILTIN_TASKS, ["focal-loss", join(mine, "pass-at-k")])).toEqual({ dir: mine, ids: ["focal-loss", "pass-at-k"] });
    // The same folder as the --dir given: no conflict.
    expect(placeTaskArgs(mine, [join(mine, "pass-at-k")], true)).toEqual({ dir: mine, ids: ["pass-at-k"] });
  });

  it("refuses folders of two folders, a folder outside the --dir given, a file, and a path that does not exist", () => {
    // focal-loss is in both folders: the one named by path is not swapped for the other's.
    expect(() => placeTaskArgs(BUILTIN_TASKS, [join(mine, "pass-at-k"), join(BUILTIN_TASKS, "focal-loss")])).toThrow(
      /is a task of .* and .*focal-loss one of .*tasks: give the tasks of one folder at a time/,
    );
    expect(() => placeTaskArgs(BUILTIN_TASKS, [join(mine, "pass-at-k")], true)).toThrow(
      /pass-at-k is a task of .*, not of --dir .*: give the folder by path or --dir, not both/,
    );
    expect(() => placeTaskArgs(BUILTIN_TASKS, [join(mine, "notes.txt")])).toThrow(/notes.txt is not a task folder/);
    expect(() => placeTaskArgs(BUILTIN_TASKS, [join(mine, "nope")])).toThrow(/task folder .*nope does not exist/);
  });
});
