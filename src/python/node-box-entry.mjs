// Entry of the boxed Node process that hosts Pyodide for `recode` (node-box.ts):
// a worker thread runs the worker core (node-worker.mjs); this process relays its
// messages to and from the host over the channel on descriptor 3
// (box-channel.ts), and owns the interrupt buffer, which the host sets through an
// "interrupt" message.
import { Worker } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
const { hostChannel } = await import("./box-channel.ts");
const { PYODIDE_WORKER_STACK_MB } = await import("./worker-stack.ts");

const worker = new Worker(new URL("./node-worker.mjs", import.meta.url), {
  stdout: true,
  stderr: true,
  resourceLimits: { stackSizeMb: PYODIDE_WORKER_STACK_MB },
});
worker.stdout.resume();
let lastErr = "";
worker.stderr.on("data", (d) => {
  lastErr = (lastErr + d.toString()).slice(-2000);
});
/** @type {Uint8Array | null} */
let interrupt = null;

// The host is gone (the channel closed): so is this process.
const host = hostChannel((msg) => {
  if (msg && msg.type === "interrupt") {
    if (interrupt) Atomics.store(interrupt, 0, 2);
    return;
  }
  if (msg && msg.type === "init") {
    const shared = new SharedArrayBuffer(1);
    interrupt = new Uint8Array(shared);
    worker.postMessage({ ...msg, interruptBuffer: shared });
    return;
  }
  worker.postMessage(msg);
});
worker.on("message", (msg) => host.send(msg));
worker.on("error", (e) => {
  process.stderr.write(`worker error: ${e.message}${e.resource ? ` (${e.permission} ${e.resource})` : ""}\n`);
  process.exit(70);
});
worker.on("exit", (code) => {
  if (lastErr) process.stderr.write(lastErr);
  process.exit(code === 0 ? 70 : code);
});
