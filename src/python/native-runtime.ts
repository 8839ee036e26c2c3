/**
 * Native CPython backend for Node: each run is a fresh `python3` process in a
 * fresh temporary folder (so nothing leaks between runs), inside the box of
 * native-sandbox.ts (bubblewrap by default on Linux). The wall clock sends
 * SIGINT first (KeyboardInterrupt, like Pyodide's interrupt buffer), then
 * SIGKILL to the whole process group when that does not stop the code.
 */

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunResult } from "../core/results";
import { RunAssembler } from "./assembler";
import { createBoxLimits } from "./cgroup-limits";
import { exitReason } from "./channel-lost";
import { EventVerifier, newEventKey, toHex } from "./event-auth";
import { LineSplitter } from "./line-splitter";
import {
  BOX,
  boxLimitValues,
  bwrapCommand,
  type NativeSandbox,
  type PythonInstall,
  type SandboxLimits,
  setUpNative,
} from "./native-sandbox";
import { nodeHmacSha256 } from "./node-hmac";
import { type Attempt, harnessConfig, type PythonRuntime, type RunOptions, type RunRequest, runAttempts, runFiles } from "./runtime";

/** Options of {@link NativeRuntime}. */
export interface NativeRuntimeOptions {
  /** Python executable. Default "python3". */
  python?: string;
  /** Wait after SIGINT before SIGKILL, in ms. Default 1000 (a run ends within its time limit plus one second). */
  interruptGraceMs?: number;
  /** The box runs get (native-sandbox.ts). Default `auto`: bubblewrap, or refuse to start without it. */
  sandbox?: NativeSandbox;
  /** Limits inside the box. */
  limits?: SandboxLimits;
  /** Where the warning about running without a box goes (once per runtime). Default: standard error. */
  warn?: (message: string) => void;
  /**
   * Host folders the box must not show (native-sandbox.ts `bwrapCommand`), such as the task folders the runs come
   * from (their canonical solutions and recorded values), where it would: under /usr or a folder of Python's.
   */
  hide?: readonly string[];
}

/** HMAC-SHA256 by Node's own crypto (event-auth.ts's is plain JavaScript, for the page). */

const HARNESS = fileURLToPath(new URL("./harness.py", import.meta.url));
const HARNESS_DIR = dirname(HARNESS);

/** Child processes of `pid` (Linux /proc), or [] when they cannot be read. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The host PID of the harness's Python inside bubblewrap: bwrap -> its init in the new PID namespace -> Python. */
function boxedPythonPid(bwrapPid: number): number | null {
  const init = childrenOf(bwrapPid)[0];
  return (init !== undefined ? childrenOf(init)[0] : undefined) ?? null;
}

/** Environment of an unboxed run: enough to find Python, no secrets (API keys never reach Python). */
function plainEnv(): Record<string, string> {
  const env: Record<string, string> = { PYTHONDONTWRITEBYTECODE: "1", PYTHONHASHSEED: "0", LANG: "C.UTF-8" };
  for (const k of ["PATH", "HOME", "SYSTEMROOT", "LD_LIBRARY_PATH"]) {
    const v = process.env[k];
    if (v) env[k] = v;
  }
  return env;
}

/** Exits 0 when the top-level module named by argv[1] can be found (nothing of it runs). */
const FIND_SPEC = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(sys.argv[1]) else 1)";

/** PythonRuntime backed by a native python3 process per run. */
export class NativeRuntime implements PythonRuntime {
  readonly backend = "native" as const;
  version = "";
  private readonly python: string;
  private readonly available = new Map<string, boolean>();
  private readyPromise: Promise<void> | null = null;
  private install: PythonInstall | null = null;
  /** The box runs get, known after ready(). */
  box: "bwrap" | "none" | null = null;

  constructor(private readonly opts: NativeRuntimeOptions = {}) {
    this.python = opts.python ?? "python3";
  }

