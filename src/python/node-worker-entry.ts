/** Node worker-thread side: wires worker-core to worker_threads and the npm pyodide package. */
import { readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { loadPyodide } from "pyodide";
import { createWorkerCore, type FromWorker, type ToWorker } from "./worker-core";

const port = parentPort;
if (!port) throw new Error("node-worker-entry must run in a worker thread");
const here = new URL(".", import.meta.url);
const handle = createWorkerCore({
  loadPyodide: (opts) => loadPyodide(opts),
  harness: readFileSync(new URL("harness.py", here), "utf8"),
  check: readFileSync(new URL("recode_check.py", here), "utf8"),
  post: (msg: FromWorker) => port.postMessage(msg),
});
port.on("message", (msg: ToWorker) => {
  void handle(msg);
});
