/**
 * Node hosts of the Python runtime: Pyodide in a worker thread, and native
 * python3. `createRuntime` picks one by name.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { errorTail } from "./error-tail";
import { HARNESS_FILES } from "./harness-files";
import { NativeRuntime, type NativeRuntimeOptions } from "./native-runtime";
import type { NativeSandbox } from "./native-sandbox";
import { nodeBoxHandle, pyodideBoxRootProblem, resolvePyodideBox } from "./node-box";
import { PyodideRuntime, type PyodideRuntimeOptions, type StartSnapshotStore, type WorkerHandle } from "./pyodide-runtime";
import { PROGRAM_NAME, PYTHON_ENV } from "./python-start";
import type { PythonRuntime } from "./runtime";
import { defaultSnapshotDir, fileSnapshotStore, startSnapshotKey } from "./start-snapshot";
import { PYODIDE_WORKER_STACK_MB } from "./worker-stack";

/** Start a worker thread running the Pyodide worker core. */
export function nodeWorkerHandle(): WorkerHandle {
  const worker = new Worker(new URL("./node-worker.mjs", import.meta.url), {
    stdout: true,
    stderr: true,
    resourceLimits: { stackSizeMb: PYODIDE_WORKER_STACK_MB },
  });
  // Pyodide's own loading messages are not ours to print; keep stderr for diagnostics.
  worker.stdout.resume();
  let lastErr = "";
  worker.stderr.on("data", (d: Buffer) => {
    lastErr = (lastErr + d.toString()).slice(-2000);
  });
  let exited = false;
  return {
    post: (msg) => worker.postMessage(msg),
    onMessage: (cb) => worker.on("message", cb),
    onExit: (cb) => {
      worker.on("error", (e) => {
        if (!exited) cb(`worker error: ${e.message}`);
        exited = true;
      });
      worker.on("exit", (code) => {
        if (!exited) cb(`worker exited with code ${code}${errorTail(lastErr) ? `: ${errorTail(lastErr)}` : ""}`);
        exited = true;
      });
    },
    terminate: () => {
      exited = true;
      void worker.terminate();
    },
  };
}

/** Options for the Pyodide runtime in Node (package source etc.). */
export type NodePyodideOptions = Omit<PyodideRuntimeOptions, "createWorker"> & {
  /**
   * Where Pyodide runs (node-box.ts): `auto` (default) and `bwrap` in a
   * bubblewrap box, or an Error where that does not work; `none` in a worker
   * thread of this process (warned about once).
   */
  sandbox?: NativeSandbox;
  /** Where the warning about running without a box goes. Default: stderr. */
  warn?: (message: string) => void;
  /**
   * Folder of start snapshots (start-snapshot.ts), or false for none (every start imports the harness
   * afresh). Default: {@link defaultSnapshotDir}.
   */
  snapshotDir?: string | false;
  /**
   * Host folders the box must not show (node-box.ts), such as the task folders the runs come from (their
   * canonical solutions and recorded values), where it would: under /usr or a folder it mounts.
   */
  hide?: readonly string[];
};

/**
 * The start snapshots of Node's workers in `dir`, keyed by this Pyodide, this harness, `indexURL` and the
 * time zone Python starts in (`timeZone`: its `time` module holds the offset), so that a snapshot made in a
 * worker thread (the host's zone) never starts a box (UTC).
 */
function nodeSnapshotStore(dir: string, indexURL: string | undefined, timeZone: string): StartSnapshotStore {
  const require = createRequire(import.meta.url);
  const version = (require("pyodide/package.json") as { version: string }).version;
  const sources: Record<string, string> = {};
  for (const [name, file] of Object.entries(HARNESS_FILES)) sources[name] = readFileSync(new URL(`./${file}`, import.meta.url), "utf8");
  return fileSnapshotStore(
    dir,
    startSnapshotKey(version, sources, { indexURL: indexURL ?? null, env: PYTHON_ENV, program: PROGRAM_NAME, timeZone }),
  );
}

let warnedThread = false;
/** The reasons a root box was already warned about (once each per process). */
const warnedRoot = new Set<string>();

/** Local folders among the package sources, which the box must be able to read. */
function localSources(opts: NodePyodideOptions): string[] {
  return [opts.packageCacheDir, opts.indexURL, opts.packageBaseUrl].filter((p): p is string => typeof p === "string" && p.startsWith("/"));
}

/**
 * Pyodide for `recode` in Node: in a bubblewrap box (no network, no
 * environment, none of the tasks' files) where that works, else in a worker
 * thread of this process.
 * @throws Error when `sandbox` is `bwrap` and bubblewrap does not work here.
 */
export function createNodePyodideRuntime(opts: NodePyodideOptions = {}): PyodideRuntime {
  const { sandbox = "auto", warn, snapshotDir, hide = [], ...rest } = opts;
  const home = resolvePyodideBox(sandbox);
  if (home === "thread" && !warnedThread) {
    warnedThread = true;
    (warn ?? ((m: string) => process.stderr.write(`${m}\n`)))(
      "warning: Pyodide runs without a sandbox (--sandbox none), in a worker thread of this process: code under test that breaks out of the interpreter runs as you, with your files, environment and network.",
    );
  }
  const readable = localSources(opts);
  const problem = home === "bwrap" ? pyodideBoxRootProblem(readable) : "";
  if (problem && !warnedRoot.has(problem)) {
    warnedRoot.add(problem);
    (warn ?? ((m: string) => process.stderr.write(`${m}\n`)))(
      `warning: Pyodide's box runs as root (${problem}): code that got out of Pyodide could change the host's device nodes, such as /dev/null.`,
    );
  }
  const dir = snapshotDir ?? defaultSnapshotDir();
  // (The box runs in UTC, node-box.ts; a worker thread in the host's zone.)
  const timeZone = home === "bwrap" ? "UTC" : Intl.DateTimeFormat().resolvedOptions().timeZone;
  const startSnapshots = rest.startSnapshots ?? (dir === false ? undefined : nodeSnapshotStore(dir, rest.indexURL, timeZone));
  return new PyodideRuntime({
    ...rest,
    startSnapshots,
    createWorker: home === "bwrap" ? () => nodeBoxHandle(readable, hide) : nodeWorkerHandle,
  });
}

/** Backend by name: "pyodide" (default) or "native" (python3 on PATH). */
export function createRuntime(backend: "pyodide" | "native", opts: NodePyodideOptions & NativeRuntimeOptions = {}): PythonRuntime {
  return backend === "native" ? new NativeRuntime(opts) : createNodePyodideRuntime(opts);
}
