/**
 * The interpreter as it was before any run, put back after every run: a copy
 * of Pyodide's WebAssembly memory up to the heap's top, taken once the harness
 * is sealed and prepared (and again after packages are loaded), and written
 * back over the memory after each run. Everything Python holds, in any
 * module, cache, C extension or the interpreter's own structures, is then as
 * before the run, without undoing changes one by one.
 *
 * What lives outside that memory is checked or put back here: the JavaScript
 * objects Python refers to (Pyodide's reference table: a run that changed it
 * made objects that would outlive the restore, so the instance must be
 * replaced), the function table (a native library loaded during a run), and
 * Emscripten's file system state (open file descriptors, working directory,
 * new entries in the scratch folders).
 */

/** The parts of Pyodide's Emscripten module the snapshot uses. */
export interface SnapshotModule {
  /** The instance's memory (Emscripten's `Module.memory`): read through its own buffer, not the views below. */
  memory: WebAssembly.Memory;
  /** The module's byte view (not read by the snapshot, see memoryViews; the worker reads its length). */
  HEAPU8: Uint8Array;
  _emscripten_get_sbrk_ptr(): number;
  /** Pyodide's reference table of JavaScript objects; throws past its end. */
  __hiwire_get(index: number): unknown;
  wasmTable: WebAssembly.Table;
  /** Emscripten's table of the host names looked up (`getaddrinfo`, `gethostbyname`) and the addresses it made up for them. */
  DNS?: { address_map: { id: number; addrs: Record<string, string>; names: Record<string, string> } };
  /** Emscripten's pipes: the mount's root (every pipe end is a node under it) and the counter that names them (`pipe[K]`). */
  PIPEFS?: NamedNodes;
  /** Emscripten's sockets, as its pipes: a node under the mount's root for each (`socket[K]`), kept after it is closed. */
  SOCKFS?: NamedNodes;
  /** Fills Emscripten's protocol table (`getprotobyname`), allocating its records in the memory on the first call only. */
  _setprotoent?: (stayOpen: number) => void;
}

/** Nodes Emscripten names by count (pipes, sockets): the mount's root they are made under, and the counter. */
interface NamedNodes {
  root?: FsNode;
  nextname: { current?: number };
}

/** An open file descriptor of Emscripten's file system. */
interface Stream {
  fd: number | null;
  position: number;
  /** Open flags; fcntl(F_SETFL) changes them in place. */
  flags: number;
}

/** A node of Emscripten's file system: its identity, and what a run could change in place. */
interface FsNode {
  mode: number;
  atime?: number;
  mtime?: number;
  ctime?: number;
  /** A memory file's bytes (MEMFS) and how many of them are used. */
  contents?: Uint8Array | number[] | null;
  usedBytes?: number;
}

/** What a node held when the snapshot was taken. */
interface NodeState {
  node: FsNode;
  mode: number;
  times: [number | undefined, number | undefined, number | undefined];
  contents: Uint8Array | null;
  usedBytes: number | undefined;
}

function nodeState(node: FsNode): NodeState {
  // A folder's `contents` is its entries (an object): only a memory file's bytes are kept.
  const c = node.contents instanceof Uint8Array || Array.isArray(node.contents) ? node.contents : null;
  return {
    node,
    mode: node.mode,
    times: [node.atime, node.mtime, node.ctime],
    contents: c ? Uint8Array.from(c.slice(0, node.usedBytes ?? c.length)) : null,
    usedBytes: node.usedBytes,
  };
}

/** Put a node's mode, times and (for a memory file) bytes back as they were. */
function putBack(s: NodeState): void {
  const n = s.node;
  n.mode = s.mode;
  [n.atime, n.mtime, n.ctime] = s.times;
  if (s.contents) {
    n.contents = s.contents.slice();
    n.usedBytes = s.usedBytes;
  }
}

