/**
 * The RECODE-H interaction protocol for the open task in the page, the same
 * loop `recode run` drives from the command line (src/cli/run.ts): turn 0 once
 * per (model, researcher, setting, task) with {@link runTurn0}, shared by every
 * chosen feedback level, then {@link runEpisode} per level. Each trajectory
 * (and the shared turn 0) is saved after every turn; an episode that stopped
 * (Stop, a model error, a reload) resumes from its last saved turn when run
 * again, and a finished one is kept as it is.
 */
import { createAgent } from "../../core/agent";
import type { AgentMemoryState, AgentSetting } from "../../core/agent/types";
import {
  EpisodeCancelled,
  type EpisodeConfig,
  type EpisodeEnv,
  failedTrajectory,
  runEpisode,
  runTurn0,
  type SharedTurn0,
  type TestRunner,
} from "../../core/episode";
import type { FeedbackLevel, Researcher } from "../../core/feedback";
import type { ChatModel, TokenCounts } from "../../core/model";
import type { SeatSampling } from "../../core/sampling";
import type { Task } from "../../core/task";
import type { Trajectory } from "../../core/trajectory";
import { taskRunRequest } from "../../python/runtime";
import { trajectoryKey, turn0Key } from "../../store/records";
import type { TrajectoryRepository } from "../../store/repositories";

/** What the user chose in the agent panel. */
export interface AgentRunOptions {
  setting: AgentSetting;
  /** Feedback levels to run, e.g. [0, 4]. */
  levels: FeedbackLevel[];
  /** Turn limit (RECODE-H: 10). */
  maxTurns: number;
  /** Actions per turn before automatic submit (RECODE-H: 3). */
  maxSteps: number;
  /** `rules`, or `llm` (the researcher model of the settings). */
  researcher: "rules" | "llm";
}

/** Live progress of a run. */
export type AgentRunEvent =
  | { type: "turn0-start" }
  | { type: "turn0"; turn0: SharedTurn0; reused: boolean }
  | { type: "level-start"; level: FeedbackLevel; resumedAt: number | null }
  | { type: "level-skip"; level: FeedbackLevel; trajectory: Trajectory }
  /** A turn was saved (the trajectory so far). */
  | { type: "saved"; trajectory: Trajectory }
  /** The coder or researcher model answered a call. */
  | { type: "model-call"; calls: number };

/** How a run ended. */
export interface AgentRunOutcome {
  /** The latest trajectory of every chosen level (saved). */
  trajectories: Trajectory[];
  cancelled: boolean;
  /** The first error (turn 0 failure, or an episode that ended with stoppedReason "error"), or null. */
  error: string | null;
}

/** What the runner needs from the page's services. */
export interface AgentRunDeps {
  task: Task;
  /** The page's Python runtime (one, shared with the Run button). */
  runtime: TestRunner;
  repo: TrajectoryRepository;
  /** Coder model and its spec (the trajectory's `config.model`). */
  coder: { spec: string; model: ChatModel };
  /** Decoding settings of the seats, when any differ from the protocol's (the trajectory's `config.sampling`). */
  sampling?: SeatSampling;
  researcher: Researcher;
  /** Researcher model token totals (llm researcher), for per-review counts. */
  researcherUsage?: () => TokenCounts;
  versions: { app: string; gitCommit: string | null };
  signal: AbortSignal;
  onEvent: (e: AgentRunEvent) => void;
}

function sameLimits(a: Pick<EpisodeConfig, "maxTurns" | "maxSteps">, b: Pick<EpisodeConfig, "maxTurns" | "maxSteps">): boolean {
  return a.maxTurns === b.maxTurns && a.maxSteps === b.maxSteps;
}

/**
 * Run (or resume) the protocol on one task at the chosen levels.
 * Never throws for model, researcher or storage problems: they end up in
 * `error` (and in the saved trajectories). A stop via `signal` returns
 * `cancelled: true` with everything finished so far saved.
 */
