import { describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { createAgent } from "../../src/core/agent";
import { createScriptedModel } from "../../src/core/providers";

describe("READ of names that only exist on plain objects", () => {
  it.each(["constructor", "__proto__", "toString", "hasOwnProperty"])("READ %s is an INVALID step, not a crash", async (name) => {
    const task = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
    const model = createScriptedModel([`Reflection: look.\nAction: READ ${name}`, "Reflection: done.\nAction: SUBMIT"], "read.json");
    const out = await createAgent("agent", model).runTurn({ task, turn: 0, currentCode: task.starter, feedback: null });
    expect(out.actions[0]?.type).toBe("INVALID");
    expect(out.actions[0]?.result).toContain(name);
    expect(out.code).toBe(task.starter);
  });
});
