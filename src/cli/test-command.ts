/**
 * `recode test <task> <candidate.py>`: run one candidate file against a
 * task's unit tests, for teachers grading a file, authors checking a task, and
 * scripts. Exit code 0 only when the run solved the task (`runSolved`), 1 when
 * it did not, 2 for bad usage or input.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Command, Option } from "commander";
import { renderTestLog } from "../core/feedback";
import { plural } from "../core/plural";
import { isSharedTask, sharedCanonicalTarget } from "../core/pytest-task";
import { staleRecording } from "../core/recording";
import { countTests, type Mismatch, makeTestResult, type RunResult } from "../core/results";
import { definesTest, type Task, TaskFormatError } from "../core/task";
import { parseExpected } from "../core/values";
import { NATIVE_SANDBOXES, type NativeSandbox } from "../python/native-sandbox";
import { createRuntime } from "../python/node";
import { taskRunRequest } from "../python/runtime";
import { packageOptions } from "./run";
import { BUILTIN_TASKS, loadTaskDir, recordCommandFor, TaskFolderError, taskPlace } from "./task-fs";
import { backendLabel } from "./task-gates/doc";
import { foldForTerminal, jsonLine, outputColumns, printable } from "./terminal-text";

/** Bad usage or input of a command: the message says what to fix (exit code 2). */
export class CommandInputError extends Error {}

/** The text output's test log: every detail, tracebacks of up to 40 lines, and the last lines each test that did not pass printed. */
const TEXT_LOG = { totalCap: 200_000, tracebackLines: 40, outputLines: 20 } as const;

/** The JSON `recode test --json` prints (one object). */
export interface TestCommandJson {
  solved: boolean;
  /**
   * Each test; `subtests`: every subTest that failed, raised or was skipped, with its parameters as unittest
   * prints them (`(bad=-1)`); `line`: the line of the target file where it failed (or where the time limit
   * stopped it), or null; `durationMs` in ms; `traceback`, `stdout`, `stderr`: as captured (each capped, as in
   * the page); `mismatch`: the first failed check's structured difference (key, kind, where, expected, actual,
   * detail, and the `outcome()` call it came from), or null.
   */
  tests: {
    id: string;
    status: string;
    message: string;
    interface: string | null;
    line: number | null;
    durationMs: number;
    traceback: string;
    stdout: string;
    stderr: string;
    subtests: { params: string; status: string; message: string }[];
    mismatch: Mismatch | null;
  }[];
  collectionError: string | null;
  /** Where the collection error is: a file of the run (the candidate's path, test.py, a repository file) and its line, either null when not known. */
  collectionErrorAt: { file: string | null; line: number | null } | null;
  /** The collection error's traceback, with what the code printed while it was imported (as the text output shows it), or null. */
  collectionErrorTraceback: string | null;
  incident: { kind: string; message: string } | null;
  counts: RunResult["counts"];
}

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

/** The ids of the tests expected.json records (its keys, in its order), or null for none or an unreadable file. */
function recordedTests(task: Task): ReadonlyMap<string, unknown> | null {
  if (task.expected === null) return null;
  try {
    return parseExpected(task.expected).tests;
  } catch {
    return null;
  }
}

/**
 * Tests of test.py's text that the recording (`known`) does not know (test.py changed since it was recorded); none
 * when the run is not trusted. Only tests test.py defines count: a test the candidate slipped into the run (one of
 * unittest's own classes, made by code under test) fails as not recorded, and does not make the task look stale.
 */
function unrecordedTests(r: RunResult, task: Task, known: ReadonlyMap<string, unknown> | null): string[] {
  if (known === null || r.incident?.kind === "tampered") return [];
  return r.tests.map((t) => t.id).filter((id) => !known.has(id) && definesTest(task.tests, id));
}

/**
 * A run whose tests did not load (a collection error), with the recorded tests (`known`) listed as `not_run`, so that
 * its counts say how many tests the file got none of ("0 of 6"). A run that listed tests is returned as it is.
 */
function withUnloadedTests(r: RunResult, task: Task, known: ReadonlyMap<string, unknown> | null): RunResult {
  if (r.collectionError === null || r.tests.length > 0 || known === null) return r;
  const tests = [...known.keys()].map((id) =>
    makeTestResult(id, "not_run", {
      interface: task.interfaceOf[id] ?? null,
      message: "not run: the tests did not load (see the collection error)",
    }),
  );
  return { ...r, tests, counts: countTests(tests) };
}

const FILE_ERRORS: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "it is a folder, not a file",
  EACCES: "permission denied",
};

