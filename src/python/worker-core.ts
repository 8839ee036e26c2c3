/**
 * The Pyodide side of the runtime, shared by the browser Web Worker
 * (pyodide.worker.ts) and the Node worker thread (node-worker.mjs). It owns one
 * Pyodide instance, loads packages, and runs the harness for each request.
 * The host side is PyodideRuntime (pyodide-runtime.ts).
 *
 * Initialisation in named steps: {@link initRuntime} (Pyodide, fixed hash
 * seed, standard input at EOF), {@link initEventDevice} (the device the harness
 * writes its events to), {@link initHarness} (the harness modules), then
 * `recode_harness.seal()` hides the JavaScript bridge from Python, and
 * `watchFiles` (file-watch.ts) notes writes outside the run folders.
 */

import type { PyodideAPI } from "pyodide";
import { CHANNEL_LOST_EXIT, exitReason } from "./channel-lost";
import { EventVerifier, type HmacSha256, newEventKey, toHex } from "./event-auth";
import { type FileWatch, SCRATCH_DIRS, type WatchedFs, watchFiles } from "./file-watch";
import { interruptView } from "./interrupt-view";
import { freezeIntrinsics, STACK_TRACE_LIMIT, sealCodeLoading, sealErrorMaker, sealFunctionConstructors, sealSockets } from "./js-seal";
import { LineSplitter } from "./line-splitter";
import { MemorySnapshot, type SnapshotFs, type SnapshotModule } from "./memory-snapshot";
import { dropDeviceOutput } from "./output-devices";
import { PACKAGE_ADVICE } from "./package-advice";
import { capPipes, type PipeFs } from "./pipe-capacity";
import { PROGRAM_NAME, PYTHON_ENV } from "./python-start";
import { packSnapshot, unpackSnapshot } from "./snapshot-pack";
import { WORKDIR } from "./workdir";

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

/**
 * What the worker gets for a run: the files to write and the harness
 * configuration, nothing else (the recorded values stay on the host). Every
 * field is always present, so no lookup ever reaches a prototype.
 */
export interface WorkerRun {
  /** Path relative to the run folder -> text (repo files, the target file, test.py). */
  files: Record<string, string>;
  /** Harness configuration as JSON text (runtime.ts `harnessConfig`). */
  config: string;
  /** Packages to load before the run. */
  packages: string[];
}

export { WORKDIR } from "./workdir";

/** Host -> worker messages. */
export type ToWorker =
  /**
   * Start fetching Pyodide's own files from these sources (sent at once, while the host still looks for a
   * start snapshot): "init" then finds them fetched. Only before "init"; a worker without a way to fetch ahead
   * ignores it.
   */
  | { type: "prepare"; options: PyodideSourceOptions }
  /**
   * `snapshot`: a start snapshot to load (see start-snapshot.ts), or null. `makeSnapshot`: make one (when none
   * is given or it does not load) and send it back as a "snapshot" message.
   */
  | {
      type: "init";
      options: PyodideSourceOptions;
      interruptBuffer: SharedArrayBuffer | null;
      /** (A Blob is read by the worker.) */
      snapshot?: Uint8Array | Blob | null;
      makeSnapshot?: boolean;
    }
  | { type: "run"; runId: number; run: WorkerRun };

/** Worker -> host messages. */
export type FromWorker =
  /** `fromSnapshot`: the worker started from the start snapshot it was given. */
  | { type: "ready"; version: string; fromSnapshot: boolean }
  /** A start snapshot this worker made (sent before "ready"), for the host to keep. */
  | { type: "snapshot"; bytes: Uint8Array }
  | { type: "init-error"; message: string }
  | { type: "accepted"; runId: number }
  | { type: "tainted"; runId: number; message: string }
  | { type: "started"; runId: number }
  /**
   * Event lines of the run, in the order written: each the text of a line whose MAC held, or FORGED_LINE
   * (event-auth.ts). Several at once: the lines of a test's outcome, checks and result wait for the next line
   * that must go out at once ({@link sentAtOnce}).
   */
  | { type: "events"; runId: number; events: string[] }
  /** `memoryBytes`: the WebAssembly memory after the run (it never shrinks). `tainted`: why the instance must be replaced, or "". */
  | { type: "done"; runId: number; memoryBytes: number; tainted: string }
  | { type: "packages-error"; runId: number; message: string }
  | { type: "failed"; runId: number; message: string; fatal: boolean }
  /** The worker is closing itself (code under test called `close()`). */
  | { type: "closing" };

