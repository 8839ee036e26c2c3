/**
 * Benchmark metrics over episodes, as RECODE-H defines them (RECODE-H.md,
 * "Metrics"; paper arXiv 2510.06186, evaluation section): Recall@n, MRR,
 * test-case pass rate and the per-turn Recall@k curve, per model x setting x
 * feedback level (and researcher), over all tasks.
 *
 * A turn is solved (an "all-pass turn") when at least one test ran and no test
 * failed, errored, was skipped or timed out, and there was no collection error
 * (RECODE-H.md, "Interaction protocol": success; a collection error counts as 0 passed).
 */
import type { FeedbackLevel } from "./feedback";
import { addTokens, type TokenCounts } from "./model";
import { passingCount, type RunResult, runSolved } from "./results";
import { AGENT_SETTINGS, type AgentSetting, FEEDBACK_LEVELS } from "./vocabulary";

/** RECODE-H settings: one-shot generation each turn, agent with tools, agent with tools and memory (the paper's); see {@link AGENT_SETTINGS}. */
export type Setting = AgentSetting;

/** All settings, in report order. */
export const SETTINGS: readonly Setting[] = AGENT_SETTINGS;

/** Default number of turns metrics look at (RECODE-H: up to 10 turns, Recall@10). */
export const DEFAULT_N = 10;

/** Test outcome of one turn, as metrics need it. */
export interface TurnOutcome {
  /** Tests that count as passing: passed or expected failure (`xfail`), see `passingCount` in results.ts. */
  passed: number;
  /** Tests collected (every status); 0 after a collection error. */
  total: number;
  /** Import or syntax failure before any test ran: the turn counts as 0 passed. */
  collectionError: boolean;
  /** Solved (`runSolved` in results.ts): `!collectionError && total > 0 && passed === total`. Checked against the counts. */
  allPassed: boolean;
}

/** Per-episode summary: one model on one task at one level and setting. */
export interface EpisodeSummary {
  /** Model id, e.g. `ollama:qwen2.5-coder:7b`. */
  model: string;
  setting: Setting;
  level: FeedbackLevel;
  /** Researcher id, e.g. `rules`, `llm:openai:gpt-4o-mini`. */
  researcher: string;
  taskId: string;
  /** Turns in order; index = 0-based turn. Stops at the first solved turn or the turn limit. */
  turns: TurnOutcome[];
  /** Tokens the coder model used over the episode (`unreported`: calls without counts). */
  tokens: TokenCounts;
  /** Wall time of the episode, in milliseconds. */
  wallMs: number;
}

/** Scores of one episode. */
export interface TaskScore {
  taskId: string;
  /** 0-based index of the first all-pass turn among the first n, or null when none. */
  solvedAt: number | null;
  /** 1 / (solvedAt + 1), or 0 when not solved within n turns. */
  reciprocalRank: number;
  /** Best over the first n turns of passed/total (0 for a collection error or no tests); 0 with no turns. */
  passRate: number;
}

/** One row of the results table: a model x setting x level x researcher group. */
export interface MetricsRow {
  model: string;
  setting: Setting;
  level: FeedbackLevel;
  researcher: string;
  /** Number of tasks (episodes) in the group. */
  taskCount: number;
  /** Tasks solved within the first n turns. */
  solvedCount: number;
  /** The n the row was computed for. */
  n: number;
  /** Recall@n in 0..1. */
  recallAtN: number;
  /** Mean reciprocal rank in 0..1. */
  mrr: number;
  /** Mean test-case pass rate in 0..1. */
  passRate: number;
  /** curve[k-1] = Recall@k for k = 1..n (non-decreasing). */
  curve: number[];
  /** Summed coder tokens over the group's episodes (`unreported`: calls without counts). */
  tokens: TokenCounts;
  /** Summed episode wall time, in milliseconds. */
  wallMs: number;
}

/** RECODE-H success of one turn (see the module comment). */
export function turnSolved(t: TurnOutcome): boolean {
  return !t.collectionError && t.total > 0 && t.passed === t.total;
}

