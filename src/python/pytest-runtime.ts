/**
 * The runner of shared tasks (`isolation: "shared"`, imported official
 * RECODE-H tasks): their tests import the canonical module and run under
 * pytest with a Python the user names (`--python`, e.g. the conda
 * environment of the official set-up), as the official harness runs them
 * (agent/clean_test_runner.py): `python -m pytest test.py --junitxml=...
 * [--timeout N]` in test.sh's folder with its PYTHONPATH, and the verdict from
 * the JUnit report (core/pytest-task.ts).
 *
 * Each run is a fresh process tree in a fresh folder, inside the same box as
 * the native backend (native-sandbox.ts: bubblewrap by default). The box
 * protects the machine from the code; it does not protect the verdict: the
 * code under test shares its interpreter with the canonical solution and the
 * test framework (docs/security.md, "Shared isolation").
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { importedModules, type JunitReport, type PytestOutcome, pytestVerdict, type SharedTask, sharedRunFiles } from "../core/pytest-task";
import { makeRunResult, type RunResult } from "../core/results";
import { createBoxLimits } from "./cgroup-limits";
import {
  BOX,
  boxLimitValues,
  bwrapCommand,
  type NativeSandbox,
  type PythonInstall,
  type SandboxLimits,
  setUpNative,
} from "./native-sandbox";
import type { RunOptions } from "./runtime";

/** Options of {@link PytestRuntime}. */
export interface PytestRuntimeOptions {
  /** Python executable, with pytest installed. Default "python3". */
  python?: string;
  /** The box runs get (native-sandbox.ts). Default `auto`: bubblewrap, or refuse to start without it. */
  sandbox?: NativeSandbox;
  /** Limits inside the box. */
  limits?: SandboxLimits;
  /** Where the warning about running without a box goes (once per runtime). Default: standard error. */
  warn?: (message: string) => void;
  /**
   * Host folders the box does not show, such as the task's own folder and the folder of tasks it is in (their
   * canonical solutions and recorded values), where the box would show them (under /usr or a folder of the
   * Python's): as the native backend hides them (native-sandbox.ts, `bwrapCommand`). Default none.
   */
  hide?: readonly string[];
}

/** What the Python says about one module: whether it can import it, and whether it is part of the standard library. */
export interface ModuleInfo {
  found: boolean;
  stdlib: boolean;
}

const LIB_DIR = dirname(fileURLToPath(new URL("./pytest_entry.py", import.meta.url)));
/** The pytest plugins every run loads from its `plugins/` folder (see pytest_entry.py). */
const PLUGINS = ["recode_pytest_report.py", "recode_pytest_timeout.py", "recode_pytest_collected.py"];

/** Asks `importlib.util.find_spec` about each module named on the command line; prints {name: {found, stdlib}}. */
const PROBE = [
  "import importlib.util, json, sys",
  "std = set(getattr(sys, 'stdlib_module_names', ())) | set(sys.builtin_module_names)",
  "out = {}",
  "for m in sys.argv[1:]:",
  "    try:",
  "        found = importlib.util.find_spec(m) is not None",
  "    except Exception:",
  "        found = False",
  "    out[m] = {'found': found, 'stdlib': m in std}",
  "print(json.dumps(out))",
].join("\n");

/** Compiles each file named on the command line (in the current folder); prints {name: null | {line, message}}. */
const COMPILE = [
  "import json, sys",
  "out = {}",
  "for name in sys.argv[1:]:",
  "    try:",
  "        with open(name, 'rb') as f:",
  "            compile(f.read(), name, 'exec', dont_inherit=True)",
  "        out[name] = None",
  "    except SyntaxError as e:",
  "        out[name] = {'line': e.lineno, 'message': '%s: %s' % (type(e).__name__, e.msg)}",
  "    except (ValueError, UnicodeDecodeError) as e:",
  "        out[name] = {'line': None, 'message': '%s: %s' % (type(e).__name__, e)}",
  "print(json.dumps(out))",
].join("\n");

/** Where a file does not compile: its line (null when none is known) and the error. */
export interface CompileError {
  line: number | null;
  message: string;
}

/** Extra seconds the host waits past the run's limit before it kills the box (the runner stops pytest itself first). */
const BACKSTOP_MS = 15_000;

