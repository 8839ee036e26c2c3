/**
 * Line coverage of a task's canonical solution by its tests, in both backends
 * (Node only). The measure is recode_coverage.py (standard library:
 * `sys.monitoring` on Python 3.12+, `sys.settrace` before), run apart from the
 * harness in a trusted run of the canonical solution, so the sandbox that
 * runs candidate code is left as it is:
 *
 * - native: python3 runs recode_coverage.py in the native backend's box
 *   (native-sandbox.ts; unboxed with `--sandbox none`);
 * - Pyodide: a Node process of its own (coverage-pyodide-entry.mjs) loads
 *   Pyodide and runs the same script, in Pyodide's bubblewrap box where that
 *   works (node-box.ts), else as a plain child process.
 *
 * See docs/tasks-gates.md.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Task } from "../core/task";
import { type BoxedProcess, spawnBoxed } from "./box-channel";
import {
  BOX,
  bwrapCommand,
  findPython,
  type NativeSandbox,
  type PythonInstall,
  resolveSandbox,
  type SandboxLimits,
} from "./native-sandbox";
import { pyodideBoxCommand, resolvePyodideBox } from "./node-box";
import { runFiles, taskRunRequest } from "./runtime";
import type { PyodideSourceOptions } from "./worker-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(HERE, "recode_coverage.py");
const PYODIDE_ENTRY = join(HERE, "coverage-pyodide-entry.mjs");

/** Line coverage of one task's canonical solution, measured in one backend. */
export interface CoverageReport {
  backend: "pyodide" | "native";
  /** How executed lines were recorded: `sys.monitoring` or `sys.settrace`. */
  method: string;
  /** Python version of the interpreter that ran the tests, e.g. "3.11.7". */
  python: string;
  /** Lines (1-based) of canonical.py that hold code, from its compiled code objects. */
  executable: number[];
  /** Executable lines the tests ran. */
  executed: number[];
  /** Executable lines the tests never ran. */
  missing: number[];
  /** executed / executable in percent (100 for a file without code). */
  percent: number;
  /** Tests that ran. */
  tests: number;
  /** Tests that failed, raised or were skipped in the coverage run, or an import failure, one line each. */
  problems: string[];
  /** Wall time of the measure, in milliseconds. */
  durationMs: number;
}

/** Options of the coverage runs. */
export interface CoverageOptions {
  /** python3 of the native backend. Default "python3". */
  python?: string;
  /** Box policy of both backends (native-sandbox.ts, node-box.ts). Default `auto`. */
  sandbox?: NativeSandbox;
  /** Limits inside the native box. */
  limits?: SandboxLimits;
  /** Host folders the boxes do not show (the tasks: their solutions and recorded values), as for a run (`hideFromBox`). */
  hide?: readonly string[];
}

interface RawCoverage {
  method: string;
  python: string;
  executable: number[];
  executed: number[];
  missing: number[];
  tests: number;
  problems: string[];
}

function report(backend: "pyodide" | "native", raw: RawCoverage, durationMs: number): CoverageReport {
  const percent = raw.executable.length === 0 ? 100 : (100 * raw.executed.length) / raw.executable.length;
  return { backend, ...raw, percent, durationMs };
}

/** How long one coverage run may take: three times the task's limit (tracing slows the tests), plus start-up. */
function coverageTimeoutMs(task: Task): number {
  return task.meta.time_limit_s * 3000 + 10_000;
}

/** The files of the coverage run: the repository, canonical.py at the target path, test.py. */
function coverageFiles(task: Task): Record<string, string> {
  return runFiles(taskRunRequest(task, task.canonical));
}

/** python3 installations already asked where they live, by command. */
const installs = new Map<string, PythonInstall>();

/**
 * Measure line coverage of `task`'s canonical solution with native python3.
 * @throws Error when python3 or the box cannot start, the run exceeds its time, or the script reports nothing.
 */
