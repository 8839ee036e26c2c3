/**
 * The script of the page's Python box frame: a sandboxed iframe with an opaque
 * origin and a Content-Security-Policy that allows no connections
 * (page-box.ts builds it). It accepts two ports from its parent once, starts
 * the Pyodide worker from the script text the page sends, hands the worker
 * the data port, and keeps the interrupt buffer (a SharedArrayBuffer cannot
 * cross from the page into another origin). It forwards nothing the worker
 * posts to it.
 */
import { BOX_HELLO, type FromFrame, type ToFrame, type WorkerHello } from "./box-protocol";

let control: MessagePort | null = null;

function onHello(ev: MessageEvent): void {
  if (control || ev.source !== window.parent || ev.data?.type !== BOX_HELLO || ev.ports.length !== 2) return;
  const [ctl, data] = ev.ports as [MessagePort, MessagePort];
  control = ctl;
  removeEventListener("message", onHello);
  let worker: Worker | null = null;
  const interrupt = crossOriginIsolated && typeof SharedArrayBuffer === "function" ? new Uint8Array(new SharedArrayBuffer(1)) : null;
  const say = (msg: FromFrame) => ctl.postMessage(msg);
  ctl.onmessage = (e: MessageEvent<ToFrame>) => {
    const msg = e.data;
    if (msg.type === "start" && !worker && typeof msg.source === "string") {
      const url = URL.createObjectURL(new Blob([msg.source], { type: "text/javascript" }));
      // A classic worker: a module worker cannot start from a blob in an opaque origin.
      worker = new Worker(url, { name: "pyodide" });
      worker.addEventListener("error", (err) => {
        err.preventDefault();
        say({ type: "worker-error", message: `worker error: ${err.message || "the worker script failed to load"}` });
      });
      worker.addEventListener("messageerror", () => say({ type: "worker-error", message: "worker message could not be read" }));
      const hello: WorkerHello = { type: "port", port: data, interruptBuffer: interrupt ? (interrupt.buffer as SharedArrayBuffer) : null };
      worker.postMessage(hello, [data]);
      say({ type: "started", interrupt: interrupt !== null });
    } else if (msg.type === "interrupt" && interrupt) {
      Atomics.store(interrupt, 0, 2); // SIGINT
    } else if (msg.type === "stop") {
      worker?.terminate();
      ctl.close();
    } else if (msg.type === "ping" && typeof msg.n === "number") {
      say({ type: "pong", n: msg.n });
    }
  };
}

addEventListener("message", onHello);