/** The candidate file's text; a clear error when it cannot be read or is not UTF-8. */
function readCandidate(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "";
    throw new CommandInputError(`cannot read the candidate file ${path}: ${FILE_ERRORS[code] ?? (e as Error).message}`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const text = bytes.toString("utf8");
    const line = text.slice(0, Math.max(0, text.indexOf("\ufffd"))).split("\n").length;
    throw new CommandInputError(`the candidate file ${path} is not UTF-8 text (line ${line}); save it as UTF-8`);
  }
}

/** The JSON form of a run result. */
export function testCommandJson(r: RunResult): TestCommandJson {
  return {
    solved: r.allPassed,
    tests: r.tests.map((t) => ({
      id: t.id,
      status: t.status,
      message: t.message,
      interface: t.interface,
      line: t.line,
      durationMs: Math.round(t.durationMs * 10) / 10,
      traceback: t.traceback,
      stdout: t.stdout,
      stderr: t.stderr,
      subtests: t.subtests.map((s) => ({ params: s.params, status: s.status, message: s.message })),
      mismatch: t.mismatch,
    })),
    collectionError: r.collectionError ? r.collectionError.message : null,
    collectionErrorAt: r.collectionError ? { file: r.collectionError.file, line: r.collectionError.line } : null,
    collectionErrorTraceback: r.collectionError ? r.collectionError.traceback : null,
    incident: r.incident ? { kind: r.incident.kind, message: r.incident.message } : null,
    counts: r.counts,
  };
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

/** Register `recode test` on the program. */
export function addTestCommand(program: Command, out: (s: string) => void, setCode: (c: number) => void): void {
  program
    .command("test")
    .description(
      "run one candidate file against a task's unit tests; exit 0 when solved, 1 when not, 2 when the file or the setup is wrong",
    )
    .argument("<task>", "task id (in --dir) or task folder")
    .argument("<candidate>", "the target file to test (Python)")
    .option("--dir <folder>", "the folder that holds the task folders, for a task given by id", BUILTIN_TASKS)
    .option("--backend <name>", "pyodide | native", "pyodide")
    // The option of `tasks record|validate`, given here by mistake: said what to give instead.
    .addOption(new Option("--native").hideHelp())
    .option("--sandbox <policy>", "where candidate code runs, both backends: auto | bwrap | none (docs/security.md)", "auto")
    .option("--json", "print one JSON object: {solved, tests: [{id, status, message, subtests}], incident, ...}")
    .option("--package-source <dir-or-url>", "where Pyodide loads package wheels from")
    .option(
      "--python <path>",
      "Python of a shared task (imported from RECODE-H; runs under pytest, default python3) or of --backend native",
    )
    .action(
      async (
        spec: string,
        candidatePath: string,
        o: { dir: string; backend: string; sandbox: string; json?: boolean; packageSource?: string; python?: string; native?: boolean },
        cmd: Command,
      ) => {
        try {
          await testAction(spec, candidatePath, o, cmd);
        } catch (e) {
          // A script reading --json gets an object for a bad input too, and one that keeps the text (stdout is no
          // terminal) a "Not judged:" line; the message also goes to stderr, exit code 2.
          if (o.json) out(`${jsonLine({ solved: false, error: (e as Error).message })}\n`);
          else if (
            !process.stdout.isTTY &&
            (e instanceof CommandInputError || e instanceof TaskFormatError || e instanceof TaskFolderError)
          )
            out(`Not judged: ${(e as Error).message}\n`);
          throw e;
        }
      },
    );

  async function testAction(
    spec: string,
    candidatePath: string,
    o: { dir: string; backend: string; sandbox: string; json?: boolean; packageSource?: string; python?: string; native?: boolean },
    cmd: Command,
  ): Promise<void> {
    if (o.native) throw new CommandInputError("recode test takes --backend native (--native is the option of tasks record and validate)");
    if (o.backend !== "pyodide" && o.backend !== "native")
      throw new CommandInputError(`--backend: "${o.backend}" is not pyodide or native`);
    if (!NATIVE_SANDBOXES.includes(o.sandbox as NativeSandbox)) {
      throw new CommandInputError(`--sandbox: "${o.sandbox}" is not one of ${NATIVE_SANDBOXES.join(", ")}`);
    }
    const task = resolveTask(spec, o.dir);
    if (isSharedTask(task)) {
      // Imported official tasks run under pytest beside canonical.py, with the Python named (shared-tasks.ts).
      if (cmd.getOptionValueSource("backend") === "cli" && o.backend === "pyodide") {
        process.stderr.write(
          `note: ${task.id} is an imported RECODE-H task: it runs under pytest with a native Python (--python, default python3), not in Pyodide\n`,
        );
      }
      const { runSharedTest } = await import("./shared-tasks");
      const { result, version } = await runSharedTest(task, readCandidate(candidatePath), o);
      // The tests import canonical.py, so any collection error the reference solution gets too is the task's.
      const why = await notJudged(
        result,
        (r) => (r.collectionError ? r.collectionError.file : undefined),
        async () => (await runSharedTest(task, sharedCanonicalTarget(task), o)).result,
      );
      const problem =
        why?.kind === "packages"
          ? `what task ${task.id} needs (pytest${task.meta.packages.length ? `, ${task.meta.packages.join(", ")}` : ""}) could not be imported by ${o.python ?? "python3"}: install it for that Python, or name another with --python (the candidate was not judged)`
          : why
            ? "the task's own files (test.py, canonical.py, the repository) do not load, with the reference solution either: fix the task (the candidate was not judged)"
            : null;
      if (o.json) out(`${jsonLine({ ...testCommandJson(result), ...(problem ? { error: problem } : {}) })}\n`);
      else
        out(
          foldForTerminal(
            printable(
              `${taskLabel(spec, task, o.dir)}, ${backendLabel("native", version)}:\n${candidateLine(candidatePath)}${notJudgedHead(problem)}${renderTestLog(result, TEXT_LOG)}\n`,
            ),
            outputColumns(),
          ),
        );
      if (problem) process.stderr.write(`recode: ${problem}\n`);
      setCode(why ? 2 : result.allPassed ? 0 : 1);
      return;
    }
    if (o.python && o.backend === "pyodide") {
      process.stderr.write(`note: --python is for --backend native and imported RECODE-H tasks; ${task.id} runs in Pyodide here\n`);
    }
    if (task.expected === null)
      throw new CommandInputError(`task ${task.id} has no expected.json: run ${recordCommand(spec, task, o.dir)}`);
    // Values recorded from another test.py or canonical solution would judge the file wrongly: it is not judged.
    const stale = staleRecording(task);
    if (stale)
      throw new CommandInputError(`task ${task.id}: ${stale}: run ${recordCommand(spec, task, o.dir)}; the candidate was not judged`);
    const candidate = readCandidate(candidatePath);
    let rt: ReturnType<typeof createRuntime>;
    try {
      const place = taskPlace(spec, o.dir);
      rt = createRuntime(o.backend, {
        ...packageOptions(o.packageSource),
        // The task's folder and those beside it: the box does not show the candidate their solutions and values.
        hide: [resolve(place.root), resolve(place.root, place.id)],
        ...(o.python ? { python: o.python } : {}),
        sandbox: o.sandbox as NativeSandbox,
      });
    } catch (e) {
      // No box here (and none asked for): not a verdict on the file.
      throw new CommandInputError((e as Error).message);
    }
    let r: RunResult;
    let why: NotJudged | null;
    let version = "";
    try {
      try {
        await rt.ready();
      } catch (e) {
        // Python could not start (or no sandbox): not a verdict on the file.
        throw new CommandInputError((e as Error).message);
      }
      // (Taken before the run too: a run that replaced the instance leaves a new one, whose version is said once it starts.)
      version = rt.version;
      r = await rt.run(taskRunRequest(task, candidate));
      version = rt.version || version;
      // An error in another file than the target's is the task's when the canonical solution gets it too (a
      // candidate that raises in a repository file it calls fails like any other).
      const target = task.meta.target_file_path;
      why = await notJudged(
        r,
        (x) => (x.collectionError?.file && x.collectionError.file !== target ? x.collectionError.file : undefined),
        task.canonical ? () => rt.run(taskRunRequest(task, task.canonical)) : null,
      );
    } finally {
      await rt.dispose();
    }
    // test.py gained tests since the recording: the task is stale, and those tests cannot be verified.
    const known = recordedTests(task);
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
    if (o.json) out(`${jsonLine({ ...testCommandJson(r), ...(problem ? { error: problem } : {}) })}\n`);
    else
      out(
        foldForTerminal(
          printable(
            `${taskLabel(spec, task, o.dir)}, ${backendLabel(o.backend, version)}:\n${candidateLine(candidatePath)}${notJudgedHead(problem)}${renderTestLog(r, TEXT_LOG)}\n`,
          ),
          outputColumns(),
        ),
      );
    if (problem) process.stderr.write(`recode: ${problem}\n`);
    setCode(problem ? 2 : r.allPassed ? 0 : 1);
  }
}
