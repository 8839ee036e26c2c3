/**
 * Browser host of the Python runtime: Pyodide in a module Web Worker inside
 * the page's Python box (page-box.ts), driven by PyodideRuntime.
 */
import pyodidePackage from "pyodide/package.json";
import type { BoxSources } from "./box-files";
import { browserSnapshotStore } from "./browser-snapshots";
import { boxWorkerScript, pageBoxHandle } from "./page-box";
import { PyodideRuntime } from "./pyodide-runtime";

/** Version of the bundled pyodide npm package, e.g. "314.0.7". */
export const PYODIDE_VERSION: string = pyodidePackage.version;

/** Pyodide's CDN folder for this version (package wheels such as numpy live there). */
export const PYODIDE_CDN = `https://cdn.jsdelivr.net/pyodide/v${PYODIDE_VERSION}/full/`;

/** Options of {@link createBrowserRuntime}. Empty strings mean "default". */
export interface BrowserRuntimeOptions {
  /** Folder URL (ending in /) with pyodide.mjs, pyodide.asm.wasm, python_stdlib.zip, pyodide-lock.json. Default: this site's /pyodide/. */
  indexURL?: string;
  /** Folder URL with package wheels. Default: {@link PYODIDE_CDN}. */
  packageBaseUrl?: string;
  /** Wait after the interrupt before the worker is terminated, in ms. */
  interruptGraceMs?: number;
}

/**
 * The page's default indexURL: the build's `pyodide/` folder, as an absolute URL. The build's base is relative
 * (`./`), so that `dist/` works from any folder of a server: the folder is then the page's own.
 */
export function defaultIndexURL(): string {
  return new URL(`${import.meta.env.BASE_URL}pyodide/`, location.href).href;
}

/** Absolute folder URL (relative ones resolve against the page), ending in "/". */
function folderURL(u: string): string {
  const abs = new URL(u, location.href).href;
  return abs.endsWith("/") ? abs : `${abs}/`;
}

/**
 * The absolute folder URLs the page's Python box gets its files from, for
 * these options (empty means the defaults: this site's /pyodide/, {@link PYODIDE_CDN}).
 * @throws TypeError when a URL in `opts` cannot be parsed.
 */
export function browserBoxSources(opts: Pick<BrowserRuntimeOptions, "indexURL" | "packageBaseUrl"> = {}): BoxSources {
  return {
    indexURL: folderURL(opts.indexURL?.trim() || defaultIndexURL()),
    packageBaseUrl: folderURL(opts.packageBaseUrl?.trim() || PYODIDE_CDN),
  };
}

/**
 * A PythonRuntime running Pyodide in the page's Python box (page-box.ts):
 * each instance is a new box. Relative URLs resolve against the page.
 * @throws TypeError when a URL in `opts` cannot be parsed.
 */
export function createBrowserRuntime(opts: BrowserRuntimeOptions = {}): PyodideRuntime {
  const { indexURL, packageBaseUrl } = browserBoxSources(opts);
  return new PyodideRuntime({
    createWorker: () => pageBoxHandle({ indexURL, packageBaseUrl }),
    indexURL,
    packageBaseUrl,
    interruptGraceMs: opts.interruptGraceMs,
    startSnapshots: browserSnapshotStore(async () => (await boxWorkerScript()).workerSha256, indexURL, PYODIDE_VERSION),
  });
}
