/**
 * What the page hands into its Python box (page-box.ts): only Pyodide's own
 * files under `indexURL` and the package wheels that Pyodide's lock file
 * lists under `packageBaseUrl`, each fetched by the page (wheels with the
 * lock file's SHA-256 as the fetch's integrity), never any other URL. Fetched
 * files are kept for the page's lifetime, so a replaced box starts without
 * the network.
 */
import { PYODIDE_FILES } from "./box-protocol";

/** Where the box's files come from. Both are absolute folder URLs ending in "/". */
export interface BoxSources {
  indexURL: string;
  packageBaseUrl: string;
}

/** Files fetched for the boxes, by URL. */
const fetched = new Map<string, Promise<ArrayBuffer>>();

/** What became of one fetch of a box file: `network` is true when it failed for want of a network (no HTTP answer). */
export interface BoxFetchEvent {
  url: string;
  ok: boolean;
  network: boolean;
}

const fetchWatchers = new Set<(e: BoxFetchEvent) => void>();

/** Be told of every fetch of a box file (the page's offline notice uses it); returns the unsubscribe function. */
export function watchBoxFetches(cb: (e: BoxFetchEvent) => void): () => void {
  fetchWatchers.add(cb);
  return () => fetchWatchers.delete(cb);
}

function told(e: BoxFetchEvent): void {
  for (const cb of [...fetchWatchers]) cb(e);
}

async function fetchBytes(url: string, integrity?: string): Promise<ArrayBuffer> {
  let p = fetched.get(url);
  if (!p) {
    p = (async () => {
      let res: Response;
      try {
        res = await fetch(url, integrity ? { integrity } : {});
      } catch (e) {
        told({ url, ok: false, network: true });
        throw new Error(`could not fetch ${url} (${(e as Error).message})`);
      }
      told({ url, ok: res.ok, network: false });
      if (!res.ok) throw new Error(`could not fetch ${url} (HTTP ${res.status})`);
      return res.arrayBuffer();
    })();
    fetched.set(url, p);
    p.catch(() => fetched.delete(url));
  }
  return p;
}

/** "sha256-<base64>" from a hex digest, for `fetch`'s integrity option. */
function sriFromHex(hex: string): string | undefined {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return undefined;
  const bytes = hex.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? [];
  return `sha256-${btoa(String.fromCharCode(...bytes))}`;
}

/** The wheels of each lock file, read once. */
const wheelLists = new Map<string, Promise<Map<string, string | undefined>>>();

/** Wheel URL -> expected SHA-256 (SRI form, or undefined), from the lock file under `indexURL` (read once). */
function wheelsOf(src: BoxSources): Promise<Map<string, string | undefined>> {
  const key = `${src.indexURL}\n${src.packageBaseUrl}`;
  let p = wheelLists.get(key);
  if (!p) {
    p = readWheels(src);
    wheelLists.set(key, p);
    p.catch(() => wheelLists.delete(key));
  }
  return p;
}

async function readWheels(src: BoxSources): Promise<Map<string, string | undefined>> {
  const lockURL = `${src.indexURL}pyodide-lock.json`;
  const lock = JSON.parse(new TextDecoder().decode(await fetchBytes(lockURL))) as {
    packages?: Record<string, { file_name?: unknown; sha256?: unknown }>;
  };
  const wheels = new Map<string, string | undefined>();
  for (const pkg of Object.values(lock.packages ?? {})) {
    if (typeof pkg.file_name !== "string") continue;
    const sri = typeof pkg.sha256 === "string" ? sriFromHex(pkg.sha256) : undefined;
    wheels.set(new URL(pkg.file_name, src.packageBaseUrl).href, sri);
  }
  return wheels;
}

/**
 * The bytes of a file the box asked for.
 * @throws Error when `url` is not one of the box's files (Pyodide's own under
 *   `indexURL`, a wheel the lock file lists under `packageBaseUrl`), or when
 *   fetching it fails (the message names the URL and the HTTP status).
 */
export async function boxFile(src: BoxSources, url: string): Promise<ArrayBuffer> {
  if ((PYODIDE_FILES as readonly string[]).some((f) => `${src.indexURL}${f}` === url)) return fetchBytes(url);
  const wheels = await wheelsOf(src);
  if (!wheels.has(url)) throw new Error(`${url} is not a file of Pyodide or of a package its lock file lists`);
  return fetchBytes(url, wheels.get(url));
}

/**
 * Start fetching Pyodide's own files for a box about to start, so that they are at hand when its worker
 * asks: the box frame loads, and its worker starts and sends its first asks, most of a second later. A
 * failed fetch is left for the worker's own ask (which tries again) to report.
 */
export function prefetchBoxFiles(src: BoxSources): void {
  for (const f of PYODIDE_FILES) fetchBytes(`${src.indexURL}${f}`).catch(() => {});
}
