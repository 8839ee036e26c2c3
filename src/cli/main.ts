/**
 * The `recode` command: `tasks list|record|validate`, `test`, `run`, `report`, `show`, `merge`, `bench`.
 * Returns the process exit code (0 ok, 1 a check failed, 2 bad usage or input).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { Command, CommanderError } from "commander";
import { authorsShort } from "../core/paper-authors";
import { plural } from "../core/plural";
import { type Task, TaskFormatError, type TaskMeta, venueAndYear } from "../core/task";
import { CommandInputError } from "./command-error";
import { addImportCommand } from "./import-recodeh";
import { loadReport, mergeRuns, reportCsv, reportJson, reportMarkdown } from "./report";
import { ConfigError, executeRun, prepareRun, type RunCommandOptions } from "./run";
import { addShowCommand } from "./show";
import { BUILTIN_TASKS, loadTaskDir, resolveTaskIds, TaskFolderError } from "./task-fs";
import { addTasksDocCommand } from "./task-gates/command";
import { addTasksRecordCommand, addTasksValidateCommand, UsageError } from "./tasks-record-validate";
import { jsonLine, pad, printable } from "./terminal-text";
import { addTestCommand } from "./test-command";

/** @throws UsageError (exit 2, as for any other bad input) naming the first of `paths` that does not exist. */
function mustExist(paths: string[]): void {
  const missing = paths.find((p) => !existsSync(p));
  if (missing !== undefined) throw new UsageError(`no such folder or file: ${missing}`);
}

/**
 * What a task needs to run, for `tasks list`: its packages, or "stdlib only"; an imported RECODE-H task
 * (`isolation: "shared"`) needs pytest, which runs its tests, beside them.
 */
function packagesLine(m: TaskMeta): string {
  const needs = m.isolation === "shared" ? ["pytest", ...m.packages.filter((p) => p !== "pytest")] : m.packages;
  return needs.length ? needs.join(", ") : "stdlib only";
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
          `${pad(id, width)} ${m.title}\n${" ".repeat(width + 1)}${m.paper ? `${authorsShort(m.paper.authors)}, ${venueAndYear(m.paper)} · ` : ""}${m.domain} · ${packagesLine(m)}\n`,
        );
      }
      if (broken > 0) {
        out(`\n${plural(broken, "task folder")} could not be read; see the messages above\n`);
        setCode(2);
      }
    });

  addTasksRecordCommand(tasks, dirOpt, out, setCode);
  addTasksValidateCommand(tasks, dirOpt, out, setCode);

  addTasksDocCommand(tasks, out, setCode);
  addImportCommand(tasks, out, setCode);

  program
    .command("run")
    .description("run agent episodes over tasks and feedback levels; finished turns are saved, so running again resumes")
    .requiredOption("--model <provider:model>", "coder model: openai:<m>, ollama:<m>, vllm:<m>, llamacpp:<m>, scripted:<file.json>")
    .option("--base-url <url>", "endpoint base URL (overrides the provider default)")
    .option("--api-key <key>", "API key (default: OPENAI_API_KEY for openai, RECODE_API_KEY otherwise)")
    .option("--researcher <spec>", "rules | llm:<provider:model>", "rules")
    .option(
      "--researcher-base-url <url>",
      "base URL of the researcher's endpoint (default: --base-url when the researcher's provider is the coder's, else the provider's own)",
    )
    .option(
      "--researcher-api-key <key>",
      "API key of the researcher's endpoint (default: --api-key when the provider is the coder's, else its variable)",
    )
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
      /** The signal that stopped the run: its exit code is the shell's for it (128 + its number: 130, 143). */
      let stoppedBy: NodeJS.Signals | null = null;
      // Ctrl-C (or a scheduler's SIGTERM) stops at once: what is under way is dropped and redone on resume.
      const onSigint = (signal: NodeJS.Signals) => {
        hits += 1;
        stoppedBy ??= signal;
        if (hits > 1) process.exit(signal === "SIGTERM" ? 143 : 130);
        out(
          `\n${signal === "SIGTERM" ? "SIGTERM: " : ""}stopping: finished turns are saved; the turn under way is not, and is done again when the run is resumed (${signal === "SIGTERM" ? "a second SIGTERM or Ctrl-C" : "Ctrl-C again"} quits at once)...\n`,
        );
        ac.abort();
      };
      process.on("SIGINT", onSigint);
      process.on("SIGTERM", onSigint);
      try {
        out(
          `run: ${prepared.config.model}, ${prepared.config.setting}, ${prepared.config.protocol ?? "playground"} protocol, researcher ${prepared.config.researcher}, levels ${prepared.levels.map((l) => `L${l}`).join(",")}, ${plural(prepared.tasks.length, "task")} -> ${prepared.folder.root}\n`,
        );
        const code = await executeRun(prepared, out, ac.signal);
        setCode(code === 130 && stoppedBy === "SIGTERM" ? 143 : code);
      } finally {
        process.off("SIGINT", onSigint);
        process.off("SIGTERM", onSigint);
      }
    });

  addTestCommand(program, out, setCode);
  addShowCommand(program, out, setCode);

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
      const given = new Map<string, string>();
      for (const d of dirs) {
        const twice = given.get(resolve(d));
        if (twice !== undefined) throw new UsageError(`${d}: given twice (as ${twice}); name each run folder or file once`);
        given.set(resolve(d), d);
      }
      const data = loadReport(dirs, n);
      out(o.format === "csv" ? reportCsv(data) : o.format === "json" ? reportJson(data) : reportMarkdown(data));
      if (data.unreadable.length > 0) {
        process.stderr.write(
          printable(
            `recode: ${plural(data.unreadable.length, "file")} could not be read and ${data.unreadable.length === 1 ? "is" : "are"} left out: ${data.unreadable.join("; ")}\n`,
          ),
        );
        setCode(1);
      }
      if (data.duplicates.length > 0) {
        process.stderr.write(
          printable(
            `recode: ${plural(data.duplicates.length, "episode")} ${data.duplicates.length === 1 ? "is" : "are"} the same measurement as one already counted and ${data.duplicates.length === 1 ? "is" : "are"} left out: ${data.duplicates.map((e) => `${e.source} (the same as ${e.kept})`).join("; ")}\n`,
          ),
        );
        setCode(1);
      }
    });

  program
    .command("merge")
    .description("join shard run folders into one")
    .argument("<out>", "merged run folder")
    .argument("<shards...>", "shard run folders")
    .option("--partial", "merge the folders given although shards of their split are missing")
    .action((dest: string, shards: string[], o: { partial?: boolean }) => {
      mustExist(shards);
      const r = mergeRuns(dest, shards, { partial: o.partial });
      const left = r.missing.length > 0 ? ` (not merged: shard ${r.missing.join(", ")}; the run holds the other shards' tasks alone)` : "";
      out(`merged ${plural(r.episodes, "episode file")} from ${plural(shards.length, "folder")} into ${dest}${left}\n`);
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
    // (A message may quote a file's name or text from a downloaded dataset: its control characters shown, not obeyed.)
    if (e instanceof TaskFormatError || e instanceof TaskFolderError || e instanceof CommandInputError || e instanceof ConfigError) {
      process.stderr.write(printable(`recode: ${e.message}\n`));
      return 2;
    }
    process.stderr.write(printable(`recode: ${(e as Error).message}\n`));
    return 1;
  }
}