export async function measureCoverageNative(task: Task, opts: CoverageOptions = {}): Promise<CoverageReport> {
  const python = opts.python ?? "python3";
  const box = resolveSandbox(opts.sandbox ?? "auto");
  const install = installs.get(python) ?? findPython(python);
  installs.set(python, install);
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), "recode-coverage-"));
  try {
    const work = join(dir, "work");
    for (const [rel, text] of Object.entries(coverageFiles(task))) {
      const p = join(work, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
    }
    const boxed = box === "bwrap";
    const config = { workdir: boxed ? `${BOX.run}/work` : work, target: task.meta.target_file_path, tests_file: "test.py" };
    writeFileSync(join(dir, "config.json"), JSON.stringify(config));
    const cmd = boxed
      ? bwrapCommand(install, dir, HERE, ["-X", "utf8", `${BOX.lib}/recode_coverage.py`, `${BOX.run}/config.json`], opts.limits, opts.hide)
      : { command: install.executable, args: ["-X", "utf8", SCRIPT, join(dir, "config.json")] };
    const env: Record<string, string> = boxed ? {} : { PYTHONHASHSEED: "0", PYTHONDONTWRITEBYTECODE: "1", LANG: "C.UTF-8" };
    const text = await runForOutput(cmd.command, cmd.args, work, env, coverageTimeoutMs(task));
    return report("native", JSON.parse(text) as RawCoverage, performance.now() - t0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Run a command in its own process group; resolve with what it wrote to file descriptor 3. */
function runForOutput(command: string, args: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "ignore", "pipe", "pipe"], detached: true });
    let out = "";
    let err = "";
    let timedOut = false;
    child.stdio[3]?.on("data", (d: Buffer) => {
      out += d.toString("utf8");
    });
    child.stderr?.on("data", (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
    });
    const clock = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }, timeoutMs);
    child.on("error", (e) => {
      clearTimeout(clock);
      reject(new Error(`coverage: ${command} could not start: ${e.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(clock);
      const line = out.trim().split("\n").pop() ?? "";
      if (timedOut) reject(new Error(`coverage: the run took longer than ${(timeoutMs / 1000).toFixed(0)} s`));
      else if (code === 0 && line) resolve(line);
      else {
        const tail = err.trim().split("\n").slice(-3).join(" ");
        reject(new Error(`coverage: python stopped (${signal ?? `exit code ${code}`})${tail ? `: ${tail}` : ""}`));
      }
    });
  });
}

type FromCoverageProcess =
  | { type: "ready"; version: string }
  | { type: "init-error"; message: string }
  | { type: "result"; id: number; text: string }
  | { type: "error"; id: number; message: string };

/**
 * Line coverage under Pyodide: one Node process holding one Pyodide instance
 * (loaded at the first measure, ~2-5 s) measures task after task. Measures
 * queue; {@link dispose} ends the process.
 */
export class PyodideCoverage {
  private child: BoxedProcess | null = null;
  private ready: Promise<string> | null = null;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly waiting = new Map<number, (msg: FromCoverageProcess) => void>();
  private exitReason = "";

  /** @param opts where Pyodide loads packages from, the box policy (`none`: a plain child process), and the folders the box hides. */
  constructor(private readonly opts: PyodideSourceOptions & { sandbox?: NativeSandbox; hide?: readonly string[] } = {}) {}

  /** Interpreter version, e.g. "3.14.2 (pyodide 314.0.7)"; starts the process. */
  version(): Promise<string> {
    return this.start();
  }

  private start(): Promise<string> {
    if (this.ready) return this.ready;
    const { sandbox = "auto", hide = [], ...sources } = this.opts;
    const readable = [sources.packageCacheDir, sources.indexURL, sources.packageBaseUrl].filter(
      (p): p is string => typeof p === "string" && p.startsWith("/"),
    );
    const cmd =
      resolvePyodideBox(sandbox, true) === "bwrap"
        ? pyodideBoxCommand(readable, PYODIDE_ENTRY, hide)
        : { command: process.execPath, args: [PYODIDE_ENTRY] };
    // The box's channel (box-channel.ts), for the plain process too. A malformed frame ends the process.
    let onMessage: (raw: unknown) => void = () => {};
    const boxed = spawnBoxed(
      cmd.command,
      cmd.args,
      (raw) => onMessage(raw),
      (why) => {
        this.exitReason ||= `the process sent ${why}`;
        this.dispose();
      },
    );
    const child = boxed.child;
    this.child = boxed;
    let err = "";
    child.stderr?.on("data", (d: Buffer) => {
      err = (err + d.toString()).slice(-2000);
    });
    this.ready = new Promise<string>((resolve, reject) => {
      onMessage = (raw) => {
        const msg = raw as FromCoverageProcess;
        if (msg.type === "ready") resolve(msg.version);
        else if (msg.type === "init-error") reject(new Error(`coverage (pyodide): ${msg.message}`));
        else this.waiting.get(msg.id)?.(msg);
      };
      const gone = (why: string) => {
        this.exitReason ||= why;
        reject(new Error(`coverage (pyodide): ${this.exitReason}`));
        for (const [id, cb] of this.waiting) cb({ type: "error", id, message: this.exitReason });
      };
      child.on("error", (e) => gone(`the process could not start: ${e.message}`));
      child.on("exit", (code, signal) => {
        const tail = err.trim().split("\n").slice(-2).join(" ");
        gone(`the process exited (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ""}`);
      });
    });
    this.ready.catch(() => {});
    boxed.send({ type: "init", options: sources });
    return this.ready;
  }

  /**
   * Measure line coverage of `task`'s canonical solution under Pyodide.
   * @throws Error when Pyodide cannot start, a package cannot be loaded, or the run exceeds its time (the process is then ended).
   */
  measure(task: Task): Promise<CoverageReport> {
    const p = this.queue.then(() => this.measureNow(task));
    this.queue = p.catch(() => {});
    return p;
  }

  private async measureNow(task: Task): Promise<CoverageReport> {
    await this.start();
    const child = this.child;
    if (!child || this.exitReason) throw new Error(`coverage (pyodide): ${this.exitReason || "not started"}`);
    const id = this.nextId++;
    const t0 = performance.now();
    const msg = await new Promise<FromCoverageProcess>((resolve) => {
      const timeoutMs = coverageTimeoutMs(task);
      const clock = setTimeout(() => {
        resolve({ type: "error", id, message: `the run took longer than ${(timeoutMs / 1000).toFixed(0)} s` });
        this.dispose();
      }, timeoutMs);
      this.waiting.set(id, (m) => {
        clearTimeout(clock);
        this.waiting.delete(id);
        resolve(m);
      });
      child.send({
        type: "measure",
        id,
        files: coverageFiles(task),
        config: { target: task.meta.target_file_path, tests_file: "test.py" },
        packages: task.meta.packages,
      });
    });
    if (msg.type !== "result") throw new Error(`coverage (pyodide): ${"message" in msg ? msg.message : "no result"}`);
    return report("pyodide", JSON.parse(msg.text) as RawCoverage, performance.now() - t0);
  }

  /** End the process (measures still waiting fail). */
  dispose(): void {
    const boxed = this.child;
    if (!boxed) return;
    this.exitReason ||= "disposed";
    boxed.end();
  }
}
