/**
 * What Pyodide's Python is started with, beside Emscripten's own defaults: its environment and its program's
 * name. A start snapshot holds both (the interpreter has read them), so they are part of its key (node.ts).
 */

/** The environment Python starts with. */
export const PYTHON_ENV: Readonly<Record<string, string>> = Object.freeze({ PYTHONHASHSEED: "0", HOME: "/home/pyodide" });

/**
 * The program's name Python is given: its `sys.executable`, `sys.orig_argv` and `os.environ["_"]`. In Node,
 * Emscripten would take the worker script's path, which names the host's folders; this is the name it uses
 * in a browser.
 */
export const PROGRAM_NAME = "./this.program";
