/**
 * The optional task.json fields the rules researcher reads: L3 texts by kind
 * of mistake (`guidance_by_category`, `guidance_by_check`,
 * `guidance_by_exception`) and `knowledge` entries (T3), checked by the schema
 * and, against expected.json, by `recode tasks validate`.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILTIN_TASKS, listTaskIds, loadTaskDir, readTaskFiles } from "../../src/cli/task-fs";
import { loadTaskFromFiles, TaskFormatError } from "../../src/core/task";
import { parseExpected } from "../../src/core/values";
import { feedbackKeyProblems } from "../../src/python/validate";

const base = readTaskFiles(join(BUILTIN_TASKS, "pass-at-k"));
const meta = JSON.parse(base["task.json"] as string);

/** pass-at-k with `extra` merged into its first interface. */
function withFirst(extra: Record<string, unknown>) {
  const m = structuredClone(meta);
  m.interfaces[0] = { ...m.interfaces[0], ...extra };
  return loadTaskFromFiles("pass-at-k", { ...base, "task.json": JSON.stringify(m, null, 2) });
}

function formatError(extra: Record<string, unknown>): TaskFormatError {
  try {
    withFirst(extra);
  } catch (e) {
    if (e instanceof TaskFormatError) return e;
    throw e;
  }
  throw new Error("expected a TaskFormatError");
}

describe("guidance by kind and knowledge in task.json", () => {
  it("accepts texts by category, check and exception, and knowledge entries", () => {
    const task = withFirst({
      guidance_by_category: { T1: "Fix the crash.", T3: "Mind the constant." },
      guidance_by_check: { pass_at_k_small: "Use the product form." },
      guidance_by_exception: { OverflowError: "Do not form factorials as floats." },
      knowledge: [{ checks: ["pass_at_k_large"], ratio: 1.5, detail: "A constant the paper does not state." }],
    });
    const itf = task.meta.interfaces[0];
    expect(itf?.guidance_by_category?.T1).toBe("Fix the crash.");
    expect(itf?.knowledge?.[0]?.ratio).toBe(1.5);
  });

  it("refuses an unknown category, an empty text, a bad exception name, and knowledge without checks or detail", () => {
    expect(formatError({ guidance_by_category: { T5: "x" } }).field).toBe("interfaces[0].guidance_by_category.T5");
    expect(formatError({ guidance_by_category: { T2: "" } }).problem).toContain("an L3 text in words");
    expect(formatError({ guidance_by_exception: { "not an error": "x" } }).problem).toContain("keys are exception types");
    expect(formatError({ guidance_by_exception: { ZeroDivisionError: "" } }).problem).toContain("an L3 text in words");
    expect(formatError({ knowledge: [{ checks: [], detail: "d" }] }).problem).toContain("name at least one check");
    expect(formatError({ knowledge: [{ checks: ["k"] }] }).field).toBe("interfaces[0].knowledge[0].detail");
    expect(formatError({ knowledge: [{ checks: ["k"], detail: "d", ratio: -1 }] }).field).toBe("interfaces[0].knowledge[0].ratio");
  });

  it("validation names a check key that no test of the interface makes", () => {
    const task = withFirst({
      guidance_by_check: { naive_values: "Another interface's check." },
      knowledge: [{ checks: ["pass_at_k_small", "no_such_check"], detail: "d" }],
    });
    const tests = parseExpected(task.expected as string, "expected.json").tests ?? new Map();
    expect(feedbackKeyProblems(task, tests)).toEqual([
      "interfaces[0].guidance_by_check.naive_values: naive_values is not a check of a pass_at_k test",
      "interfaces[0].knowledge[0].checks[1]: no_such_check is not a check of a pass_at_k test",
    ]);
  });

  it("every built-in task names only recorded checks, and one marks knowledge", () => {
    let knowledge = 0;
    for (const id of listTaskIds()) {
      const task = loadTaskDir(BUILTIN_TASKS, id);
      const tests = parseExpected(task.expected as string, `${id}/expected.json`).tests ?? new Map();
      expect(feedbackKeyProblems(task, tests), id).toEqual([]);
      knowledge += task.meta.interfaces.filter((i) => i.knowledge).length;
    }
    expect(knowledge).toBeGreaterThan(0);
  });
});
