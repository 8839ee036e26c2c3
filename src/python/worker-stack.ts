/**
 * The stack of the Node worker thread that runs Pyodide (in a worker thread of `recode`, and in the box's Node
 * process), in MiB. WebAssembly frames live on the thread's JavaScript stack: Python code that recurses through
 * C calls (`1 + max(depth(c) for c in node.children)`) used it up at some 1,000 levels with Node's default of 4,
 * and the interpreter died where CPython (an 8 MiB C stack) goes on to some 10,000. With 64 it goes on past
 * 10,000 levels too. Virtual memory: only the pages used are the process's. The page's workers keep the
 * browser's own stack (docs/security.md).
 */
export const PYODIDE_WORKER_STACK_MB = 64;
