/**
 * Runs of stored trajectories, as the results explorer lists them: a run is
 * every episode of one model x setting x researcher x conditions x turn
 * limit (what one `recode run` folder or one Agent-tab run configuration
 * produces, whatever its levels and tasks). Per run: its report (the same
 * {@link buildReport} as `recode report`), its per-task table, and the
 * episodes behind each cell.
 */
import type { FeedbackLevel } from "./feedback";
import { DEFAULT_N, type EpisodeSummary, scoreEpisode, type TaskScore } from "./metrics";
import { type Conditions, type defaultN, episodeConditions, type ReportInput } from "./report";
import { conditionText } from "./report-text";
import { episodeSummary, restoreTrajectory, type Trajectory } from "./trajectory";
import type { AgentSetting } from "./vocabulary";

/** One episode of a run: where it came from and what it holds. */
export interface RunEpisode {
  /** {@link ReportInput.source}: the imported file, or the stored record's key. */
  source: string;
  trajectory: Trajectory;
  summary: EpisodeSummary;
}

/** A run: the episodes that share one configuration. */
export interface Run {
  /** Stable id of the configuration (JSON of the fields below it). */
  id: string;
  model: string;
  setting: AgentSetting;
  researcher: string;
  conditions: Conditions;
  /** Turn limit of its episodes (`config.maxTurns`). */
  maxTurns: number;
  /** Feedback levels it has episodes for, ascending. */
  levels: FeedbackLevel[];
  /** Task ids it has episodes for, sorted. */
  tasks: string[];
  /** Its episodes in input order; the same level and task twice: only the first (as {@link buildReport} counts it). */
  episodes: RunEpisode[];
  /** Episodes that have not finished. */
  unfinished: number;
  /** Earliest and latest `createdAt` of its episodes (ISO 8601), or null when none records one. */
  firstAt: string | null;
  lastAt: string | null;
}

/** What {@link listRuns} read. */
export interface RunList {
  /** Newest first (by {@link Run.lastAt}; runs without dates last). */
  runs: Run[];
  /** Inputs that could not be read, as `<source>: <reason>`. */
  unreadable: string[];
}

/**
 * Group trajectories into runs. Pure; unreadable inputs are listed, never thrown.
 * @param inputs trajectories of any schema version this build reads, with their sources.
 */
export function listRuns(inputs: readonly ReportInput[]): RunList {
  const byId = new Map<string, Run>();
  const unreadable: string[] = [];
  for (const { source, trajectory } of inputs) {
    let t: Trajectory;
    let summary: EpisodeSummary;
    try {
      t = restoreTrajectory(trajectory);
      summary = episodeSummary(t);
    } catch (e) {
      unreadable.push(`${source}: ${(e as Error).message}`);
      continue;
    }
    const c = t.config;
    const conditions = episodeConditions(t);
    const id = JSON.stringify([
      c.model,
      c.setting,
      c.researcher,
      conditions.protocol,
      conditions.backend,
      c.maxSteps,
      conditions.sampling,
      c.maxTurns,
    ]);
    let run = byId.get(id);
    if (!run) {
      run = {
        id,
        model: c.model,
        setting: c.setting,
        researcher: c.researcher,
        conditions,
        maxTurns: c.maxTurns,
        levels: [],
        tasks: [],
        episodes: [],
        unfinished: 0,
        firstAt: null,
        lastAt: null,
      };
      byId.set(id, run);
    }
    if (run.episodes.some((e) => e.summary.level === summary.level && e.summary.taskId === summary.taskId)) continue;
    run.episodes.push({ source, trajectory: t, summary });
    if (!run.levels.includes(c.level)) run.levels = [...run.levels, c.level].sort((a, b) => a - b);
    if (!run.tasks.includes(summary.taskId)) run.tasks = [...run.tasks, summary.taskId].sort();
    if (!t.finished) run.unfinished++;
    if (t.createdAt) {
      if (run.firstAt === null || t.createdAt < run.firstAt) run.firstAt = t.createdAt;
      if (run.lastAt === null || t.createdAt > run.lastAt) run.lastAt = t.createdAt;
    }
  }
  const runs = [...byId.values()].sort((a, b) => (b.lastAt ?? "").localeCompare(a.lastAt ?? "") || a.id.localeCompare(b.id));
  return { runs, unreadable };
}

/** The report inputs of some runs' episodes, for {@link buildReport}. */
export function runInputs(runs: readonly Run[]): ReportInput[] {
  return runs.flatMap((r) => r.episodes.map((e) => ({ source: e.source, trajectory: e.trajectory })));
}

/**
 * The n several runs are compared at: RECODE-H's 10, or the smallest turn
 * limit among them when that is smaller, so that every run could have reached
 * it (one run alone: {@link defaultN}, as `recode report`).
 */
export function sharedN(runs: readonly Run[]): number {
  if (runs.length === 0) return DEFAULT_N;
  return Math.min(DEFAULT_N, ...runs.map((r) => r.maxTurns));
}

/** One cell of the per-task table: one episode's scores over the first n turns. */
export interface TaskCell extends TaskScore {
  episode: RunEpisode;
}

/** One line of the per-task table. */
export interface TaskLine {
  taskId: string;
  /** Per feedback level; absent: no episode at that level. */
  cells: Partial<Record<FeedbackLevel, TaskCell>>;
}

/**
 * The per-task table of a run: for each task and level, the first all-pass
 * turn within n turns and the best test-case pass rate (RECODE-H "Metrics",
 * per episode; {@link scoreEpisode}).
 * @throws Error when n is not a whole number >= 1.
 */
export function taskTable(run: Run, n: number): TaskLine[] {
  return run.tasks.map((taskId) => {
    const cells: Partial<Record<FeedbackLevel, TaskCell>> = {};
    for (const e of run.episodes) {
      if (e.summary.taskId === taskId) cells[e.summary.level] = { ...scoreEpisode(e.summary, n), episode: e };
    }
    return { taskId, cells };
  });
}

/** Filters of the run list; empty fields match everything. */
export interface RunFilter {
  /** Words that must each appear in the model, researcher, setting, profile, backend, a task id or a source. */
  search?: string;
  setting?: AgentSetting | "";
  protocol?: string;
  researcher?: string;
  /** Runs with an episode at this level. */
  level?: FeedbackLevel | null;
}

/** The runs that match a filter, in their order. */
export function filterRuns(runs: readonly Run[], f: RunFilter): Run[] {
  const words = (f.search ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  return runs.filter((r) => {
    if (f.setting && r.setting !== f.setting) return false;
    if (f.protocol && r.conditions.protocol !== f.protocol) return false;
    if (f.researcher && r.researcher !== f.researcher) return false;
    if (f.level != null && !r.levels.includes(f.level)) return false;
    if (words.length === 0) return true;
    const text = [
      r.model,
      r.researcher,
      r.setting,
      r.conditions.protocol,
      r.conditions.backend,
      ...r.tasks,
      ...r.episodes.map((e) => e.source),
    ]
      .join(" ")
      .toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/** A run in a few words: `<model> · <setting> · <profile> · researcher <id> · <turn limit> turns` (plus the conditions that are not the defaults). */
export function runLabel(r: Run): string {
  const extra = [
    r.conditions.backend !== "pyodide" ? `backend ${r.conditions.backend}` : "",
    r.conditions.sampling ? conditionText(r.conditions, "sampling") : "",
  ].filter(Boolean);
  return [r.model, r.setting, `${r.conditions.protocol} protocol`, `researcher ${r.researcher}`, `${r.maxTurns} turns`, ...extra].join(
    " · ",
  );
}
