/** Node worker-thread side: wires worker-core to worker_threads and the npm pyodide package. */
import { readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { loadPyodide } from "pyodide";
import { HARNESS_FILES } from "./harness-files";
import { nodeHmacSha256 } from "./node-hmac";
import { hideHostIds, sealProcesses } from "./node-seal";
import { createWorkerCore, type FromWorker, type ToWorker } from "./worker-core";

// Before Pyodide loads: its system() would otherwise run a shell, and getuid() name the host's user (node-seal.ts).
sealProcesses();
hideHostIds();

const port = parentPort;
if (!port) throw new Error("node-worker-entry must run in a worker thread");
const here = new URL(".", import.meta.url);
const handle = createWorkerCore({
  loadPyodide: (opts) => loadPyodide(opts),
  sources: Object.fromEntries(Object.entries(HARNESS_FILES).map(([module, file]) => [module, readFileSync(new URL(file, here), "utf8")])),
  post: (msg: FromWorker) => port.postMessage(msg),
  mac: nodeHmacSha256,
});
port.on("message", (msg: ToWorker) => {
  void handle(msg);
});
