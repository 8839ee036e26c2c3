/**
 * Compiled task files, kept by the Pyodide worker outside the interpreter.
 *
 * Compiling a task's test file and repository modules takes several
 * milliseconds in WebAssembly on every run, although they rarely change. The
 * worker asks the harness to compile each new file between runs (once the
 * interpreter is restored) and keeps the marshalled code here, in JavaScript,
 * where code under test cannot reach it. Before a later run with the same
 * file, it writes the code beside the file as an unchecked hash-based `.pyc`
 * (PEP 552), which the import system loads without compiling. A run cannot
 * change what the next one loads: the cache is written only between runs, and
 * the run folder with its `.pyc` files is removed after each run.
 */

/** Bytes 4-7 of a `.pyc` header: hash-based (bit 0), source not checked (bit 1 clear). */
const UNCHECKED_HASH_BASED = 1;

/** Marshalled code of task files, by path and text. */
export class CodeCache {
  private readonly entries = new Map<string, Uint8Array>();
  private readonly header: Uint8Array;

  /**
   * @param magic the interpreter's `importlib.util.MAGIC_NUMBER` (4 bytes)
   * @param cacheTag `sys.implementation.cache_tag`, e.g. `cpython-314`
   * @param maxEntries files kept; the cache starts over when it is full
   */
  constructor(
    magic: Uint8Array,
    private readonly cacheTag: string,
    private readonly maxEntries = 256,
  ) {
    if (magic.length !== 4) throw new Error(`a .pyc magic number has 4 bytes, not ${magic.length}`);
    this.header = new Uint8Array(16);
    this.header.set(magic, 0);
    new DataView(this.header.buffer).setUint32(4, UNCHECKED_HASH_BASED, true);
  }

  private static key(rel: string, text: string): string {
    return `${rel}\0${text}`;
  }

  /** Where the import system looks for the compiled form of `path` (a `.py` file). */
  pycPath(path: string): string {
    const slash = path.lastIndexOf("/");
    const base = path.slice(slash + 1).replace(/\.py$/, "");
    return `${path.slice(0, slash)}/__pycache__/${base}.${this.cacheTag}.pyc`;
  }

  /** The `.pyc` files to write for a run: absolute path -> bytes, for every cached file of `files`. */
  pycFiles(workdir: string, files: Record<string, string>): Array<[string, Uint8Array]> {
    const out: Array<[string, Uint8Array]> = [];
    for (const [rel, text] of Object.entries(files)) {
      const code = this.entries.get(CodeCache.key(rel, text));
      if (!code) continue;
      const pyc = new Uint8Array(this.header.length + code.length);
      pyc.set(this.header, 0);
      pyc.set(code, this.header.length);
      out.push([this.pycPath(`${workdir}/${rel}`), pyc]);
    }
    return out;
  }

  /** Python files of `files` not cached yet, except `skip` (the target file, which changes with every submission). */
  missing(files: Record<string, string>, skip: string): Array<[string, string]> {
    return Object.entries(files).filter(
      ([rel, text]) => rel !== skip && rel.endsWith(".py") && !this.entries.has(CodeCache.key(rel, text)),
    );
  }

  /** Keep the marshalled code of one file. */
  add(rel: string, text: string, code: Uint8Array): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(CodeCache.key(rel, text), code);
  }

  /** Number of files kept. */
  get size(): number {
    return this.entries.size;
  }
}
