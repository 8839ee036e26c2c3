/**
 * `recode test <task> <candidate.py>...`: run candidate files against a
 * task's unit tests, for teachers grading a file, authors checking a task, and
 * scripts. Exit code 0 only when the run solved the task (`runSolved`), 1 when
 * it did not, 2 for bad usage or input.
 */
import { join, resolve } from "node:path";
import { type Command, Option } from "commander";
import { renderTestLog } from "../core/feedback";
import { plural } from "../core/plural";
import { isSharedTask, sharedCanonicalTarget } from "../core/pytest-task";
import { staleRecording } from "../core/recording";
import { type CollectionError, makeRunResult, type RunResult } from "../core/results";
import { type Task, TaskFormatError } from "../core/task";
import { recordedTests, withUnloadedTests } from "../core/unloaded-tests";
import { NATIVE_SANDBOXES, type NativeSandbox } from "../python/native-sandbox";
import { createRuntime } from "../python/node";
import { taskRunRequest } from "../python/runtime";
import { CandidateReadError, candidateFiles, readCandidates } from "./candidate-files";
import { CommandInputError } from "./command-error";
import { exitCode, type Graded, gradeCsv, gradeTable } from "./grade-table";
import { packageOptions } from "./run";
import { BUILTIN_TASKS, loadTaskDir, recordCommandFor, TaskFolderError, taskFoldersToHide, taskPlace } from "./task-fs";
import { backendLabel } from "./task-gates/doc";
import { foldForTerminal, jsonLine, outputColumns, printable } from "./terminal-text";
import { testCommandJson, unrecordedTests } from "./test-result-json";

/** The text output's test log: every detail, tracebacks of up to 40 lines, and the last lines each test that did not pass printed. */
const TEXT_LOG = { totalCap: 200_000, tracebackLines: 40, outputLines: 20 } as const;

/**
 * A task id in `dir`, or a task folder given by path. A bare name (no slash) is a folder of the current
 * directory only when that folder holds a task.json: an output folder named after a task does not hide it.
 */
export function resolveTask(spec: string, dir: string): Task {
  const { root, id } = taskPlace(spec, dir);
  return loadTaskDir(root, id);
}

/**
 * What the text output says first of a run that judged nothing (`problem`, why): so that what the run gave (a
 * collection error of the task's) is not read as the candidate's failure. "" for a judged run.
 */
function notJudgedHead(problem: string | null): string {
  return problem ? `Not judged: ${problem}.\nWhat the run gave (for the task's author, not a verdict on the candidate):\n` : "";
}

/** The task as the output's first line names it: its id, and its folder when that is not a built-in task's. */
function taskLabel(spec: string, task: Task, dir: string): string {
  const { root } = taskPlace(spec, dir);
  return resolve(root) === resolve(BUILTIN_TASKS) ? task.id : `${task.id} (${join(resolve(root), task.id)})`;
}

/** The line that names the graded file, as it was given (a teacher grading a folder in a loop reads which one). */
function candidateLine(candidatePath: string): string {
  return `Candidate: ${printable(candidatePath).replace(/\n/g, "\\n")}\n`;
}

/** The command that records `task` as it was named (a folder's path, or an id with --dir), to show in a message. */
function recordCommand(spec: string, task: Task, dir: string): string {
  return recordCommandFor(taskPlace(spec, dir).root, task.id);
}

/**
 * The result of a file that does not compile as text (see {@link readCandidate}): no test ran; the recorded tests
 * (`known`) are listed as not run.
 */
function uncompiledRun(error: CollectionError, backend: RunResult["backend"]): RunResult {
  return makeRunResult([], { backend, collectionError: error });
}

/** Why a run is no verdict on the candidate (see {@link notJudged}). */
type NotJudged = { kind: "packages" } | { kind: "files"; file: string | null };

/**
 * Why a run is no verdict on the candidate, or null when it is one: the task's packages could not be had here
 * (`packages`), or the task's own files do not load (`files`): `taskFileError(r)` says whether a run's collection
 * error lies in the task's files (the file, null when it names none; undefined when it is no such error), and
 * the reference solution's run, `reference()`, must have one too (a candidate that lacks a name test.py imports
 * fails like any other). `reference` null: the task has no reference solution to run, and the error is taken as
 * the task's.
 */