  /** Rejects with a clear error when Python cannot run, or when the sandbox policy cannot be met. */
  ready(): Promise<void> {
    this.readyPromise ??= new Promise<void>((resolve) => {
      const setup = setUpNative(this.python, this.opts.sandbox ?? "auto", "native", HARNESS_DIR, this.opts.warn);
      this.install = setup.install;
      this.box = setup.box;
      this.version = setup.version;
      resolve();
    });
    return this.readyPromise;
  }

  /**
   * The task's packages this Python does not have. Asked of the host's Python without running any module:
   * `-I` (no working folder or script folder on the path, no PYTHON* variables, no user site) and
   * `importlib.util.find_spec` on the name, given as an argument, so that a `numpy.py` in the folder
   * recode runs in is never executed outside the box (with the host's environment and files).
   */
  private missingPackages(packages: string[]): string[] {
    return packages.filter((p) => {
      let ok = this.available.get(p);
      if (ok === undefined) {
        const mod = p.replace(/-/g, "_");
        ok =
          /^[A-Za-z_]\w*$/.test(mod) &&
          spawnSync(this.python, ["-I", "-c", FIND_SPEC, mod], { encoding: "utf8", cwd: tmpdir(), timeout: 60_000 }).status === 0;
        this.available.set(p, ok);
      }
      return !ok;
    });
  }

  async run(req: RunRequest, opts: RunOptions = {}): Promise<RunResult> {
    await this.ready();
    // Refused before anything is written: a file whose path leaves the run folder (see runFiles).
    runFiles(req);
    const t0 = performance.now();
    const asm = new RunAssembler(req, opts.onProgress);
    const missing = this.missingPackages(req.packages);
    if (missing.length > 0) {
      const message = `package ${missing.join(", ")} is not installed for ${this.python}; install it (pip install ${missing.join(" ")}) or use another backend.`;
      return asm.finish("native", performance.now() - t0, { kind: "packages", message, respawned: false }, { kind: "crash", message });
    }
    return runAttempts("native", req, asm, t0, (limitMs, only) => this.attempt(req, asm, opts, limitMs, only), opts.signal);
  }

