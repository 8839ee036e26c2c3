/**
 * The page's Python box: Pyodide runs in a module worker started inside a
 * sandboxed iframe (`sandbox="allow-scripts"`, so its origin is opaque: the
 * page's IndexedDB, Cache Storage, localStorage and cookies do not exist for
 * it) whose Content-Security-Policy allows no connections and no scripts but
 * its own and the blobs it makes (so neither the network nor the page's own
 * assets, with their canonical solutions, can be reached). The page hands in
 * everything the box runs: the frame script (inline, allowed by its hash),
 * the worker's script text, and each file Pyodide asks for, which must be one
 * of Pyodide's own files under `indexURL` or a wheel that `pyodide-lock.json`
 * lists under `packageBaseUrl` (fetched with the lock file's SHA-256).
 *
 * The page reads only the two MessageChannel ports it created: the frame's
 * control port and the worker's data port. Window messages are never read, and
 * what arrives on the data port is shape-checked (worker-messages.ts).
 */
import { type BoxSources, boxFile, prefetchBoxFiles } from "./box-files";
import frameSource, { sha256 as frameSha256 } from "./box-frame.ts?bundle";
import { BOX_HELLO, type FileReply, type FromFrame, type ToFrame } from "./box-protocol";
import type { WorkerHandle } from "./pyodide-runtime";
import type { FromWorker } from "./worker-core";
import { parseFileRequest, parseFromWorker } from "./worker-messages";

/**
 * The box frame's Content-Security-Policy: no connections of any kind; scripts
 * only the frame's own (by hash) and blobs it creates (the worker, Pyodide's
 * modules); `'unsafe-eval'` because Pyodide builds its JavaScript glue with
 * `eval`, `'wasm-unsafe-eval'` for WebAssembly. A worker started from a blob
 * inherits this policy.
 */
export const BOX_CSP = [
  "default-src 'none'",
  `script-src 'sha256-${frameSha256}' blob: 'unsafe-eval' 'wasm-unsafe-eval'`,
  "worker-src blob:",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/** The worker script's text and SHA-256 (box-worker-source.ts); null until first asked for, or after a failed load. */
let workerScript: Promise<{ workerSource: string; workerSha256: string }> | null = null;

/**
 * The box's worker script, loaded once (its own chunk, fetched when the first box starts). Rejects when the
 * chunk cannot be fetched (offline before the build was stored); the next call tries again.
 */
export function boxWorkerScript(): Promise<{ workerSource: string; workerSha256: string }> {
  workerScript ??= import("./box-worker-source").catch((e: unknown) => {
    workerScript = null;
    throw e;
  });
  return workerScript;
}

/** The box frame's document (its `srcdoc`). */
export function boxDocument(): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${BOX_CSP}"><script>${frameSource}</script></head><body></body></html>`;
}

/** How long a loaded box frame may take to start its worker, in ms. */
const BOX_START_TIMEOUT_MS = 10_000;

/** Most distinct files one box may ask for (Pyodide's own and every wheel its lock file lists fit). */
const MAX_FILES = 1000;
/** Most times one box may ask for the same file. */
const MAX_ASKS_PER_FILE = 3;
/** Longest file URL a box may ask for. */
const MAX_URL_CHARS = 2048;

/** The page pings the box frame this often, in ms; a ping not answered by the next one means the frame is gone. */
const HEARTBEAT_MS = 2000;

/**
 * A {@link WorkerHandle} for a Pyodide worker in a new box (a hidden iframe
 * appended to the document). `terminate()` removes the frame and with it the
 * worker; `interrupt()` asks the frame to set its interrupt buffer, which it
 * has when the page is cross-origin isolated.
 */
