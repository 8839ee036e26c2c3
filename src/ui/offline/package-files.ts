/**
 * Package files the service worker keeps (src/sw.ts) and the page looks up
 * to tell which tasks can run offline. Shared by both, so the two agree.
 */
import type { Task } from "../../core/task";

/** Cache Storage name of the package files (wheels) loaded once with a network. */
export const PACKAGE_CACHE = "recode-packages";

/** Whether a URL is a package file of a Pyodide package source: a wheel, or a zip or tar archive some packages ship. */
export function isPackageFile(url: URL): boolean {
  return /\.(whl|zip|tar|tar\.gz|tgz)$/i.test(url.pathname);
}

/** What a Pyodide lock file says about one package. */
interface LockPackage {
  file_name?: unknown;
  depends?: unknown;
}

/**
 * Every file (absolute URL under `packageBaseUrl`) that loading `packages`
 * needs, their dependencies included, as `pyodide-lock.json` lists them.
 * Returns null when a package (or a dependency) is not in the lock file.
 */
export function packageFileURLs(lock: unknown, packages: readonly string[], packageBaseUrl: string): string[] | null {
  const all = (lock as { packages?: Record<string, LockPackage> } | null)?.packages ?? {};
  const byName = new Map<string, LockPackage>(Object.entries(all).map(([k, v]) => [k.toLowerCase(), v]));
  const seen = new Set<string>();
  const urls: string[] = [];
  const todo = packages.map((p) => p.toLowerCase());
  while (todo.length > 0) {
    const name = todo.pop() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    const pkg = byName.get(name) ?? byName.get(name.replace(/_/g, "-"));
    if (!pkg || typeof pkg.file_name !== "string") return null;
    urls.push(new URL(pkg.file_name, packageBaseUrl).href);
    if (Array.isArray(pkg.depends)) for (const d of pkg.depends) if (typeof d === "string") todo.push(d.toLowerCase());
  }
  return urls;
}

/** The page's view of its network and its stored packages. */
export interface NetworkState {
  /** False when the browser says it is offline, or a download of Python's files got no answer. */
  online: boolean;
  /** Why the page thinks it is offline (shown in the notice), or null. */
  reason: string | null;
  /** Packages (task-level names, lower case) whose files are all stored in this browser, for the current sources. */
  stored: ReadonlySet<string>;
}

/**
 * Why a task cannot run now for want of a network, or null when it can: the
 * page is offline and the task needs a package whose files were never stored
 * in this browser.
 */
export function offlineBlocker(task: Pick<Task, "meta">, state: NetworkState): string | null {
  if (state.online) return null;
  const missing = task.meta.packages.filter((p) => !state.stored.has(p.toLowerCase()));
  if (missing.length === 0) return null;
  return `Offline: this task needs ${missing.join(", ")}, which this browser has not stored. Run this task's tests once with a network, and it runs offline afterwards.`;
}