/** The parts of Emscripten's file system the snapshot uses. */
export interface SnapshotFs {
  streams: (Stream | null | undefined)[];
  /** When false (the default), removing an entry needs write permission on its folder. */
  ignorePermissions: boolean;
  /** The number the next new node gets (its inode number): a count a run could otherwise pass to the next. */
  nextInode: number;
  cwd(): string;
  chdir(path: string): void;
  close(stream: Stream): void;
  readdir(path: string): string[];
  lookupPath(path: string, opts: { follow: boolean }): { node: FsNode };
  isDir(mode: number): boolean;
  rmdir(path: string): void;
  unlink(path: string): void;
  /** The node `name` under `parent` (throws when there is none). */
  lookupNode?(parent: FsNode, name: string): FsNode;
  /** Drop a node from the file system's table of nodes. */
  destroyNode?(node: FsNode): void;
}

/** Entries of a folder, without "." and "..", or [] when it cannot be read. */
function entries(fs: SnapshotFs, dir: string): string[] {
  try {
    return fs.readdir(dir).filter((n) => n !== "." && n !== "..");
  } catch {
    return [];
  }
}

/** The node at `path` (links not followed), or null. */
function nodeAt(fs: SnapshotFs, path: string): FsNode | null {
  try {
    return fs.lookupPath(path, { follow: false }).node;
  } catch {
    return null;
  }
}

/** Every entry under `dir` and `dir` itself: path -> node, without following links. */
function tree(fs: SnapshotFs, dir: string, out = new Map<string, FsNode>()): Map<string, FsNode> {
  const node = nodeAt(fs, dir);
  if (!node) return out;
  out.set(dir, node);
  if (fs.isDir(node.mode)) for (const name of entries(fs, dir)) tree(fs, `${dir}/${name}`, out);
  return out;
}

/** Remove a file, link or folder tree; errors are ignored (what stays is found by the check after). */
function removeTree(fs: SnapshotFs, path: string): void {
  const node = nodeAt(fs, path);
  if (!node) return;
  try {
    if (fs.isDir(node.mode)) {
      for (const name of entries(fs, path)) removeTree(fs, `${path}/${name}`);
      fs.rmdir(path);
    } else {
      fs.unlink(path);
    }
  } catch {
    // seen by the check after the removal
  }
}

/**
 * A function table's length, read through the getter of `WebAssembly.Table.prototype` taken when this
 * module loads: a `length` property set on the table object itself does not change what it says.
 */
const tableLength: (table: WebAssembly.Table) => number = (() => {
  const get = Object.getOwnPropertyDescriptor(WebAssembly.Table.prototype, "length")?.get;
  const apply = Reflect.apply;
  if (!get) throw new Error("WebAssembly.Table has no length getter");
  return (table) => apply(get, table, []) as number;
})();

/**
 * A memory's current buffer, through the getter of `WebAssembly.Memory.prototype` taken when this module
 * loads, as a byte view and a word view made with the constructors taken then: what a run's JavaScript
 * set on the module (`HEAPU8`) or on the globals later does not change what the restore reads and writes.
 */
const memoryViews: (memory: WebAssembly.Memory) => { u8: Uint8Array; u32: Uint32Array } = (() => {
  const get = Object.getOwnPropertyDescriptor(WebAssembly.Memory.prototype, "buffer")?.get;
  const apply = Reflect.apply;
  const U8 = Uint8Array;
  const U32 = Uint32Array;
  if (!get) throw new Error("WebAssembly.Memory has no buffer getter");
  return (memory) => {
    const buffer = apply(get, memory, []) as ArrayBuffer;
    return { u8: new U8(buffer), u32: new U32(buffer) };
  };
})();

/**
 * A snapshot of one Pyodide instance. `take()` copies its state (about 27 MB
 * of memory for the interpreter with the harness: some 20 ms); `restore()`
 * writes it back (some 3 ms), clears the memory the run took past the heap's
 * top, and says what it could not put back.
 */
export class MemorySnapshot {
  private memory: Uint8Array | null = null;
  private references: unknown[] = [];
  private tableLength = 0;
  private streams: { stream: Stream | null | undefined; position: number; flags: number }[] = [];
  private cwd = "/";
  private nextInode = 0;
  /** Emscripten's host-name table and its pipe and socket counters as they were (JavaScript state a run changes outside the memory). */
  private dnsMap = "";
  private pipeCount = 0;
  private socketCount = 0;
  /** Every entry of the scratch folders: path -> the node and what it held. */
  private scratch = new Map<string, NodeState>();
  /** The function table itself, held here: what the module's property says later is not trusted. */
  private readonly table: WebAssembly.Table;
  /** The memory, and where the heap's top is kept, held here for the same reason. */
  private readonly wasmMemory: WebAssembly.Memory;
  private readonly sbrkPtr: number;