/** passed/total of one turn; 0 for a collection error or no tests. */
export function turnPassRate(t: TurnOutcome): number {
  if (t.collectionError || t.total <= 0) return 0;
  return t.passed / t.total;
}

/** The metrics view of one test run. */
export function turnOutcome(run: RunResult): TurnOutcome {
  const collectionError = run.collectionError !== null;
  const passed = collectionError ? 0 : passingCount(run.counts);
  const total = collectionError ? 0 : run.counts.total;
  return { passed, total, collectionError, allPassed: runSolved(run.counts, run.collectionError) };
}

const LEVELS: readonly number[] = FEEDBACK_LEVELS;

function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

/**
 * Check one summary; throws an Error that names the episode and the field.
 * @param where label used in messages, e.g. `summaries[3]`.
 */
export function validateEpisodeSummary(s: EpisodeSummary, where = "episode summary"): void {
  const fail = (field: string, problem: string): never => {
    const who = s && typeof s === "object" && typeof s.taskId === "string" ? ` (task ${s.taskId}, model ${String(s.model)})` : "";
    throw new Error(`${where}${who}: ${field}: ${problem}`);
  };
  if (!s || typeof s !== "object") fail("(top level)", "expected an object");
  if (typeof s.model !== "string" || s.model === "") fail("model", "expected a non-empty model id");
  if (!SETTINGS.includes(s.setting)) fail("setting", `expected one of ${SETTINGS.join(", ")}, got ${JSON.stringify(s.setting)}`);
  if (!LEVELS.includes(s.level)) fail("level", `expected a feedback level 0..4, got ${JSON.stringify(s.level)}`);
  if (typeof s.researcher !== "string") fail("researcher", "expected a researcher id");
  if (typeof s.taskId !== "string" || s.taskId === "") fail("taskId", "expected a non-empty task id");
  if (!Array.isArray(s.turns)) fail("turns", "expected a list of turn outcomes");
  s.turns.forEach((t, i) => {
    const f = `turns[${i}]`;
    if (!t || typeof t !== "object") fail(f, "expected {passed, total, collectionError, allPassed}");
    if (!isCount(t.passed)) fail(`${f}.passed`, `expected a count, got ${JSON.stringify(t.passed)}`);
    if (!isCount(t.total)) fail(`${f}.total`, `expected a count, got ${JSON.stringify(t.total)}`);
    if (t.passed > t.total) fail(`${f}.passed`, `${t.passed} passed is more than the ${t.total} tests collected`);
    if (typeof t.collectionError !== "boolean") fail(`${f}.collectionError`, "expected a boolean");
    if (typeof t.allPassed !== "boolean") fail(`${f}.allPassed`, "expected a boolean");
    if (t.allPassed !== turnSolved(t)) {
      fail(
        `${f}.allPassed`,
        `is ${t.allPassed} but ${t.passed}/${t.total} passed${t.collectionError ? " with a collection error" : ""} means ${turnSolved(t)}`,
      );
    }
  });
  if (!s.tokens || !isCount(s.tokens.prompt) || !isCount(s.tokens.completion)) fail("tokens", "expected {prompt, completion} counts");
  if (typeof s.wallMs !== "number" || !(s.wallMs >= 0)) fail("wallMs", `expected milliseconds >= 0, got ${JSON.stringify(s.wallMs)}`);
}

function checkN(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new Error(`metrics: n (turns counted) must be a positive integer, got ${JSON.stringify(n)}`);
}

/**
 * Score one episode over its first n turns.
 * @throws Error for an invalid summary or n.
 */