export async function runAgentProtocol(o: AgentRunOptions, d: AgentRunDeps): Promise<AgentRunOutcome> {
  const config: EpisodeConfig = {
    model: d.coder.spec,
    researcher: d.researcher.id,
    setting: o.setting,
    maxTurns: o.maxTurns,
    maxSteps: o.maxSteps,
    ...(d.sampling ? { sampling: d.sampling } : {}),
  };
  const env: EpisodeEnv = {
    task: d.task,
    runtime: d.runtime,
    researcher: d.researcher,
    researcherUsage: d.researcherUsage,
    createAgent: () => createAgent(o.setting, d.coder.model, { maxSteps: o.maxSteps }),
    versions: d.versions,
    request: (t, code) => taskRunRequest(t, code),
    signal: d.signal,
  };
  const levels = [...new Set(o.levels)].sort();
  const latest = new Map<FeedbackLevel, Trajectory>();
  const outcome = (cancelled: boolean, error: string | null): AgentRunOutcome => ({
    trajectories: levels.map((l) => latest.get(l)).filter((t): t is Trajectory => t !== undefined),
    cancelled,
    error,
  });
  const keyOf = (level: FeedbackLevel) =>
    trajectoryKey({ config: { ...config, level }, versions: { task: { id: d.task.id } } } as Pick<Trajectory, "config" | "versions">);

  // Which levels still need work; finished ones (not errored, same limits) are kept.
  const pending: { level: FeedbackLevel; resume?: { trajectory: Trajectory; memory: AgentMemoryState } }[] = [];
  try {
    for (const level of levels) {
      const saved = (await d.repo.get(keyOf(level))).value;
      const t = saved?.trajectory;
      if (t && !sameLimits(t.config, config) && t.turns.length > 0) {
        // Like `recode run` on a run folder: results are not mixed across turn or step limits.
        return outcome(
          false,
          `L${level} on ${d.task.id} is stored with ${t.config.maxTurns} turns and ${t.config.maxSteps} steps per turn; run with those settings, or delete the stored results first (Results tab).`,
        );
      }
      if (t && sameLimits(t.config, config) && t.finished && t.stoppedReason !== "error") {
        latest.set(level, t);
        d.onEvent({ type: "level-skip", level, trajectory: t });
        continue;
      }
      if (t && saved.memory && t.turns.length > 0 && sameLimits(t.config, config)) {
        pending.push({ level, resume: { trajectory: t, memory: saved.memory } });
      } else pending.push({ level });
    }
  } catch (e) {
    return outcome(false, (e as Error).message);
  }
  if (pending.length === 0) return outcome(false, null);

  let turn0: SharedTurn0 | null = null;
  try {
    const stored = (await d.repo.getTurn0(turn0Key(config.model, config.researcher, config.setting, d.task.id))).value;
    if (stored && sameLimits(stored.turn0.config, config)) {
      turn0 = stored.turn0;
      d.onEvent({ type: "turn0", turn0, reused: true });
    }
  } catch {
    turn0 = null;
  }
  if (!turn0) {
    d.onEvent({ type: "turn0-start" });
    try {
      turn0 = await runTurn0(env, config);
    } catch (e) {
      if (e instanceof EpisodeCancelled || d.signal.aborted) return outcome(true, null);
      const message = (e as Error).message;
      // Keep a record of the attempt: an episode of each pending level that ended in an error before any turn.
      for (const { level, resume } of pending) {
        if (resume) continue;
        const t = failedTrajectory(env, config, level, `turn 0: ${message}`);
        latest.set(level, t);
        try {
          await d.repo.save(t, null);
          d.onEvent({ type: "saved", trajectory: t });
        } catch {
          /* the error below says what matters */
        }
      }
      return outcome(false, `Turn 0 failed: ${message}`);
    }
    try {
      await d.repo.saveTurn0(turn0);
    } catch (e) {
      return outcome(false, `Turn 0 could not be saved: ${(e as Error).message}`);
    }
    d.onEvent({ type: "turn0", turn0, reused: false });
  }

  let error: string | null = null;
  for (const { level, resume } of pending) {
    if (d.signal.aborted) return outcome(true, error);
    d.onEvent({ type: "level-start", level, resumedAt: resume ? resume.trajectory.turns.length : null });
    try {
      const t = await runEpisode(
        env,
        turn0,
        level,
        async (traj, memory) => {
          latest.set(level, structuredClone(traj));
          await d.repo.save(structuredClone(traj), structuredClone(memory));
          d.onEvent({ type: "saved", trajectory: structuredClone(traj) });
        },
        resume,
      );
      latest.set(level, t);
      if (t.stoppedReason === "error" && !error) error = `L${level}: ${t.error ?? "the episode ended in an error"}`;
    } catch (e) {
      if (e instanceof EpisodeCancelled || d.signal.aborted) return outcome(true, error);
      // A storage failure while saving a turn: stop here, what was saved before stays.
      return outcome(false, `L${level}: ${(e as Error).message}`);
    }
  }
  return outcome(false, error);
}
