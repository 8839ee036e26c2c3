/**
 * Whether the page is offline, and which packages it has stored: the page
 * says when it has no network (`navigator.onLine`, and fetches of Python's
 * files that got no answer) and marks the tasks whose packages were never
 * loaded in this browser (the service worker keeps package files once
 * loaded: src/sw.ts), instead of letting Run fail.
 */
import { useEffect } from "react";
import { type BoxSources, watchBoxFetches } from "../../python/box-files";
import { browserBoxSources } from "../../python/browser";
import { Observable } from "../observable";
import { useObservable, useServices } from "../services";
import { isPackageFile, type NetworkState, PACKAGE_CACHE, packageFileURLs } from "./package-files";

export { type NetworkState, offlineBlocker } from "./package-files";

/** Watches the network and the package cache; one per page ({@link networkWatch}). */
export class NetworkWatch {
  readonly state = new Observable<NetworkState>({
    online: typeof navigator === "undefined" ? true : navigator.onLine,
    reason: typeof navigator !== "undefined" && !navigator.onLine ? "the browser has no network" : null,
    stored: new Set(),
  });
  private started = false;
  private sources: BoxSources | null = null;
  private names: string[] = [];
  private locks = new Map<string, Promise<unknown>>();
  private checking = 0;

  /** Listen to the browser's online/offline events and to the box's downloads (once). */
  start(): void {
    if (this.started || typeof window === "undefined") return;
    this.started = true;
    window.addEventListener("offline", () => this.setOnline(false, "the browser has no network"));
    window.addEventListener("online", () => this.setOnline(true, null));
    watchBoxFetches((e) => {
      if (e.network) this.setOnline(false, `a download got no answer (${new URL(e.url).host})`);
      else if (navigator.onLine && !this.state.get().online) this.setOnline(true, null);
      if (e.ok && isPackageFile(new URL(e.url))) void this.refresh();
    });
  }

  private setOnline(online: boolean, reason: string | null): void {
    const s = this.state.get();
    if (s.online === online && s.reason === reason) return;
    this.state.set({ ...s, online, reason });
    void this.refresh();
  }

  /** Check which of `names` (task packages) are stored for these sources. */
  watch(sources: BoxSources, names: string[]): void {
    this.sources = sources;
    this.names = [...new Set(names.map((n) => n.toLowerCase()))].sort();
    void this.refresh();
  }

  /** The lock file of `indexURL` (read once; the service worker serves it offline). */
  private lock(indexURL: string): Promise<unknown> {
    let p = this.locks.get(indexURL);
    if (!p) {
      p = fetch(`${indexURL}pyodide-lock.json`).then((r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        return r.json() as Promise<unknown>;
      });
      this.locks.set(indexURL, p);
      p.catch(() => this.locks.delete(indexURL));
    }
    return p;
  }

  /** Look the packages' files up in the package cache again. */
  async refresh(): Promise<void> {
    const src = this.sources;
    if (!src || this.names.length === 0 || typeof caches === "undefined") return;
    const n = ++this.checking;
    const stored = new Set<string>();
    try {
      const lock = await this.lock(src.indexURL);
      const cache = await caches.open(PACKAGE_CACHE);
      for (const name of this.names) {
        const urls = packageFileURLs(lock, [name], src.packageBaseUrl);
        if (!urls) continue;
        const hits = await Promise.all(urls.map((u) => cache.match(u)));
        if (hits.every((h) => h !== undefined)) stored.add(name);
      }
    } catch {
      // No lock file or no Cache Storage: nothing is known to be stored.
    }
    if (n === this.checking) this.state.set({ ...this.state.get(), stored });
  }
}

/** The page's one {@link NetworkWatch}. */
export const networkWatch = new NetworkWatch();

/**
 * The page's network state, kept up to date for the catalog's packages and
 * the current package source (from the settings).
 */
export function useNetwork(): NetworkState {
  const services = useServices();
  const settings = useObservable(services.settings);
  const state = useObservable(networkWatch.state);
  useEffect(() => {
    networkWatch.start();
    let sources: BoxSources;
    try {
      sources = browserBoxSources(settings);
    } catch {
      return;
    }
    networkWatch.watch(
      sources,
      services.catalog.flatMap((e) => e.task?.meta.packages ?? []),
    );
  }, [services, settings]);
  return state;
}
