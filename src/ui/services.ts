/**
 * The one object components talk to: the task catalog, the Python runtime,
 * the models (coder and researcher), the researchers, agent runs, and the
 * repositories (drafts, settings, last runs, trajectories). Components never touch
 * IndexedDB or workers directly; they call these methods and subscribe to the
 * observables. Storage failures become notices; in-memory text is never lost.
 */
import { createContext, useContext, useSyncExternalStore } from "react";
import { version as appVersion } from "../../package.json";
import type { EpisodeConfig, EpisodeEnv } from "../core/episode";
import type { FeedbackItem, FeedbackRecord, Researcher } from "../core/feedback";
import type { TokenCounts } from "../core/model";
import type { MeteredChatModel, WebLLMProgress } from "../core/providers";
import type { RunResult } from "../core/results";
import type { Sampling, SeatSampling } from "../core/sampling";
import { type Task, taskContentHash } from "../core/task";
import type { TaskEpisodesOutcome } from "../core/task-episodes";
import type { Trajectory } from "../core/trajectory";
import type { PythonRuntime, RunOptions } from "../python/runtime";
import { taskRunRequest } from "../python/runtime";
import { scratchRunRequest } from "../python/scratch";
import { browserStorage, DraftJournal, TaskNotes } from "../store/journal";
import type { DraftRecord, ModelConfig, ModelSettingsRecord, RunRecord, SettingsRecord } from "../store/records";
import { DEFAULT_MODEL_SETTINGS, DEFAULT_SETTINGS } from "../store/records";
import { openRepositories, type Repositories } from "../store/repositories";
import type { TrajectoryRecord } from "../store/trajectory-records";
import type { AgentRunEvent, AgentRunOptions } from "./agent/controller";
import type { ModelRole } from "./models";
import { Observable } from "./observable";
import type { CatalogEntry } from "./tasks/catalog";
import { pageRunBlocker } from "./tasks/page-support";
import { TaskPacks } from "./tasks/task-packs";
import { Teaching } from "./teaching";

/** State of the Python interpreter as shown in the header. */
/** `fromSnapshot`: Python started from the interpreter saved by an earlier visit. */
export type PythonStatus =
  | { state: "loading" }
  | { state: "ready"; version: string; fromSnapshot: boolean }
  | { state: "error"; message: string };

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

/** Stored trajectories as the results page shows them. */
export interface TrajectoryState {
  loaded: boolean;
  records: TrajectoryRecord[];
  /** Records that could not be read (set aside), one message each. */
  problems: string[];
}

/** What importing trajectory files did. */
export interface ImportReport {
  imported: string[];
  /** One message per file (or entry) that was not imported, naming the file and the field. */
  errors: string[];
  /** Files left out on purpose because they are not episodes (a run folder's run.json, agent memories, unfinished turns, turn 0, files that are not JSON). */
  skipped: string[];
  /** Episodes (file, or file[index]) not imported because the same episode (model, setting, level, task, ...) is already stored; the stored one is kept. */
  alreadyStored: string[];
}

/** WebLLM weight download progress of a seat, or null when nothing is loading. */
export interface ModelProgress {
  role: ModelRole;
  /** 0..1 */
  progress: number;
  text: string;
}

/** The last run of a task in this page: the code that was run and its result. */
export interface LastRun {
  code: string;
  result: RunResult;
}

/** Builds a Python runtime from settings (the browser one in the page; a fake in tests). */
export type RuntimeFactory = (settings: SettingsRecord) => PythonRuntime;

