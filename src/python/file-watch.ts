/**
 * The watch on Pyodide's file system during a run: which paths outside the
 * scratch folders (/tmp, /home/pyodide, /dev) a run changed. Such a change
 * outlives the restore of the interpreter's memory (memory-snapshot.ts), so the
 * worker replaces an instance whose run made one. Every path is judged as the
 * file system resolves it: `/tmp/../lib/x`, or a link under /tmp to another
 * folder, is not a scratch path.
 */

/** The parts of Emscripten's file system the watch uses (Pyodide's typings leave them out). */
export interface WatchedFs {
  trackingDelegate: Record<string, (...args: unknown[]) => void>;
  lookupPath(path: string, opts: { follow: boolean }): { node: unknown };
  getPath(node: unknown): string;
  getStream(fd: number): { node?: unknown } | null;
  [name: string]: unknown;
}

/**
 * The scratch folders: a run may write in them, and the worker empties their new entries and puts back
 * the old ones after every run (memory-snapshot.ts). Writes anywhere else taint the instance.
 */
export const SCRATCH_DIRS: readonly string[] = ["/tmp", "/home/pyodide", "/dev"];
const SCRATCH = SCRATCH_DIRS.map((d) => `${d}/`);

/** Bytes a run may add to memory files (the scratch folders are in memory): 256 MiB. */
export const SCRATCH_LIMIT_BYTES = 256 * 1024 ** 2;
/** Emscripten's (WASI's) errno for "no space left on device". */
const ENOSPC = 51;
/** Emscripten's (WASI's) errno for "file name too long". */
const ENAMETOOLONG = 37;
/** Longest link target Linux keeps, in bytes (PATH_MAX, its closing NUL left out). */
const LINK_TARGET_MAX = 4095;
const utf8 = new TextEncoder();

/** Open flags that can change a file (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND). */
const WRITE_FLAGS = 1 | 2 | 64 | 512 | 1024;

/** What a worker does with the watch. */
export interface FileWatch {
  /** Start noting (a run begins): what was noted before is forgotten. */
  start(): void;
  /** Stop noting, and return the paths outside the scratch folders the run changed. */
  stop(): string[];
}

/**
 * The real path of `raw` as the file system resolves it (`..` and links in its folders followed, its last
 * link not): the entry's own path when it exists, else its folder's real path and its name. What cannot
 * be resolved is returned marked, so that it never passes for a scratch path.
 */
function realPath(fs: WatchedFs, raw: string): string {
  const lookup = fs.lookupPath.bind(fs);
  const getPath = fs.getPath.bind(fs);
  try {
    return getPath(lookup(raw, { follow: false }).node);
  } catch {
    // removed, or not made yet: resolve its folder
  }
  const trimmed = raw.replace(/\/+$/, "");
  const slash = trimmed.lastIndexOf("/");
  const name = trimmed.slice(slash + 1);
  if (name === "" || name === "." || name === "..") return `(unresolved) ${raw}`;
  const dir = slash > 0 ? trimmed.slice(0, slash) : slash === 0 ? "/" : ".";
  try {
    const parent = getPath(lookup(dir, { follow: true }).node);
    return `${parent === "/" ? "" : parent}/${name}`;
  } catch {
    return `(unresolved) ${raw}`;
  }
}

/** The real path a file system call acts on: a path, a stream, a node, or a descriptor. */
function describeTarget(fs: WatchedFs, target: unknown): string {
  if (typeof target === "string") return realPath(fs, target);
  const getPath = fs.getPath.bind(fs);
  let node: unknown = target;
  if (typeof target === "number") node = fs.getStream(target)?.node;
  else if (target && typeof target === "object" && "node" in target) node = (target as { node: unknown }).node;
  try {
    return getPath(node);
  } catch {
    return `(unresolved) ${typeof target === "number" ? `fd ${target}` : "a file"}`;
  }
}

/**
 * The operations memory nodes share (MEMFS), found through nodes made for the purpose in /tmp: the
 * stream operations of a file, and the node operations of a file, a folder and a link.
 */
function memoryOps(fs: WatchedFs): { stream: Record<string, unknown> | null; nodes: Record<string, unknown>[] } {
  const base = "/tmp/.recode-file-watch";
  const call = (name: string, ...args: unknown[]) => (fs[name] as (...a: unknown[]) => unknown).apply(fs, args);
  const nodeOf = (p: string) =>
    fs.lookupPath(p, { follow: false }).node as { stream_ops?: Record<string, unknown>; node_ops?: Record<string, unknown> };
  try {
    call("writeFile", `${base}-f`, "");
    call("mkdir", `${base}-d`);
    call("symlink", `${base}-f`, `${base}-l`);
    const file = nodeOf(`${base}-f`);
    const nodes = [file.node_ops, nodeOf(`${base}-d`).node_ops, nodeOf(`${base}-l`).node_ops].filter(
      (o, i, all): o is Record<string, unknown> => o !== undefined && all.indexOf(o) === i,
    );
    call("unlink", `${base}-l`);
    call("unlink", `${base}-f`);
    call("rmdir", `${base}-d`);
    return { stream: file.stream_ops ?? null, nodes };
  } catch {
    return { stream: null, nodes: [] };
  }
}

