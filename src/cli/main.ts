/**
 * The `recode` command: `tasks list|record|validate`, `test`, `run`, `report`, `merge`, `bench`.
 * Returns the process exit code (0 ok, 1 a check failed, 2 bad usage or input).
 */
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command, CommanderError, Option } from "commander";
import { plural } from "../core/plural";
import { loadTaskFromFiles, type Task, TaskFormatError, venueAndYear } from "../core/task";
import { NATIVE_SANDBOXES, type NativeSandbox } from "../python/native-sandbox";
import { createRuntime } from "../python/node";
import type { PythonRuntime } from "../python/runtime";
import {
  BACKEND_FREE_CHECKS,
  type CheckOutcome,
  recordExpected,
  skippedForPackages,
  VALIDATION_CHECKS,
  type ValidationFindings,
  validateTask,
} from "../python/validate";
import { addImportCommand } from "./import-recodeh";
import { loadReport, mergeRuns, reportCsv, reportJson, reportMarkdown } from "./report";
import { ConfigError, executeRun, packageOptions, prepareRun, type RunCommandOptions } from "./run";
import { sharedTaskIds, validateSharedTasks } from "./shared-tasks";
import { BUILTIN_TASKS, loadTaskDir, placeTaskArgs, readTaskFiles, recordCommandFor, resolveTaskIds, TaskFolderError } from "./task-fs";
import { addTasksDocCommand, gateOptions } from "./task-gates/command";
import { TaskGates } from "./task-gates/gates";
import { jsonLine, printable } from "./terminal-text";
import { addTestCommand, CommandInputError } from "./test-command";

class UsageError extends CommandInputError {}