  /**
   * @param mod Pyodide's Emscripten module (`pyodide._module`).
   * @param fs its file system.
   * @param scratchDirs folders (scratch-dirs of file-watch.ts) whose new entries are removed, and old ones put back, at every restore.
   */
  constructor(
    private readonly mod: SnapshotModule,
    private readonly fs: SnapshotFs,
    private readonly scratchDirs: readonly string[],
  ) {
    this.table = mod.wasmTable;
    this.wasmMemory = mod.memory;
    this.sbrkPtr = mod._emscripten_get_sbrk_ptr();
  }

  /** Whether a snapshot has been taken. */
  get taken(): boolean {
    return this.memory !== null;
  }

  /** The heap's top (bytes): memory past it holds nothing live. */
  private top(): number {
    return memoryViews(this.wasmMemory).u32[this.sbrkPtr >>> 2] as number;
  }

  private referenceTable(): unknown[] {
    const out: unknown[] = [];
    for (let i = 0; ; i++) {
      try {
        out.push(this.mod.__hiwire_get(i));
      } catch {
        return out;
      }
    }
  }

  /**
   * Copy the state. Call only between runs (no Python code on the stack). At the first copy the memory past the
   * heap's top is cleared (nothing lives there), so that what a run leaves there can be cleared after it (see restore).
   */
  take(): void {
    // Emscripten allocates its protocol records in the memory the first time a run asks for one, and keeps the
    // pointers in JavaScript: made now, they are in the copy (made by a run, the restore would free them under
    // the pointers, and every later run would read what the allocator put there since).
    this.mod._setprotoent?.(1);
    const u8 = memoryViews(this.wasmMemory).u8;
    const top = this.top();
    // Cleared once, at the first copy: from then on every restore clears what its run took, and the heap's top only
    // goes up, so the memory past any later copy's top is clear already (no fill of a grown memory at each copy).
    if (!this.memory) u8.fill(0, top);
    this.memory = u8.slice(0, top);
    this.references = this.referenceTable();
    this.tableLength = tableLength(this.table);
    this.streams = this.fs.streams.map((stream) => ({ stream, position: stream?.position ?? 0, flags: stream?.flags ?? 0 }));
    this.cwd = this.fs.cwd();
    this.nextInode = this.fs.nextInode;
    this.dnsMap = this.mod.DNS ? JSON.stringify(this.mod.DNS.address_map) : "";
    this.pipeCount = this.mod.PIPEFS?.nextname.current ?? 0;
    this.socketCount = this.mod.SOCKFS?.nextname.current ?? 0;
    this.scratch = new Map();
    for (const dir of this.scratchDirs) for (const [path, node] of tree(this.fs, dir)) this.scratch.set(path, nodeState(node));
  }

  /**
   * Put the state back. Returns "" or `tainted: <what>` when the run changed
   * something outside the memory that cannot be put back (the instance must
   * then be replaced); the memory is restored either way.
   * @throws Error when no snapshot was taken.
   */
  restore(): string {
    const memory = this.memory;
    if (!memory) throw new Error("no memory snapshot to restore");
    const problem = this.outside();
    const u8 = memoryViews(this.wasmMemory).u8;
    // What the run allocated past the snapshot's heap top is not in the copy: cleared, or the allocator would
    // hand it, with the run's bytes in it, to the next run (a new buffer is not zeroed: io.RawIOBase.read gives
    // one to Python code). The heap's top never goes down during a run (Emscripten's malloc does not give memory
    // back), so everything a run allocated lies below the top it ended with.
    const top = this.top();
    if (top > memory.length) u8.fill(0, memory.length, Math.min(top, u8.length));
    u8.set(memory);
    this.restoreStreams();
    this.restoreNames();
    return this.restoreFiles() || problem;
  }

