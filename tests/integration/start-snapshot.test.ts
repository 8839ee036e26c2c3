/**
 * Start snapshots (src/python/start-snapshot.ts): the first start of a Pyodide
 * worker makes one, later starts load it, and a snapshot that does not load is
 * replaced without the runtime failing. Snapshots are kept without their empty pages. Runs in the box and in a worker thread.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { createNodePyodideRuntime } from "../../src/python/node";
import { taskRunRequest } from "../../src/python/runtime";
import { unpackSnapshot } from "../../src/python/snapshot-pack";

const task = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Start a runtime with its snapshots in `dir`, run the canonical solution and a wrong file, and stop it. */
async function startAndRun(dir: string, sandbox: "auto" | "none") {
  const rt = createNodePyodideRuntime({ snapshotDir: dir, sandbox });
  try {
    await rt.ready();
    const fromSnapshot = rt.startedFromSnapshot;
    const right = await rt.run(taskRunRequest(task, task.canonical));
    const wrong = await rt.run(taskRunRequest(task, "def pass_at_k(*a):\n    return 0.0\n"));
    const again = await rt.run(taskRunRequest(task, task.canonical));
    return { fromSnapshot, right: right.allPassed, wrong: wrong.counts.passed, again: again.allPassed };
  } finally {
    await rt.dispose();
  }
}

describe.each(["auto", "none"] as const)("start snapshots (sandbox %s)", (sandbox) => {
  it("the first start makes one, the next start loads it, and verdicts are the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "recode-snap-"));
    dirs.push(dir);
    const first = await startAndRun(dir, sandbox);
    expect(first).toEqual({ fromSnapshot: false, right: true, wrong: 0, again: true });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{32}\.bin$/);
    // Kept without its empty pages: about half of the memory.
    const kept = readFileSync(join(dir, files[0] as string));
    expect(unpackSnapshot(kept).length).toBeGreaterThan(kept.length * 1.5);
    const second = await startAndRun(dir, sandbox);
    expect(second).toEqual({ fromSnapshot: true, right: true, wrong: 0, again: true });
  });

  it("a snapshot that does not load is replaced, and the runtime works", async () => {
    const dir = mkdtempSync(join(tmpdir(), "recode-snap-"));
    dirs.push(dir);
    await startAndRun(dir, sandbox);
    const file = join(dir, readdirSync(dir)[0] as string);
    const good = statSync(file).size;
    for (const bad of [Buffer.from("not a snapshot"), readFileSync(file).subarray(0, good >> 1)]) {
      writeFileSync(file, bad);
      const broken = await startAndRun(dir, sandbox);
      expect(broken).toEqual({ fromSnapshot: false, right: true, wrong: 0, again: true });
      // Replaced by a whole snapshot. Its size in bytes is not fixed: which
      // pages are empty, and so left out, differs a little from start to start.
      const replaced = readFileSync(file);
      expect(() => unpackSnapshot(replaced)).not.toThrow();
      expect(replaced.length).toBeGreaterThan(good * 0.9);
      expect((await startAndRun(dir, sandbox)).fromSnapshot).toBe(true);
    }
  });
});

it("no snapshot folder: every start is a fresh one, and nothing is written", async () => {
  const rt = createNodePyodideRuntime({ snapshotDir: false, sandbox: "none" });
  try {
    await rt.ready();
    expect(rt.startedFromSnapshot).toBe(false);
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
  } finally {
    await rt.dispose();
  }
});