/** The lazily loaded part of the services (providers, researchers, agent): fetched on first use. */
const later = () => import("./services-lazy");

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
  /** Coder and researcher model settings. */
  readonly models = new Observable<ModelSettingsRecord>(structuredClone(DEFAULT_MODEL_SETTINGS));
  /** WebLLM download progress. */
  readonly modelProgress = new Observable<ModelProgress | null>(null);
  /** Stored trajectories of agent runs (load with refreshTrajectories). */
  readonly trajectories = new Observable<TrajectoryState>({ loaded: false, records: [], problems: [] });
  /** The task catalog; an entry changes when its task is loaded ({@link loadTask}). */
  readonly catalogEntries: Observable<CatalogEntry[]>;
  /** A student's turns per task and the active class file. */
  readonly teaching: Teaching;
  /** Tasks imported from task packs (stored in this browser, in the task list). */
  readonly taskPacks: TaskPacks;
  private lastRuns = new Map<string, LastRun>();
  private builtModels = new Map<string, MeteredChatModel>();
  private runtime: PythonRuntime | null = null;
  private nextNotice = 1;
  private pending = new Map<string, { code: string; hash: string; timer: ReturnType<typeof setTimeout> | null }>();

  constructor(
    /** Every task folder, loaded, with its error, or to be loaded when opened. */
    catalog: CatalogEntry[],
    private readonly repos: Promise<Repositories>,
    private readonly makeRuntime: RuntimeFactory,
    /** Synchronous safety net for text typed just before a reload or crash. */
    private readonly journal: DraftJournal = new DraftJournal(null),
    /** Feedback items a person is writing in the Feedback tab, per task (kept across reloads). */
    readonly humanFeedback: TaskNotes<FeedbackItem[]> = new TaskNotes(null, "human-feedback"),
  ) {
    this.catalogEntries = new Observable<CatalogEntry[]>(catalog);
    this.teaching = new Teaching(
      repos,
      (kind, text) => this.notify(kind, text),
      () => this.catalog.map((e) => e.id),
      () => this.taskPacks.load(),
    );
    const builtin = catalog.map((e) => e.id);
    this.taskPacks = new TaskPacks({
      repos,
      python: () => this.pythonRuntime(),
      builtinIds: () => builtin,
      setImported: (entries, removed) => {
        const gone = new Set([...removed, ...entries.map((e) => e.id)]);
        const next = [
          ...this.catalog.filter((e) => !gone.has(e.id) || builtin.includes(e.id)),
          ...entries.filter((e) => !builtin.includes(e.id)),
        ];
        this.catalogEntries.set(next.sort((a, b) => a.id.localeCompare(b.id)));
      },
      notify: (kind, text) => this.notify(kind, text),
    });
    void repos.then((r) => {
      if (r.fallback) this.notify("warning", r.fallback);
    });
  }

  /** The page's Python runtime, started when it is not (for work that runs many tests, such as validating an imported task). */
  pythonRuntime(): PythonRuntime {
    if (!this.runtime || this.python.get().state === "error") this.startPython();
    return this.runtime as PythonRuntime;
  }

  /** Show a notice to the user. */
  notify(kind: Notice["kind"], text: string): void {
    this.notices.set([...this.notices.get(), { id: this.nextNotice++, kind, text }]);
  }

  /** Dismiss a notice by id. */
  dismiss(id: number): void {
    this.notices.set(this.notices.get().filter((n) => n.id !== id));
  }

  /** Every task folder as it is now (see {@link catalogEntries}). */
  get catalog(): CatalogEntry[] {
    return this.catalogEntries.get();
  }

  /** The loaded task with this id, or null (not loaded yet, broken, or no such task). */
  task(id: string): Task | null {
    return this.catalog.find((e) => e.id === id)?.task ?? null;
  }

  /**
   * Load a task's files when they are not loaded yet (the page fetches them
   * when the task is first opened); the catalog entry then holds the task, or
   * its error. Resolves with the task, or null when it is broken or unknown.
   */
  async loadTask(id: string): Promise<Task | null> {
    const entry = this.catalog.find((e) => e.id === id);
    if (!entry) return null;
    if (entry.task || entry.error) return entry.task;
    const loaded = await entry.load();
    // Several callers may wait for the same entry: replace it once.
    if (this.catalog.includes(entry)) this.catalogEntries.set(this.catalog.map((e) => (e === entry ? loaded : e)));
    return loaded.task;
  }

  /** Load settings, then start Python with them. Call once when the page opens. */
  async start(): Promise<void> {
    const repos = await this.repos;
    const teaching = this.teaching.whenLoaded();
    try {
      const got = await repos.settings.get();
      if (got.value) this.settings.set(got.value);
      if (got.problem) this.notify("warning", got.problem);
    } catch (e) {
      this.notify("error", `${(e as Error).message} Using default settings.`);
    }
    try {
      const got = await repos.models.get();
      if (got.value) this.models.set(got.value);
      if (got.problem) this.notify("warning", got.problem);
    } catch (e) {
      this.notify("error", `${(e as Error).message} Using default model settings.`);
    }
    this.startPython();
    // Imported tasks join the task list (read from this browser).
    void this.taskPacks.load();
    await teaching;
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
        if (this.runtime === rt) this.python.set({ state: "ready", version: rt.version, fromSnapshot: rt.startedFromSnapshot ?? false });
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
    const unsaved = this.journal.read(task.id);
    try {
      const got = await (await this.repos).drafts.get(task.id);
      if (got.problem) this.notify("warning", got.problem);
      if (unsaved && (!got.value || unsaved.at > got.value.updatedAt)) {
        // Typed just before the page went away: newer than the stored draft. Save it now.
        this.editDraft(task, unsaved.code);
        return { code: unsaved.code, draft: got.value, stale: unsaved.taskHash !== "" && unsaved.taskHash !== hashOf(task) };
      }
      if (got.value) {
        const stale = got.value.taskHash !== null && got.value.taskHash !== hashOf(task);
        this.draftState.set({ state: "saved", at: got.value.updatedAt });
        return { code: got.value.code, draft: got.value, stale };
      }
    } catch (e) {
      if (unsaved) {
        this.editDraft(task, unsaved.code);
        return { code: unsaved.code, draft: null, stale: false };
      }
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
    this.journal.write(task.id, { code, taskHash: entry.hash, at: Date.now() });
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
        this.journal.clear(taskId, rec.updatedAt);
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
    this.journal.clear(task.id);
    this.lastRuns.delete(task.id);
    try {
      const repos = await this.repos;
      await repos.drafts.remove(task.id);
      // The stored result belongs to the text that was reset; it no longer describes the editor.
      await repos.runs.remove(task.id);
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
   * `opts.signal`. Stores the result as the task's last run, and as a new
   * turn of the student's progress on the task.
   * @throws Error when Python is not available (failed to start, disposed),
   * or when the page cannot run the task (page-support.ts: a shared task).
   */
  async run(task: Task, code: string, opts: RunOptions = {}): Promise<RunResult> {
    const result = await this.runOnly(task, code, opts);
    this.lastRuns.set(task.id, { code, result });
    // A run in which no test could even start (a package that did not load, Stop before Python was ready) is no
    // turn, nor is a run the student stopped: its result is shown, but it is no verdict on the code.
    const stopped = opts.signal?.aborted === true;
    if ((result.counts.total > 0 || result.collectionError) && result.incident?.kind !== "packages" && !stopped) {
      // A run whose tests did not load counts as 0 of the task's recorded tests, as `recode test` counts it (the
      // reading of expected.json loaded with it, not with the page).
      let turn = result;
      if (result.collectionError && result.tests.length === 0) {
        const { recordedTests, withUnloadedTests } = await import("../core/unloaded-tests");
        turn = withUnloadedTests(result, task, recordedTests(task));
      }
      this.teaching.addRun(task.id, turn, code);
    }
    // Stored in the background: the result is shown at once.
    void this.repos
      .then((r) => r.runs.save(task.id, code, result))
      .catch((e: Error) => this.notify("warning", `${e.message} (the run result is shown but not stored)`));
    return result;
  }

  /**
   * Run the task's unit tests on `code` and nothing else: the result is neither stored nor a turn (a
   * teacher checking a student's text).
   * @throws Error when Python is not available, or when the page cannot run the task
   */
  async runOnly(task: Task, code: string, opts: RunOptions = {}): Promise<RunResult> {
    const blocked = pageRunBlocker(task);
    if (blocked) throw new Error(blocked);
    if (!this.runtime || this.python.get().state === "error") this.startPython();
    const rt = this.runtime as PythonRuntime;
    const result = await rt.run(taskRunRequest(task, code), opts);
    if (this.runtime === rt && this.python.get().state !== "ready") {
      this.python.set({ state: "ready", version: rt.version, fromSnapshot: rt.startedFromSnapshot ?? false });
    }
    return result;
  }

  /**
   * Run a snippet against `code` (the target file) and the task's repository, in the box the tests run in
   * (the scratch console): neither stored nor a turn, nothing checked.
   * @throws Error when Python is not available, or when the page cannot run the task
   */
  async runScratch(task: Task, code: string, snippet: string, opts: RunOptions = {}): Promise<RunResult> {
    const blocked = pageRunBlocker(task);
    if (blocked) throw new Error(blocked);
    return this.pythonRuntime().run(scratchRunRequest(task, code, snippet), opts);
  }

  /** The last run of a task (in this page, else the stored one), with the code that was run; null when none. */
  async lastRunWithCode(taskId: string): Promise<LastRun | null> {
    const mem = this.lastRuns.get(taskId);
    if (mem) return mem;
    const rec = await this.lastRun(taskId);
    return rec ? { code: rec.code, result: rec.result } : null;
  }

  // ---- models ------------------------------------------------------------

  /** Save the coder and researcher model settings (API keys stay in this browser). Errors become notices. */
  async saveModelSettings(next: Omit<ModelSettingsRecord, "version">): Promise<void> {
    this.models.set({ version: 1, coder: { ...next.coder }, researcher: { ...next.researcher } });
    this.builtModels.clear();
    try {
      const rec = await (await this.repos).models.save(next);
      this.models.set(rec);
    } catch (e) {
      this.notify("error", `${(e as Error).message} The model settings apply to this page until reload.`);
    }
  }

  /**
   * The chat model of a seat, built from the current settings (WebLLM models
   * are kept, so their weights load once per page).
   * @throws ModelConfigError / Error saying what to fix in the settings.
   */
  async model(role: ModelRole, config?: ModelConfig): Promise<{ spec: string; model: MeteredChatModel }> {
    const { buildModel, specOf } = await later();
    const c = config ?? this.models.get()[role];
    const spec = specOf(role, c);
    const cacheKey = `${role}|${JSON.stringify(c)}`;
    const cached = this.builtModels.get(cacheKey);
    if (cached && c.kind === "webllm") return { spec, model: cached };
    const built = buildModel(role, c, (p: WebLLMProgress) => {
      this.modelProgress.set(p.progress >= 1 ? null : { role, progress: p.progress, text: p.text });
    });
    if (c.kind === "webllm") this.builtModels.set(cacheKey, built.model);
    return built;
  }

  /**
   * Probe a seat's endpoint (checkModelSpec); a WebLLM seat loads its model
   * (download with progress). Resolves with a line saying what was found.
   * @throws Error with the fix-it message (unreachable server, unknown model, missing key, no WebGPU).
   */
  async testConnection(role: ModelRole, config?: ModelConfig): Promise<string> {
    const { checkModelSpec, describeCheck, optionsOf, ROLE_NAMES, specOf } = await later();
    if (config && JSON.stringify(config) !== JSON.stringify(this.models.get()[role])) {
      // Test what the form holds without saving it.
      const spec = specOf(role, config);
      const opts = optionsOf(role, config);
      if (config.kind !== "webllm") {
        try {
          return describeCheck(spec, await checkModelSpec(spec, opts));
        } catch (e) {
          throw new Error(`${ROLE_NAMES[role]}: ${(e as Error).message}`);
        }
      }
    }
    const c = config ?? this.models.get()[role];
    const spec = specOf(role, c);
    const opts = optionsOf(role, c);
    if (c.kind === "webllm") {
      const m = (await this.model(role, c)).model as MeteredChatModel & { load?: () => Promise<void> };
      try {
        await m.load?.();
      } catch (e) {
        this.modelProgress.set(null);
        throw new Error(`${ROLE_NAMES[role]}: ${(e as Error).message}`);
      }
      return `${spec}: model loaded`;
    }
    try {
      return describeCheck(spec, await checkModelSpec(spec, opts));
    } catch (e) {
      throw new Error(`${ROLE_NAMES[role]}: ${(e as Error).message}`);
    }
  }

  /** A researcher: `rules` (offline) or `llm` (the researcher model of the settings). @throws Error from the settings. */
  async researcher(kind: "rules" | "llm", sampling?: Sampling): Promise<{ researcher: Researcher; usage?: () => TokenCounts }> {
    const { createLlmResearcher, createRulesResearcher, withSampling } = await later();
    if (kind === "rules") return { researcher: createRulesResearcher() };
    const { model } = await this.model("researcher");
    return {
      researcher: createLlmResearcher(sampling ? withSampling(model, sampling) : model),
      usage: () => {
        const t = model.totals();
        return { prompt: t.promptTokens, completion: t.completionTokens, unreported: t.unreported };
      },
    };
  }

  /**
   * The researcher reviews a failing run of a task: the raw feedback record,
   * rendered at any level later (RECODE-H "replay").
   * @throws Error (ResearcherError, ModelError, settings) with a clear message.
   */
  async review(task: Task, code: string, run: RunResult, kind: "rules" | "llm", turn = 0): Promise<FeedbackRecord> {
    const { researcher } = await this.researcher(kind);
    return researcher.review({ task, code, run, turn });
  }

  // ---- agent runs ----------------------------------------------------------

  /**
   * Run the RECODE-H protocol on a task with the coder model of the settings
   * (see runAgentProtocol): turn 0 once, then each chosen level; every turn is
   * saved; Stop with `signal`. Uses the page's Python runtime.
   */
  async runAgent(
    task: Task,
    options: AgentRunOptions,
    onEvent: (e: AgentRunEvent) => void,
    signal: AbortSignal,
  ): Promise<TaskEpisodesOutcome> {
    const blocked = pageRunBlocker(task);
    if (blocked) return { trajectories: [], cancelled: false, error: blocked, storageFailed: false };
    let coder: { spec: string; model: MeteredChatModel };
    // The seat the coder is made from (its script's text, for a scripted coder).
    const coderSeat = this.models.get().coder;
    const { createAgent, profileSeatSampling, repositoryEpisodeStore, runTaskEpisodes, samplingOf, samplingText, specOf, withSampling } =
      await later();
    let researcher: Awaited<ReturnType<PlaygroundServices["researcher"]>>;
    let sampling: SeatSampling | undefined;
    try {
      coder =
        options.coder === "demo"
          ? await this.model("coder", await (await import("./agent/demo")).demoCoder(task.id))
          : await this.model("coder");
      const seats = this.models.get();
      const s = {
        coder: samplingOf("coder", seats.coder),
        researcher: options.researcher === "llm" ? samplingOf("researcher", seats.researcher) : {},
      };
      // The reference profile leaves OpenAI models at their provider's default temperature.
      const researcherSpec = options.researcher === "llm" ? specOf("researcher", seats.researcher) : "";
      const r = profileSeatSampling(options.protocol, coder.spec, researcherSpec, s);
      researcher = await this.researcher(options.researcher, r.researcher);
      if (samplingText(r.coder) || samplingText(r.researcher)) sampling = r;
    } catch (e) {
      return { trajectories: [], cancelled: false, error: (e as Error).message, storageFailed: false };
    }
    if (!this.runtime || this.python.get().state === "error") this.startPython();
    const rt = this.runtime as PythonRuntime;
    // Python's start-up is not the agent's time: the episodes start once it is ready.
    try {
      await rt.ready();
    } catch (e) {
      return { trajectories: [], cancelled: false, error: `Python could not start: ${(e as Error).message}`, storageFailed: false };
    }
    const repos = await this.repos;
    // A scripted coder is named by its script's file name: another text of that name must not resume its episodes.
    if (options.coder !== "demo" && coderSeat.kind === "scripted") {
      try {
        const refused = await repos.scripts.claim(coder.spec, coderSeat.scriptText);
        if (refused) return { trajectories: [], cancelled: false, error: refused, storageFailed: false };
      } catch (e) {
        return { trajectories: [], cancelled: false, error: (e as Error).message, storageFailed: true };
      }
    }
    let calls = 0;
    const countCalls = <M extends MeteredChatModel>(m: M): M =>
      ({
        ...m,
        id: m.id,
        totals: () => m.totals(),
        chat: async (req: Parameters<M["chat"]>[0]) => {
          const r = await m.chat(req);
          calls += 1;
          onEvent({ type: "model-call", calls });
          return r;
        },
      }) as M;
    try {
      const config: EpisodeConfig = {
        model: coder.spec,
        researcher: researcher.researcher.id,
        setting: options.setting,
        maxTurns: options.maxTurns,
        maxSteps: options.maxSteps,
        ...(sampling ? { sampling } : {}),
        protocol: options.protocol,
      };
      const model = countCalls(sampling ? withSampling(coder.model, sampling.coder) : coder.model);
      const env: EpisodeEnv = {
        task,
        runtime: { run: (req, opts) => rt.run(req, opts), version: rt.version },
        researcher: researcher.researcher,
        researcherUsage: researcher.usage,
        createAgent: () => createAgent(options.setting, model, { maxSteps: options.maxSteps, profile: options.protocol }),
        versions: { app: appVersion, gitCommit: null },
        request: (t, code) => taskRunRequest(t, code),
        signal,
      };
      return await runTaskEpisodes(env, repositoryEpisodeStore(repos.trajectories), config, options.levels, (e) => {
        onEvent(e);
        if (e.type === "saved") void this.refreshTrajectories();
      });
    } finally {
      this.modelProgress.set(null);
      void this.refreshTrajectories();
    }
  }

  // ---- stored results ------------------------------------------------------

  /** Reload the stored trajectories into {@link trajectories}. */
  async refreshTrajectories(): Promise<void> {
    try {
      const got = await (await this.repos).trajectories.list();
      for (const p of got.problems) this.notify("warning", p);
      this.trajectories.set({ loaded: true, records: got.records, problems: got.problems });
    } catch (e) {
      this.notify("error", (e as Error).message);
      this.trajectories.set({ ...this.trajectories.get(), loaded: true });
    }
  }

  /**
   * Import trajectory files: a trajectory (as `recode run` writes them) or a
   * list of them (as Export writes). Each is read with restoreTrajectory. A
   * broken file is reported with its name and the field; an episode already
   * stored is kept (delete it first to replace it). Nothing stored is lost.
   */
  async importTrajectories(files: { name: string; text: string }[]): Promise<ImportReport> {
    const repo = (await this.repos).trajectories;
    const imported: string[] = [];
    const errors: string[] = [];
    const skipped: string[] = [];
    const alreadyStored: string[] = [];
    const { restoreTrajectory, trajectoryKey } = await later();
    const existing = new Set((await repo.list()).records.map((r) => r.key));
    for (const f of files) {
      // A run folder also holds its configuration, agent memories and the shared turn 0: only episodes are imported.
      if (!f.name.endsWith(".json") || /\.memory\.json$|\.partial\.json$|(^|\/)run\.json$|(^|\/)turn0\//.test(f.name)) {
        skipped.push(f.name);
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(f.text);
      } catch (e) {
        errors.push(`${f.name}: not valid JSON (${(e as Error).message})`);
        continue;
      }
      const entries = Array.isArray(value) ? value.map((v, i) => ({ where: `${f.name}[${i}]`, v })) : [{ where: f.name, v: value }];
      for (const { where, v } of entries) {
        let t: Trajectory;
        try {
          t = restoreTrajectory(v);
        } catch (e) {
          errors.push(`${where}: ${(e as Error).message}`);
          continue;
        }
        const key = trajectoryKey(t);
        if (existing.has(key)) {
          alreadyStored.push(`${where}: ${t.config.model} ${t.config.setting} L${t.config.level} on ${t.versions.task.id}`);
          continue;
        }
        try {
          await repo.save(t, null, "import", f.name);
          existing.add(key);
          imported.push(where);
        } catch (e) {
          errors.push(`${where}: ${(e as Error).message}`);
        }
      }
    }
    await this.refreshTrajectories();
    return { imported, errors, skipped, alreadyStored };
  }

  /** Delete these stored episodes (the shared turn 0 they started from stays). Errors become notices. */
  async deleteEpisodes(trajectories: readonly Trajectory[]): Promise<void> {
    const { trajectoryKey } = await later();
    try {
      const repo = (await this.repos).trajectories;
      for (const t of trajectories) await repo.remove(trajectoryKey(t));
    } catch (e) {
      this.notify("error", (e as Error).message);
    }
    await this.refreshTrajectories();
  }

  /** Every stored trajectory as JSON text (a list; Import reads it back). */
  exportTrajectories(): string {
    return `${JSON.stringify(
      this.trajectories.get().records.map((r) => r.trajectory),
      null,
      1,
    )}\n`;
  }

  /** Delete every stored trajectory and shared turn 0. Errors become notices. */
  async deleteTrajectories(): Promise<void> {
    try {
      await (await this.repos).trajectories.clear();
    } catch (e) {
      this.notify("error", (e as Error).message);
    }
    await this.refreshTrajectories();
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
  return new PlaygroundServices(
    catalog,
    openRepositories(dbName),
    makeRuntime,
    new DraftJournal(browserStorage()),
    new TaskNotes(browserStorage(), "human-feedback"),
  );
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
