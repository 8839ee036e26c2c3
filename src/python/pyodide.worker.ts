/**
 * Browser Web Worker entry of the Pyodide runtime, started inside the page's
 * Python box (box-frame.ts): wires worker-core to the data port the page
 * created. The box allows no connections, so every file this worker needs
 * (Pyodide's own files, package wheels) is asked of the page over that port
 * (`need-file`), and `fetch` here serves only those answers.
 */
/// <reference lib="webworker" />
import type { PyodideAPI } from "pyodide";
import type { FileReply, FileRequest, WorkerHello } from "./box-protocol";
import harness from "./harness.py?raw";
import check from "./recode_check.py?raw";
import frameBuiltins from "./recode_frame_builtins.py?raw";
import frames from "./recode_frames.py?raw";
import guard from "./recode_guard.py?raw";
import moduleFixtures from "./recode_module_fixtures.py?raw";
import readers from "./recode_readers.py?raw";
import stack from "./recode_stack.py?raw";
import superForm from "./recode_super.py?raw";
import testpy from "./recode_testpy.py?raw";
import testtext from "./recode_testtext.py?raw";
import touch from "./recode_touch.py?raw";
import { createWorkerCore, type FromWorker, type PyodideSourceOptions, type ToWorker } from "./worker-core";

declare const self: DedicatedWorkerGlobalScope;

let port: MessagePort | null = null;
let interruptBuffer: SharedArrayBuffer | null = null;
const waiting = new Map<string, Promise<ArrayBuffer>>();
const answers = new Map<string, { resolve: (b: ArrayBuffer) => void; reject: (e: Error) => void }>();

function post(msg: FromWorker | FileRequest): void {
  port?.postMessage(msg);
}

/** The bytes of `url`, as the page hands them in. */
function requestFile(url: string): Promise<ArrayBuffer> {
  let p = waiting.get(url);
  if (!p) {
    p = new Promise<ArrayBuffer>((resolve, reject) => answers.set(url, { resolve, reject }));
    waiting.set(url, p);
    post({ type: "need-file", url });
    // A failed file may be asked for again (the network may be back).
    p.catch(() => waiting.delete(url));
  }
  return p;
}

function answer(msg: FileReply): void {
  const a = answers.get(msg.url);
  if (!a) return;
  answers.delete(msg.url);
  if (msg.type === "file") a.resolve(msg.bytes);
  else a.reject(new TypeError(msg.message));
}

/** `fetch` inside the box: the page's answer for the URL, or the page's reason why not. */
async function boxFetch(input: RequestInfo | URL): Promise<Response> {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const bytes = await requestFile(new URL(url, self.location.href).href);
  const type = url.endsWith(".wasm") ? "application/wasm" : "application/octet-stream";
  const response = new Response(bytes, { status: 200, headers: { "Content-Type": type } });
  if (url.endsWith("/pyodide.asm.wasm")) pyodideWasm.add(response);
  return response;
}
/** The answers of `fetch` that are Pyodide's own WebAssembly (a made Response has no URL to tell). */
const pyodideWasm = new WeakSet<Response>();
self.fetch = boxFetch as typeof fetch;

/** Import an ES module whose text the page hands in. */
async function importFile<T>(url: string): Promise<T> {
  const bytes = await requestFile(url);
  const blob = URL.createObjectURL(new Blob([bytes], { type: "text/javascript" }));
  return (await import(/* @vite-ignore */ blob)) as T;
}

type PyodideModule = { loadPyodide: (o: Record<string, unknown>) => Promise<PyodideAPI> };

/** Pyodide's scripts and compiled WebAssembly, fetched ahead ("prepare") for one folder. */
interface Prepared {
  indexURL: string;
  mod: Promise<PyodideModule>;
  asm: Promise<{ default: unknown }>;
  /** pyodide.asm.wasm compiled while the host reads the start snapshot; null when it could not be. */
  wasm: Promise<WebAssembly.Module | null>;
}
let prepared: Prepared | null = null;

/** The folder of `opts.indexURL`, or "" when there is none. */
function folderOf(opts: { indexURL?: unknown }): string {
  return typeof opts.indexURL === "string" ? opts.indexURL : "";
}

