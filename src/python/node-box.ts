/**
 * Where Pyodide runs for `recode` in Node (docs/security.md, "Node").
 *
 * With bubblewrap (Linux, Debian package `bubblewrap`), Pyodide runs in a
 * separate Node process inside a box: no network (a new network namespace
 * with no interfaces), an empty environment (no API key), the system
 * read-only, and of this package only the code that runs Pyodide (its
 * `node_modules` folders and `src/python`), never the tasks with their
 * canonical solutions and recorded values; /tmp is the box's own, and the box
 * dies with the host. The host talks to it over the channel of box-channel.ts
 * (node-box-entry.mjs relays to a worker thread running the worker core).
 *
 * Policies: `auto` and `bwrap` (the box, or refuse where bubblewrap does not
 * work), `none` (a worker thread of the host process, warned about once). In a
 * worker thread the sealed interpreter (harness `seal()`) is the only barrier
 * between candidate code and the host process.
 */

import { existsSync, lstatSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { spawnBoxed } from "./box-channel";
import { errorTail } from "./error-tail";
import {
  bindOpen,
  bwrapAvailable,
  bwrapSystemArgs,
  bwrapWithFilter,
  dropToNobody,
  hideFromBox,
  type NativeSandbox,
  nobodyCan,
  PROJECT_UNDER_USR,
} from "./native-sandbox";
import type { WorkerHandle } from "./pyodide-runtime";
import type { FromWorker } from "./worker-core";
import { parseFromWorker } from "./worker-messages";

/** This package's root folder (holds package.json, src/, node_modules/). */
const ROOT = realpathSync(fileURLToPath(new URL("../..", import.meta.url)));
const ENTRY = join(ROOT, "src", "python", "node-box-entry.mjs");
const CLOSE_INHERITED = join(ROOT, "src", "python", "close-inherited.mjs");

/**
 * Which home a policy gives Pyodide on this machine: `auto` and `bwrap` the box (bubblewrap), `none` a
 * worker thread of this process. Code under test that broke out of Pyodide (a memory-safety bug of the
 * interpreter gives that) would run in the thread's process, so without bubblewrap `auto` refuses, as the
 * native backend does, unless the code is `trusted` (a task author's own, such as coverage of the
 * canonical solution): then it falls back to the thread.
 * @throws Error saying what to install or pass, when the box is wanted and bubblewrap does not work here.
 */
export function resolvePyodideBox(policy: NativeSandbox, trusted = false): "bwrap" | "thread" {
  if (policy === "none") return "thread";
  if (process.platform === "linux" && bwrapAvailable()) return "bwrap";
  if (policy === "auto" && trusted) return "thread";
  throw new Error(
    "pyodide backend: bubblewrap (bwrap) is not installed or cannot create namespaces here, and code under test that breaks out of Pyodide would run in this process, with your files, environment and network; install bubblewrap (apt-get install bubblewrap), or pass --sandbox none to run Pyodide in a worker thread anyway (for code you trust)",
  );
}

/** Every `node_modules` folder from this package up to the file system's root (dependencies may be hoisted). */
function nodeModulesFolders(): string[] {
  return nodeModulesPaths().map((nm) => realpathSync(nm));
}

/** The `node_modules` folders Node looks in from this package up, as found (a link to one elsewhere stays a link). */
function nodeModulesPaths(): string[] {
  const out: string[] = [];
  let dir = ROOT;
  for (;;) {
    const nm = join(dir, "node_modules");
    if (existsSync(nm)) out.push(nm);
    const up = dirname(dir);
    if (up === dir) return out;
    dir = up;
  }
}

/** [target, link] for each of those folders that is a link (a checkout whose `node_modules` is shared): made in the box too. */
function nodeModulesLinks(): [string, string][] {
  return nodeModulesPaths()
    .filter((nm) => lstatSync(nm).isSymbolicLink())
    .map((nm) => [realpathSync(nm), nm]);
}

/** The host folders and files the box mounts read-only: Node, this package's code that runs Pyodide, and `readable`. */
function boxMounts(readable: readonly string[]): string[] {
  const node = realpathSync(process.execPath);
  const folders = [
    ...(node.startsWith("/usr/") ? [] : [dirname(node)]),
    ...nodeModulesFolders(),
    join(ROOT, "src", "python"),
    ...readable.filter((dir) => existsSync(dir)).map((dir) => realpathSync(dir)),
  ];
  const files = ["package.json", "tsconfig.json"].map((f) => join(ROOT, f)).filter((p) => existsSync(p));
  return [...folders, ...files];
}

/**
 * Why the box of a root `recode` keeps root instead of running as nobody ("" when it does not, or
 * when recode does not run as root): setpriv is missing, or a folder it mounts cannot be read by
 * other users. For the warning {@link createNodePyodideRuntime} gives.
 * @param readable the extra folders the box will mount (see {@link pyodideBoxCommand}).
 */
export function pyodideBoxRootProblem(readable: readonly string[] = []): string {
  return nobodyCan(boxMounts(readable)).problem;
}

/**
 * The bubblewrap command line of the box.
 * @param readable extra host folders the box may read (a package cache, a local Pyodide index), at the same paths.
 * @param entry the script the boxed Node runs, a file in src/python (default: node-box-entry.mjs, the worker core's relay).
 * @param hide host folders the box must not show where it would (under /usr or a folder it mounts): the tasks runs come from.
 */
export function pyodideBoxCommand(
  readable: string[] = [],
  entry: string = ENTRY,
  hide: readonly string[] = [],
): { command: string; args: string[] } {
  const b = bwrapSystemArgs();
  const node = realpathSync(process.execPath);
  const mounted = boxMounts(readable);
  // When recode runs as root, the box's Node runs as nobody (native-sandbox.ts, dropToNobody).
  const drop = nobodyCan(mounted).asNobody ? dropToNobody(b) : [];
  // (/tmp is the box's own, open to all: a checkout under /tmp must not make it a plain folder.)
  const made = new Set<string>(["/tmp"]);
  for (const p of mounted) bindOpen(b, made, p);
  // (A link under /usr is there already: the box binds /usr whole.)
  for (const [target, link] of nodeModulesLinks()) if (!link.startsWith("/usr/")) b.push("--symlink", target, link);
  // Installed under /usr, which the box binds whole: the tasks (their solutions and recorded values) and the built page are not its to read;
  // nor the tasks runs come from (`hide`), where the box would show them.
  hideFromBox(b, [...PROJECT_UNDER_USR.flatMap((root) => [join(root, "tasks"), join(root, "dist")]), ...hide], mounted, [node, ...mounted]);
  b.push("--remount-ro", "/", "--chdir", join(ROOT, "src", "python"));
  // An empty environment: the host's (API keys included) stays outside. Descriptor 3 is the channel (box-channel.ts).
  b.push("--clearenv", "--setenv", "HOME", "/tmp");
  b.push("--setenv", "LANG", "C.UTF-8");
  // Python's local time is Node's, which would follow the host's /etc/localtime (the box reads the host's /etc): UTC, whatever the host.
  b.push("--setenv", "TZ", "UTC");
  // Descriptors inherited from whatever started recode are closed before anything runs (close-inherited.mjs).
  b.push(...drop, node, "--import", pathToFileURL(CLOSE_INHERITED).href, entry);
  return bwrapWithFilter(b);
}

/**
 * Start Pyodide's worker core in the box.
 * @param readable host folders the box may read, besides its own code (see {@link pyodideBoxCommand}).
 * @param hide host folders the box must not show (see {@link pyodideBoxCommand}).
 */
export function nodeBoxHandle(readable: string[] = [], hide: readonly string[] = []): WorkerHandle {
  const { command, args } = pyodideBoxCommand(readable, ENTRY, hide);
  let messageCb: ((msg: FromWorker) => void) | null = null;
  let exitCb: ((why: string) => void) | null = null;
  let exited = false;
  const report = (why: string) => {
    if (!exited) exitCb?.(why);
    exited = true;
  };
  // Its own process group: ending the box kills the group, so a bubblewrap that is still setting up (whose inner
  // process would otherwise outlive the outer one) goes with it.
  const box = spawnBoxed(
    command,
    args,
    (raw) => {
      const msg = parseFromWorker(raw);
      if (msg) messageCb?.(msg);
    },
    (why) => {
      // A box that sends what does not parse is not trusted to go on: it is ended, and reported as dead.
      report(`the Pyodide box sent ${why}`);
      end();
    },
  );
  const child = box.child;
  let lastErr = "";
  child.stderr?.on("data", (d: Buffer) => {
    lastErr = (lastErr + d.toString()).slice(-2000);
  });
  const end = () => {
    exited = true;
    box.end();
  };
  return {
    pid: child.pid,
    post: (msg) => {
      if (!exited) box.send(msg);
    },
    onMessage: (cb) => {
      messageCb = cb;
    },
    onExit: (cb) => {
      exitCb = cb;
      child.on("error", (e) => report(`the Pyodide box could not start: ${e.message}`));
      child.on("exit", (code, signal) => {
        const tail = errorTail(lastErr);
        report(`the Pyodide box exited (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ""}`);
      });
    },
    terminate: end,
    interrupt: () => {
      if (!exited) box.send({ type: "interrupt" });
    },
  };
}
