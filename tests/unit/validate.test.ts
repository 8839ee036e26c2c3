import { describe, expect, it } from "vitest";
import { loadTaskDir } from "../../src/cli/task-fs";
import { extractDefinitions, replaceDefinition } from "../../src/core/canonical";
import { firstDifference, startProblem } from "../../src/python/validate";

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

describe("startProblem (start as declared)", () => {
  const tasks = new URL("../../tasks", import.meta.url).pathname;
  it("a stubs start that defines an interface as canonical.py does is not stubs", () => {
    const task = loadTaskDir(tasks, "pass-at-k");
    expect(task.meta.start).toBe("stubs");
    expect(startProblem(task)).toBeNull();
    const solution = extractDefinitions(task.canonical).pass_at_k as string;
    // The solution with other comments, docstring words and spacing is still the solution.
    const disguised = `${solution.replace('"""', '"""Your code here. ').replace(/\n(\s+)return /, "\n$1# TODO\n$1return  ")}`;
    const starter = replaceDefinition(task.starter, "pass_at_k", disguised);
    expect(startProblem({ ...task, starter })).toBe(
      'start is "stubs" but the starting text of evalkit/metrics.py defines pass_at_k as canonical.py does (a stub gives the signature, not the code)',
    );
  });
});
