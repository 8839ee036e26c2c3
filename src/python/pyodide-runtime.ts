/**
 * Host side of the Pyodide runtime: talks to a worker (Web Worker in the page,
 * worker thread in Node) through a small adapter, enforces the wall clock
 * (interrupt buffer first, terminate and respawn when that does not stop the
 * code), and replaces dead or poisoned instances.
 */
import type { RunIncident, RunResult } from "../core/results";
import type { RunAssembler } from "./assembler";
import { PACKAGE_ADVICE } from "./package-advice";
import { type Attempt, harnessConfig, type PythonRuntime, type RunOptions, type RunRequest, runAttempts, runFiles } from "./runtime";
import { WORKDIR } from "./workdir";
import type { FromWorker, PyodideSourceOptions, ToWorker } from "./worker-core";

/** The few things the host needs from a worker, whatever the platform. */
export interface WorkerHandle {
  post(msg: ToWorker): void;
  /** Register the message listener (called once). */
  onMessage(cb: (msg: FromWorker) => void): void;
  /** Register a listener for the worker dying (error or exit). */
  onExit(cb: (reason: string) => void): void;
  terminate(): void;
  /**
   * Interrupt the running code (a KeyboardInterrupt in Python), for a worker
   * in another process, where no SharedArrayBuffer can be shared with it.
   * Without it, the host interrupts through a SharedArrayBuffer when it can.
   */
  interrupt?(): void;
  /** The process id of the worker's own process, when it runs in one. */
  readonly pid?: number;
}

/** Options of {@link PyodideRuntime}. */
/**
 * Where a runtime gets and keeps its start snapshot: Pyodide's memory with the
 * harness imported, made by a worker's first start, before it is sealed and
 * before any candidate code runs (start-snapshot.ts in Node, browser-snapshots.ts
 * in the page).
 */
export interface StartSnapshotStore {
  /** The snapshot for this start (bytes, or a Blob the worker reads), or null when there is none yet (a failed read is none). */
  load(): Promise<Uint8Array | Blob | null> | Uint8Array | Blob | null;
  /** Keep a snapshot a worker made. Never throws (a full disk means no snapshot next time, nothing more). */
  save(bytes: Uint8Array): Promise<void> | void;
}

export interface PyodideRuntimeOptions extends PyodideSourceOptions {
  /**
   * What a package that could not be loaded tells the user to do, in place of {@link PACKAGE_ADVICE} (the CLI
   * names its options).
   */
  packageAdvice?: string;
  /** Creates a fresh worker running worker-core. */
  createWorker: () => WorkerHandle;
  /** How long to wait after the interrupt before terminating, in ms. Default 1000 (a run ends within its time limit plus one second). */
  interruptGraceMs?: number;
  /** WebAssembly memory above which the instance is replaced after a run, in bytes. Default {@link DEFAULT_MEMORY_CAP}. */
  memoryCapBytes?: number;
  /** Use a SharedArrayBuffer interrupt (needs cross-origin isolation in the page). Default: when available. */
  useInterrupt?: boolean;
  /** Where start snapshots are kept (start-snapshot.ts): workers start from one, and the first start makes it. */
  startSnapshots?: StartSnapshotStore;
}

interface Instance {
  worker: WorkerHandle;
  /** Interrupt the running code, or null when only replacing the worker can stop it. */
  interrupt: (() => void) | null;
  ready: Promise<void>;
  version: string;
  /** Whether the worker started from a start snapshot. */
  fromSnapshot: boolean;
  /** Whether the worker said it is ready (candidate code may run from then on). */
  isReady: boolean;
  dead: boolean;
  listener: ((msg: FromWorker) => void) | null;
  exitListener: ((reason: string) => void) | null;
}

function canInterrupt(): boolean {
  if (typeof SharedArrayBuffer === "undefined") return false;
  const iso = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  return iso === undefined || iso === true;
}

