/**
 * Messages of the page's Python box (page-box.ts): the page, the box's frame
 * (box-frame.ts, a sandboxed iframe with an opaque origin) and the Pyodide
 * worker the frame starts (pyodide.worker.ts). The page talks to the frame on
 * a control port and to the worker on a data port; both ports are
 * MessageChannel ends the page created, so no other sender can reach either.
 */

/** Pyodide's own files, under its `indexURL` (the page serves them at /pyodide/; the box may ask for these). */
export const PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"] as const;

/** The page's first message to the frame's window, carrying [control, data] ports. */
export const BOX_HELLO = "recode-box-hello";

/** Page -> frame, on the control port. */
export type ToFrame =
  /** Start the worker from this script text (the frame cannot load anything itself). */
  | { type: "start"; source: string }
  /** Interrupt the running code (KeyboardInterrupt), when the frame holds an interrupt buffer. */
  | { type: "interrupt" }
  /** End the worker now (the page is about to remove the frame; a removed frame whose ports are open can live on). */
  | { type: "stop" }
  /** Are you there? (The frame answers at once: its own thread is idle while Python runs in the worker.) */
  | { type: "ping"; n: number };

/** Frame -> page, on the control port. */
export type FromFrame =
  /** The worker is starting; `interrupt`: whether the frame can interrupt it (cross-origin isolated). */
  | { type: "started"; interrupt: boolean }
  /** The worker failed to load or died. */
  | { type: "worker-error"; message: string }
  /** The answer to a ping. */
  | { type: "pong"; n: number };

/** Frame -> worker: the first message, with the data port to the page. */
export interface WorkerHello {
  type: "port";
  port: MessagePort;
  interruptBuffer: SharedArrayBuffer | null;
}

/** Worker -> page, on the data port: a file the worker needs (Pyodide's own files, package wheels). */
export interface FileRequest {
  type: "need-file";
  url: string;
}

/** Page -> worker, on the data port: the answer to a {@link FileRequest}. */
export type FileReply = { type: "file"; url: string; bytes: ArrayBuffer } | { type: "file-error"; url: string; message: string };