/**
 * Ask the page for Pyodide's files now and compile its WebAssembly, so that the start that follows (which waits
 * for the start snapshot first) finds them ready. A file that fails here is asked for again by the start.
 */
function prepareFiles(opts: PyodideSourceOptions): void {
  const indexURL = folderOf(opts);
  if (!indexURL || prepared) return;
  const lock = opts.lockFileURL || `${indexURL}pyodide-lock.json`;
  for (const url of [lock, `${indexURL}python_stdlib.zip`]) requestFile(url).catch(() => {});
  const mod = importFile<PyodideModule>(`${indexURL}pyodide.mjs`);
  const asm = importFile<{ default: unknown }>(`${indexURL}pyodide.asm.mjs`);
  const wasm = requestFile(`${indexURL}pyodide.asm.wasm`).then(
    (bytes) => WebAssembly.compile(bytes).catch(() => null),
    () => null,
  );
  for (const p of [mod, asm]) p.catch(() => {});
  prepared = { indexURL, mod, asm, wasm };
}

/**
 * Run `start` with Pyodide's `WebAssembly.instantiateStreaming` of its own file answered from the module
 * compiled ahead (`compiled`), and put the original back after it.
 */
async function withCompiled<T>(compiled: WebAssembly.Module | null, start: () => Promise<T>): Promise<T> {
  if (!compiled) return start();
  const original = WebAssembly.instantiateStreaming;
  let used = false;
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    if (used || !pyodideWasm.has(response)) return original(response, imports);
    used = true;
    return { module: compiled, instance: await WebAssembly.instantiate(compiled, imports) };
  };
  try {
    return await start();
  } finally {
    WebAssembly.instantiateStreaming = original;
  }
}

const handle = createWorkerCore({
  loadPyodide: async (opts) => {
    const indexURL = folderOf(opts);
    if (!indexURL) throw new Error("no indexURL: the page must say where pyodide.mjs is served");
    const ahead = prepared?.indexURL === indexURL ? prepared : null;
    let mod: PyodideModule;
    let asm: { default: unknown };
    try {
      mod = await (ahead?.mod ?? importFile<PyodideModule>(`${indexURL}pyodide.mjs`));
      asm = await (ahead?.asm ?? importFile<{ default: unknown }>(`${indexURL}pyodide.asm.mjs`));
    } catch (e) {
      if (ahead) prepared = null;
      throw new Error(`could not load Pyodide from ${indexURL} (${(e as Error).message}); check the Pyodide URL in Settings`);
    }
    const compiled = ahead ? await ahead.wasm : null;
    return withCompiled(compiled, () => mod.loadPyodide({ ...opts, createPyodideModule: asm.default }));
  },
  prepare: prepareFiles,
  // The modules of HARNESS_FILES (harness-files.ts), bundled as text.
  sources: {
    recode_harness: harness,
    recode_check: check,
    recode_guard: guard,
    recode_frames: frames,
    recode_stack: stack,
    recode_readers: readers,
    recode_frame_builtins: frameBuiltins,
    recode_testpy: testpy,
    recode_testtext: testtext,
    recode_touch: touch,
    recode_super: superForm,
    recode_module_fixtures: moduleFixtures,
  },
  post,
});

// A worker that closes itself sends no event the page can see: say so first.
const close = self.close.bind(self);
self.close = () => {
  post({ type: "closing" });
  close();
};

function onPortMessage(ev: MessageEvent<ToWorker | FileReply>): void {
  const msg = ev.data;
  if (msg.type === "file" || msg.type === "file-error") answer(msg);
  // The page's runtime cannot share its buffer with the box: the frame's own takes its place.
  else if (msg.type === "init") void handle({ ...msg, interruptBuffer });
  else void handle(msg);
}

// The frame's first message hands over the port to the page; nothing else the frame could send is read.
self.onmessage = (ev: MessageEvent<WorkerHello>) => {
  if (port || ev.data?.type !== "port") return;
  port = ev.data.port;
  interruptBuffer = ev.data.interruptBuffer;
  self.onmessage = null;
  port.onmessage = onPortMessage;
};
