/**
 * The command-line side of the task gates: the options `recode tasks
 * validate` passes to them, and `recode tasks doc`, which writes docs/tasks.md.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import type { Command } from "commander";
import { plural } from "../../core/plural";
import { NATIVE_SANDBOXES, type NativeSandbox } from "../../python/native-sandbox";
import { createRuntime } from "../../python/node";
import type { PythonRuntime } from "../../python/runtime";
import { CommandInputError } from "../command-error";
import { packageOptions } from "../run";
import { BUILTIN_TASKS, listTaskIds, loadTaskDir, placeTaskArgs, resolveTaskIds, taskFoldersToHide } from "../task-fs";
import { gatesBelow, measureTaskFacts, type TaskFacts, tasksMarkdown } from "./doc";
import { type TaskGateOptions, TaskGates } from "./gates";
import { DEFAULT_MUTANTS } from "./mutation";

/**
 * The `--mutants` value as a whole number >= 1.
 * @throws CommandInputError (exit code 2) for anything else.
 */
export function parseMutants(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MUTANTS;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new CommandInputError(`--mutants: "${text}" must be a whole number >= 1`);
  return n;
}

/**
 * Gate options from a command's options (`--mutants`) and its runtime options
 * (package source, python3, sandbox policy).
 * @throws CommandInputError for a bad `--mutants`.
 */
export function gateOptions(
  o: { mutants?: string },
  runtime: { packageBaseUrl?: string; python?: string; sandbox?: NativeSandbox; hide?: readonly string[] },
): TaskGateOptions {
  return {
    mutants: parseMutants(o.mutants),
    ...(runtime.python ? { python: runtime.python } : {}),
    sandbox: runtime.sandbox,
    hide: runtime.hide ?? [],
    pyodide: runtime.packageBaseUrl ? { packageBaseUrl: runtime.packageBaseUrl } : {},
  };
}

interface DocOptions {
  dir: string;
  out: string;
  mutants: string;
  mutation: boolean;
  sandbox: string;
  packageSource?: string;
}

/** Register `recode tasks doc` on the `tasks` command. `out` receives the progress lines; `setCode` the exit code. */
export function addTasksDocCommand(tasks: Command, out: (s: string) => void, setCode: (c: number) => void): void {
  tasks
    .command("doc")
    .description("measure every task (run time, coverage in both backends, mutation score) and write docs/tasks.md")
    .argument("[tasks...]", "task ids or globs in --dir, or task folders (default: all of --dir)")
    .option("--dir <folder>", "the folder that holds the task folders", BUILTIN_TASKS)
    .option("--out <file>", "the document to write", "docs/tasks.md")
    .option("--mutants <n>", "most mutants per task", String(DEFAULT_MUTANTS))
    .option("--no-mutation", "leave the mutation score out")
    .option("--sandbox <policy>", "where the code runs, both backends: auto | bwrap | none (docs/security.md)", "auto")
    .option("--package-source <dir-or-url>", "where Pyodide loads package wheels from")
    .action(async (args: string[], o: DocOptions, cmd: Command) => {
      const { dir, ids } = placeTaskArgs(o.dir, args, cmd.getOptionValueSource("dir") !== "default");
      o.dir = dir;
      const list = resolveTaskIds(o.dir, ids);
      // The default document is the built-in pack's, whole: a few of its tasks, or another folder's, must not replace it.
      // Another folder's tasks are written where --out says, never to a docs/tasks.md the current folder happens to have (or not).
      if (cmd.getOptionValueSource("out") === "default" && resolve(o.dir) !== BUILTIN_TASKS) {
        throw new CommandInputError(
          `the tasks of ${o.dir} are not the built-in ones: give --out <file> for their document (docs/tasks.md lists the built-in tasks)`,
        );
      }
      if (cmd.getOptionValueSource("out") === "default" && existsSync(o.out)) {
        const all = listTaskIds(o.dir).length;
        if (list.length < all) {
          throw new CommandInputError(
            `${list.length} of the ${all} tasks would replace ${o.out}, which lists every task: give --out <file> to write theirs elsewhere, or no task to measure all`,
          );
        }
      }
      const sandbox = o.sandbox as NativeSandbox;
      if (!NATIVE_SANDBOXES.includes(sandbox))
        throw new CommandInputError(`--sandbox: "${o.sandbox}" is not one of ${NATIVE_SANDBOXES.join(", ")}`);
      // The boxes hide the tasks (their solutions and recorded values) from the code they run, as for validate.
      const hide = taskFoldersToHide(o.dir, list);
      const rtOpts = { ...packageOptions(o.packageSource, null), sandbox, hide };
      const gates = new TaskGates(gateOptions(o, rtOpts));
      const runtimes: PythonRuntime[] = [createRuntime("pyodide", rtOpts), createRuntime("native", rtOpts)];
      const facts: TaskFacts[] = [];
      let problems = 0;
      try {
        for (const rt of runtimes) await rt.ready();
        const native = runtimes[1] as PythonRuntime;
        for (const id of list) {
          let f: TaskFacts;
          try {
            f = await measureTaskFacts(loadTaskDir(o.dir, id), runtimes, gates, o.mutation ? native : null);
          } catch (e) {
            f = { id, task: null, error: (e as Error).message, coverage: {}, runMs: {}, tests: [] };
          }
          const errors = [f.error, ...Object.values(f.coverage), ...Object.values(f.runMs), f.mutation].filter(
            (v) => v instanceof Error || typeof v === "string",
          );
          problems += errors.length > 0 ? 1 : 0;
          const below = gatesBelow(f);
          const status = f.note
            ? `not measured (${f.note})`
            : errors.length
              ? `measured with problems (${errors.map((e) => (e instanceof Error ? e.message : e)).join("; ")})`
              : below.length
                ? `measured, below the gates: ${below.join(", ")} (recode tasks validate lists what is missing)`
                : "measured";
          out(`${id}: ${status}\n`);
          facts.push(f);
        }
        const interpreters = { pyodide: runtimes[0]?.version, native: runtimes[1]?.version };
        mkdirSync(dirname(o.out), { recursive: true });
        // (The link to the gates' document works from wherever the file is written.)
        const gatesDoc = relative(dirname(resolve(o.out)), resolve(BUILTIN_TASKS, "..", "docs", "tasks-gates.md"))
          .split(sep)
          .join("/");
        writeFileSync(o.out, tasksMarkdown(facts, interpreters, parseMutants(o.mutants), gatesDoc));
        out(`wrote ${o.out} (${plural(facts.length, "task")})\n`);
      } finally {
        gates.dispose();
        for (const rt of runtimes) await rt.dispose();
      }
      if (problems > 0) setCode(1);
    });
}
