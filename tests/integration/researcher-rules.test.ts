import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { renderFeedback } from "../../src/core/feedback";
import { createRulesResearcher } from "../../src/core/researchers";
import { createRuntime } from "../../src/python/node";
import type { PythonRuntime } from "../../src/python/runtime";
import { taskRunRequest } from "../../src/python/runtime";
import { applyCorrection } from "../../src/ui/feedback/apply";
import { knownBug, knownBugTasks } from "../helpers/known-bugs";

const cases: [string, string, string][] = knownBugTasks().map((id) => {
  const bug = knownBug(id);
  return [id, bug.code, bug.interface];
});

describe("rules researcher on the known-bug files (real Pyodide)", () => {
  let runtime: PythonRuntime;
  beforeAll(async () => {
    runtime = createRuntime("pyodide");
    await runtime.ready();
  });
  afterAll(async () => {
    await runtime?.dispose();
  });

  it("has known-bug files to check", () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases)("%s: names the buggy interface, and its L4 code fixes every test", async (id, buggy, bugIn) => {
    const task = loadTaskDir(BUILTIN_TASKS, id);
    const run = await runtime.run(taskRunRequest(task, buggy));
    expect(run.allPassed, `${id}: the known-bug file should fail some test`).toBe(false);

    const record = await createRulesResearcher().review({ task, code: buggy, run, turn: 0 });
    const item = record.items.find((i) => i.interface === bugIn);
    expect(item, `${id}: items name ${record.items.map((i) => i.interface).join(", ")}`).toBeDefined();
    if (!item) return;
    expect(item.description.length).toBeGreaterThan(0);
    // L3 ends with one of the task's authored texts for the interface, chosen by the kind of mistake.
    const itf = task.meta.interfaces.find((i) => i.name === bugIn);
    const authored = [
      itf?.guidance,
      ...Object.values(itf?.guidance_by_category ?? {}),
      ...Object.values(itf?.guidance_by_check ?? {}),
      ...Object.values(itf?.guidance_by_exception ?? {}),
    ].filter((x): x is string => typeof x === "string");
    expect(
      authored.some((text) => item.actionable_feedback.endsWith(text)),
      item.actionable_feedback,
    ).toBe(true);

    // L4 reveals the canonical definition as a fenced block; L3 does not.
    expect(renderFeedback(record, 3)).not.toContain("```");
    const code = /```python\n([\s\S]*?)\n```/.exec(item.direct_code_feedback)?.[1];
    expect(code, "direct code is a fenced python block").toBeDefined();
    const fixed = applyCorrection(buggy, item.direct_code_feedback);
    const rerun = await runtime.run(taskRunRequest(task, fixed));
    const failing = rerun.tests.filter((t) => t.status !== "passed").map((t) => `${t.id}: ${t.message}`);
    expect(rerun.collectionError).toBeNull();
    expect(failing).toEqual([]);
    expect(rerun.allPassed).toBe(true);
  });

  it.each(cases.map(([id]) => id))("%s: the starter stub and an empty file get T0 for every interface", async (id) => {
    const task = loadTaskDir(BUILTIN_TASKS, id);
    for (const code of [task.starter, ""]) {
      const run = await runtime.run(taskRunRequest(task, code));
      expect(run.allPassed).toBe(false);
      const record = await createRulesResearcher().review({ task, code, run, turn: 0 });
      for (const itf of task.meta.interfaces) {
        const item = record.items.find((i) => i.interface === itf.name);
        expect(item?.category, `${id} ${code ? "starter" : "empty file"}: ${itf.name}`).toBe("T0");
      }
    }
  });
});
