/**
 * Node hosts of the Python runtime: Pyodide in a worker thread, and native
 * python3. `createRuntime` picks one by name.
 */
import { Worker } from "node:worker_threads";
import { NativeRuntime, type NativeRuntimeOptions } from "./native-runtime";
import { PyodideRuntime, type PyodideRuntimeOptions, type WorkerHandle } from "./pyodide-runtime";
import type { PythonRuntime } from "./runtime";

/** Start a worker thread running the Pyodide worker core. */
export function nodeWorkerHandle(): WorkerHandle {
  const worker = new Worker(new URL("./node-worker.mjs", import.meta.url), { stdout: true, stderr: true });
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
        if (!exited) cb(`worker exited with code ${code}${lastErr ? `: ${lastErr.trim().split("\n").slice(-2).join(" ")}` : ""}`);
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
export type NodePyodideOptions = Omit<PyodideRuntimeOptions, "createWorker">;

/** Pyodide in a Node worker thread. */
export function createNodePyodideRuntime(opts: NodePyodideOptions = {}): PyodideRuntime {
  return new PyodideRuntime({ ...opts, createWorker: nodeWorkerHandle });
}

/** Backend by name: "pyodide" (default) or "native" (python3 on PATH). */
export function createRuntime(backend: "pyodide" | "native", opts: NodePyodideOptions & NativeRuntimeOptions = {}): PythonRuntime {
  return backend === "native" ? new NativeRuntime(opts) : createNodePyodideRuntime(opts);
}
