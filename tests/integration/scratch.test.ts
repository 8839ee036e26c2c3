/** The scratch console's run: a snippet beside the draft and the task's repository, in the tests' box, nothing checked. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { createRuntime } from "../../src/python/node";
import type { PythonRuntime } from "../../src/python/runtime";
import { SCRATCH_TEST_ID, scratchRunRequest } from "../../src/python/scratch";

const task = loadTaskDir(BUILTIN_TASKS, "pass-at-k");

describe.each(["pyodide", "native"] as const)("%s: the scratch console", (backend) => {
  let rt: PythonRuntime;
  beforeAll(async () => {
    rt = createRuntime(backend, {});
    await rt.ready();
  });
  afterAll(async () => {
    await rt.dispose();
  });

  it("runs a snippet against the draft: prints, and shows the last expression's value", async () => {
    const snippet = "from evalkit.metrics import pass_at_k\nprint('hello')\nround(pass_at_k(5, 2, 1), 6)";
    const r = await rt.run(scratchRunRequest(task, task.canonical, snippet));
    const t = r.tests.find((x) => x.id === SCRATCH_TEST_ID);
    expect(t?.status, t?.message).toBe("passed");
    expect(t?.stdout).toBe("hello\n0.4\n");
  });

  it("an error in the snippet shows its message and line; the draft's own error shows where it is", async () => {
    const r = await rt.run(scratchRunRequest(task, task.canonical, "x = 1\ny = x / 0\n"));
    const t = r.tests.find((x) => x.id === SCRATCH_TEST_ID);
    expect(t?.status).toBe("error");
    expect(t?.message).toContain("ZeroDivisionError");
    expect(t?.traceback).toContain('scratch_console.py", line 2');
    const broken = await rt.run(scratchRunRequest(task, "def pass_at_k(:\n", "import evalkit.metrics"));
    const b = broken.tests.find((x) => x.id === SCRATCH_TEST_ID);
    expect(b?.message).toContain("SyntaxError");
  });

  it("a snippet is stopped at the task's time limit", async () => {
    const r = await rt.run({ ...scratchRunRequest(task, task.canonical, "while True:\n    pass\n"), timeLimitMs: 1500 });
    expect(r.tests.find((x) => x.id === SCRATCH_TEST_ID)?.status).toBe("timeout");
  });
});