/** Wait for `ready`; true when `signal` aborts first (or already has). Rejects as `ready` does. */
function readyOrStopped(ready: Promise<void>, signal: AbortSignal | undefined): Promise<boolean> {
  if (!signal) return ready.then(() => false);
  if (signal.aborted) return Promise.resolve(true);
  return new Promise<boolean>((resolve, reject) => {
    const onAbort = () => resolve(true);
    signal.addEventListener("abort", onAbort, { once: true });
    ready.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve(false);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** WebAssembly memory above which an instance is replaced after a run, in bytes (1 GiB). */
export const DEFAULT_MEMORY_CAP = 1024 * 1024 * 1024;

/** How long a worker may take to accept a run before it counts as stuck, in ms. */
const ACCEPT_TIMEOUT_MS = 10_000;

/**
 * How long a stop asked for before the run started (the first run seals the interpreter, a task's packages
 * load) waits for the start, where its interrupt goes out, before the instance is replaced instead, in ms.
 */
const PENDING_STOP_MS = 10_000;

/** PythonRuntime backed by Pyodide in a worker. One run at a time; runs queue. */
export class PyodideRuntime implements PythonRuntime {
  readonly backend = "pyodide" as const;
  private inst: Instance | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextRun = 1;
  private disposed = false;

  constructor(private readonly opts: PyodideRuntimeOptions) {}

  get version(): string {
    return this.inst?.version ?? "";
  }

  /** Whether the current instance started from a start snapshot (false until it is ready). */
  get startedFromSnapshot(): boolean {
    return this.inst?.fromSnapshot ?? false;
  }

  ready(): Promise<void> {
    const ready = this.instance().ready;
    // Once Python is up, fetch the verdict's code, so that the first run does not wait for it.
    void ready.then(() => import("./assembler")).catch(() => {});
    return ready;
  }

  private instance(): Instance {
    if (this.disposed) throw new Error("the Python runtime was disposed");
    if (this.inst && !this.inst.dead) return this.inst;
    this.inst = this.spawn();
    return this.inst;
  }

  private spawn(): Instance {
    const worker = this.opts.createWorker();
    const useInt = this.opts.useInterrupt ?? canInterrupt();
    const shared = useInt && !worker.interrupt ? new SharedArrayBuffer(1) : null;
    const buffer = shared ? new Uint8Array(shared) : null;
    const inst: Instance = {
      worker,
      interrupt: buffer
        ? () => {
            Atomics.store(buffer, 0, 2); // SIGINT
          }
        : useInt && worker.interrupt
          ? () => worker.interrupt?.()
          : null,
      ready: Promise.resolve(),
      version: "",
      fromSnapshot: false,
      isReady: false,
      dead: false,
      listener: null,
      exitListener: null,
    };
    inst.ready = new Promise<void>((resolve, reject) => {
      worker.onMessage((msg) => {
        if (msg.type === "snapshot") {
          // Made before "ready", before any candidate code ran; anything later is not the worker's to say.
          if (!inst.isReady && !inst.dead) void this.opts.startSnapshots?.save(msg.bytes);
        } else if (msg.type === "ready") {
          inst.isReady = true;
          inst.version = msg.version;
          inst.fromSnapshot = msg.fromSnapshot;
          resolve();
        } else if (msg.type === "init-error") {
          inst.dead = true;
          reject(new Error(msg.message));
        } else if (inst.listener) inst.listener(msg);
        else if (!inst.dead && (msg.type === "failed" || msg.type === "closing" || (msg.type === "done" && this.mustReplace(msg)))) {
          // After a finished run: cleaning up failed, the run left the instance tainted or too big, or the worker is closing.
          this.respawn(inst);
        }
      });
      worker.onExit((reason) => {
        const wasDead = inst.dead;
        inst.dead = true;
        if (!wasDead) reject(new Error(`the Python worker stopped before it was ready: ${reason}`));
        inst.exitListener?.(reason);
      });
    });
    inst.ready.catch(() => {});
    const { indexURL, packageBaseUrl, lockFileURL, packageCacheDir } = this.opts;
    const store = this.opts.startSnapshots;
    // Pyodide's files are fetched while the snapshot is read (tens of MB from the disk or IndexedDB).
    if (store) worker.post({ type: "prepare", options: { indexURL, packageBaseUrl, lockFileURL, packageCacheDir } });
    const loaded = store ? Promise.resolve().then(() => store.load()) : Promise.resolve(null);
    void loaded
      .catch(() => null)
      .then((snapshot) => {
        if (inst.dead) return;
        worker.post({
          type: "init",
          options: { indexURL, packageBaseUrl, lockFileURL, packageCacheDir },
          interruptBuffer: shared,
          snapshot,
          makeSnapshot: store !== undefined && snapshot === null,
        });
      });
    return inst;
  }

  private kill(inst: Instance): void {
    inst.dead = true;
    inst.listener = null;
    inst.exitListener = null;
    try {
      inst.worker.terminate();
    } catch {
      /* already gone */
    }
    if (this.inst === inst) this.inst = null;
  }

  /** Whether a finished run left its instance to be replaced: tainted, or memory past the cap. */
  private mustReplace(msg: { tainted: string; memoryBytes: number }): boolean {
    return msg.tainted !== "" || msg.memoryBytes > (this.opts.memoryCapBytes ?? DEFAULT_MEMORY_CAP);
  }

  /** Kill the current instance and start a new one in the background. */
  private respawn(inst: Instance): void {
    this.kill(inst);
    if (!this.disposed) this.instance();
  }

  run(req: RunRequest, opts: RunOptions = {}): Promise<RunResult> {
    const p = this.queue.then(() => this.runNow(req, opts));
    this.queue = p.catch(() => {});
    return p;
  }

  /**
   * Attempts until the run is over: when the interpreter dies during a test,
   * that test is an error and the tests not yet run go to a fresh instance
   * (within what is left of the time limit).
   */
  private async runNow(req: RunRequest, opts: RunOptions): Promise<RunResult> {
    // Refused before anything is written: a file whose path leaves the run folder (see runFiles).
    runFiles(req);
    // A run asked for while Python still starts waits for it, and that wait is not the run's: its time limit
    // and its duration count from here. (A start that fails, or Stop meanwhile, is the attempt's to report.)
    await readyOrStopped(this.instance().ready, opts.signal).catch(() => true);
    const t0 = performance.now();
    // The verdict's code is loaded with the first run (not in the page's first load; ready() fetches it early).
    const { RunAssembler } = await import("./assembler");
    const asm = new RunAssembler(req, opts.onProgress);
    return runAttempts("pyodide", req, asm, t0, (limitMs, only) => this.attempt(req, asm, opts, limitMs, only), opts.signal);
  }

  /** One run of the harness in the current instance (all tests, or `only` these). */
  private async attempt(
    req: RunRequest,
    asm: RunAssembler,
    opts: RunOptions,
    limitMs: number,
    only: string[] | undefined,
    retried = false,
  ): Promise<Attempt> {
    const inst = this.instance();
    // Stop works while Python is still loading too: nothing has run, and nothing will.
    // (A new instance after a death starts here: that wait is not the tests' time, see runAttempts.)
    const waitStart = performance.now();
    if (await readyOrStopped(inst.ready, opts.signal)) {
      return {
        incident: {
          kind: "timeout",
          message: `Stopped by the user before ${inst.isReady ? "the run started" : "Python was ready"}; no test ran.`,
          respawned: false,
        },
        stop: { kind: "stopped", message: "" },
        died: false,
      };
    }
    const runId = this.nextRun++;
    const grace = this.opts.interruptGraceMs ?? 1000;

    return new Promise<Attempt>((resolve) => {
      let clock: ReturnType<typeof setTimeout> | null = null;
      let hard: ReturnType<typeof setTimeout> | null = null;
      let stopKind: "timeout" | "stopped" | null = null;
      let settled = false;
      /** When the worker said the harness starts ("started"), null before: an interrupt before that lands elsewhere. */
      let startedAt: number | null = null;
      let pendingStop: "timeout" | "stopped" | null = null;

      const finish = (result: Attempt) => {
        if (settled) return;
        settled = true;
        if (clock) clearTimeout(clock);
        if (hard) clearTimeout(hard);
        if (acceptGuard) clearTimeout(acceptGuard);
        opts.signal?.removeEventListener("abort", onAbort);
        inst.listener = null;
        inst.exitListener = null;
        // The tests' time starts at "started", as the clock does: the wait for the instance, its seal at the first
        // run and the packages' imports before it are not the tests' time (all of it, for an attempt that never started).
        resolve({ ...result, waitedMs: (startedAt ?? performance.now()) - waitStart });
      };

      const terminate = () => {
        const kind = stopKind ?? "timeout";
        const limit = `Time limit of ${(req.timeLimitMs / 1000).toFixed(1)} s`;
        this.respawn(inst);
        finish({
          incident: {
            kind: "terminated",
            message: !inst.interrupt
              ? `${kind === "stopped" ? "Stopped" : limit}: no interrupt is available here (a page that is not cross-origin isolated), so the Python instance was replaced.`
              : kind === "stopped"
                ? "Stopped: the code did not respond to the interrupt, so the Python instance was replaced."
                : `${limit}: the code did not respond to the interrupt (a sleep, a C-level loop or a caught KeyboardInterrupt), so the Python instance was replaced.`,
            respawned: true,
          },
          stop: { kind, message: "" },
          died: false,
        });
      };

      const interruptNow = (kind: "timeout" | "stopped") => {
        if (settled || stopKind) return;
        if (startedAt === null && inst.interrupt) {
          // Before the harness starts, the interrupt would land in the worker's own Python (the seal at the first
          // run, a package's import), not in the tests: it goes out as the run starts ("started" below), or,
          // when that does not come, the instance is replaced.
          if (pendingStop === null) {
            pendingStop = kind;
            hard = setTimeout(() => {
              stopKind = kind;
              terminate();
            }, PENDING_STOP_MS);
          }
          return;
        }
        stopKind = kind;
        // Told once the messages already received are read (they come before the interrupt): the test running
        // then is the one the interrupt stops.
        asm.interruptSending();
        setTimeout(() => asm.interruptSent(kind), 0);
        if (inst.interrupt) {
          inst.interrupt();
          hard = setTimeout(terminate, grace);
        } else terminate();
      };

      const onAbort = () => interruptNow("stopped");

      const died = (reason: string) => {
        // The harness never dies after its last event: an "end" before a death was written by the code under test.
        if (asm.ended) asm.distrustEnd("the interpreter died after the run reported its end");
        this.respawn(inst);
        finish({ incident: null, stop: { kind: "crash", message: reason }, died: true });
      };
      inst.exitListener = (reason) => died(reason);

      let poisoned = false;
      const complete = () => {
        let incident: RunIncident | null = null;
        if (stopKind) {
          const how = asm.wasInterrupted
            ? "the interrupt stopped the code"
            : !asm.reachedTests
              ? "the interrupt stopped the run before its tests started"
              : "the code caught the interrupt and went on, so the test running then counts as timed out";
          incident = {
            kind: "timeout",
            message:
              stopKind === "stopped"
                ? `Stopped by the user; ${how}.`
                : `Time limit of ${(req.timeLimitMs / 1000).toFixed(1)} s reached; ${how}.`,
            respawned: false,
          };
        }
        if (asm.poisoned) {
          poisoned = true;
          this.respawn(inst);
          incident = {
            kind: "poisoned",
            message: `${asm.poisoned} during the run; the Python instance was replaced so the next run starts clean.`,
            respawned: true,
          };
        }
        const stop = stopKind ? { kind: stopKind, message: "" } : undefined;
        finish({ incident, stop, died: false });
      };

      // A worker that does not even accept the run is stuck (e.g. cleaning up after the last run): replace it and try once more.
      let acceptGuard: ReturnType<typeof setTimeout> | null = setTimeout(() => {
        acceptGuard = null;
        if (settled) return;
        settled = true;
        opts.signal?.removeEventListener("abort", onAbort);
        inst.listener = null;
        inst.exitListener = null;
        this.respawn(inst);
        if (retried) died("the Python instance stopped responding twice");
        else resolve(this.attempt(req, asm, opts, limitMs, only, true));
      }, ACCEPT_TIMEOUT_MS);

      inst.listener = (msg) => {
        if (msg.type === "closing") {
          died("the Python worker closed itself");
          return;
        }
        if (!("runId" in msg) || msg.runId !== runId) return;
        switch (msg.type) {
          case "started":
            startedAt = performance.now();
            if (pendingStop !== null) {
              if (hard) clearTimeout(hard);
              hard = null;
              interruptNow(pendingStop);
            } else clock = setTimeout(() => interruptNow("timeout"), limitMs);
            break;
          case "accepted":
            if (acceptGuard) clearTimeout(acceptGuard);
            break;
          case "events":
            // Not final at "end": code under test can write an "end" of its own. The worker's "done" closes the run.
            for (const line of msg.events) asm.pushLine(line);
            break;
          case "done":
            // After the restore: replace an instance the run left tainted or too big (WebAssembly memory never shrinks).
            if (!poisoned && this.mustReplace(msg)) this.respawn(inst);
            complete();
            break;
          case "tainted":
            // The previous run damaged this interpreter beyond repair: replace it and run there.
            if (acceptGuard) clearTimeout(acceptGuard);
            settled = true;
            opts.signal?.removeEventListener("abort", onAbort);
            inst.listener = null;
            inst.exitListener = null;
            this.respawn(inst);
            resolve(this.attempt(req, asm, opts, limitMs, only, retried));
            break;
          case "packages-error": {
            const advice = this.opts.packageAdvice;
            const message = advice ? msg.message.replace(PACKAGE_ADVICE, advice) : msg.message;
            finish({
              incident: { kind: "packages", message, respawned: false },
              stop: { kind: "crash", message },
              died: false,
            });
            break;
          }
          case "failed":
            if (msg.fatal) died(`fatal error: ${msg.message}`);
            else {
              // The harness itself failed after the run: the instance may hold the run's state.
              this.respawn(inst);
              if (asm.ended) complete();
              else
                finish({
                  incident: { kind: "crashed", message: msg.message, respawned: true },
                  stop: { kind: "crash", message: msg.message },
                  died: false,
                });
            }
            break;
        }
      };

      if (opts.signal?.aborted) {
        interruptNow("stopped");
      }
      opts.signal?.addEventListener("abort", onAbort);
      // Only what the worker needs: never the recorded values.
      const files: Record<string, string> = Object.assign(Object.create(null), runFiles(req));
      inst.worker.post({
        type: "run",
        runId,
        run: { files, config: JSON.stringify(harnessConfig(req, WORKDIR, only)), packages: [...req.packages] },
      });
    });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.inst) this.kill(this.inst);
  }
}