/** Harness modules written into the interpreter: module name -> source text. */
export type HarnessSources = Record<string, string>;

/** What a worker entry provides to the core. */
export interface WorkerCoreDeps {
  loadPyodide: (opts: Record<string, unknown>) => Promise<PyodideAPI>;
  /** harness.py (as `recode_harness`), recode_check.py, recode_guard.py, recode_frames.py, recode_stack.py, recode_readers.py, recode_frame_builtins.py, recode_testpy.py, recode_testtext.py, recode_touch.py, recode_super.py, recode_module_fixtures.py. */
  sources: HarnessSources;
  post: (msg: FromWorker) => void;
  /** HMAC-SHA256 for the event lines (default: the plain JavaScript one; Node's worker gives Node's own). */
  mac?: HmacSha256;
  /** Start fetching (and compiling) Pyodide's files from these sources, for a `loadPyodide` soon after ("prepare"). */
  prepare?: (opts: PyodideSourceOptions) => void;
}

const LIB_DIR = "/lib/recode";
/**
 * UTF-8 of a task file, taken as this module loads (nothing of a run can change it): Emscripten's
 * `writeFile` encodes a string byte by byte in JavaScript, some five times slower than the bytes' own write.
 */
const encodeUtf8: (text: string) => Uint8Array = (() => {
  const encoder = new TextEncoder();
  return encoder.encode.bind(encoder);
})();

/** The device the harness writes its events to (one JSON line each). */
/** Pyodide's handler for its standard output and error: nothing written there is kept. */
const discard = (_text: string): void => {};
const EVENT_DEVICE = "/dev/recode-events";

/** Most lines, and characters, held before they are posted whatever comes next. */
const HELD_LINES = 256;
const HELD_CHARS = 1 << 20;
/** The starts of the harness's event lines (its encoder writes "type" first) that may wait for the next line posted. */
const MAY_WAIT = ['{"type": "test-outcome"', '{"type": "check"', '{"type": "test-result"', '{"type": "fixture"'];

/**
 * Whether an event line goes out at once: all but a test's outcomes, checks and result, and a fixture's
 * result, which wait for the next one that does (the next test's start, output as it is written, the end).
 * A test that hangs has then sent everything up to its start; a worker that dies takes with it at most
 * the outcomes and checks of the test that was running, which count for nothing without its result.
 */
export function sentAtOnce(text: string): boolean {
  for (const start of MAY_WAIT) if (text.startsWith(start)) return false;
  return true;
}

/** The parts of Emscripten's FS the core uses (Pyodide's typings leave them out). */
interface EmscriptenFs {
  makedev(major: number, minor: number): number;
  registerDevice(dev: number, ops: { write: (stream: unknown, buffer: Uint8Array, offset: number, length: number) => number }): void;
  mkdev(path: string, mode: number, dev: number): void;
  mkdirTree(path: string): void;
  writeFile(path: string, data: string | Uint8Array): void;
  [name: string]: unknown;
}

