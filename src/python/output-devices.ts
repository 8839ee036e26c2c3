/**
 * What reaches Emscripten's output devices outside the harness's capture (`os.write(1, ...)`, `os.write(2, ...)`,
 * a C library's writes, `/dev/tty` and `/dev/tty1`) is dropped at once. Emscripten and Pyodide gather such
 * bytes in JavaScript until a newline comes, outside the WebAssembly memory the restore after a run puts back
 * (memory-snapshot.ts): bytes with no newline would pile up there from run to run, past the memory cap, until the
 * box ran out of memory or slowed every later run. The native backend drops them too.
 */
import type { PyodideAPI } from "pyodide";

/** Emscripten's terminal devices (`Module.TTY`): per device, its operations and the bytes it holds until a newline. */
interface TtyTable {
  ttys: Record<number, { output: number[]; ops: Record<string, unknown> } | undefined>;
}

/** Take every byte and keep none. */
const dropAll = Object.freeze({ write: (buffer: Uint8Array): number => buffer.length });

/**
 * Make descriptors 1 and 2 and every terminal device of `py` drop what is written to them, keeping nothing in
 * JavaScript (call once Pyodide is loaded, before any code under test runs; the operations are frozen).
 */
export function dropDeviceOutput(py: PyodideAPI): void {
  py.setStdout(dropAll);
  py.setStderr(dropAll);
  const tty = (py as unknown as { _module: { TTY?: TtyTable } })._module.TTY;
  for (const t of Object.values(tty?.ttys ?? {})) {
    if (!t) continue;
    t.output = [];
    t.ops = Object.freeze({ ...t.ops, put_char: () => {}, fsync: () => {} });
  }
}