  /**
   * Put back what Emscripten keeps in JavaScript and names by count: the host names looked up (a run's text
   * would be read back by the next run's `gethostbyaddr`, and the addresses given count earlier lookups), and
   * the pipes and sockets (their nodes stay in the file system's table after they are closed, a run's memory the
   * next runs would carry, and their counters show in `/proc/self/fd`). Called after the streams are put back:
   * the run's pipe ends and sockets are closed by then.
   */
  private restoreNames(): void {
    const { DNS, PIPEFS, SOCKFS } = this.mod;
    if (DNS && this.dnsMap) DNS.address_map = JSON.parse(this.dnsMap);
    if (PIPEFS) this.dropNamed(PIPEFS, "pipe", this.pipeCount);
    if (SOCKFS) this.dropNamed(SOCKFS, "socket", this.socketCount);
  }

  /** Drop the nodes `<kind>[K]` made since the copy (K from `count` on) and put the counter back to `count`. */
  private dropNamed(named: NamedNodes, kind: string, count: number): void {
    const made = named.nextname.current ?? 0;
    const root = named.root;
    if (root && this.fs.lookupNode && this.fs.destroyNode) {
      const wasIgnoring = this.fs.ignorePermissions;
      this.fs.ignorePermissions = true;
      try {
        for (let i = count; i < made; i++) {
          try {
            this.fs.destroyNode(this.fs.lookupNode(root, `${kind}[${i}]`));
          } catch {
            // gone already
          }
        }
      } finally {
        this.fs.ignorePermissions = wasIgnoring;
      }
    }
    named.nextname.current = count;
  }

  /** What changed outside the memory that restoring cannot undo, or "". */
  private outside(): string {
    if (tableLength(this.table) !== this.tableLength) return "tainted: the run loaded native code (the function table grew)";
    const now = this.referenceTable();
    if (now.length !== this.references.length || now.some((v, i) => v !== this.references[i])) {
      return "tainted: the run changed the JavaScript objects Python refers to";
    }
    return "";
  }

  private restoreStreams(): void {
    const fs = this.fs;
    const n = Math.max(fs.streams.length, this.streams.length);
    for (let fd = 0; fd < n; fd++) {
      const saved = this.streams[fd]?.stream;
      const live = fs.streams[fd];
      if (live && live !== saved) {
        try {
          fs.close(live);
        } catch {
          fs.streams[fd] = null;
        }
      }
      if (saved) {
        fs.streams[fd] = saved;
        saved.fd = fd;
        saved.position = this.streams[fd]?.position ?? 0;
        saved.flags = this.streams[fd]?.flags ?? saved.flags;
      }
    }
  }

  /**
   * Remove what the run added to the scratch folders (its folder included), whatever permissions it set,
   * and put back the modes, times and bytes of what was there. Returns `tainted: ...` when an entry that was there is gone
   * or is another node now (renamed, replaced), or a new one could not be removed.
   */
  private restoreFiles(): string {
    const fs = this.fs;
    const wasIgnoring = fs.ignorePermissions;
    fs.ignorePermissions = true;
    let problem = "";
    try {
      // First: a folder that is the working directory cannot be removed.
      try {
        fs.chdir(this.cwd);
      } catch {
        problem = `tainted: the working directory ${this.cwd} is gone`;
      }
      for (const dir of this.scratchDirs) {
        for (const path of tree(fs, dir).keys()) if (!this.scratch.has(path)) removeTree(fs, path);
      }
      for (const [path, state] of this.scratch) {
        if (nodeAt(fs, path) !== state.node) problem ||= `tainted: the run removed or replaced ${path}`;
        else putBack(state);
      }
      for (const dir of this.scratchDirs) {
        for (const path of tree(fs, dir).keys())
          if (!this.scratch.has(path)) problem ||= `tainted: ${path} could not be removed after the run`;
      }
      // Every node the run made is gone: the next ones get the numbers they would have had.
      fs.nextInode = this.nextInode;
    } finally {
      fs.ignorePermissions = wasIgnoring;
    }
    return problem;
  }
}