/**
 * The most the host reads of the runner's result line, in characters. The runner bounds what it reads of the
 * JUnit report (pytest_entry.py: 8 million characters of text in all), so an honest line is far below this; code
 * under test runs in the box beside the runner and could write more. Past it the run ends with no report.
 */
const CHANNEL_CAP = 64 * 1024 * 1024;

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Environment of an unboxed run: enough to find Python, no secrets. */
function plainEnv(): Record<string, string> {
  const env: Record<string, string> = { PYTHONDONTWRITEBYTECODE: "1", PYTHONHASHSEED: "0", LANG: "C.UTF-8" };
  for (const k of ["PATH", "HOME", "SYSTEMROOT", "LD_LIBRARY_PATH"]) {
    const v = process.env[k];
    if (v) env[k] = v;
  }
  return env;
}

interface Launched {
  /** What the runner wrote on descriptor 3. */
  channel: string;
  stdout: string;
  stderr: string;
  code: number | null;
  /** The host killed the box (the backstop). */
  killed: boolean;
  /** The result line passed {@link CHANNEL_CAP}: the host stopped reading it and ended the box. */
  overflow: boolean;
}

/** Runs shared tasks under pytest; one process tree per run. */
export class PytestRuntime {
  readonly backend = "native" as const;
  /** Interpreter and box, e.g. "3.11.7 (pytest, python3, bubblewrap)". Valid after ready(). */
  version = "";
  readonly python: string;
  private install: PythonInstall | null = null;
  private box: "bwrap" | "none" | null = null;
  private readyPromise: Promise<void> | null = null;
  private readonly modules = new Map<string, ModuleInfo>();

  constructor(private readonly opts: PytestRuntimeOptions = {}) {
    this.python = opts.python ?? "python3";
  }

  /**
   * Resolves when the Python runs and the sandbox policy can be met.
   * @throws Error saying what to install (or to pass), like the native backend.
   */
  ready(): Promise<void> {
    this.readyPromise ??= new Promise<void>((resolve) => {
      const setup = setUpNative(this.python, this.opts.sandbox ?? "auto", "pytest", LIB_DIR, this.opts.warn);
      this.install = setup.install;
      this.box = setup.box;
      this.version = setup.version;
      resolve();
    });
    return this.readyPromise;
  }

