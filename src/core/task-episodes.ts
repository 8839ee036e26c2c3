/**
 * The interaction protocol on one task at one or more feedback levels, over
 * an {@link EpisodeStore}: the one loop the page and `recode run` both drive
 * (RECODE-H.md, "Interaction protocol").
 *
 * - Each level's saved episode is read first: a finished one is kept, an
 *   unfinished (or errored) one resumes after its last saved turn, an
 *   unreadable one is set aside by the store and the episode runs again.
 * - Turn 0 is computed once per (model, researcher, setting, task) and shared
 *   by every level that starts from it ({@link runTurn0}); a stored turn 0 of
 *   the same limits and sampling is reused. When its review fails, the coder's
 *   turn is kept, so the next try only redoes the review.
 * - Every turn is saved before the next starts ({@link runEpisode}).
 * - A task whose packages cannot be loaded ends its episodes in an error
 *   before any model is asked ({@link packagesProblem}).
 */
import type { AgentMemoryState } from "./agent/types";
import {
  EpisodeCancelled,
  type EpisodeConfig,
  type EpisodeEnv,
  failedTrajectory,
  packagesProblem,
  protocolOf,
  runEpisode,
  runTurn0,
  type SharedTurn0,
  Turn0ReviewError,
  unreviewedTurn0,
} from "./episode";
import type { EpisodeStore, Turn0Id } from "./episode-store";
import type { FeedbackLevel } from "./feedback";
import { sharesTurn0 } from "./protocol";
import type { Trajectory } from "./trajectory";

/** Progress of {@link runTaskEpisodes}, in the order it happens. */
export type TaskEpisodeEvent =
  /** A stored record could not be read; the store set it aside (the message says where) and the work is redone. */
  | { type: "problem"; message: string }
  | { type: "turn0-start" }
  | { type: "turn0"; turn0: SharedTurn0; reused: boolean }
  | { type: "level-start"; level: FeedbackLevel; resumedAt: number | null }
  /** The level's episode is already finished (not in an error): kept as it is. */
  | { type: "level-skip"; level: FeedbackLevel; trajectory: Trajectory }
  /** A turn was saved (the trajectory so far). */
  | { type: "saved"; trajectory: Trajectory }
  /** The level's episode ended (solved, turn limit, or an error) and is saved. */
  | { type: "level-done"; level: FeedbackLevel; trajectory: Trajectory };

/** How {@link runTaskEpisodes} ended. */
export interface TaskEpisodesOutcome {
  /** The latest trajectory of every chosen level that has one, in level order (all saved). */
  trajectories: Trajectory[];
  /** Stopped on request (the signal); everything finished so far is saved. */
  cancelled: boolean;
  /** The first thing that went wrong (turn 0 failed, an episode ended in an error, a save failed, stored limits differ), or null. */
  error: string | null;
  /** A save failed (a full disk, a closed database): what was saved before stays, and the caller should stop. */
  storageFailed: boolean;
}

/** Whether two configurations may share stored work: the same limits, decoding settings and protocol profile. */
function sameLimits(a: EpisodeConfig, b: EpisodeConfig): boolean {
  return (
    a.maxTurns === b.maxTurns &&
    a.maxSteps === b.maxSteps &&
    JSON.stringify(a.sampling ?? null) === JSON.stringify(b.sampling ?? null) &&
    protocolOf(a) === protocolOf(b)
  );
}

/**
 * What differs between the limits a stored episode ran with (`stored`) and this run's (`now`), as
 * "4 turns (this run: 10)", one item each; empty when {@link sameLimits} holds.
 */
export function limitDifferences(stored: EpisodeConfig, now: EpisodeConfig): string[] {
  const out: string[] = [];
  if (stored.maxTurns !== now.maxTurns) out.push(`${stored.maxTurns} turns (this run: ${now.maxTurns})`);
  if (stored.maxSteps !== now.maxSteps) out.push(`${stored.maxSteps} steps per turn (this run: ${now.maxSteps})`);
  if (protocolOf(stored) !== protocolOf(now)) out.push(`the ${protocolOf(stored)} protocol (this run: ${protocolOf(now)})`);
  const sampling = (c: EpisodeConfig) => JSON.stringify(c.sampling ?? null);
  if (sampling(stored) !== sampling(now)) out.push(`sampling ${sampling(stored)} (this run: ${sampling(now)})`);
  return out;
}

