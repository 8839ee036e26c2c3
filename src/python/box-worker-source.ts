/**
 * The Python box's worker script (pyodide.worker.ts and the harness's Python
 * sources, as one classic script's text) and its SHA-256. A chunk of its own,
 * loaded when the box starts: the page's first script and its editor do not
 * wait for it.
 */
export { default as workerSource, sha256 as workerSha256 } from "./pyodide.worker.ts?bundle";