/** Create the message handler of a Pyodide worker. */
export function createWorkerCore(deps: WorkerCoreDeps): (msg: ToWorker) => Promise<void> {
  let py: PyodideAPI | null = null;
  let runJson: ((config: string, keyHex: string) => void) | null = null;
  let bridgeReached: (() => string) | null = null;
  let prepare: (() => void) | null = null;
  let preload: ((names: unknown) => void) | null = null;
  let cacheCode: ((pathsAndTexts: string) => number) | null = null;
  /** The task files (absolute path and text) whose code the interpreter's memory keeps (harness `cache_code`). */
  const cachedCode = new Set<string>();
  /** The last run's task files but its target, to compile into the cache once the interpreter is restored. */
  let lastFiles: [string, string][] = [];
  /** Whether Python is sealed (at the first run, see sealPython). */
  let sealed = false;
  /** The interpreter as every run starts it (taken once sealed, and again after packages load). */
  let snapshot: MemorySnapshot | null = null;
  /** A run whose interpreter is not restored yet (done after the host has the results). */
  let pendingFinish = false;
  /** Set when a run damaged the interpreter beyond repair; later runs are refused so the host replaces it. */
  let tainted: string | null = null;
  let interrupt: Uint8Array | null = null;
  let source = "Pyodide's default package source";
  const loaded = new Set<string>();
  /** The run the event device reports to (null between runs: writes then are dropped). */
  let eventRun: number | null = null;
  /** Notes the paths outside the scratch folders a run changes (set up once Pyodide is loaded). */
  let fileWatch: FileWatch | null = null;

  function initRuntime(options: PyodideSourceOptions): Record<string, unknown> {
    const opts: Record<string, unknown> = {
      fullStdLib: false,
      env: { ...PYTHON_ENV },
      _sysExecutable: PROGRAM_NAME,
      // What reaches file descriptors 1 and 2 (os.write, a C library) is dropped, as the native backend drops
      // them. Without handlers Pyodide in Node writes them with fs.writeSync to this thread's own descriptors,
      // which a worker has not: os.write(1, ...) was an I/O error, and closing fd 1 killed the interpreter.
      stdout: discard,
      stderr: discard,
    };
    if (options.indexURL) opts.indexURL = options.indexURL;
    if (options.packageBaseUrl) {
      opts.packageBaseUrl = options.packageBaseUrl;
      source = options.packageBaseUrl;
    } else if (options.indexURL) {
      source = `${options.indexURL} (then Pyodide's CDN)`;
    }
    if (options.lockFileURL) opts.lockFileURL = options.lockFileURL;
    if (options.packageCacheDir) opts.packageCacheDir = options.packageCacheDir;
    return opts;
  }

  /** Text written to the event device, cut into lines (an unfinished one, held to the stream's limit, is dropped when a run starts). */
  let decoder = new TextDecoder();
  // The run's lines as the harness wrote them: any other (code under test writing to the device) stands as forged.
  let verifier: EventVerifier | null = null;
  /** Lines verified and not yet posted (each post costs some 40 microseconds in Node, more in a box), and their characters. */
  let held: string[] = [];
  let heldChars = 0;
  const lines = new LineSplitter((line) => {
    if (!line || eventRun === null || !verifier) return;
    let now = false;
    for (const text of verifier.events(line)) {
      held.push(text);
      heldChars += text.length;
      now ||= sentAtOnce(text);
    }
    if (now || held.length >= HELD_LINES || heldChars >= HELD_CHARS) postHeld();
  });

  /** Post the lines held, if any, for the run they belong to. */
  function postHeld(): void {
    if (held.length > 0 && eventRun !== null) deps.post({ type: "events", runId: eventRun, events: held });
    held = [];
    heldChars = 0;
  }

  function initEventDevice(fs: EmscriptenFs): void {
    const dev = fs.makedev(64, 0);
    // Frozen (the operations and the device's entry): JavaScript reached by a run cannot rewrite later runs' events.
    const ops = Object.freeze({
      write: (_stream: unknown, buffer: Uint8Array, offset: number, length: number) => {
        if (eventRun === null) return length;
        lines.push(decoder.decode(buffer.subarray(offset, offset + length), { stream: true }));
        return length;
      },
    });
    fs.registerDevice(dev, ops);
    const devices = (fs as unknown as { devices?: Record<number, object> }).devices;
    if (devices?.[dev]) Object.freeze(devices[dev]);
    fs.mkdev(EVENT_DEVICE, 0o666, dev);
  }

  /** Write the harness's files and import it (already imported when the start snapshot holds it). */
  function initHarness(p: PyodideAPI, fs: EmscriptenFs, imported: boolean): void {
    fs.mkdirTree(LIB_DIR);
    for (const [name, text] of Object.entries(deps.sources)) fs.writeFile(`${LIB_DIR}/${name}.py`, text);
    fs.mkdirTree("/home/pyodide");
    p.setStdin({ stdin: () => null });
    dropDeviceOutput(p);
    if (!imported)
      p.runPython(`import sys\nsys.path.insert(0, "${LIB_DIR}")\nsys.dont_write_bytecode = True\nimport recode_harness, unittest, json`);
    runJson = p.runPython("recode_harness.run_json") as typeof runJson;
    bridgeReached = p.runPython("recode_harness.bridge_reached") as typeof bridgeReached;
    prepare = p.runPython("recode_harness.prepare") as typeof prepare;
    preload = p.runPython("recode_harness.preload") as typeof preload;
    cacheCode = p.runPython("recode_harness.cache_code") as typeof cacheCode;
  }

  /**
   * Start Pyodide: from the start snapshot when one is given and loads, else the slow way (and, when asked,
   * make a snapshot once the harness is imported, before anything else runs).
   */
  async function start(options: PyodideSourceOptions, snapshot: Uint8Array | Blob | null, makeSnapshot: boolean): Promise<boolean> {
    if (snapshot) {
      try {
        const memory = unpackSnapshot(snapshot instanceof Blob ? new Uint8Array(await snapshot.arrayBuffer()) : snapshot);
        // Bytes that came over a channel may be a view into a larger buffer: such a view is copied.
        const whole = memory.byteOffset === 0 && memory.byteLength === memory.buffer.byteLength;
        py = await deps.loadPyodide({ ...initRuntime(options), _loadSnapshot: whole ? memory : memory.slice() });
        const fs = py.FS as unknown as EmscriptenFs;
        initEventDevice(fs);
        initHarness(py, fs, true);
        return true;
      } catch {
        // A snapshot that does not load (another build of Pyodide): start the slow way, and make a new one.
        py = null;
        makeSnapshot = true;
      }
    }
    py = await deps.loadPyodide(makeSnapshot ? { ...initRuntime(options), _makeSnapshot: true } : initRuntime(options));
    const fs = py.FS as unknown as EmscriptenFs;
    initEventDevice(fs);
    initHarness(py, fs, false);
    if (makeSnapshot) {
      try {
        const bytes = (py as unknown as { makeMemorySnapshot(): Uint8Array }).makeMemorySnapshot();
        deps.post({ type: "snapshot", bytes: packSnapshot(bytes) });
      } catch {
        // no snapshot this time
      }
    }
    return false;
  }

  async function init(
    options: PyodideSourceOptions,
    buffer: SharedArrayBuffer | null,
    snapshot: Uint8Array | Blob | null,
    makeSnapshot: boolean,
  ): Promise<void> {
    try {
      const fromSnapshot = await start(options, snapshot, makeSnapshot);
      if (!py) throw new Error("Pyodide did not start");
      if (buffer) {
        interrupt = new Uint8Array(buffer);
        // Not the array itself: the interpreter's poll would write over an interrupt stored as it reads.
        py.setInterruptBuffer(interruptView(interrupt) as unknown as Uint8Array);
      }
      const version = String(py.runPython("import sys; sys.version.split()[0]"));
      sealFunctionConstructors();
      sealSockets(py);
      sealErrorMaker(py);
      freezeIntrinsics();
      fileWatch = watchFiles(py.FS as unknown as WatchedFs);
      const pipes = (py as unknown as { _module?: { PIPEFS?: PipeFs } })._module?.PIPEFS;
      if (pipes) capPipes(pipes, (py.FS as unknown as { ErrnoError: new (errno: number) => Error }).ErrnoError);
      // Python itself is sealed at the first run, once that run's packages are loaded (sealPython).
      deps.post({ type: "ready", version: `${version} (pyodide ${py.version})`, fromSnapshot });
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
      // Found where packages are installed, not in a folder a run could have written to.
      const ok = py.runPython(
        `import importlib.util as u, sysconfig\ns = u.find_spec(${JSON.stringify(mod)})\nwhere = (s.origin or "") if s else ""\nimport os.path as p\nbool(s) and where.startswith(p.normpath(sysconfig.get_paths()["purelib"]) + "/")`,
      );
      if (ok) loaded.add(p);
      else missing.push(p);
    }
    const added = need.filter((p) => loaded.has(p));
    if (added.length > 0) {
      // Imported now, native libraries and all, so that a run's import finds them in the snapshot.
      const list = py.toPy(added.map((p) => p.replace(/-/g, "_")));
      try {
        preload?.(list);
      } finally {
        list.destroy();
      }
    }
    if (missing.length > 0) {
      // Pyodide says "The following error occurred while loading numpy:" and then the error, in two messages.
      const why = errors.length ? ` (${errors.join("; ").replace(/:; /g, ": ").slice(0, 300)})` : "";
      deps.post({
        type: "packages-error",
        runId,
        message: `package ${missing.join(", ")} could not be loaded from ${source}${why}. ${PACKAGE_ADVICE}`,
      });
      return false;
    }
    return true;
  }

  function memoryBytes(): number {
    const mod = (py as unknown as { _module?: { HEAPU8?: Uint8Array } } | null)?._module;
    return mod?.HEAPU8?.length ?? 0;
  }

  /**
   * Seal the interpreter (harness `seal()`: from here on Python code cannot import the JavaScript bridge,
   * make code from bytes, or trace frames), then prepare and snapshot it: every later run starts from
   * here. Done at the first run, after its packages are imported: no package can be loaded after it.
   */
  function sealPython(p: PyodideAPI): void {
    p.runPython("recode_harness.seal()");
    // The harness is imported: its folder leaves the import path, so that no file there can shadow a module.
    p.runPython(`import sys\nwhile ${JSON.stringify(LIB_DIR)} in sys.path: sys.path.remove(${JSON.stringify(LIB_DIR)})`);
    // No package loads from here on: code made from text goes (a memory bug's way to JavaScript).
    sealCodeLoading(p);
    takeSnapshot(p);
    sealed = true;
  }

  /** Prepare the interpreter (guard, collector) and snapshot it: every later run starts from here. */
  function takeSnapshot(p: PyodideAPI): void {
    prepare?.();
    const mod = (p as unknown as { _module: SnapshotModule })._module;
    snapshot = new MemorySnapshot(mod, p.FS as unknown as SnapshotFs, SCRATCH_DIRS);
    snapshot.take();
  }

  async function run(runId: number, job: WorkerRun): Promise<void> {
    // The restore of the last run comes first: until "accepted" the host's accept guard replaces a worker that never gets here.
    finish();
    deps.post({ type: "accepted", runId });
    if (tainted) {
      deps.post({ type: "tainted", runId, message: tainted });
      return;
    }
    if (!py || !runJson) {
      deps.post({ type: "failed", runId, message: "Pyodide is not loaded", fatal: true });
      return;
    }
    if (!sealed) {
      if (!(await ensurePackages(runId, job.packages))) return;
      sealPython(py);
    } else {
      const missing = job.packages.filter((p) => !loaded.has(p));
      if (missing.length > 0) {
        // Packages load only before the seal: a new instance loads them (the host replaces this one and runs there).
        tainted = `tainted: this instance was sealed without ${missing.join(", ")}, which this run needs`;
        deps.post({ type: "tainted", runId, message: tainted });
        return;
      }
    }
    let config = job.config;
    // Written from JS (much faster than Python file objects in MEMFS); the restore removes the folder after the run.
    // (Each folder made once: mkdirTree tries every part of its path, and each one that exists throws.)
    const made = new Set<string>();
    for (const [rel, text] of Object.entries(job.files)) {
      const path = `${WORKDIR}/${rel}`;
      const dir = path.slice(0, path.lastIndexOf("/"));
      if (!made.has(dir)) {
        py.FS.mkdirTree(dir);
        made.add(dir);
      }
      py.FS.writeFile(path, encodeUtf8(text));
    }
    const parsed = JSON.parse(config) as { target?: unknown };
    lastFiles = Object.entries(job.files)
      .filter(([rel]) => rel !== parsed.target && rel.endsWith(".py"))
      .map(([rel, text]) => [`${WORKDIR}/${rel}`, text]);
    // The files of this run whose code the interpreter holds compiled (cache_code): the harness keeps these alone in
    // reach for the run, not those of earlier runs (another task's repository).
    const cachedFiles = lastFiles.filter(([path, text]) => cachedCode.has(`${path}\0${text}`)).map(([path]) => path);
    config = JSON.stringify({ ...parsed, cached_files: cachedFiles });
    if (interrupt) Atomics.store(interrupt, 0, 0);
    // Nothing a previous run left half-written reaches this run's stream.
    decoder = new TextDecoder();
    lines.reset();
    held = [];
    heldChars = 0;
    const key = newEventKey();
    verifier = new EventVerifier(key, deps.mac);
    eventRun = runId;
    fileWatch?.start();
    pendingFinish = true;
    deps.post({ type: "started", runId });
    try {
      runJson(config, toHex(key));
      postHeld();
      // Whatever runs from here on reports nothing.
      eventRun = null;
      deps.post({ type: "done", runId, memoryBytes: memoryBytes(), tainted: "" });
      // The results are out: restore the interpreter now, before the next run is read.
      setTimeout(finish, 0);
    } catch (e) {
      postHeld();
      eventRun = null;
      // A Python exception that left the harness (it has a type) is no death, whatever its message says; a death is a
      // JavaScript error (exit, stack overflow) or one Pyodide marks fatal.
      const err = e as Error & { type?: string; pyodide_fatal_error?: boolean };
      const fatal = err.type === undefined || err.pyodide_fatal_error === true;
      if (fatal) {
        fileWatch?.stop();
        pendingFinish = false;
      } else {
        setTimeout(finish, 0);
      }
      const exit = /Program terminated with exit\((\d+)\)/.exec(err.message);
      const message =
        exit && Number(exit[1]) === CHANNEL_LOST_EXIT ? exitReason(CHANNEL_LOST_EXIT) : err.message.split("\n").slice(-3).join(" ").trim();
      deps.post({ type: "failed", runId, message, fatal });
    }
  }

  /**
   * Restore the interpreter after a run: its memory as snapshotted, its files and descriptors. A run that
   * reached what the restore cannot put back taints the instance (later runs are refused, and the host replaces it).
   */
  function finish(): void {
    if (!pendingFinish || !snapshot) return;
    pendingFinish = false;
    let status = "";
    try {
      status = bridgeReached?.() ?? "";
    } catch (e) {
      status = `tainted: the check after the run failed (${(e as Error).message.split("\n").slice(-1)[0]})`;
    }
    // The one property of a JavaScript intrinsic a run can change (js-seal.ts): back to its start.
    Error.stackTraceLimit = STACK_TRACE_LIMIT;
    let lost: string;
    try {
      lost = snapshot.restore();
    } catch (e) {
      // A restore that failed leaves the run's state in place: the instance cannot be trusted again.
      lost = `tainted: the restore after the run failed (${(e as Error).message})`;
    }
    const touched = fileWatch?.stop() ?? [];
    status ||= lost;
    if (status) tainted = status;
    else if (touched.length > 0) {
      const list = touched.slice(0, 3).join(", ");
      tainted = `tainted: the run changed files outside its folder (${list}${touched.length > 3 ? ", ..." : ""})`;
    }
    if (!tainted) fillCodeCache(snapshot);
    lastFiles = [];
  }

  /**
   * Compile the last run's test and repository files that the interpreter's memory does not hold yet (in
   * the restored interpreter, no code under test running), then snapshot the memory again: later runs of
   * the same files skip compiling them. The target file, new at nearly every run, is not kept.
   */
  function fillCodeCache(snap: MemorySnapshot): void {
    const fresh = lastFiles.filter(([path, text]) => !cachedCode.has(`${path}\0${text}`));
    if (fresh.length === 0 || !cacheCode) return;
    try {
      cacheCode(JSON.stringify(fresh));
      for (const [path, text] of fresh) cachedCode.add(`${path}\0${text}`);
      snap.take();
    } catch {
      // The memory may hold a half-made cache: back to the snapshot as it was.
      tainted = snap.restore() || null;
    }
  }

  return async (msg: ToWorker) => {
    if (msg.type === "prepare") {
      if (!py) deps.prepare?.(msg.options);
    } else if (msg.type === "init") await init(msg.options, msg.interruptBuffer, msg.snapshot ?? null, msg.makeSnapshot ?? false);
    else if (msg.type === "run") await run(msg.runId, msg.run);
  };
}
