/**
 * The scratch console's run: a snippet of Python run against the current
 * draft and the task's repository, in the same box and time limit as the
 * tests, but instead of them (nothing is checked or recorded). A final
 * expression's value is printed, as in Python's interactive console.
 */
import type { Task } from "../core/task";
import { type RunRequest, taskRunRequest } from "./runtime";

/** The test id of a console run (one test, whose output is the snippet's). */
export const SCRATCH_TEST_ID = "Console.test_snippet";

/** The file name the snippet is compiled under (in the run folder, so its lines show in tracebacks). */
export const SCRATCH_FILE = "scratch_console.py";

/**
 * The run of `snippet` beside `candidate` (the target file) and the task's
 * repository: one test that executes it, with no recorded values.
 * @param snippet Python source; its last statement, when an expression, is printed (its repr, unless None).
 */
export function scratchRunRequest(task: Task, candidate: string, snippet: string): RunRequest {
  const tests = `import ast, unittest

SOURCE = ${JSON.stringify(snippet)}


class Console(unittest.TestCase):
    def test_snippet(self):
        tree = ast.parse(SOURCE, ${JSON.stringify(SCRATCH_FILE)})
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        ns = {"__name__": "__console__"}
        exec(compile(tree, ${JSON.stringify(SCRATCH_FILE)}, "exec"), ns)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), ${JSON.stringify(SCRATCH_FILE)}, "eval"), ns)
            if value is not None:
                print(repr(value))
`;
  return taskRunRequest(task, candidate, "test", { tests, expected: null, interfaceOf: {} });
}