async function notJudged(
  r: RunResult,
  taskFileError: (r: RunResult) => string | null | undefined,
  reference: (() => Promise<RunResult>) | null,
): Promise<NotJudged | null> {
  if (r.incident?.kind === "packages") return { kind: "packages" };
  const file = taskFileError(r);
  if (file === undefined) return null;
  if (reference === null) return { kind: "files", file };
  const again = taskFileError(await reference());
  return again === undefined ? null : { kind: "files", file: again };
}

/** The options of `recode test`. */
interface TestOptions {
  dir: string;
  backend: string;
  sandbox: string;
  json?: boolean;
  csv?: boolean;
  packageSource?: string;
  python?: string;
  native?: boolean;
}

/** Register `recode test` on the program. */
export function addTestCommand(program: Command, out: (s: string) => void, setCode: (c: number) => void): void {
  program
    .command("test")
    .description(
      "run candidate files against a task's unit tests; exit 0 when every file solved it, 1 when one did not, 2 when a file or the setup is wrong",
    )
    .argument("<task>", "task id (in --dir) or task folder")
    .argument("<candidates...>", "the target file(s) to test (Python); a folder stands for the .py files in it")
    .option("--dir <folder>", "the folder that holds the task folders, for a task given by id", BUILTIN_TASKS)
    .option("--backend <name>", "pyodide | native", "pyodide")
    // The option of `tasks record|validate`, given here by mistake: said what to give instead.
    .addOption(new Option("--native").hideHelp())
    .option("--sandbox <policy>", "where candidate code runs, both backends: auto | bwrap | none (docs/security.md)", "auto")
    .option(
      "--json",
      "print one JSON object per file, one a line: {candidate, solved, tests: [{id, status, message, subtests}], incident, ...}",
    )
    .option(
      "--csv",
      "print only a CSV table, one line per file (task, file, verdict, passed, total, reason), for a gradebook; problems still go to stderr",
    )
    .option("--package-source <dir-or-url>", "where Pyodide loads package wheels from")
    .option(
      "--python <path>",
      "Python of a shared task (imported from RECODE-H; runs under pytest, default python3) or of --backend native",
    )
    .action(async (spec: string, candidatePaths: string[], o: TestOptions, cmd: Command) => {
      try {
        await testAction(spec, candidatePaths, o, cmd);
      } catch (e) {
        // A script reading --json gets an object for a bad input too, and one that keeps the text (stdout is no
        // terminal) a "Not judged:" line; the message also goes to stderr, exit code 2.
        if (o.json)
          out(
            `${jsonLine({ ...(e instanceof CandidateReadError ? { candidate: e.path } : {}), solved: false, error: (e as Error).message })}\n`,
          );
        else if (
          !o.csv &&
          !process.stdout.isTTY &&
          (e instanceof CommandInputError || e instanceof TaskFormatError || e instanceof TaskFolderError)
        )
          out(`Not judged: ${(e as Error).message}\n`);
        throw e;
      }
    });

  async function testAction(spec: string, candidatePaths: string[], o: TestOptions, cmd: Command): Promise<void> {
    if (o.native) throw new CommandInputError("recode test takes --backend native (--native is the option of tasks record and validate)");
    if (o.json && o.csv) throw new CommandInputError("give --json or --csv, not both");
    if (o.backend !== "pyodide" && o.backend !== "native")
      throw new CommandInputError(`--backend: "${o.backend}" is not pyodide or native`);
    if (!NATIVE_SANDBOXES.includes(o.sandbox as NativeSandbox)) {
      throw new CommandInputError(`--sandbox: "${o.sandbox}" is not one of ${NATIVE_SANDBOXES.join(", ")}`);
    }
    const task = resolveTask(spec, o.dir);
    const { paths, several } = candidateFiles(candidatePaths);
    const label = taskLabel(spec, task, o.dir);
    let first = true;
    /** Say one graded file: its JSON line, or its text block (the header, the file, and its test log). */
    const report = (g: Graded): void => {
      if (o.csv) {
        // (The table at the end says it.)
      } else if (o.json) {
        const body = g.result ? testCommandJson(g.result) : { solved: false };
        out(`${jsonLine({ candidate: g.path, ...body, ...(g.problem ? { error: g.problem } : {}) })}\n`);
      } else {
        const log = g.result ? `${notJudgedHead(g.problem)}${renderTestLog(g.result, TEXT_LOG)}` : `Not judged: ${g.problem}.`;
        out(foldForTerminal(printable(`${first ? "" : "\n"}${label}, ${g.backend}:\n${candidateLine(g.path)}${log}\n`), outputColumns()));
      }
      first = false;
      if (g.problem) process.stderr.write(printable(`recode: ${several ? `${g.path}: ` : ""}${g.problem}\n`));
    };
    const graded = isSharedTask(task)
      ? await gradeShared(spec, task, paths, several, o, cmd, report)
      : await gradeRecorded(spec, task, paths, several, o, report);
    if (o.csv) out(gradeCsv(task.id, graded));
    else if (several && !o.json) out(foldForTerminal(printable(`\n${gradeTable(task.id, graded)}`), outputColumns()));
    setCode(exitCode(graded));
  }
}

