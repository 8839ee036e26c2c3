/**
 * The rules researcher's L4 code applies cleanly and passes: for every
 * built-in task and several wrong candidates, the direct code of every item
 * is taken out of its fence the way the baseline agent takes code out of a
 * reply, put in place of the candidate's definitions the way the page's
 * "Apply to editor" does, and the tests then pass under real python3.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, listTaskIds, loadTaskDir } from "../../src/cli/task-fs";
import { extractPythonCode } from "../../src/core/agent/parse";
import { applyDirectCode } from "../../src/core/apply-code";
import { listStatements } from "../../src/core/canonical";
import { createRulesResearcher } from "../../src/core/researchers";
import { repoHelpers } from "../../src/core/researchers/rules-repo";
import type { Task } from "../../src/core/task";
import { createRuntime } from "../../src/python/node";
import type { PythonRuntime } from "../../src/python/runtime";
import { taskRunRequest } from "../../src/python/runtime";
import { applyCorrection } from "../../src/ui/feedback/apply";
import { knownBug, knownBugTasks } from "../helpers/known-bugs";

/** canonical.py without its top-level import statements. */
function withoutImports(task: Task): string {
  const lines = task.canonical.split("\n");
  for (const s of listStatements(task.canonical).reverse())
    if (s.kind === "import") lines.splice(s.startLine - 1, s.endLine - s.startLine + 1);
  return lines.join("\n");
}

/** canonical.py without the definition of its last interface (the tests cannot import it). */
function withoutLastInterface(task: Task): string {
  const last = task.meta.interfaces[task.meta.interfaces.length - 1]?.name;
  const def = listStatements(task.canonical).find((s) => (s.kind === "def" || s.kind === "class") && s.names[0] === last);
  if (!def) throw new Error(`${task.id}: canonical.py has no def or class ${last}`);
  const lines = task.canonical.split("\n");
  lines.splice(def.startLine - 1, def.endLine - def.startLine + 1);
  return lines.join("\n");
}

/** canonical.py with its own broken copy of the first repository helper it imports (defined after the imports, so it wins). */
function ownCopyOfHelper(task: Task): string {
  const helper = repoHelpers(task)[0];
  if (!helper) throw new Error(`${task.id}: canonical.py imports no repository helper`);
  const lastImport = listStatements(task.canonical)
    .filter((s) => s.kind === "import")
    .pop();
  const lines = task.canonical.split("\n");
  const at = lastImport ? lastImport.endLine : 0;
  lines.splice(at, 0, "", "", `def ${helper.local}(*args, **kwargs):`, '    raise RuntimeError("an own copy of a repository helper")');
  return lines.join("\n");
}

const candidates: [string, (task: Task) => string][] = [
  ["the starter", (task) => task.starter],
  ["an empty file", () => ""],
  ["canonical.py without its imports", withoutImports],
  ["canonical.py without its last interface", withoutLastInterface],
  ["canonical.py with an own copy of a repository helper", ownCopyOfHelper],
  ["the known-bug file", (task) => knownBug(task.id).code],
];

const cases = listTaskIds().flatMap((id) =>
  candidates
    .filter(([what]) => what !== "the known-bug file" || knownBugTasks().includes(id))
    .map(([what, make]) => [id, what, make] as const),
);

describe("rules researcher L4 code (real python3)", () => {
  let runtime: PythonRuntime;
  beforeAll(async () => {
    runtime = createRuntime("native");
    await runtime.ready();
  });
  afterAll(async () => {
    await runtime?.dispose();
  });

  it("covers every built-in task", () => {
    expect(new Set(cases.map(([id]) => id)).size).toBe(listTaskIds().length);
  });

  const check = async (id: string, what: string, make: (task: Task) => string) => {
    const task = loadTaskDir(BUILTIN_TASKS, id);
    const wrong = make(task);
    const run = await runtime.run(taskRunRequest(task, wrong));
    expect(run.allPassed, `${id}: ${what} should fail some test`).toBe(false);
    const record = await createRulesResearcher().review({ task, code: wrong, run, turn: 0 });
    expect(record.items.length).toBeGreaterThan(0);

    let code = wrong;
    for (const item of record.items) {
      // The agent's way of taking code out of a reply, and the page's way of putting it in.
      const fixed = applyDirectCode(code, extractPythonCode(item.direct_code_feedback));
      expect(fixed).toBe(applyCorrection(code, item.direct_code_feedback));
      code = fixed;
    }
    const rerun = await runtime.run(taskRunRequest(task, code));
    const failing = rerun.tests.filter((t) => t.status !== "passed").map((t) => `${t.id}: ${t.message}`);
    expect(rerun.collectionError, `${id}, ${what}: ${rerun.collectionError?.message}\n${code}`).toBeNull();
    expect(failing, `${id}, ${what}: items ${record.items.map((i) => `${i.interface} ${i.category}`).join(", ")}\n${code}`).toEqual([]);
    expect(rerun.allPassed).toBe(true);
  };
  it.each(cases)("%s, %s: applying every item's L4 code makes every test pass", check);
});
