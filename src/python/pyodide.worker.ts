/**
 * Browser Web Worker entry of the Pyodide runtime: wires worker-core to
 * postMessage/onmessage. Pyodide itself is imported at run time from the
 * configured indexURL (served at /pyodide/ by the page), never bundled.
 */
/// <reference lib="webworker" />
import type { PyodideAPI } from "pyodide";
import harness from "./harness.py?raw";
import check from "./recode_check.py?raw";
import guard from "./recode_guard.py?raw";
import sandbox from "./recode_sandbox.py?raw";
import { createWorkerCore, type FromWorker, type ToWorker } from "./worker-core";

declare const self: DedicatedWorkerGlobalScope;

const handle = createWorkerCore({
  loadPyodide: async (opts) => {
    const indexURL = typeof opts.indexURL === "string" ? opts.indexURL : "";
    if (!indexURL) throw new Error("no indexURL: the page must say where pyodide.mjs is served");
    let mod: { loadPyodide: (o: Record<string, unknown>) => Promise<PyodideAPI> };
    try {
      mod = await import(/* @vite-ignore */ `${indexURL}pyodide.mjs`);
    } catch (e) {
      throw new Error(`could not load ${indexURL}pyodide.mjs (${(e as Error).message}); check the Pyodide URL in Settings`);
    }
    return mod.loadPyodide({ ...opts, stdout: () => {}, stderr: () => {} });
  },
  // The modules of HARNESS_FILES (harness-files.ts), bundled as text.
  sources: { recode_harness: harness, recode_check: check, recode_guard: guard, recode_sandbox: sandbox },
  post: (msg: FromWorker) => self.postMessage(msg),
});

// A worker that closes itself sends no event the page can see: say so first.
const close = self.close.bind(self);
self.close = () => {
  self.postMessage({ type: "closing" } satisfies FromWorker);
  close();
};

self.onmessage = (ev: MessageEvent<ToWorker>) => {
  void handle(ev.data);
};