export function pageBoxHandle(src: BoxSources): WorkerHandle {
  prefetchBoxFiles(src);
  const script = boxWorkerScript();
  const control = new MessageChannel();
  const data = new MessageChannel();
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.setAttribute("allow", "cross-origin-isolated");
  frame.setAttribute("data-recode-box", "");
  frame.title = "Python box";
  frame.hidden = true;
  frame.srcdoc = boxDocument();
  let gone = false;
  let onMessage: ((msg: FromWorker) => void) | null = null;
  let onExit: ((reason: string) => void) | null = null;
  const toFrame = (msg: ToFrame) => control.port1.postMessage(msg);
  // A frame whose script did not run (a policy that refuses it, a browser without srcdoc) never says "started".
  let startGuard: ReturnType<typeof setTimeout> | null = null;
  // A frame that crashed or left the page sends nothing more: it must answer every ping before the next.
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let pinged = 0;
  let ponged = 0;

  /** End the worker and remove the frame (the ports close a little later, so that "stop" is read first). */
  const end = () => {
    gone = true;
    if (startGuard) clearTimeout(startGuard);
    if (heartbeat) clearInterval(heartbeat);
    toFrame({ type: "stop" });
    frame.remove();
    setTimeout(() => {
      control.port1.close();
      data.port1.close();
    }, 1000);
  };
  const exit = (reason: string) => {
    if (gone) return;
    end();
    onExit?.(reason);
  };
  const beat = () => {
    if (!frame.isConnected) exit("the Python box was closed (its frame left the page)");
    else if (ponged < pinged) exit("the Python box stopped responding (its frame crashed)");
    else toFrame({ type: "ping", n: ++pinged });
  };
  control.port1.onmessage = (ev: MessageEvent<FromFrame>) => {
    const msg = ev.data;
    if (msg?.type === "started" && startGuard) {
      clearTimeout(startGuard);
      startGuard = null;
      heartbeat = setInterval(beat, HEARTBEAT_MS);
    } else if (msg?.type === "pong" && typeof msg.n === "number") ponged = Math.max(ponged, msg.n);
    else if (msg?.type === "worker-error" && typeof msg.message === "string") exit(msg.message);
  };
  // What the box asked for: each file at most a few times (a failed one may be asked again by a later run).
  const asked = new Map<string, number>();
  data.port1.onmessage = (ev: MessageEvent<unknown>) => {
    if (gone) return;
    const req = parseFileRequest(ev.data);
    if (req) {
      const times = asked.get(req.url) ?? 0;
      if (req.url.length > MAX_URL_CHARS || (times === 0 && asked.size >= MAX_FILES)) {
        exit("the Python box asked for more files than Pyodide has, or for a name too long to be one");
        return;
      }
      if (times >= MAX_ASKS_PER_FILE) {
        const message = `${req.url} was asked for ${MAX_ASKS_PER_FILE} times by this Python instance; reload the page to try again`;
        data.port1.postMessage({ type: "file-error", url: req.url, message } satisfies FileReply);
        return;
      }
      asked.set(req.url, times + 1);
      boxFile(src, req.url).then(
        (bytes) => data.port1.postMessage({ type: "file", url: req.url, bytes } satisfies FileReply),
        (e: Error) => data.port1.postMessage({ type: "file-error", url: req.url, message: e.message } satisfies FileReply),
      );
      return;
    }
    const msg = parseFromWorker(ev.data);
    if (msg && onMessage) onMessage(msg);
  };
  frame.addEventListener(
    "load",
    () => {
      frame.contentWindow?.postMessage({ type: BOX_HELLO }, "*", [control.port2, data.port2]);
      script.then(
        ({ workerSource }) => {
          if (gone) return;
          toFrame({ type: "start", source: workerSource });
          startGuard = setTimeout(() => exit("the Python box did not start (its frame ran no script)"), BOX_START_TIMEOUT_MS);
        },
        (e: unknown) =>
          exit(`the Python box's script could not be loaded (${e instanceof Error ? e.message : String(e)}); reload the page`),
      );
    },
    { once: true },
  );
  document.body.append(frame);

  return {
    post: (msg) => {
      if (gone) return;
      // A start snapshot (tens of MB) is handed over, not copied: its bytes were read for this start alone.
      const bytes = msg.type === "init" && msg.snapshot instanceof Uint8Array ? msg.snapshot : null;
      const whole = bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
      data.port1.postMessage(msg, whole ? [bytes.buffer as ArrayBuffer] : []);
    },
    onMessage: (cb) => {
      onMessage = cb;
    },
    onExit: (cb) => {
      onExit = cb;
    },
    interrupt: () => {
      if (!gone) toFrame({ type: "interrupt" });
    },
    terminate: () => {
      if (!gone) end();
    },
  };
}
