/**
 * No processes from a Node thread that runs Pyodide. Emscripten's `system()`
 * (Python's `os.system`) runs a shell through Node's `child_process` when
 * Pyodide runs in Node: on the host itself in a worker thread, with the host's
 * files (the tasks' canonical solutions) and environment. The worker thread
 * that hosts Pyodide (node-worker-entry.ts) calls {@link sealProcesses} before
 * Pyodide loads; builtin modules are the thread's own, so the host's
 * `child_process` is untouched.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

/** Exit status `os.system` reports: a shell's "command not found". */
const NOT_FOUND = 127;

/**
 * Replace every way `child_process` starts a process, in this thread: `spawnSync` (what `system()` calls)
 * returns status 127 without starting anything; the others throw.
 */
export function sealProcesses(): void {
  const cp = childProcess as unknown as Record<string, unknown>;
  const refuse = () => {
    throw new Error("no processes for code under test");
  };
  for (const name of ["spawn", "exec", "execSync", "execFile", "execFileSync", "fork"]) cp[name] = refuse;
  cp.spawnSync = () => ({ pid: 0, status: NOT_FOUND, signal: null, output: [null, null, null], stdout: null, stderr: null });
  // The ES module view of the builtin (what `import("node:child_process")` gives) follows the change.
  syncBuiltinESMExports();
  Object.freeze(cp);
  // Node's internal bindings start processes without child_process (process.binding("spawn_sync")), open
  // files and sockets: this thread's process object gives only the constants Emscripten's NODEFS reads.
  const proc = process as unknown as Record<string, unknown>;
  const binding = proc.binding as ((name: string) => unknown) | undefined;
  const only = (name: string) => {
    if (name === "constants" && binding) return binding.call(process, name);
    throw new Error("no internal bindings for code under test");
  };
  for (const name of ["binding", "_linkedBinding", "dlopen"]) {
    Object.defineProperty(proc, name, { value: name === "binding" ? only : refuse, writable: false, configurable: false });
  }
}

/**
 * The user and group ids this thread's process object reports: 0, what Emscripten gives Python in a browser.
 * Emscripten's `getuid()` (Python's `os.getuid`) asks Node's `process.getuid()`, which names the host's user
 * (the user who runs recode, or the box's). Called with {@link sealProcesses}, before Pyodide loads.
 */
export function hideHostIds(): void {
  const proc = process as unknown as Record<string, unknown>;
  for (const name of ["getuid", "geteuid", "getgid", "getegid"]) {
    Object.defineProperty(proc, name, { value: () => 0, writable: false, configurable: false });
  }
  Object.defineProperty(proc, "getgroups", { value: () => [], writable: false, configurable: false });
}