export function scoreEpisode(s: EpisodeSummary, n: number = DEFAULT_N): TaskScore {
  checkN(n);
  validateEpisodeSummary(s);
  const turns = s.turns.slice(0, n);
  const idx = turns.findIndex(turnSolved);
  const solvedAt = idx >= 0 ? idx : null;
  const passRate = turns.reduce((best, t) => Math.max(best, turnPassRate(t)), 0);
  return { taskId: s.taskId, solvedAt, reciprocalRank: solvedAt === null ? 0 : 1 / (solvedAt + 1), passRate };
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Recall@n: share of episodes with an all-pass turn among the first n turns (0 for no episodes). */
export function recallAtN(summaries: readonly EpisodeSummary[], n: number = DEFAULT_N): number {
  return mean(summaries.map((s) => (scoreEpisode(s, n).solvedAt === null ? 0 : 1)));
}

/** MRR: mean of 1/(i+1) for the 0-based first all-pass turn i within n turns, 0 if never (0 for no episodes). */
export function meanReciprocalRank(summaries: readonly EpisodeSummary[], n: number = DEFAULT_N): number {
  return mean(summaries.map((s) => scoreEpisode(s, n).reciprocalRank));
}

/** Test-case pass rate: per episode the best passed/total over the first n turns, averaged (0 for no episodes). */
export function testCasePassRate(summaries: readonly EpisodeSummary[], n: number = DEFAULT_N): number {
  return mean(summaries.map((s) => scoreEpisode(s, n).passRate));
}

/** Per-turn curve: element k-1 is Recall@k for k = 1..n; a solved task stays solved. */
export function recallCurve(summaries: readonly EpisodeSummary[], n: number = DEFAULT_N): number[] {
  checkN(n);
  const solvedAt = summaries.map((s) => scoreEpisode(s, n).solvedAt);
  return Array.from({ length: n }, (_, k) => mean(solvedAt.map((i) => (i !== null && i <= k ? 1 : 0))));
}

/**
 * Group episodes per model x setting x level x researcher and compute every
 * metric over the group's tasks. Rows are sorted by model, setting, level, researcher.
 *
 * @throws Error for an invalid summary (names its index and field), n < 1, or
 *   the same task twice in one group.
 */
export function aggregate(summaries: readonly EpisodeSummary[], n: number = DEFAULT_N): MetricsRow[] {
  checkN(n);
  summaries.forEach((s, i) => {
    validateEpisodeSummary(s, `summaries[${i}]`);
  });
  const groups = new Map<string, { first: EpisodeSummary; items: EpisodeSummary[]; tasks: Map<string, number> }>();
  summaries.forEach((s, i) => {
    const key = JSON.stringify([s.model, s.setting, s.level, s.researcher]);
    let g = groups.get(key);
    if (!g) {
      g = { first: s, items: [], tasks: new Map() };
      groups.set(key, g);
    }
    const prev = g.tasks.get(s.taskId);
    if (prev !== undefined) {
      throw new Error(
        `summaries[${i}]: task ${s.taskId} appears twice for model ${s.model}, setting ${s.setting}, level L${s.level}, researcher ${s.researcher} (also summaries[${prev}])`,
      );
    }
    g.tasks.set(s.taskId, i);
    g.items.push(s);
  });
  const rows: MetricsRow[] = [];
  for (const { first, items } of groups.values()) {
    const scores = items.map((s) => scoreEpisode(s, n));
    rows.push({
      model: first.model,
      setting: first.setting,
      level: first.level,
      researcher: first.researcher,
      taskCount: items.length,
      solvedCount: scores.filter((x) => x.solvedAt !== null).length,
      n,
      recallAtN: mean(scores.map((x) => (x.solvedAt === null ? 0 : 1))),
      mrr: mean(scores.map((x) => x.reciprocalRank)),
      passRate: mean(scores.map((x) => x.passRate)),
      curve: recallCurve(items, n),
      tokens: items.reduce((a: TokenCounts, s) => addTokens(a, s.tokens), { prompt: 0, completion: 0 }),
      wallMs: items.reduce((a, s) => a + s.wallMs, 0),
    });
  }
  const settingOrder = (s: Setting) => SETTINGS.indexOf(s);
  return rows.sort(
    (a, b) =>
      a.model.localeCompare(b.model) ||
      settingOrder(a.setting) - settingOrder(b.setting) ||
      a.level - b.level ||
      a.researcher.localeCompare(b.researcher),
  );
}
