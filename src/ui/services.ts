/**
 * The one object components talk to: the task catalog, the Python runtime,
 * and the repositories (drafts, settings, last runs). Components never touch
 * IndexedDB or workers directly; they call these methods and subscribe to the
 * observables. Storage failures become notices; in-memory text is never lost.
 */
import { createContext, useContext, useSyncExternalStore } from "react";
import type { RunResult } from "../core/results";
import { type Task, taskContentHash } from "../core/task";
import type { PythonRuntime, RunOptions } from "../python/runtime";
import { taskRunRequest } from "../python/runtime";
import type { DraftRecord, RunRecord, SettingsRecord } from "../store/records";
import { DEFAULT_SETTINGS } from "../store/records";
import { openRepositories, type Repositories } from "../store/repositories";
import { Observable } from "./observable";
import type { CatalogEntry } from "./tasks/catalog";

/** State of the Python interpreter as shown in the header. */
export type PythonStatus = { state: "loading" } | { state: "ready"; version: string } | { state: "error"; message: string };

/** A message for the user (storage problems, unreadable records). */
export interface Notice {
  id: number;
  kind: "error" | "warning";
  text: string;
}

/** Save state of the current draft. */
export type DraftState = { state: "saved"; at: number } | { state: "pending" } | { state: "error"; message: string } | { state: "none" };

/** What opening a task yields for the editor. */
export interface OpenedDraft {
  /** Text to put in the editor. */
  code: string;
  /** The stored draft, or null when the task starts from its starting text. */
  draft: DraftRecord | null;
  /** True when the draft was written against a different version of the task files. */
  stale: boolean;
}

/** Builds a Python runtime from settings (the browser one in the page; a fake in tests). */
export type RuntimeFactory = (settings: SettingsRecord) => PythonRuntime;

/** Delay between the last keystroke and the draft save, in ms. */
export const DRAFT_DEBOUNCE_MS = 300;

const hashes = new WeakMap<Task, string>();
/** taskContentHash, computed once per loaded task. */
function hashOf(task: Task): string {
  let h = hashes.get(task);
  if (h === undefined) {
    h = taskContentHash(task);
    hashes.set(task, h);
  }
  return h;
}

/** Services of the page. Create one with {@link createServices}. */
export class PlaygroundServices {
  readonly python = new Observable<PythonStatus>({ state: "loading" });
  readonly notices = new Observable<Notice[]>([]);
  readonly draftState = new Observable<DraftState>({ state: "none" });
  readonly settings = new Observable<SettingsRecord>({ ...DEFAULT_SETTINGS });
  private runtime: PythonRuntime | null = null;
  private nextNotice = 1;
  private pending = new Map<string, { code: string; hash: string; timer: ReturnType<typeof setTimeout> | null }>();

  constructor(
    /** Every task folder, loaded or with its error. */
    readonly catalog: CatalogEntry[],
    private readonly repos: Promise<Repositories>,
    private readonly makeRuntime: RuntimeFactory,
  ) {
    void repos.then((r) => {
      if (r.fallback) this.notify("warning", r.fallback);
    });
  }

  /** Show a notice to the user. */
  notify(kind: Notice["kind"], text: string): void {
    this.notices.set([...this.notices.get(), { id: this.nextNotice++, kind, text }]);
  }

  /** Dismiss a notice by id. */
  dismiss(id: number): void {
    this.notices.set(this.notices.get().filter((n) => n.id !== id));
  }

  /** The loaded task with this id, or null. */
  task(id: string): Task | null {
    return this.catalog.find((e) => e.id === id)?.task ?? null;
  }

  /** Load settings, then start Python with them. Call once when the page opens. */
  async start(): Promise<void> {
    const repos = await this.repos;
    try {
      const got = await repos.settings.get();
      if (got.value) this.settings.set(got.value);
      if (got.problem) this.notify("warning", got.problem);
    } catch (e) {
      this.notify("error", `${(e as Error).message} Using default settings.`);
    }
    this.startPython();
  }

  /** (Re)start the Python runtime with the current settings. */
  startPython(): void {
    const old = this.runtime;
    if (old) void old.dispose();
    this.python.set({ state: "loading" });
    let rt: PythonRuntime;
    try {
      rt = this.makeRuntime(this.settings.get());
    } catch (e) {
      this.python.set({ state: "error", message: (e as Error).message });
      return;
    }
    this.runtime = rt;
    rt.ready().then(
      () => {
        if (this.runtime === rt) this.python.set({ state: "ready", version: rt.version });
      },
      (e: Error) => {
        if (this.runtime === rt) this.python.set({ state: "error", message: e.message });
      },
    );
  }

  /** Save settings and restart Python when the Pyodide sources changed. Errors become notices. */
  async saveSettings(next: Omit<SettingsRecord, "version">): Promise<void> {
    const before = this.settings.get();
    const rec: SettingsRecord = { version: 1, indexURL: next.indexURL.trim(), packageBaseUrl: next.packageBaseUrl.trim() };
    this.settings.set(rec);
    try {
      await (await this.repos).settings.save(rec);
    } catch (e) {
      this.notify("error", `${(e as Error).message} The settings apply to this page until reload.`);
    }
    if (before.indexURL !== rec.indexURL || before.packageBaseUrl !== rec.packageBaseUrl || this.python.get().state === "error")
      this.startPython();
  }

