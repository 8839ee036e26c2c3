/**
 * Built-in tasks whose error tests are `with self.assertRaises(...)` blocks, for the attacks on the frame wall.
 *
 * The built-in tasks check their errors with `recode_check.outcome`, which the host compares: code under test
 * that knew an error was expected would gain nothing. A test.py of another author may still use
 * `assertRaises`, whose verdict rests on code under test not learning where it is called from
 * (docs/security.md, "Verdicts"). The attacks on that run against these: the built-in folder with the test.py
 * and expected.json it had before its error tests became checks (tests/fixtures/raises-tasks/<id>/).
 */
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import type { Task } from "../../src/core/task";

const FIXTURES = join(import.meta.dirname, "../fixtures/raises-tasks");

/** The tasks kept with `assertRaises` error tests. */
export const RAISES_TASK_IDS = ["min-p-sampling", "bm25-ranking", "chronos-mean-scale-tokenizer"] as const;

let folder: string | null = null;

/** A folder (made once per process, under the system's temporary folder) holding the tasks of {@link RAISES_TASK_IDS}. */
export function raisesTasksDir(): string {
  if (folder) return folder;
  const dir = mkdtempSync(join(tmpdir(), "recode-raises-tasks-"));
  for (const id of RAISES_TASK_IDS) {
    cpSync(join(BUILTIN_TASKS, id), join(dir, id), { recursive: true });
    cpSync(join(FIXTURES, id), join(dir, id), { recursive: true });
  }
  folder = dir;
  return dir;
}

/** One task of {@link RAISES_TASK_IDS}, loaded as `recode` loads a task folder. Throws for another id. */
export function raisesTask(id: (typeof RAISES_TASK_IDS)[number]): Task {
  if (!RAISES_TASK_IDS.includes(id)) throw new Error(`${id} is not kept with assertRaises error tests (${RAISES_TASK_IDS.join(", ")})`);
  return loadTaskDir(raisesTasksDir(), id);
}
