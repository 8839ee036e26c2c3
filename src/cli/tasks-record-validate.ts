/**
 * `recode tasks record` and `recode tasks validate`: record a task's expected.json from its canonical solution, and
 * run every validation check (src/python/validate.ts) and the gates (task-gates/) on each backend asked for.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Command, Option } from "commander";
import { plural } from "../core/plural";
import { loadTaskFromFiles } from "../core/task";
import { parseExpected } from "../core/values";
import { NATIVE_SANDBOXES, type NativeSandbox } from "../python/native-sandbox";
import { createRuntime } from "../python/node";
import type { PythonRuntime } from "../python/runtime";
import {
  BACKEND_FREE_CHECKS,
  type CheckOutcome,
  recordExpected,
  recordsErrorsOnly,
  skippedForPackages,
  VALIDATION_CHECKS,
  type ValidationFindings,
  validateTask,
} from "../python/validate";
import { CommandInputError } from "./command-error";
import { packageOptions } from "./run";
import { sharedTaskIds, validateSharedTasks } from "./shared-tasks";
import { loadTaskDir, placeTaskArgs, readTaskFiles, recordCommandFor, resolveTaskIds, taskFoldersToHide } from "./task-fs";
import { gateOptions } from "./task-gates/command";
import { TaskGates } from "./task-gates/gates";
import { pad } from "./terminal-text";

/** Bad input to a command (exit 2). */
export class UsageError extends CommandInputError {}

/** The `--dir` option of the `tasks` commands: flags, description, default. */
export type DirOption = readonly [string, string, string];

function runtimeOptions(opts: { packageSource?: string; python?: string; sandbox?: string; dir?: string }, ids: readonly string[] = []) {
  const sandbox = (opts.sandbox ?? "auto") as NativeSandbox;
  if (!NATIVE_SANDBOXES.includes(sandbox))
    throw new UsageError(`--sandbox: "${opts.sandbox}" is not one of ${NATIVE_SANDBOXES.join(", ")}`);
  // The tasks' folder: the boxes do not show code under test the solutions and recorded values there.
  return {
    ...packageOptions(opts.packageSource, "--native"),
    ...(opts.python ? { python: opts.python } : {}),
    sandbox,
    // And each task folder of the command, which may be a link to a folder elsewhere (the box hides its real one too).
    hide: opts.dir ? taskFoldersToHide(opts.dir, ids) : [],
  };
}

/**
 * `--backend`, the option of `recode test` and `run`, given to `tasks record|validate` by mistake.
 * @throws UsageError (exit 2) saying which option of `command` to give instead
 */
function notBackend(command: "record" | "validate", o: { backend?: string }): void {
  if (o.backend === undefined) return;
  const native = command === "validate" ? "--native (Pyodide and python3 side by side) or --native-only" : "--native";
  throw new UsageError(
    `tasks ${command} takes ${native} for python3, and Pyodide without an option (--backend is the option of recode test and recode run)`,
  );
}

async function withRuntime<T>(backend: "pyodide" | "native", opts: object, fn: (rt: PythonRuntime) => Promise<T>): Promise<T> {
  const rt = createRuntime(backend, opts);
  try {
    await rt.ready();
    return await fn(rt);
  } finally {
    await rt.dispose();
  }
}

interface ValidateOptions {
  dir: string;
  /** Not an option of validate: given by mistake (`notBackend`). */
  backend?: string;
  native?: boolean;
  nativeOnly?: boolean;
  packageSource?: string;
  sandbox?: string;
  /** Python for native runs and for shared tasks (pytest). */
  python?: string;
  /** false with --no-mutation. */
  mutation: boolean;
  mutants: string;
  mutationBackend?: string;
}

/** The backend the mutants run on: `--mutation-backend`, else the last validated (native with --native). */
function mutationBackendOf(o: ValidateOptions, backends: readonly ("pyodide" | "native")[]): "pyodide" | "native" | undefined {
  const b = o.mutationBackend ?? backends[backends.length - 1];
  if (!backends.some((v) => v === b))
    throw new UsageError(`--mutation-backend: "${b}" must be one of the backends validated (${backends.join(", ")})`);
  return b as "pyodide" | "native";
}

/** Checks whose detail `validate` prints when they pass too. */
const ALWAYS_SHOWN: readonly string[] = ["within time limit", "canonical passes", "coverage >= 80%", "mutation score >= 80%"];