function runtimeOptions(opts: { packageSource?: string; python?: string; sandbox?: string; dir?: string }, ids: readonly string[] = []) {
  const sandbox = (opts.sandbox ?? "auto") as NativeSandbox;
  if (!NATIVE_SANDBOXES.includes(sandbox))
    throw new UsageError(`--sandbox: "${opts.sandbox}" is not one of ${NATIVE_SANDBOXES.join(", ")}`);
  // The tasks' folder: the boxes do not show code under test the solutions and recorded values there.
  return {
    ...packageOptions(opts.packageSource),
    ...(opts.python ? { python: opts.python } : {}),
    sandbox,
    // And each task folder of the command, which may be a link to a folder elsewhere (the box hides its real one too).
    hide: opts.dir ? [resolve(opts.dir), ...ids.map((id) => resolve(opts.dir as string, id))] : [],
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

/** @throws UsageError (exit 2, as for any other bad input) naming the first of `paths` that does not exist. */
function mustExist(paths: string[]): void {
  const missing = paths.find((p) => !existsSync(p));
  if (missing !== undefined) throw new UsageError(`no such folder or file: ${missing}`);
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

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

/**
 * Build the command tree. `out` receives normal output; `errOut` the parser's errors (a missing argument, an unknown
 * option), by default `out` too.
 */
export function buildProgram(out: (s: string) => void, setCode: (c: number) => void, errOut: (s: string) => void = out): Command {
  const program = new Command("recode")
    .description("RECODE-H playground: research-code tasks with interactive feedback")
    .exitOverride()
    .configureOutput({ writeOut: out, writeErr: errOut });
  const tasks = program.command("tasks").description("list, record and validate tasks");
  const dirOpt = ["--dir <folder>", "the folder that holds the task folders", BUILTIN_TASKS] as const;

  tasks
    .command("list")
    .description("list the tasks with title, paper, domain and packages")
    .option(...dirOpt)
    .action((o: { dir: string }) => {
      let broken = 0;
      const ids = resolveTaskIds(o.dir, []);
      // The widest id sets the column, so that every title starts under the others.
      const width = Math.max(26, ...ids.map((id) => id.length));
      for (const id of ids) {
        let t: Task;
        try {
          t = loadTaskDir(o.dir, id);
        } catch (e) {
          broken += 1;
          out(`${pad(id, width)} BROKEN: ${(e as Error).message}\n`);
          continue;
        }
        const m = t.meta;
        out(
          `${pad(id, width)} ${m.title}\n${" ".repeat(width + 1)}${m.paper.authors[0]}${m.paper.authors.length > 1 ? " et al." : ""}, ${venueAndYear(m.paper)} · ${m.domain} · ${m.packages.length ? m.packages.join(", ") : "stdlib only"}\n`,
        );
      }
      if (broken > 0) {
        out(`\n${plural(broken, "task folder")} could not be read; see the messages above\n`);
        setCode(2);
      }
    });

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

  addTasksDocCommand(tasks, out, setCode);
  addImportCommand(tasks, out, setCode);

  program
    .command("run")
    .description("run agent episodes over tasks and feedback levels; finished turns are saved, so running again resumes")
    .requiredOption("--model <provider:model>", "coder model: openai:<m>, ollama:<m>, vllm:<m>, llamacpp:<m>, scripted:<file.json>")
    .option("--base-url <url>", "endpoint base URL (overrides the provider default)")
    .option("--api-key <key>", "API key (default: OPENAI_API_KEY for openai, RECODE_API_KEY otherwise)")
    .option("--researcher <spec>", "rules | llm:<provider:model>", "rules")
    .option("--researcher-base-url <url>", "base URL of the researcher's endpoint (default: --base-url)")
    .option("--researcher-api-key <key>", "API key of the researcher's endpoint")
    .option(
      "--sampling <settings>",
      "coder decoding, e.g. temperature=0.2,top_p=default,max_tokens=4096 (default: temperature 0, top_p 1; `default` leaves a parameter to the server)",
    )
    .option("--researcher-sampling <settings>", "researcher decoding, in the same form")
    .option("--levels <list>", "feedback levels, e.g. 0-4 or 0,2,4", "0-4")
    .option("--turns <n>", "turn limit per episode", "10")
    .option("--steps <n>", "agent actions per turn before automatic submit", "3")
    .option("--setting <name>", "baseline | agent | memory_agent", "memory_agent")
    .option(
      "--protocol <profile>",
      "playground (the playground's choices) | reference (behaves like the official RECODE-H harness; see docs/protocol.md)",
      "playground",
    )
    .option("--tasks <ids...>", "task ids or globs (default: all)")
    .option("--workers <n>", "tasks run in parallel (one Python instance each)", "1")
    .option("--out <dir>", "run folder", "runs/latest")
    .option("--shard <i/n>", "take every n-th task starting at i (0-based), for array jobs; join with recode merge")
    .option("--backend <name>", "pyodide | native", "pyodide")
    .option(
      "--sandbox <policy>",
      "where candidate code runs, both backends: auto (bubblewrap; without it a run is refused) | bwrap | none (docs/security.md)",
      "auto",
    )
    .option("--no-probe", "do not contact the endpoints before starting")
    .option("--timeout <seconds>", "how long one model call may take before it is retried (default 120)")
    .option("--package-source <dir-or-url>", "where Pyodide loads package wheels from")
    .option(...dirOpt)
    .action(async (o: RunCommandOptions) => {
      const prepared = await prepareRun(o);
      const ac = new AbortController();
      let hits = 0;
      const onSigint = () => {
        hits += 1;
        if (hits > 1) process.exit(130);
        out("\nstopping after the current step (Ctrl-C again to quit at once)...\n");
        ac.abort();
      };
      process.on("SIGINT", onSigint);
      try {
        out(
          `run: ${prepared.config.model}, ${prepared.config.setting}, ${prepared.config.protocol ?? "playground"} protocol, researcher ${prepared.config.researcher}, levels ${prepared.levels.map((l) => `L${l}`).join(",")}, ${plural(prepared.tasks.length, "task")} -> ${prepared.folder.root}\n`,
        );
        const code = await executeRun(prepared, out, ac.signal);
        setCode(code);
      } finally {
        process.off("SIGINT", onSigint);
      }
    });

  addTestCommand(program, out, setCode);

  program
    .command("report")
    .description("results table (Recall@n, MRR, test-case pass rate per level) and per-turn curves")
    .argument("<dirs...>", "run folders, or trajectory JSON files (e.g. exported from the page)")
    .option("--format <fmt>", "md | csv | json", "md")
    .option("--n <turns>", "n of Recall@n (default 10, or the episodes' largest turn limit when smaller)")
    .action((dirs: string[], o: { format: string; n?: string }) => {
      const n = o.n === undefined ? undefined : Number(o.n);
      if (n !== undefined && (!Number.isInteger(n) || n < 1)) throw new UsageError(`--n: "${o.n}" must be a whole number >= 1`);
      if (!["md", "csv", "json"].includes(o.format)) throw new UsageError(`--format: "${o.format}" must be md, csv or json`);
      mustExist(dirs);
      const data = loadReport(dirs, n);
      out(o.format === "csv" ? reportCsv(data) : o.format === "json" ? reportJson(data) : reportMarkdown(data));
      if (data.unreadable.length > 0) {
        process.stderr.write(
          `recode: ${plural(data.unreadable.length, "file")} could not be read and are left out: ${data.unreadable.join("; ")}\n`,
        );
        setCode(1);
      }
      if (data.duplicates.length > 0) {
        process.stderr.write(
          `recode: ${plural(data.duplicates.length, "episode")} ${data.duplicates.length === 1 ? "is" : "are"} the same measurement as one already counted and ${data.duplicates.length === 1 ? "is" : "are"} left out: ${data.duplicates.map((e) => `${e.source} (the same as ${e.kept})`).join("; ")}\n`,
        );
        setCode(1);
      }
    });

  program
    .command("merge")
    .description("join shard run folders into one")
    .argument("<out>", "merged run folder")
    .argument("<shards...>", "shard run folders")
    .action((dest: string, shards: string[]) => {
      mustExist(shards);
      const r = mergeRuns(dest, shards);
      out(`merged ${plural(r.episodes, "episode file")} from ${plural(shards.length, "folder")} into ${dest}\n`);
    });

  program
    .command("bench")
    .description(
      "measure Python ready time, warm submission latency, back-to-back runs against the native floor, memory per worker, the episode loop at 1 and 2 workers, and the page (load weight, ready time, submissions); writes docs/benchmarks.md",
    )
    .option("--runs <n>", "submissions per task", "20")
    .option("--out <file>", "report file", "docs/benchmarks.md")
    .option("--no-page", "skip the in-page measurements (needs Chromium and a build)")
    .option("--only <part>", 'measure only "page": the page-load figures (first and repeat visit), replacing their section of the report')
    .option("--port <n>", "port of the preview server the in-page measurements start", "4183")
    .action(async (o: { runs: string; out: string; page: boolean; only?: string; port: string }) => {
      if (o.only !== undefined && o.only !== "page") throw new CommandInputError(`--only: unknown part "${o.only}" (known: page)`);
      const { runBench } = await import("./bench");
      await runBench({ runs: Number(o.runs), out: o.out, page: o.page, log: out, only: o.only, port: Number(o.port) });
    });

  return program;
}

/** Entry point: parse argv, run, return the exit code. */
export async function main(argv: string[]): Promise<number> {
  let code = 0;
  // A reader that stops early (`recode tasks list | head`) ends the output, not with a stack trace.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(code);
    throw e;
  });
  // `recode test ... --json`: a script reads one object on stdout, for a command line it cannot parse too.
  const jsonTest = argv[2] === "test" && argv.includes("--json");
  const program = buildProgram(
    // Code under test writes much of what is printed: its control characters are shown, not obeyed.
    (s) => process.stdout.write(printable(s)),
    (c) => {
      code = c;
    },
    jsonTest ? (s) => process.stderr.write(printable(s)) : undefined,
  );
  try {
    await program.parseAsync(argv);
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (jsonTest && e.exitCode !== 0) process.stdout.write(`${jsonLine({ solved: false, error: e.message.replace(/^error: /, "") })}\n`);
      return e.exitCode === 0 ? 0 : 2;
    }
    if (e instanceof TaskFormatError || e instanceof TaskFolderError || e instanceof CommandInputError || e instanceof ConfigError) {
      process.stderr.write(`recode: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`recode: ${(e as Error).message}\n`);
    return 1;
  }
}