/**
 * Install the watch on `fs`: Emscripten's tracking hooks, and wrappers of the
 * calls they do not see (truncate, chmod, chown, utime).
 */
export function watchFiles(fs: WatchedFs): FileWatch {
  let watching = false;
  let grown = 0;
  const touched = new Set<string>();
  const noteResolved = (p: string) => {
    if (!SCRATCH.some((d) => p.startsWith(d)) && p !== "/tmp" && p !== "/home/pyodide") touched.add(p);
  };
  const note = (path: unknown) => {
    if (watching) noteResolved(realPath(fs, String(path)));
  };
  const t = fs.trackingDelegate;
  t.onOpenFile = (path, flags) => {
    if (typeof flags === "number" && (flags & WRITE_FLAGS) !== 0) note(path);
  };
  t.onMakeDirectory = note;
  t.onMakeSymlink = (_target, link) => note(link);
  t.onMovePath = (from, to) => {
    note(from);
    note(to);
  };
  t.onDeletePath = note;
  t.onWriteToFile = note;
  for (const name of ["truncate", "ftruncate", "chmod", "fchmod", "lchmod", "chown", "fchown", "lchown", "utime"]) {
    const orig = fs[name];
    if (typeof orig !== "function") continue;
    fs[name] = (...args: unknown[]) => {
      if (watching) noteResolved(describeTarget(fs, args[0]));
      return (orig as (...a: unknown[]) => unknown).apply(fs, args);
    };
  }
  // A memory file's own write, msync and allocate: a shared memory map writes back through msync, and a
  // descriptor's flags can be widened with fcntl after a read-only open, so no call above need be seen.
  // And every memory node's setattr (mode, owner, times, size): the path calls above may follow a link
  // whose own path is a scratch one, while the node they change is elsewhere; the node is what counts.
  const mem = memoryOps(fs);
  const wrap = (ops: Record<string, unknown> | null, names: string[], check?: (args: unknown[]) => void) => {
    for (const name of names) {
      const orig = ops?.[name];
      if (!ops || typeof orig !== "function") continue;
      ops[name] = (...args: unknown[]) => {
        if (watching) {
          noteResolved(describeTarget(fs, args[0]));
          check?.(args);
        }
        return (orig as (...a: unknown[]) => unknown).apply(ops, args);
      };
    }
  };
  // Memory files live in JavaScript, outside the interpreter's memory and its cap: a run may grow them by
  // at most SCRATCH_LIMIT_BYTES in all (a write past the end, allocate, or a larger size set by truncate),
  // after which the call fails as on a full disk (ENOSPC). `end`: the size the call asks of the node.
  const grow = (node: { usedBytes?: number } | undefined, end: number) => {
    grown += Math.max(0, end - (node?.usedBytes ?? 0));
    if (grown > SCRATCH_LIMIT_BYTES) throw new (fs.ErrnoError as new (errno: number) => Error)(ENOSPC);
  };
  type Sized = { node?: { usedBytes?: number }; usedBytes?: number };
  wrap(mem.stream, ["msync"]);
  wrap(mem.stream, ["write"], (a) => grow((a[0] as Sized).node, Number(a[4] ?? 0) + Number(a[3] ?? 0)));
  wrap(mem.stream, ["allocate"], (a) => grow((a[0] as Sized).node, Number(a[1] ?? 0) + Number(a[2] ?? 0)));
  for (const ops of mem.nodes) {
    wrap(ops, ["setattr"], (a) => {
      const size = (a[1] as { size?: number } | undefined)?.size;
      if (typeof size === "number") grow(a[0] as Sized, size);
    });
    // A link's target is kept in JavaScript too: as long as Linux allows, and counted with the files' bytes
    // (a run that made links of 100,000-character targets held gigabytes).
    wrap(ops, ["symlink"], (a) => {
      const bytes = (text: unknown) => utf8.encode(String(text ?? "")).length;
      const target = bytes(a[2]);
      if (target > LINK_TARGET_MAX) throw new (fs.ErrnoError as new (errno: number) => Error)(ENAMETOOLONG);
      grow(undefined, target + bytes(a[1]));
    });
  }
  return {
    start() {
      touched.clear();
      grown = 0;
      watching = true;
    },
    stop() {
      watching = false;
      return [...touched];
    },
  };
}