/** Add `tasks record` to `tasks`: writes expected.json; exit 1 when a task could not be recorded. */
export function addTasksRecordCommand(tasks: Command, dirOpt: DirOption, out: (s: string) => void, setCode: (c: number) => void): void {
  tasks
    .command("record")
    .description("run canonical.py in record mode and write expected.json")
    .argument("[tasks...]", "task ids or globs in --dir, or task folders (default: all of --dir)")
    .option(...dirOpt)
    .option("--native", "record with python3 instead of Pyodide")
    .addOption(new Option("--backend <name>").hideHelp())
    .option("--sandbox <policy>", "where candidate code runs, both backends: auto | bwrap | none (docs/security.md)", "auto")
    .option("--package-source <dir-or-url>", "where Pyodide loads package wheels from")
    .action(
      async (
        args: string[],
        o: { dir: string; native?: boolean; packageSource?: string; sandbox?: string; backend?: string },
        cmd: Command,
      ) => {
        notBackend("record", o);
        const { dir, ids } = placeTaskArgs(o.dir, args, cmd.getOptionValueSource("dir") !== "default");
        o.dir = dir;
        const list = resolveTaskIds(o.dir, ids);
        let failed = 0;
        await withRuntime(o.native ? "native" : "pyodide", runtimeOptions(o, list), async (rt) => {
          for (const id of list) {
            try {
              // The file being rewritten is not read: a broken expected.json can be recorded again.
              const files = readTaskFiles(join(o.dir, id));
              delete files["expected.json"];
              const task = loadTaskFromFiles(id, files);
              if (task.meta.isolation === "shared") {
                out(`skipped ${id}: isolation "shared" (its tests compare with canonical.py as they run; nothing is recorded)\n`);
                continue;
              }
              const text = await recordExpected(task, rt);
              writeFileSync(join(o.dir, task.id, "expected.json"), text);
              const doc = JSON.parse(text) as { values: Record<string, unknown>; tests: Record<string, string[]> };
              out(
                `recorded ${task.id}: ${Object.keys(doc.values).length} values from ${Object.keys(doc.tests).length} tests (${rt.version})\n`,
              );
              // Recorded all the same (while tests are being written), but said now: validate fails such tests.
              const unchecked = Object.keys(doc.tests)
                .filter((id) => doc.tests[id]?.length === 0)
                .sort();
              if (unchecked.length > 0) {
                const many = unchecked.length === 1 ? "1 test makes" : `${unchecked.length} tests make`;
                out(
                  `  ${many} no check(), and validate fails them (every test must check a value: docs/task-format.md): ${unchecked.join(", ")}\n`,
                );
              }
              const errorsOnly = [...parseExpected(text).values].filter(([, v]) => recordsErrorsOnly(v)).map(([key]) => key);
              if (errorsOnly.length > 0) {
                out(
                  `  ${plural(errorsOnly.length, "check")} of outcome() ${errorsOnly.length === 1 ? "records" : "record"} errors alone, and validate fails ${errorsOnly.length === 1 ? "it" : "them"} (put valid calls through the same outcome() in each: docs/task-format.md): ${errorsOnly.slice(0, 8).join(", ")}${errorsOnly.length > 8 ? ", ..." : ""}\n`,
                );
              }
            } catch (e) {
              failed += 1;
              out(`FAILED ${id}: ${(e as Error).message}\n`);
            }
          }
        });
        if (failed > 0) {
          out(`\n${failed} of ${plural(list.length, "task")} not recorded\n`);
          setCode(1);
        }
      },
    );
}