/** Grade each file against an imported RECODE-H task (pytest, native Python), saying each as it is graded. */
async function gradeShared(
  spec: string,
  task: Task,
  paths: string[],
  several: boolean,
  o: TestOptions,
  cmd: Command,
  report: (g: Graded) => void,
): Promise<Graded[]> {
  if (!isSharedTask(task)) throw new Error("gradeShared: not an imported task");
  // Imported official tasks run under pytest beside canonical.py, with the Python named (shared-tasks.ts).
  if (cmd.getOptionValueSource("backend") === "cli" && o.backend === "pyodide") {
    process.stderr.write(
      `note: ${task.id} is an imported RECODE-H task: it runs under pytest with a native Python (--python, default python3), not in Pyodide\n`,
    );
  }
  const { runSharedTest } = await import("./shared-tasks");
  // The task's folder and those beside it: the box does not show the candidate their solutions and values.
  const place = taskPlace(spec, o.dir);
  const shared = { ...o, hide: taskFoldersToHide(place.root, [place.id]) };
  // The tests task.json names: listed as not run when the tests did not load (no recording to list them from).
  const named = new Map(Object.keys(task.interfaceOf).map((id) => [id, null]));
  let reference: Promise<RunResult> | null = null;
  const graded: Graded[] = [];
  const add = (g: Graded) => {
    graded.push(g);
    report(g);
  };
  for (const c of readCandidates(paths, several, task.meta.target_file_path)) {
    if ("error" in c) {
      add({ path: c.path, result: null, problem: c.error, backend: backendLabel("native", ""), unreadable: c.reason });
      continue;
    }
    if ("invalid" in c) {
      add({
        path: c.path,
        result: withUnloadedTests(uncompiledRun(c.invalid, "native"), task, named),
        problem: null,
        backend: backendLabel("native", ""),
      });
      continue;
    }
    const run = await runSharedTest(task, c.text, shared);
    const { version } = run;
    const result = withUnloadedTests(run.result, task, named);
    // The tests import canonical.py, so any collection error the reference solution gets too is the task's.
    const why = await notJudged(
      result,
      (r) => (r.collectionError ? r.collectionError.file : undefined),
      () => {
        reference ??= runSharedTest(task, sharedCanonicalTarget(task), shared).then((x) => x.result);
        return reference;
      },
    );
    const problem =
      why?.kind === "packages"
        ? `what task ${task.id} needs (pytest${task.meta.packages.length ? `, ${task.meta.packages.join(", ")}` : ""}) could not all be imported by ${o.python ?? "python3"} (the collection error names what is missing): install it for that Python, or name another with --python (the candidate was not judged)`
        : why
          ? "the task's own files (test.py, canonical.py, the repository) do not load, with the reference solution either: fix the task (the candidate was not judged)"
          : null;
    add({ path: c.path, result, problem, backend: backendLabel("native", version) });
  }
  return graded;
}

