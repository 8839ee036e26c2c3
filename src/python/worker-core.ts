/**
 * The Pyodide side of the runtime, shared by the browser Web Worker
 * (pyodide.worker.ts) and the Node worker thread (node-worker.mjs). It owns one
 * Pyodide instance, loads packages, and runs the harness for each request.
 * The host side is PyodideRuntime (pyodide-runtime.ts).
 */
import type { PyodideAPI } from "pyodide";
import { harnessConfig, type RunRequest, runFiles } from "./runtime";

/** Where Pyodide and its packages come from. All optional. */
export interface PyodideSourceOptions {
  /** Folder or URL holding pyodide.asm.wasm, python_stdlib.zip, pyodide-lock.json. */
  indexURL?: string;
  /** Folder or URL holding package wheels (default: Pyodide's CDN for this version). */
  packageBaseUrl?: string;
  /** pyodide-lock.json location. */
  lockFileURL?: string;
  /** Node only: folder where downloaded wheels are cached. */
  packageCacheDir?: string;
}

/** Host -> worker messages. */
export type ToWorker =
  | { type: "init"; options: PyodideSourceOptions; interruptBuffer: SharedArrayBuffer | null }
  | { type: "run"; runId: number; request: RunRequest };

/** Worker -> host messages. */
export type FromWorker =
  | { type: "ready"; version: string }
  | { type: "init-error"; message: string }
  | { type: "accepted"; runId: number }
  | { type: "tainted"; runId: number; message: string }
  | { type: "started"; runId: number }
  | { type: "event"; runId: number; event: string }
  | { type: "done"; runId: number }
  | { type: "packages-error"; runId: number; message: string }
  | { type: "failed"; runId: number; message: string; fatal: boolean };

/** What a worker entry provides to the core. */
export interface WorkerCoreDeps {
  loadPyodide: (opts: Record<string, unknown>) => Promise<PyodideAPI>;
  /** Text of harness.py and recode_check.py. */
  harness: string;
  check: string;
  post: (msg: FromWorker) => void;
}

const LIB_DIR = "/lib/recode";

/** Create the message handler of a Pyodide worker. */
export function createWorkerCore(deps: WorkerCoreDeps): (msg: ToWorker) => Promise<void> {
  let py: PyodideAPI | null = null;
  let runJson: ((config: string, emit: (s: string) => void) => string) | null = null;
  /** Set when a run damaged the interpreter beyond repair; later runs are refused so the host replaces it. */
  let tainted: string | null = null;
  let interrupt: Uint8Array | null = null;
  let source = "Pyodide's default package source";
  const loaded = new Set<string>();

  async function init(options: PyodideSourceOptions, buffer: SharedArrayBuffer | null): Promise<void> {
    try {
      const opts: Record<string, unknown> = { fullStdLib: false };
      if (options.indexURL) opts.indexURL = options.indexURL;
      if (options.packageBaseUrl) {
        opts.packageBaseUrl = options.packageBaseUrl;
        source = options.packageBaseUrl;
      } else if (options.indexURL) {
        source = `${options.indexURL} (then Pyodide's CDN)`;
      }
      if (options.lockFileURL) opts.lockFileURL = options.lockFileURL;
      if (options.packageCacheDir) opts.packageCacheDir = options.packageCacheDir;
      py = await deps.loadPyodide(opts);
      py.FS.mkdirTree(LIB_DIR);
      py.FS.writeFile(`${LIB_DIR}/recode_harness.py`, deps.harness);
      py.FS.writeFile(`${LIB_DIR}/recode_check.py`, deps.check);
      py.FS.mkdirTree("/home/pyodide");
      py.runPython(`import sys\nsys.path.insert(0, "${LIB_DIR}")\nsys.dont_write_bytecode = True\nimport recode_harness, unittest, json`);
      runJson = py.runPython("recode_harness.run_json") as typeof runJson;
      if (buffer) {
        interrupt = new Uint8Array(buffer);
        py.setInterruptBuffer(interrupt);
      }
      const version = String(py.runPython("import sys; sys.version.split()[0]"));
      deps.post({ type: "ready", version: `${version} (pyodide ${py.version})` });
    } catch (e) {
      deps.post({ type: "init-error", message: `Pyodide could not start: ${(e as Error).message}` });
    }
  }

  async function ensurePackages(runId: number, packages: string[]): Promise<boolean> {
    const need = packages.filter((p) => !loaded.has(p));
    if (need.length === 0 || !py) return true;
    const errors: string[] = [];
    try {
      await py.loadPackage(need, { messageCallback: () => {}, errorCallback: (m: string) => errors.push(m) });
    } catch (e) {
      errors.push((e as Error).message);
    }
    const missing: string[] = [];
    for (const p of need) {
      const mod = p.replace(/-/g, "_");
      const ok = py.runPython(`import importlib.util as u; u.find_spec(${JSON.stringify(mod)}) is not None`);
      if (ok) loaded.add(p);
      else missing.push(p);
    }
    if (missing.length > 0) {
      const why = errors.length ? ` (${errors.join("; ").slice(0, 300)})` : "";
      deps.post({
        type: "packages-error",
        runId,
        message: `package ${missing.join(", ")} could not be loaded from ${source}${why}. Set the package source to a folder or URL that holds the wheels.`,
      });
      return false;
    }
    return true;
  }

  async function run(runId: number, request: RunRequest): Promise<void> {
    deps.post({ type: "accepted", runId });
    if (tainted) {
      deps.post({ type: "tainted", runId, message: tainted });
      return;
    }
    if (!py || !runJson) {
      deps.post({ type: "failed", runId, message: "Pyodide is not loaded", fatal: true });
      return;
    }
    if (!(await ensurePackages(runId, request.packages))) return;
    // One fixed folder (emptied after every run) so compiled code of unchanged files can be reused.
    const workdir = "/tmp/recode-run";
    const config = JSON.stringify(harnessConfig(request, workdir));
    // Written from JS (much faster than Python file objects in MEMFS); the sandbox removes the folder after the run.
    for (const [rel, text] of Object.entries(runFiles(request))) {
      const path = `${workdir}/${rel}`;
      py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
      py.FS.writeFile(path, text);
    }
    if (interrupt) interrupt[0] = 0;
    deps.post({ type: "started", runId });
    try {
      const status = runJson(config, (event: string) => deps.post({ type: "event", runId, event }));
      if (status) tainted = status;
      deps.post({ type: "done", runId });
    } catch (e) {
      const err = e as Error & { type?: string };
      const fatal = err.type === undefined || /fatal/i.test(err.message);
      deps.post({ type: "failed", runId, message: err.message.split("\n").slice(-3).join(" ").trim(), fatal });
    }
  }

  return async (msg: ToWorker) => {
    if (msg.type === "init") await init(msg.options, msg.interruptBuffer);
    else if (msg.type === "run") await run(msg.runId, msg.request);
  };
}