/** Add `tasks validate` to `tasks`: prints a table of checks per task and backend; exit 1 when a check failed. */
export function addTasksValidateCommand(tasks: Command, dirOpt: DirOption, out: (s: string) => void, setCode: (c: number) => void): void {
  tasks
    .command("validate")
    .description(
      "check every task: schema, canonical passes, starter fails, re-record, determinism, interfaces, time, coverage, mutation score",
    )
    .argument("[tasks...]", "task ids or globs in --dir, or task folders (default: all of --dir)")
    .option(...dirOpt)
    .option("--native", "also run every check under python3 and show both side by side")
    .option("--native-only", "run the checks under python3 only")
    .addOption(new Option("--backend <name>").hideHelp())
    .option("--sandbox <policy>", "where candidate code runs, both backends: auto | bwrap | none (docs/security.md)", "auto")
    .option("--package-source <dir-or-url>", "where Pyodide loads package wheels from")
    .option("--python <path>", "Python of native runs, and of shared tasks, which run under pytest (default python3)")
    .option("--no-mutation", "skip the mutation score gate (the slow one) while iterating")
    .option("--mutants <n>", "most mutants per task for the mutation score gate", "60")
    .option("--mutation-backend <name>", "where mutants run: native (the default with --native) | pyodide (must be validated too)")
    .action(async (args: string[], o: ValidateOptions, cmd: Command) => {
      notBackend("validate", o);
      const { dir, ids } = placeTaskArgs(o.dir, args, cmd.getOptionValueSource("dir") !== "default");
      o.dir = dir;
      const all = resolveTaskIds(o.dir, ids);
      // Shared tasks (imported official RECODE-H tasks) run under pytest with --python, in a section of their own.
      const shared = sharedTaskIds(o.dir, all);
      const list = all.filter((id) => !shared.includes(id));
      const backends: ("pyodide" | "native")[] = o.nativeOnly ? ["native"] : o.native ? ["pyodide", "native"] : ["pyodide"];
      const results = new Map<string, Map<string, CheckOutcome[] | string>>();
      // Coverage in every backend; the mutation score on one, native when it is validated (docs/tasks-gates.md).
      const gates = new TaskGates(gateOptions(o, runtimeOptions(o, list)));
      const mutationBackend = o.mutation ? mutationBackendOf(o, backends) : undefined;
      for (const b of list.length > 0 ? backends : []) {
        await withRuntime(b, runtimeOptions(o, list), async (rt) => {
          for (const id of list) {
            const row = results.get(id) ?? new Map<string, CheckOutcome[] | string>();
            results.set(id, row);
            try {
              const task = loadTaskDir(o.dir, id);
              const findings: ValidationFindings = {};
              const checks = await validateTask(task, rt, recordCommandFor(o.dir, task.id), findings);
              const judged = findings.judged ?? task;
              row.set(
                b,
                skippedForPackages(checks) ? checks : [...checks, ...(await gates.checks(judged, rt, checks, b === mutationBackend))],
              );
            } catch (e) {
              row.set(b, (e as Error).message);
            }
          }
        }).finally(() => gates.dispose());
      }
      let failed = 0;
      const w = 22;
      // (Only shared tasks asked for: their own table follows, and this one would be an empty header.)
      if (results.size > 0) out(`${pad("task / check", 48)}${backends.map((b) => pad(b, w)).join("")}\n`);
      for (const [id, row] of results) {
        out(`${id}\n`);
        const loadErr = backends.map((b) => row.get(b)).find((v) => typeof v === "string");
        if (typeof loadErr === "string") {
          failed += 1;
          out(`  ${pad("schema", 46)}${backends.map(() => pad("FAIL", w)).join("")}\n    ${loadErr}\n`);
          continue;
        }
        out(`  ${pad("schema", 46)}${backends.map(() => pad("ok", w)).join("")}\n`);
        if (backends.every((b) => skippedForPackages(row.get(b) as CheckOutcome[]))) {
          // Checked nowhere is not valid: its packages are missing in every backend asked for.
          failed += 1;
          const packages = loadTaskDir(o.dir, id).meta.packages.join(", ");
          out(
            `  ${pad("packages loaded", 46)}${backends.map(() => pad("FAIL", w)).join("")}\n    no backend could load ${packages}: add --native, or give Pyodide a --package-source (the checks that run the tests were not made)\n`,
          );
        }
        for (const check of VALIDATION_CHECKS) {
          const cells = backends.map((b) => (row.get(b) as CheckOutcome[]).find((c) => c.name === check));
          if (cells.every((c) => c === undefined)) continue;
          out(
            `  ${pad(check, 46)}${cells.map((c) => pad(c === undefined ? "-" : c.skipped ? "skipped" : c.ok ? "ok" : "FAIL", w)).join("")}\n`,
          );
          // A failed check counts once, however many backends it failed in; a detail every backend gives
          // alike (the formulas, the starting text: nothing about the backend) is shown once, and a check that
          // reads the task's files alone names no backend.
          if (cells.some((c) => c !== undefined && !c.ok)) failed += 1;
          const shown = cells.map((c) => (c && (!c.ok || c.skipped || c.advice || ALWAYS_SHOWN.includes(check)) ? c.detail : null));
          if ((backends.length > 1 || BACKEND_FREE_CHECKS.includes(check)) && shown.every((d) => d !== null && d === shown[0])) {
            out(`    ${(shown[0] as string).replaceAll("\n", "\n      ")}\n`);
          } else {
            shown.forEach((d, i) => {
              if (d !== null) out(`    ${backends[i]}: ${d.replaceAll("\n", "\n      ")}\n`);
            });
          }
        }
      }
      failed += await validateSharedTasks(o.dir, shared, o, out);
      out(
        failed === 0
          ? all.length === 1
            ? "\nthe task is valid\n"
            : `\nall ${all.length} tasks valid\n`
          : `\n${plural(failed, "check")} failed\n`,
      );
      if (failed > 0) setCode(1);
    });
}
