/**
 * Native CPython backend for Node: each run is a fresh `python3` process in a
 * fresh temporary folder (so nothing leaks between runs). The wall clock sends
 * SIGINT first (KeyboardInterrupt, like Pyodide's interrupt buffer), then
 * SIGKILL when that does not stop the code.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunIncident, RunResult } from "../core/results";
import { RunAssembler, type RunStop } from "./assembler";
import { crashedIncident, harnessConfig, type PythonRuntime, type RunOptions, type RunRequest, runFiles } from "./runtime";

/** Options of {@link NativeRuntime}. */
export interface NativeRuntimeOptions {
  /** Python executable. Default "python3". */
  python?: string;
  /** Wait after SIGINT before SIGKILL, in ms. Default 1000 (a run ends within its time limit plus one second). */
  interruptGraceMs?: number;
}

const HARNESS = fileURLToPath(new URL("./harness.py", import.meta.url));

/** PythonRuntime backed by a native python3 process per run. */
export class NativeRuntime implements PythonRuntime {
  readonly backend = "native" as const;
  version = "";
  private readonly python: string;
  private readonly available = new Map<string, boolean>();
  private readyPromise: Promise<void> | null = null;

  constructor(private readonly opts: NativeRuntimeOptions = {}) {
    this.python = opts.python ?? "python3";
  }

  ready(): Promise<void> {
    this.readyPromise ??= new Promise<void>((resolve, reject) => {
      const r = spawnSync(this.python, ["-c", "import sys; print(sys.version.split()[0])"], { encoding: "utf8" });
      if (r.error || r.status !== 0) {
        reject(
          new Error(
            `native backend: cannot run ${this.python} (${r.error?.message ?? r.stderr.trim()}); install Python 3 or use the pyodide backend`,
          ),
        );
        return;
      }
      this.version = `${r.stdout.trim()} (native ${this.python})`;
      resolve();
    });
    return this.readyPromise;
  }

  private missingPackages(packages: string[]): string[] {
    return packages.filter((p) => {
      let ok = this.available.get(p);
      if (ok === undefined) {
        const mod = p.replace(/-/g, "_");
        ok = spawnSync(this.python, ["-c", `import ${mod}`], { encoding: "utf8" }).status === 0;
        this.available.set(p, ok);
      }
      return !ok;
    });
  }

  async run(req: RunRequest, opts: RunOptions = {}): Promise<RunResult> {
    await this.ready();
    const t0 = performance.now();
    const asm = new RunAssembler(req, opts.onProgress);
    const missing = this.missingPackages(req.packages);
    if (missing.length > 0) {
      const message = `package ${missing.join(", ")} is not installed for ${this.python}; install it (pip install ${missing.join(" ")}) or use another backend.`;
      return asm.finish("native", performance.now() - t0, { kind: "packages", message, respawned: false }, { kind: "crash", message });
    }
    let only: string[] | undefined;
    let crashes: string[] = [];
    for (;;) {
      const left = req.timeLimitMs - (performance.now() - t0);
      const attempt = await this.attempt(req, asm, opts, Math.max(left, 1), only);
      if (attempt.stop?.kind !== "crash" || opts.signal?.aborted) {
        const incident = crashes.length && !attempt.incident ? crashedIncident(crashes) : attempt.incident;
        return asm.finish("native", performance.now() - t0, incident, attempt.stop);
      }
      // The interpreter died: the test that ran is an error; the rest run in a new process.
      crashes = [...crashes, attempt.stop.message];
      const rest = asm.crashed(`the Python process died during this test: ${attempt.stop.message}`);
      if (rest.length === 0 || req.timeLimitMs - (performance.now() - t0) < 50) {
        return asm.finish("native", performance.now() - t0, crashedIncident(crashes), rest.length ? attempt.stop : undefined);
      }
      only = rest;
      asm.beginAttempt(rest);
    }
  }

  /** One python3 process running the harness (all tests, or `only` these). */
  private attempt(
    req: RunRequest,
    asm: RunAssembler,
    opts: RunOptions,
    limitMs: number,
    only: string[] | undefined,
  ): Promise<{ incident: RunIncident | null; stop?: RunStop }> {
    const dir = mkdtempSync(join(tmpdir(), "recode-run-"));
    const work = join(dir, "work");
    for (const [rel, text] of Object.entries(runFiles(req))) {
      const p = join(work, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
    }
    const cfgPath = join(dir, "config.json");
    writeFileSync(cfgPath, JSON.stringify(harnessConfig(req, work, only)));
    const grace = this.opts.interruptGraceMs ?? 1000;

    return new Promise((resolve) => {
      const child = spawn(this.python, ["-X", "utf8", HARNESS, cfgPath], {
        cwd: work,
        stdio: ["ignore", "pipe", "pipe", "pipe"],
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PYTHONHASHSEED: "0" },
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
      let buf = "";
      let stderr = "";
      let hard: ReturnType<typeof setTimeout> | null = null;
      const events = child.stdio[3] as NodeJS.ReadableStream;
      events.setEncoding("utf8");
      events.on("data", (chunk: string) => {
        buf += chunk;
        let nl = buf.indexOf("\n");
        while (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim()) asm.pushLine(line);
          nl = buf.indexOf("\n");
        }
      });
      child.stdout?.resume();
      child.stderr?.on("data", (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-4000);
      });
      const interruptNow = (kind: "timeout" | "stopped") => {
        if (stopKind) return;
        stopKind = kind;
        killGroup("SIGINT");
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
          });
        } else if (!asm.ended) {
          const why = signal ? `killed by ${signal}` : `exit code ${code}`;
          const tail = stderr.trim().split("\n").slice(-3).join(" ");
          resolve({ incident: null, stop: { kind: "crash", message: `python3 stopped (${why})${tail ? `: ${tail}` : ""}` } });
        } else resolve({ incident: null });
      };
    });
  }

  async dispose(): Promise<void> {}
}