  /** One python3 process running the harness (all tests, or `only` these). */
  private attempt(req: RunRequest, asm: RunAssembler, opts: RunOptions, limitMs: number, only: string[] | undefined): Promise<Attempt> {
    const dir = mkdtempSync(join(tmpdir(), "recode-run-"));
    const work = join(dir, "work");
    for (const [rel, text] of Object.entries(runFiles(req))) {
      const p = join(work, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
    }
    const cfgPath = join(dir, "config.json");
    const boxed = this.box === "bwrap" && this.install !== null;
    writeFileSync(cfgPath, JSON.stringify(harnessConfig(req, boxed ? `${BOX.run}/work` : work, only)));
    const grace = this.opts.interruptGraceMs ?? 1000;
    let cmd =
      boxed && this.install
        ? bwrapCommand(
            this.install,
            dir,
            HARNESS_DIR,
            ["-X", "utf8", `${BOX.lib}/harness.py`, `${BOX.run}/config.json`],
            this.opts.limits,
            this.opts.hide,
          )
        : { command: this.python, args: ["-X", "utf8", HARNESS, cfgPath] };
    // The box joins groups that limit its processes and its memory before it starts (where the kernel's controllers can be written).
    const groups = boxed ? createBoxLimits(boxLimitValues(this.opts.limits)) : null;
    if (groups) cmd = groups.wrap(cmd.command, cmd.args);

    return new Promise((resolve) => {
      const child = spawn(cmd.command, cmd.args, {
        cwd: work,
        // Standard input carries the run's key for its event lines (event-auth.ts), and then ends.
        stdio: ["pipe", "pipe", "pipe", "pipe"],
        env: boxed ? {} : plainEnv(),
        // Its own process group, so that processes the submission starts are stopped with it.
        detached: true,
      });
      const killGroup = (sig: NodeJS.Signals) => {
        try {
          if (child.pid) process.kill(-child.pid, sig);
        } catch {
          /* the group is gone */
        }
      };
      let stopKind: "timeout" | "stopped" | null = null;
      let killed = false;
      // Lines are held to the stream's limit: a line never ended cannot grow this process's memory.
      const key = newEventKey();
      const verifier = new EventVerifier(key, nodeHmacSha256);
      child.stdin?.on("error", () => {
        /* the box ended before it read the key: reported by its exit */
      });
      child.stdin?.end(`${toHex(key)}\n`);
      const lines = new LineSplitter((line) => {
        if (line.trim()) for (const event of verifier.events(line)) asm.pushLine(event);
      });
      let stderr = "";
      let hard: ReturnType<typeof setTimeout> | null = null;
      const events = child.stdio[3] as NodeJS.ReadableStream;
      events.setEncoding("utf8");
      events.on("data", (chunk: string) => lines.push(chunk));
      child.stdout?.resume();
      child.stderr?.on("data", (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-4000);
      });
      const interruptNow = (kind: "timeout" | "stopped") => {
        if (stopKind) return;
        stopKind = kind;
        // Told once the events already in the pipe are read (they come before the interrupt): the test running
        // then is the one the interrupt stops.
        asm.interruptSending();
        setImmediate(() => asm.interruptSent(kind));
        // In the box, bubblewrap would die of SIGINT and take Python with it: interrupt Python alone.
        const py = boxed && child.pid ? boxedPythonPid(child.pid) : null;
        if (py) {
          try {
            process.kill(py, "SIGINT");
          } catch {
            /* already gone */
          }
        } else killGroup("SIGINT");
        hard = setTimeout(() => {
          killed = true;
          killGroup("SIGKILL");
        }, grace);
      };
      const clock = setTimeout(() => interruptNow("timeout"), limitMs);
      const onAbort = () => interruptNow("stopped");
      if (opts.signal?.aborted) onAbort();
      opts.signal?.addEventListener("abort", onAbort);
      let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
      let done = false;
      child.on("exit", (code, signal) => {
        exit = { code, signal };
        // Leftover processes of the submission hold the pipes open: stop them, and do not wait long.
        killGroup("SIGKILL");
        setTimeout(() => {
          if (!done) {
            for (const s of child.stdio) s?.destroy();
            settle();
          }
        }, 500);
      });
      child.on("error", (e) => {
        exit = { code: null, signal: null };
        stderr += `\n${e.message}`;
        settle();
      });
      child.on("close", () => settle());
      const settle = () => {
        if (done) return;
        done = true;
        const { code, signal } = exit ?? { code: null, signal: null };
        clearTimeout(clock);
        if (hard) clearTimeout(hard);
        opts.signal?.removeEventListener("abort", onAbort);
        rmSync(dir, { recursive: true, force: true });
        if (groups) setTimeout(() => groups.remove(), 200);
        const limit = `${(req.timeLimitMs / 1000).toFixed(1)} s`;
        if (killed) {
          resolve({
            incident: {
              kind: "terminated",
              message:
                stopKind === "stopped"
                  ? "Stopped: the code did not respond to the interrupt, so the process was killed."
                  : `Time limit of ${limit}: the code did not respond to the interrupt, so the process was killed.`,
              respawned: true,
            },
            stop: { kind: stopKind ?? "timeout", message: "" },
            died: false,
          });
        } else if (stopKind) {
          resolve({
            incident: {
              kind: "timeout",
              message:
                stopKind === "stopped"
                  ? "Stopped by the user; the interrupt stopped the code."
                  : `Time limit of ${limit} reached; the interrupt stopped the code.`,
              respawned: false,
            },
            stop: { kind: stopKind, message: "" },
            died: false,
          });
        } else if (!asm.ended) {
          const why = signal ? `killed by ${signal}` : exitReason(code);
          // (Quoted as what it is: the code under test writes to standard error too, and may write what the host would say.)
          const tail = stderr.trim().split("\n").slice(-3).join(" ").slice(-300);
          const said = tail ? `; the end of its standard error, which the code under test can write too: ${JSON.stringify(tail)}` : "";
          resolve({ incident: null, stop: { kind: "crash", message: `python3 stopped (${why})${said}` }, died: true });
        } else resolve({ incident: null, died: false });
      };
    });
  }

  async dispose(): Promise<void> {}
}
