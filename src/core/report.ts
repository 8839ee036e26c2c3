/**
 * The results report: from trajectories to the metrics table, the one path
 * the page's results page and `recode report` share (docs/metrics.md).
 *
 * Rules (RECODE-H.md, "Metrics"; paper arXiv 2510.06186, evaluation section):
 * - Default n: RECODE-H's 10, or the largest turn limit among the episodes
 *   when that is smaller (never more turns than any episode could have).
 * - Every readable episode counts with the turns it has, including one that
 *   ended in an error or never produced a turn (turn 0 failed): Recall@n is
 *   the share of *tasks* solved within n turns, and a task with no passing
 *   turn is not solved. Such episodes are also listed, so the failure is seen.
 * - An episode is one measurement per model x setting x feedback level x
 *   researcher x task x conditions (backend, actions per turn, decoding; see
 *   {@link Conditions}). The same measurement twice counts once: the first
 *   in input order; the others are listed as duplicates.
 */
import { aggregate, DEFAULT_N, type EpisodeSummary, type MetricsRow, SETTINGS, validateEpisodeSummary } from "./metrics";
import { DEFAULT_PROTOCOL, type ProtocolProfile } from "./protocol";
import { seatSamplingText } from "./sampling";
import { episodeSummary, restoreTrajectory, type Trajectory } from "./trajectory";

/** One trajectory to report on, with where it came from. */
export interface ReportInput {
  /** Label used in messages: a file path (`<file>[i]` for an entry of a list), or a stored record's name. */
  source: string;
  /** A trajectory of any schema version this build reads (parsed JSON or a restored {@link Trajectory}). */
  trajectory: unknown;
}

/**
 * What, besides model, setting, level, researcher and task, makes an episode
 * a different measurement. Taken from the trajectory only, so the page and
 * `recode report` see the same for the same file.
 */
export interface Conditions {
  /** Protocol profile (`config.protocol`; `playground` for trajectories that name none). Always printed. */
  protocol: ProtocolProfile;
  /**
   * Backend that ran the tests: the `backend` every turn's run records
   * (`pyodide`, `native`; several joined with `+`); for an episode without
   * turns, the runtime named in `versions.python` (`3.14.2 (pyodide ...)`,
   * `... (native python3 ...)`), or `unknown` when that names neither.
   */
  backend: string;
  /** Actions per turn before the code is submitted (`config.maxSteps`; RECODE-H: 3). */
  maxSteps: number;
  /** Decoding settings (`config.sampling`) as text, e.g. `coder temperature=0.2`; "" for the protocol's temperature 0, top-p 1. */
  sampling: string;
}

/** A field of {@link Conditions}. */
export type ConditionField = keyof Conditions;

/** The condition fields, in column order. */
export const CONDITION_FIELDS: readonly ConditionField[] = ["protocol", "backend", "maxSteps", "sampling"];

/** One row of the report: a model x setting x researcher x conditions x level group (metrics from `aggregate`). */
export type ReportRow = MetricsRow &
  Conditions & {
    /** Episodes of the row that ended in an error (counted with the turns they have). */
    errored: number;
    /** Episodes of the row that have not finished (counted with the turns they have). */
    unfinished: number;
  };

/** An episode named in a list under the table. */
export interface EpisodeRef {
  /** {@link ReportInput.source}. */
  source: string;
  /** `<model> <setting> L<level> <task> [<backend>]`. */
  episode: string;
  /** Turns the trajectory holds. */
  turns: number;
  /** Its turn limit (`config.maxTurns`). */
  maxTurns: number;
}

/** The results of a set of trajectories. */
export interface Report {
  /** Sorted by model, setting, researcher, conditions, level. */
  rows: ReportRow[];
  /** The n of Recall@n, MRR, pass rate and the curves (see the module comment). */
  n: number;
  /** Episodes counted in the rows. */
  episodes: number;
  /** Condition fields that differ between the counted episodes: the tables show these, and only these. */
  varying: ConditionField[];
  /** Episodes that have not finished (counted with the turns they have). */
  unfinished: EpisodeRef[];
  /** Episodes that ended in an error (counted with the turns they have; none when turn 0 failed), with the error. */
  errored: (EpisodeRef & { error: string })[];
  /** Episodes whose turn limit is below n (counted as not solved after their last turn). */
  belowN: EpisodeRef[];
  /** The same measurement again: left out; `kept` is the source of the one counted. */
  duplicates: (EpisodeRef & { kept: string })[];
  /** Inputs that could not be read (left out), as `<source>: <reason>`. */
  unreadable: string[];
}