  /** The text to open a task with: its draft when there is one, else its starting text. */
  async openDraft(task: Task): Promise<OpenedDraft> {
    const mem = this.pending.get(task.id);
    if (mem) return { code: mem.code, draft: null, stale: false };
    try {
      const got = await (await this.repos).drafts.get(task.id);
      if (got.problem) this.notify("warning", got.problem);
      if (got.value) {
        const stale = got.value.taskHash !== null && got.value.taskHash !== hashOf(task);
        this.draftState.set({ state: "saved", at: got.value.updatedAt });
        return { code: got.value.code, draft: got.value, stale };
      }
    } catch (e) {
      this.notify("error", `${(e as Error).message} The task opens with its starting text.`);
    }
    this.draftState.set({ state: "none" });
    return { code: task.starter, draft: null, stale: false };
  }

  /** Record a change of the target file; saved after {@link DRAFT_DEBOUNCE_MS} of quiet. */
  editDraft(task: Task, code: string): void {
    const prev = this.pending.get(task.id);
    if (prev?.timer) clearTimeout(prev.timer);
    const entry = { code, hash: hashOf(task), timer: null as ReturnType<typeof setTimeout> | null };
    entry.timer = setTimeout(() => void this.flushDraft(task.id), DRAFT_DEBOUNCE_MS);
    this.pending.set(task.id, entry);
    this.draftState.set({ state: "pending" });
  }

  /** Save pending drafts now (page hide, task switch). Resolves when written or failed. */
  async flushDrafts(): Promise<void> {
    await Promise.all([...this.pending.keys()].map((id) => this.flushDraft(id)));
  }

  private async flushDraft(taskId: string): Promise<void> {
    const entry = this.pending.get(taskId);
    if (!entry) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    try {
      const rec = await (await this.repos).drafts.save(taskId, entry.code, entry.hash);
      // Only forget the in-memory copy when nothing newer arrived meanwhile.
      if (this.pending.get(taskId) === entry) {
        this.pending.delete(taskId);
        this.draftState.set({ state: "saved", at: rec.updatedAt });
      }
    } catch (e) {
      // Keep the text in memory; the next edit or flush tries again.
      this.draftState.set({ state: "error", message: `${(e as Error).message} Your text is kept in the editor.` });
    }
  }

  /** Forget the draft of a task (Reset to start). */
  async resetDraft(task: Task): Promise<void> {
    const entry = this.pending.get(task.id);
    if (entry?.timer) clearTimeout(entry.timer);
    this.pending.delete(task.id);
    try {
      await (await this.repos).drafts.remove(task.id);
      this.draftState.set({ state: "none" });
    } catch (e) {
      this.notify("error", (e as Error).message);
    }
  }

  /** The last stored run of a task, or null. */
  async lastRun(taskId: string): Promise<RunRecord | null> {
    try {
      const got = await (await this.repos).runs.get(taskId);
      if (got.problem) this.notify("warning", got.problem);
      return got.value;
    } catch (e) {
      this.notify("error", (e as Error).message);
      return null;
    }
  }

  /**
   * Run the task's unit tests on `code` (the target file). Stop with
   * `opts.signal`. Stores the result as the task's last run.
   * @throws Error when Python is not available (failed to start, disposed).
   */
  async run(task: Task, code: string, opts: RunOptions = {}): Promise<RunResult> {
    if (!this.runtime || this.python.get().state === "error") this.startPython();
    const rt = this.runtime as PythonRuntime;
    const result = await rt.run(taskRunRequest(task, code), opts);
    if (this.runtime === rt && this.python.get().state !== "ready") this.python.set({ state: "ready", version: rt.version });
    try {
      await (await this.repos).runs.save(task.id, code, result);
    } catch (e) {
      this.notify("warning", `${(e as Error).message} (the run result is shown but not stored)`);
    }
    return result;
  }

  /** Stop Python and save what is pending. */
  async dispose(): Promise<void> {
    await this.flushDrafts();
    await this.runtime?.dispose();
    this.runtime = null;
  }
}

/** Create the page's services (opens IndexedDB in the background). */
export function createServices(catalog: CatalogEntry[], makeRuntime: RuntimeFactory, dbName?: string): PlaygroundServices {
  return new PlaygroundServices(catalog, openRepositories(dbName), makeRuntime);
}

/** React context carrying the services. */
export const ServicesContext = createContext<PlaygroundServices | null>(null);

/** The services of the page. @throws Error outside a ServicesContext provider. */
export function useServices(): PlaygroundServices {
  const s = useContext(ServicesContext);
  if (!s) throw new Error("useServices must be used inside <ServicesContext.Provider>");
  return s;
}

/** Subscribe a component to an observable of the services. */
export function useObservable<T>(o: Observable<T>): T {
  return useSyncExternalStore(o.subscribe, o.get, o.get);
}