/** Grade each file against a recorded task in one Python instance (`--backend`), saying each as it is graded. */
async function gradeRecorded(
  spec: string,
  task: Task,
  paths: string[],
  several: boolean,
  o: TestOptions,
  report: (g: Graded) => void,
): Promise<Graded[]> {
  if (o.python && o.backend === "pyodide") {
    process.stderr.write(`note: --python is for --backend native and imported RECODE-H tasks; ${task.id} runs in Pyodide here\n`);
  }
  if (task.expected === null) throw new CommandInputError(`task ${task.id} has no expected.json: run ${recordCommand(spec, task, o.dir)}`);
  // Values recorded from another test.py or canonical solution would judge the file wrongly: it is not judged.
  const stale = staleRecording(task);
  if (stale)
    throw new CommandInputError(`task ${task.id}: ${stale}: run ${recordCommand(spec, task, o.dir)}; the candidate was not judged`);
  const candidates = readCandidates(paths, several, task.meta.target_file_path);
  let rt: ReturnType<typeof createRuntime>;
  try {
    const place = taskPlace(spec, o.dir);
    rt = createRuntime(o.backend as "pyodide" | "native", {
      ...packageOptions(o.packageSource),
      // The task's folder and those beside it: the box does not show the candidate their solutions and values.
      hide: taskFoldersToHide(place.root, [place.id]),
      ...(o.python ? { python: o.python } : {}),
      sandbox: o.sandbox as NativeSandbox,
    });
  } catch (e) {
    // No box here (and none asked for): not a verdict on the file.
    throw new CommandInputError((e as Error).message);
  }
  // test.py gained tests since the recording: the task is stale, and those tests cannot be verified.
  const known = recordedTests(task);
  const target = task.meta.target_file_path;
  let reference: Promise<RunResult> | null = null;
  const graded: Graded[] = [];
  const add = (g: Graded) => {
    graded.push(g);
    report(g);
  };
  try {
    try {
      await rt.ready();
    } catch (e) {
      // Python could not start (or no sandbox): not a verdict on the file.
      throw new CommandInputError((e as Error).message);
    }
    for (const c of candidates) {
      // (Taken before the run too: a run that replaced the instance leaves a new one, whose version is said once it starts.)
      let version = rt.version;
      if ("error" in c) {
        add({ path: c.path, result: null, problem: c.error, backend: backendLabel(o.backend, version), unreadable: c.reason });
        continue;
      }
      if ("invalid" in c) {
        const r = withUnloadedTests(uncompiledRun(c.invalid, o.backend as RunResult["backend"]), task, known);
        add({ path: c.path, result: r, problem: null, backend: backendLabel(o.backend, version) });
        continue;
      }
      let r = await rt.run(taskRunRequest(task, c.text));
      version = rt.version || version;
      // An error in another file than the target's is the task's when the canonical solution gets it too (a
      // candidate that raises in a repository file it calls fails like any other). Its run is made once.
      const canonical = task.canonical;
      const why = await notJudged(
        r,
        (x) => (x.collectionError?.file && x.collectionError.file !== target ? x.collectionError.file : undefined),
        canonical
          ? () => {
              reference ??= rt.run(taskRunRequest(task, canonical));
              return reference;
            }
          : null,
      );
      const unrecorded = why ? [] : unrecordedTests(r, task, known);
      r = withUnloadedTests(r, task, known);
      // Why the file was not judged (exit code 2), said on stderr and, with --json, as the object's "error".
      const problem =
        why?.kind === "files"
          ? `the task's ${why.file} does not load, with the canonical solution either: fix the task (the candidate was not judged)`
          : why?.kind === "packages"
            ? `the packages task ${task.id} needs (${task.meta.packages.join(", ")}) could not be loaded here: ${o.backend === "pyodide" ? "give a package source with the wheels (--package-source), or use --backend native" : "install them for the Python the native backend runs (--python)"} (the candidate was not judged)`
            : unrecorded.length > 0
              ? `expected.json does not know ${plural(unrecorded.length, "test")} of test.py (${unrecorded.slice(0, 3).join(", ")}${unrecorded.length > 3 ? ", ..." : ""}): test.py changed since the task was recorded; run ${recordCommand(spec, task, o.dir)} (the candidate was not judged)`
              : null;
      add({ path: c.path, result: r, problem, backend: backendLabel(o.backend, version) });
    }
  } finally {
    await rt.dispose();
  }
  return graded;
}
