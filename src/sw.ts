/**
 * The page's service worker (built by vite-plugin-pwa's injectManifest from
 * this file; docs/hosting.md). After one visit with a network it serves:
 * - the app and Pyodide's files from Workbox's precache (every file of the
 *   build; a new version is installed beside the old one and used only when
 *   the page accepts it, so a half-downloaded update never replaces a working
 *   copy);
 * - package files (wheels, and the zip archives some packages ship) from a
 *   cache filled the first time a task loads them, cache first, from whatever
 *   package source the settings name.
 * Navigations get the precached index.html with the headers it was stored with
 * (COOP/COEP when the host sends them, so an offline reload is still
 * cross-origin isolated).
 */
/// <reference lib="webworker" />
import { CacheableResponsePlugin } from "workbox-cacheable-response";
import { clientsClaim } from "workbox-core";
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from "workbox-precaching";
import { NavigationRoute, registerRoute } from "workbox-routing";
import { CacheFirst } from "workbox-strategies";
import { isPackageFile, PACKAGE_CACHE } from "./ui/offline/package-files";

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] };

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
registerRoute(new NavigationRoute(createHandlerBoundToURL("index.html")));
registerRoute(
  ({ url, request }) => request.method === "GET" && isPackageFile(url),
  new CacheFirst({ cacheName: PACKAGE_CACHE, plugins: [new CacheableResponsePlugin({ statuses: [200] })] }),
);

// The first install takes the open page at once (it has nothing older to keep); a later version waits
// until the page asks for it ("Reload to update").
clientsClaim();
self.addEventListener("message", (event) => {
  if ((event.data as { type?: unknown } | null)?.type === "SKIP_WAITING") void self.skipWaiting();
});
