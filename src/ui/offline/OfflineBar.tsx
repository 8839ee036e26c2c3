/**
 * The page's offline and update notices: registers the service worker (built
 * pages only), says when the page is ready to work offline, when it is
 * offline (and which tasks cannot run then), and offers a new deployed
 * version ("Reload to update"), never forcing it.
 */
import { useEffect, useState } from "react";
import type { Workbox } from "workbox-window";
import { Observable } from "../observable";
import { useObservable, useServices } from "../services";
import { classTasks } from "../tasks/TaskList";
import { offlineBlocker, useNetwork } from "./network";

/** What the service worker did, as the page shows it. */
export interface UpdateState {
  /**
   * "none": no service worker (the dev server); "insecure": the browser gives this page none (plain http from
   * another computer: service workers need https or localhost); "installing": the first install is downloading
   * the app; "failed": that download broke off (the next visit tries again); "ready": the page works offline.
   */
  offline: "none" | "insecure" | "installing" | "failed" | "ready";
  /** A new version is installed and waits for the page to accept it. */
  waiting: boolean;
  /** The first install just finished (shown once, dismissable). */
  justReady: boolean;
}

/** The service worker's state; set by {@link registerServiceWorker}. */
export const updateState = new Observable<UpdateState>({ offline: "none", waiting: false, justReady: false });

let wb: Workbox | null = null;
let registering = false;

/** How often an open page asks the host for a new version, in ms. */
const UPDATE_CHECK_MS = 60 * 60 * 1000;

/**
 * Register the service worker (once; only in a built page in a browser that
 * has service workers). A new version found later is announced in
 * {@link updateState}; {@link acceptUpdate} switches to it.
 */
export async function registerServiceWorker(): Promise<void> {
  if (wb || registering || !import.meta.env.PROD || typeof navigator === "undefined") return;
  if (!("serviceWorker" in navigator)) {
    // A browser that has them gives them to secure contexts alone: say why this page will not work offline.
    if (typeof window !== "undefined" && !window.isSecureContext) updateState.set({ ...updateState.get(), offline: "insecure" });
    return;
  }
  registering = true;
  // Fetched when first needed (once Python is ready), not with the page's first JavaScript.
  const { Workbox } = await import("workbox-window");
  wb = new Workbox(`${import.meta.env.BASE_URL}sw.js`, { scope: import.meta.env.BASE_URL });
  const set = (p: Partial<UpdateState>) => updateState.set({ ...updateState.get(), ...p });
  if (navigator.serviceWorker.controller) set({ offline: "ready" });
  else set({ offline: "installing" });
  wb.addEventListener("waiting", () => set({ waiting: true }));
  wb.addEventListener("activated", (e) => {
    if (!e.isUpdate) set({ offline: "ready", justReady: true });
  });
  // The first install's download broke off (the host stopped, the network gone): nothing is stored, and the
  // browser drops the registration; the next visit installs again. (An update's failure keeps the working version.)
  wb.addEventListener("redundant", (e) => {
    if (!e.isUpdate && updateState.get().offline === "installing") set({ offline: "failed" });
  });
  // After "Reload to update": the new version took over; load the page from it.
  wb.addEventListener("controlling", (e) => {
    if (e.isUpdate) location.reload();
  });
  void wb.register().catch(() => set({ offline: "none" }));
  const check = () => void wb?.update().catch(() => {});
  setInterval(check, UPDATE_CHECK_MS);
  window.addEventListener("online", check);
}

/** Switch to the waiting version: it takes over, and the page reloads from it. */
export function acceptUpdate(): void {
  wb?.messageSkipWaiting();
}

/**
 * The header's note on offline use: "Storing for offline use…" while the service worker downloads the app,
 * then "Works offline" (highlighted for a while when that just happened). A badge, not a floating notice: it
 * says something once and must not cover the page.
 */
export function OfflineBadge() {
  const up = useObservable(updateState);
  if (up.offline === "none") return null;
  if (up.offline === "insecure" || up.offline === "failed") {
    return (
      <span
        className="offline-status not-stored"
        role="status"
        data-testid={`offline-${up.offline}`}
        title={
          up.offline === "insecure"
            ? "This page is served over plain http from another computer, and browsers store pages for offline use only over https (or on localhost). Everything else works. Serve it over https to use it offline (docs/hosting.md)."
            : "The download of the playground for offline use broke off (the host or the network went away). Nothing is lost; it is tried again when the page is next opened with a network."
        }
      >
        {up.offline === "insecure" ? "Not stored for offline use (plain http)" : "Not stored for offline use (download broke off)"}
      </span>
    );
  }
  const ready = up.offline === "ready";
  return (
    <span
      className={`offline-status${ready ? " ready" : ""}${up.justReady ? " just" : ""}`}
      role="status"
      data-testid={ready ? "offline-ready" : "offline-installing"}
      title={
        ready
          ? "Stored for offline use: this playground opens and runs the standard-library tasks without a network."
          : "The playground is being stored in this browser for offline use."
      }
    >
      {ready ? (up.justReady ? "Stored for offline use" : "Works offline") : "Storing for offline use…"}
    </span>
  );
}

/** Notices about offline use and updates, floating over the page's bottom left corner. Mount once. */
export function OfflineBar() {
  const services = useServices();
  const net = useNetwork();
  const up = useObservable(updateState);
  // The service worker stores the whole build (tens of MB): it starts once Python is ready (or could not
  // start), so that on a first visit its downloads do not compete with what the page needs to start.
  const python = useObservable(services.python);
  const started = python.state !== "loading";
  useEffect(() => {
    if (started) void registerServiceWorker();
  }, [started]);
  // The badge's "just stored" highlight goes away by itself.
  useEffect(() => {
    if (!up.justReady) return;
    const t = setTimeout(() => updateState.set({ ...updateState.get(), justReady: false }), 15_000);
    return () => clearTimeout(t);
  }, [up.justReady]);
  // The notice can be hidden; it shows again when the network goes and comes back.
  const [hidden, setHidden] = useState(false);
  useEffect(() => {
    if (net.online) setHidden(false);
  }, [net.online]);
  // Counted among the tasks the list shows (a class's alone, when a class file is active).
  const classSettings = useObservable(services.teaching.classSettings);
  const blocked = net.online
    ? []
    : classTasks(services.catalog, classSettings?.tasks ?? null).filter(
        (e) => e.error === null && offlineBlocker({ meta: e.task ? e.task.meta : e.meta }, net) !== null,
      );
  return (
    <div className="offline-bar" data-testid="offline-bar" data-offline-ready={up.offline === "ready" ? "true" : "false"}>
      {up.waiting && (
        <div className="notice update" role="status" data-testid="update-offer">
          <span>A new version is available.</span>
          <button type="button" className="primary" onClick={acceptUpdate}>
            Reload to update
          </button>
        </div>
      )}
      {!net.online && !hidden && (
        <div className="notice warning" role="status" data-testid="offline-notice">
          <span>
            Offline ({net.reason}): the playground and the tasks stored in this browser keep working
            {blocked.length > 0
              ? `; ${blocked.length} task${blocked.length === 1 ? "" : "s"} need${blocked.length === 1 ? "s" : ""} a package never loaded here and cannot run until the network is back (marked in the list).`
              : "."}
          </span>
          <button type="button" className="link" onClick={() => setHidden(true)} aria-label="Hide the offline notice">
            Hide
          </button>
        </div>
      )}
    </div>
  );
}