/**
 * Run (or resume) the episodes of one task at `levels` with `config`,
 * saving to `store` after every turn. Never throws: model, researcher and
 * storage failures end in `error` (and in the saved trajectories); a stop on
 * request returns `cancelled`.
 */
export async function runTaskEpisodes(
  env: EpisodeEnv,
  store: EpisodeStore,
  config: EpisodeConfig,
  levels: readonly FeedbackLevel[],
  onEvent: (e: TaskEpisodeEvent) => void = () => {},
): Promise<TaskEpisodesOutcome> {
  const chosen = [...new Set(levels)].sort();
  const latest = new Map<FeedbackLevel, Trajectory>();
  const done = (over: Partial<TaskEpisodesOutcome> = {}): TaskEpisodesOutcome => ({
    trajectories: chosen.map((l) => latest.get(l)).filter((t): t is Trajectory => t !== undefined),
    cancelled: false,
    error: null,
    storageFailed: false,
    ...over,
  });
  const id: Turn0Id = {
    model: config.model,
    researcher: config.researcher,
    setting: config.setting,
    taskId: env.task.id,
    protocol: protocolOf(config),
  };
  const problem = (p: string | null) => {
    if (p) onEvent({ type: "problem", message: p });
  };

  const pending: { level: FeedbackLevel; resume?: { trajectory: Trajectory; memory: AgentMemoryState } }[] = [];
  try {
    for (const level of chosen) {
      const read = await store.readEpisode({ ...id, level });
      problem(read.problem);
      const t = read.value?.trajectory;
      const memory = read.value?.memory;
      if (t && t.turns.length > 0 && !sameLimits(t.config, config)) {
        // Results are not mixed across turn limits, step limits or sampling.
        return done({
          error: `L${level} on ${env.task.id} is stored with ${limitDifferences(t.config, config).join(", ")}; run with the stored settings to resume it, or delete it first (Results, Delete the runs shown)`,
        });
      }
      if (t?.finished && t.stoppedReason !== "error") {
        latest.set(level, t);
        onEvent({ type: "level-skip", level, trajectory: t });
      } else if (t && memory && t.turns.length > 0) pending.push({ level, resume: { trajectory: t, memory } });
      else pending.push({ level });
    }
  } catch (e) {
    return done({ error: (e as Error).message, storageFailed: true });
  }
  if (pending.length === 0) return done();

  // A task whose packages cannot be loaded judges nothing: said before any model is asked (no call, no tokens).
  let missing: string | null;
  try {
    missing = await packagesProblem(env);
  } catch (e) {
    if (e instanceof EpisodeCancelled || env.signal?.aborted) return done({ cancelled: true });
    return done({ error: (e as Error).message });
  }
  if (missing) {
    const message = `the task's packages could not be loaded, so no model was asked: ${missing}`;
    try {
      // As for a turn 0 that failed: a record of the attempt per level with nothing saved; saved turns are kept.
      for (const { level, resume } of pending) {
        if (resume) continue;
        const t = failedTrajectory(env, config, level, message);
        await store.writeEpisode(t, null);
        latest.set(level, t);
        onEvent({ type: "level-done", level, trajectory: t });
      }
    } catch (err) {
      return done({ error: `${message}; and ${(err as Error).message}`, storageFailed: true });
    }
    return done({ error: message });
  }

  // Turn 0 is needed only by the levels that start from it (a resumed episode holds its own). Where the
  // profile does not share it (reference, other than memory_agent), each level computes its own.
  const shared = sharesTurn0(protocolOf(config), config.setting);
  // The researcher reviews turn 0 only for levels that show a review: L0 alone shows the test log.
  const review = pending.some((p) => !p.resume && p.level > 0);
  let turn0: SharedTurn0 | null = null;
  // A stored turn 0 computed for L0 alone, now wanted by a level that shows its review: reviewed, not written again.
  let unreviewed: SharedTurn0 | null = null;
  if (shared && pending.some((p) => !p.resume)) {
    try {
      const read = await store.readTurn0(id);
      problem(read.problem);
      if (read.value && sameLimits(read.value.config, config)) {
        if (review && unreviewedTurn0(read.value)) unreviewed = read.value;
        else {
          turn0 = read.value;
          onEvent({ type: "turn0", turn0, reused: true });
        }
      }
    } catch (e) {
      return done({ error: (e as Error).message, storageFailed: true });
    }
    if (!turn0) {
      onEvent({ type: "turn0-start" });
      try {
        const partial = unreviewed ? { value: unreviewed, problem: null } : await store.readTurn0Partial(id);
        problem(partial.problem);
        const reuse = partial.value && (!partial.value.config || sameLimits(partial.value.config, config)) ? partial.value : undefined;
        turn0 = await runTurn0(env, config, reuse, review);
      } catch (e) {
        if (e instanceof EpisodeCancelled || env.signal?.aborted) return done({ cancelled: true });
        const message = (e as Error).message;
        try {
          if (e instanceof Turn0ReviewError) await store.writeTurn0Partial(id, e.partial);
          // A record of the attempt: an episode that ended in an error before any turn, per level that had nothing saved.
          for (const { level, resume } of pending) {
            if (resume) continue;
            const t = failedTrajectory(env, config, level, `turn 0 failed: ${message}`);
            await store.writeEpisode(t, null);
            latest.set(level, t);
            onEvent({ type: "level-done", level, trajectory: t });
          }
        } catch (err) {
          return done({ error: `turn 0 failed: ${message}; and ${(err as Error).message}`, storageFailed: true });
        }
        return done({ error: `turn 0 failed: ${message}` });
      }
      try {
        await store.writeTurn0(turn0);
      } catch (e) {
        return done({ error: `turn 0 could not be saved: ${(e as Error).message}`, storageFailed: true });
      }
      onEvent({ type: "turn0", turn0, reused: false });
    }
  }

  let error: string | null = null;
  for (const { level, resume } of pending) {
    if (env.signal?.aborted) return done({ cancelled: true, error });
    onEvent({ type: "level-start", level, resumedAt: resume ? resume.trajectory.turns.length : null });
    let own: SharedTurn0 | null = turn0;
    if (!shared && !resume) {
      try {
        own = await runTurn0(env, config, undefined, level > 0);
      } catch (e) {
        if (e instanceof EpisodeCancelled || env.signal?.aborted) return done({ cancelled: true, error });
        const t = failedTrajectory(env, config, level, `turn 0 failed: ${(e as Error).message}`);
        try {
          await store.writeEpisode(t, null);
        } catch (err) {
          return done({ error: `L${level}: ${(err as Error).message}`, storageFailed: true });
        }
        latest.set(level, t);
        onEvent({ type: "level-done", level, trajectory: t });
        error ??= `L${level}: ${t.error}`;
        continue;
      }
    }
    try {
      const t = await runEpisode(
        env,
        own,
        level,
        async (traj, memory) => {
          // One copy per save: the store, the latest map and the event share it (none of them changes it).
          const snap = structuredClone(traj);
          await store.writeEpisode(snap, structuredClone(memory));
          latest.set(level, snap);
          onEvent({ type: "saved", trajectory: snap });
        },
        resume,
      );
      latest.set(level, t);
      onEvent({ type: "level-done", level, trajectory: t });
      if (t.stoppedReason === "error" && !error) error = `L${level}: ${t.error ?? "the episode ended in an error"}`;
    } catch (e) {
      if (e instanceof EpisodeCancelled || env.signal?.aborted) return done({ cancelled: true, error });
      // runEpisode catches model and researcher failures; what reaches here is a save that failed.
      return done({ error: `L${level}: ${(e as Error).message}`, storageFailed: true });
    }
  }
  return done({ error });
}
