/**
 * The `recode` commands' side of shared tasks (`isolation: "shared"`,
 * imported official RECODE-H tasks): which tasks of a folder are shared, their
 * validation section of `recode tasks validate`, and `recode test` on one.
 * They run under pytest with the Python named by `--python` (default python3).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isSharedTask, type SharedTask } from "../core/pytest-task";
import type { RunResult } from "../core/results";
import type { NativeSandbox } from "../python/native-sandbox";
import { PytestRuntime } from "../python/pytest-runtime";
import { SHARED_CHECKS, type SharedCheckOutcome, validateSharedTask } from "../python/validate-shared";
import { CommandInputError } from "./command-error";
import { loadTaskDir, taskFoldersToHide } from "./task-fs";
import { pad } from "./terminal-text";

/** Options of the shared-task commands. */
export interface SharedRunOptions {
  /** The Python with pytest (and the tasks' packages). Default "python3". */
  python?: string;
  /** Box of the runs: auto | bwrap | none. Default auto. */
  sandbox?: string;
  /** Host folders the box does not show: the task's folder and the folder of tasks it is in (PytestRuntimeOptions). */
  hide?: readonly string[];
}

/**
 * The ids among `ids` whose task.json says `isolation: "shared"`. A task.json
 * that cannot be read counts as not shared (the ordinary checks report it).
 */
export function sharedTaskIds(dir: string, ids: readonly string[]): string[] {
  return ids.filter((id) => {
    try {
      const meta = JSON.parse(readFileSync(join(dir, id, "task.json"), "utf8").replace(/^\uFEFF/, "")) as { isolation?: unknown };
      return meta.isolation === "shared";
    } catch {
      return false;
    }
  });
}

/**
 * Validate shared tasks and print their table (one column: pytest with the
 * named Python). Returns the number of failed checks (a task that does not
 * load counts as one); 0 when `ids` is empty (nothing is printed then).
 * @throws CommandInputError when the Python or the sandbox cannot start.
 */
export async function validateSharedTasks(
  dir: string,
  ids: readonly string[],
  opts: SharedRunOptions,
  out: (s: string) => void,
): Promise<number> {
  if (ids.length === 0) return 0;
  const rt = new PytestRuntime({
    python: opts.python,
    sandbox: (opts.sandbox ?? "auto") as NativeSandbox,
    // The tasks folder and each task's: no run reads another task's solution or values.
    hide: taskFoldersToHide(dir, ids),
  });
  try {
    await rt.ready();
  } catch (e) {
    throw new CommandInputError((e as Error).message);
  }
  let failed = 0;
  out(`\n${pad("shared task / check", 48)}pytest, ${rt.version}\n`);
  // (As tasks doc says of them: the gates grade recorded values, which these tasks have none of.)
  out("(imported tasks run under pytest beside canonical.py: the coverage and mutation gates do not apply to them)\n");
  for (const id of ids) {
    out(`${id}\n`);
    let task: SharedTask;
    let checks: SharedCheckOutcome[];
    try {
      const t = loadTaskDir(dir, id);
      if (!isSharedTask(t)) throw new Error(`task ${id}: task.json: not a shared task`);
      task = t;
      checks = await validateSharedTask(task, rt);
    } catch (e) {
      failed += 1;
      out(`  ${pad("schema", 46)}FAIL\n    ${(e as Error).message}\n`);
      continue;
    }
    out(`  ${pad("schema", 46)}ok\n`);
    for (const name of SHARED_CHECKS) {
      const c = checks.find((x) => x.name === name);
      if (!c) continue;
      out(`  ${pad(name, 46)}${c.ok === null ? "-" : c.ok ? "ok" : "FAIL"}\n`);
      if (c.ok === false) failed += 1;
      if (c.ok !== true || name === "canonical passes" || name === "within time limit")
        out(`    ${c.detail.replaceAll("\n", "\n      ")}\n`);
    }
  }
  return failed;
}

/**
 * `recode test` on a shared task: run `candidate` under pytest with the named
 * Python.
 * @throws CommandInputError when the Python or the sandbox cannot start.
 */
export async function runSharedTest(
  task: SharedTask,
  candidate: string,
  opts: SharedRunOptions,
): Promise<{ result: RunResult; version: string }> {
  const rt = new PytestRuntime({ python: opts.python, sandbox: (opts.sandbox ?? "auto") as NativeSandbox, hide: opts.hide ?? [] });
  try {
    await rt.ready();
  } catch (e) {
    throw new CommandInputError((e as Error).message);
  }
  return { result: await rt.run(task, candidate), version: rt.version };
}