function backendOf(t: Trajectory): string {
  if (t.turns.length > 0) return [...new Set(t.turns.map((turn) => turn.run.backend))].sort().join("+");
  const m = /\((pyodide|native)\b/i.exec(t.versions.python);
  return m ? (m[1] as string).toLowerCase() : "unknown";
}

/** The {@link Conditions} of one trajectory. */
export function episodeConditions(t: Trajectory): Conditions {
  return {
    protocol: t.config.protocol ?? DEFAULT_PROTOCOL,
    backend: backendOf(t),
    maxSteps: t.config.maxSteps,
    sampling: seatSamplingText(t.config.sampling),
  };
}

/**
 * The default n: RECODE-H's 10 ({@link DEFAULT_N}), or the largest turn limit
 * when that is smaller; 10 with no episodes.
 * @param turnLimits `config.maxTurns` of each episode.
 */
export function defaultN(turnLimits: readonly number[]): number {
  return turnLimits.length === 0 ? DEFAULT_N : Math.min(DEFAULT_N, Math.max(...turnLimits));
}

const conditionKey = (c: Conditions) => JSON.stringify(CONDITION_FIELDS.map((f) => c[f]));

interface Counted {
  summary: EpisodeSummary;
  conditions: Conditions;
  ref: EpisodeRef;
  errored: boolean;
  unfinished: boolean;
}

/** The row an episode is counted in: model, setting, level, researcher and conditions. */
const rowKey = (r: { model: string; setting: string; level: number; researcher: string }, c: Conditions) =>
  JSON.stringify([r.model, r.setting, r.level, r.researcher, conditionKey(c)]);

/**
 * Read trajectories and compute the results (RECODE-H "Metrics", per model x
 * setting x feedback level x researcher, split by {@link Conditions} where
 * they differ). Pure: no I/O; unreadable inputs are listed, never thrown.
 *
 * @param inputs trajectories with their source labels; order decides which
 *   of two identical measurements is counted (the first).
 * @param wantedN the n to use (a whole number >= 1); absent: {@link defaultN}.
 * @throws Error when `wantedN` is not a whole number >= 1.
 */
export function buildReport(inputs: readonly ReportInput[], wantedN?: number): Report {
  if (wantedN !== undefined && (!Number.isInteger(wantedN) || wantedN < 1)) {
    throw new Error(`report: n (turns counted) must be a whole number >= 1, got ${JSON.stringify(wantedN)}`);
  }
  const report: Omit<Report, "rows" | "n" | "episodes" | "varying" | "belowN"> = {
    unfinished: [],
    errored: [],
    duplicates: [],
    unreadable: [],
  };
  const counted: Counted[] = [];
  const seen = new Map<string, string>();
  for (const { source, trajectory } of inputs) {
    let t: Trajectory;
    let summary: EpisodeSummary;
    try {
      t = restoreTrajectory(trajectory);
      summary = episodeSummary(t);
      validateEpisodeSummary(summary, "episode");
    } catch (e) {
      report.unreadable.push(`${source}: ${(e as Error).message}`);
      continue;
    }
    const conditions = episodeConditions(t);
    const ref: EpisodeRef = {
      source,
      episode: `${summary.model} ${summary.setting} L${summary.level} ${summary.taskId} [${conditions.backend}]`,
      turns: t.turns.length,
      maxTurns: t.config.maxTurns,
    };
    const id = JSON.stringify([
      summary.model,
      summary.setting,
      summary.level,
      summary.researcher,
      summary.taskId,
      conditionKey(conditions),
    ]);
    const kept = seen.get(id);
    if (kept !== undefined) {
      report.duplicates.push({ ...ref, kept });
      continue;
    }
    seen.set(id, source);
    if (!t.finished) report.unfinished.push(ref);
    if (t.stoppedReason === "error") report.errored.push({ ...ref, error: t.error ?? "unknown error" });
    counted.push({ summary, conditions, ref, errored: t.stoppedReason === "error", unfinished: !t.finished });
  }
  const n = wantedN ?? defaultN(counted.map((c) => c.ref.maxTurns));
  // One aggregate per set of conditions: two backends of one episode are two rows, never one group with the task twice.
  const parts = new Map<string, { conditions: Conditions; summaries: EpisodeSummary[] }>();
  for (const c of counted) {
    const key = conditionKey(c.conditions);
    const part = parts.get(key) ?? { conditions: c.conditions, summaries: [] };
    part.summaries.push(c.summary);
    parts.set(key, part);
  }
  const ends = new Map<string, { errored: number; unfinished: number }>();
  for (const c of counted) {
    const key = rowKey(c.summary, c.conditions);
    const e = ends.get(key) ?? { errored: 0, unfinished: 0 };
    e.errored += c.errored ? 1 : 0;
    e.unfinished += c.unfinished ? 1 : 0;
    ends.set(key, e);
  }
  const rows: ReportRow[] = [...parts.values()].flatMap((p) =>
    aggregate(p.summaries, n).map((r) => ({
      ...r,
      ...p.conditions,
      ...(ends.get(rowKey(r, p.conditions)) ?? { errored: 0, unfinished: 0 }),
    })),
  );
  const settingOrder = (r: ReportRow) => SETTINGS.indexOf(r.setting);
  rows.sort(
    (a, b) =>
      a.model.localeCompare(b.model) ||
      settingOrder(a) - settingOrder(b) ||
      a.researcher.localeCompare(b.researcher) ||
      a.protocol.localeCompare(b.protocol) ||
      a.backend.localeCompare(b.backend) ||
      a.maxSteps - b.maxSteps ||
      a.sampling.localeCompare(b.sampling) ||
      a.level - b.level,
  );
  return {
    ...report,
    rows,
    n,
    episodes: counted.length,
    // The protocol profile is always shown (numbers of the two profiles are not comparable); the others when they differ.
    varying: CONDITION_FIELDS.filter((f) => f === "protocol" || new Set(counted.map((c) => c.conditions[f])).size > 1),
    belowN: counted.filter((c) => c.ref.maxTurns < n).map((c) => c.ref),
  };
}