  /**
   * Ask the Python, in the box runs get, about `modules` (top-level names):
   * `importlib.util.find_spec` for each, and whether it is in the standard
   * library (`sys.stdlib_module_names`). Answers are cached per runtime.
   * @throws Error when the Python cannot be asked (it does not start).
   */
  async probe(modules: readonly string[]): Promise<Map<string, ModuleInfo>> {
    await this.ready();
    const ask = [...new Set(modules)].filter((m) => /^[A-Za-z_]\w*$/.test(m) && !this.modules.has(m));
    if (ask.length > 0) {
      const dir = mkdtempSync(join(tmpdir(), "recode-probe-"));
      mkdirSync(join(dir, "work"));
      try {
        const r = await this.launch(dir, () => ["-X", "utf8", "-c", PROBE, ...ask], 60_000);
        let answer: Record<string, ModuleInfo>;
        try {
          answer = JSON.parse(r.stdout.trim().split("\n").pop() ?? "") as Record<string, ModuleInfo>;
        } catch {
          throw new Error(
            `cannot ask ${this.python} about its modules: ${r.stderr.trim().split("\n").slice(-2).join(" ") || `exit code ${r.code}`}`,
          );
        }
        for (const m of ask) this.modules.set(m, answer[m] ?? { found: false, stdlib: false });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    return new Map(modules.map((m) => [m, this.modules.get(m) ?? { found: false, stdlib: false }]));
  }

  /**
   * Compile Python files with this Python (as pytest would import them), without running them: `files` maps a
   * file name (no folder) to its text. Returns the files that do not compile, with the line and the error.
   * @throws Error when the Python cannot be asked.
   */
  async compileErrors(files: Record<string, string>): Promise<Map<string, CompileError>> {
    await this.ready();
    const names = Object.keys(files).filter((n) => /^[\w.-]+\.py$/.test(n));
    if (names.length === 0) return new Map();
    const dir = mkdtempSync(join(tmpdir(), "recode-compile-"));
    try {
      mkdirSync(join(dir, "work"));
      for (const n of names) writeFileSync(join(dir, "work", n), files[n] as string);
      const r = await this.launch(dir, () => ["-X", "utf8", "-c", COMPILE, ...names], 60_000);
      let answer: Record<string, CompileError | null>;
      try {
        answer = JSON.parse(r.stdout.trim().split("\n").pop() ?? "") as Record<string, CompileError | null>;
      } catch {
        throw new Error(`cannot compile with ${this.python}: ${r.stderr.trim().split("\n").slice(-2).join(" ") || `exit code ${r.code}`}`);
      }
      return new Map(names.flatMap((n) => (answer[n] ? [[n, answer[n]] as [string, CompileError]] : [])));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /**
   * Modules a shared task needs that this Python cannot import: pytest, and
   * the modules canonical.py and test.py import that the run's files do not
   * provide ({@link importedModules}). Empty when it can run the task.
   */
  async missingModules(task: SharedTask): Promise<string[]> {
    const need = ["pytest", ...importedModules(task).filter((m) => m !== "pytest")];
    const info = await this.probe(need);
    return need.filter((m) => !info.get(m)?.found);
  }

  /**
   * Run the task's tests on `candidate` (the target file) and give the
   * verdict. Never rejects for problems in the candidate code (they are
   * results); missing modules give a result with a `packages` incident and
   * no test run.
   * @throws Error when the runtime cannot start (no Python, no sandbox).
   */
  async run(task: SharedTask, candidate: string, opts: RunOptions = {}): Promise<RunResult> {
    await this.ready();
    const t0 = performance.now();
    const missing = await this.missingModules(task);
    if (missing.length > 0) {
      const message = `${this.python} cannot import ${missing.join(", ")}; install ${missing.length > 1 ? "them" : "it"} for that Python, or pass --python with one that has ${missing.length > 1 ? "them" : "it"}.`;
      return makeRunResult([], {
        backend: "native",
        incident: { kind: "packages", message, respawned: false },
        collectionError: { message, file: null, line: null, traceback: "" },
        durationMs: performance.now() - t0,
      });
    }
    const dir = mkdtempSync(join(tmpdir(), "recode-pytest-"));
    try {
      for (const [rel, text] of Object.entries(sharedRunFiles(task, candidate))) {
        const p = join(dir, "work", rel);
        mkdirSync(dirname(p), { recursive: true });
        writeFileSync(p, text);
      }
      mkdirSync(join(dir, "plugins"));
      for (const name of PLUGINS) copyFileSync(join(LIB_DIR, name), join(dir, "plugins", name));
      const p = task.meta.pytest;
      const limitS = Math.max((task.meta.time_limit_s * 1000 - (performance.now() - t0)) / 1000, 0.1);
      writeFileSync(
        join(dir, "config.json"),
        JSON.stringify({ cwd: p.cwd, test_dir: p.test_dir, pythonpath: p.pythonpath, timeout_s: p.timeout_s ?? null, limit_s: limitS }),
      );
      const r = await this.launch(
        dir,
        (lib, run) => ["-X", "utf8", `${lib}/pytest_entry.py`, `${run}/config.json`],
        limitS * 1000 + BACKSTOP_MS,
        opts.signal,
      );
      return pytestVerdict(task, this.outcome(r, opts.signal?.aborted ?? false), performance.now() - t0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** The runner's report, or what the host saw when there is none. */
  private outcome(r: Launched, aborted: boolean): PytestOutcome {
    const line = r.overflow ? "" : (r.channel.trim().split("\n").pop() ?? "");
    if (line) {
      try {
        const o = JSON.parse(line) as {
          report: JunitReport | null;
          report_error: string | null;
          exit: number | null;
          timed_out: boolean;
          stopped?: boolean;
          killed: boolean;
          output: string;
          collected?: unknown;
          started?: unknown;
        };
        return {
          report: o.report,
          reportError: o.report_error,
          exit: o.exit,
          timedOut: o.timed_out,
          stopped: o.stopped === true,
          killed: o.killed,
          output: o.output,
          collected: Array.isArray(o.collected) && o.collected.every((x) => typeof x === "string") ? o.collected : null,
          ...(o.started === null || typeof o.started === "string" ? { started: o.started } : {}),
        };
      } catch {
        /* a broken line: as if there were none */
      }
    }
    const why = r.overflow
      ? `the runner's result was larger than ${CHANNEL_CAP / 1024 / 1024} MB, so the run was ended (code under test can write what pytest reports)`
      : r.killed
        ? "the run did not end in time and was killed"
        : `the runner stopped (exit code ${r.code})`;
    return {
      report: null,
      reportError: why,
      exit: null,
      timedOut: r.killed,
      stopped: aborted,
      killed: r.killed,
      output: `${r.stdout.slice(-4000)}${r.stderr.slice(-4000)}`,
    };
  }

  /**
   * Start Python with `args(lib, run)` (the folder of the runner's files and
   * the run folder, as Python sees them) in the box, with `dir` as the run
   * folder (its `work/` is the working folder); kill it after `backstopMs`.
   * `signal` asks the runner to stop (SIGUSR1).
   */
  private launch(dir: string, args: (lib: string, run: string) => string[], backstopMs: number, signal?: AbortSignal): Promise<Launched> {
    const boxed = this.box === "bwrap" && this.install !== null;
    let cmd =
      boxed && this.install
        ? bwrapCommand(this.install, dir, LIB_DIR, args(BOX.lib, BOX.run), this.opts.limits, this.opts.hide)
        : { command: this.python, args: args(LIB_DIR, dir) };
    const groups = boxed ? createBoxLimits(boxLimitValues(this.opts.limits)) : null;
    if (groups) cmd = groups.wrap(cmd.command, cmd.args);
    return new Promise((resolve) => {
      const child = spawn(cmd.command, cmd.args, {
        cwd: join(dir, "work"),
        stdio: ["ignore", "pipe", "pipe", "pipe"],
        env: boxed ? {} : plainEnv(),
        detached: true,
      });
      let channel = "";
      let stdout = "";
      let stderr = "";
      let killed = false;
      let overflow = false;
      let done = false;
      const killGroup = (sig: NodeJS.Signals) => {
        try {
          if (child.pid) process.kill(-child.pid, sig);
        } catch {
          /* the group is gone */
        }
      };
      (child.stdio[3] as NodeJS.ReadableStream).setEncoding("utf8");
      (child.stdio[3] as NodeJS.ReadableStream).on("data", (d: string) => {
        if (overflow) return;
        if (channel.length + d.length > CHANNEL_CAP) {
          overflow = true;
          channel = "";
          killGroup("SIGKILL");
          return;
        }
        channel += d;
      });
      child.stdout?.on("data", (d: Buffer) => {
        stdout = (stdout + d.toString()).slice(-200_000);
      });
      child.stderr?.on("data", (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-8000);
      });
      const backstop = setTimeout(() => {
        killed = true;
        killGroup("SIGKILL");
      }, backstopMs);
      const onAbort = () => {
        // The runner itself: in the box, the Python under bubblewrap and its init.
        const init = boxed && child.pid ? childrenOf(child.pid)[0] : undefined;
        const pid = boxed ? (init !== undefined ? childrenOf(init)[0] : undefined) : child.pid;
        try {
          if (pid) process.kill(pid, "SIGUSR1");
        } catch {
          /* already gone */
        }
      };
      if (signal?.aborted) onAbort();
      signal?.addEventListener("abort", onAbort);
      let exitCode: number | null = null;
      const settle = () => {
        if (done) return;
        done = true;
        clearTimeout(backstop);
        signal?.removeEventListener("abort", onAbort);
        if (groups) setTimeout(() => groups.remove(), 200);
        resolve({ channel, stdout, stderr, code: exitCode, killed, overflow });
      };
      child.on("exit", (code) => {
        exitCode = code;
        killGroup("SIGKILL");
        setTimeout(() => {
          if (!done) {
            for (const s of child.stdio) s?.destroy();
            settle();
          }
        }, 500);
      });
      child.on("error", (e) => {
        stderr += `\n${e.message}`;
        settle();
      });
      child.on("close", settle);
    });
  }

  /** Nothing to free: every run is its own process. */
  async dispose(): Promise<void> {}
}
