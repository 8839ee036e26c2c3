/**
 * The episode runner: the RECODE-H interaction protocol (RECODE-H.md,
 * "Interaction protocol") over one task, for one model and setting, at one or
 * more feedback levels.
 *
 * - Turn 0 is generated without feedback, computed once per (model, task,
 *   setting) and shared by every level ({@link runTurn0}); levels differ from
 *   turn 1 on.
 * - Up to `maxTurns` turns (0..maxTurns-1); the researcher reviews every failing
 *   turn except the last; the episode stops at the first turn where every test
 *   passes.
 * - After every finished turn the trajectory is handed to `save`, so an
 *   interrupted run can resume from the last finished turn ({@link runEpisode}
 *   with `resume`).
 */

import { CUT_REPLY_NOTE, endedOnCutReply } from "./agent/prompts";
import type { Agent, AgentMemoryState, AgentSetting, AgentTurnOutput } from "./agent/types";
import { codeOmitted, type FeedbackLevel, type FeedbackRecord, type Researcher } from "./feedback";
import type { TokenCounts } from "./model";
import { agentFeedback, DEFAULT_PROTOCOL, type ProtocolProfile, sharesTurn0 } from "./protocol";
import type { RunResult } from "./results";
import type { RunOptions, RunRequest } from "./runtime-port";
import type { SeatSampling } from "./sampling";
import { type Task, taskContentHash } from "./task";
import { TRAJECTORY_SCHEMA_VERSION, type Trajectory, type TrajectoryTurn } from "./trajectory";

/** Configuration of the episodes of one (model, task, setting). */
export interface EpisodeConfig {
  /** Coder model id, e.g. `ollama:qwen2.5-coder:7b`. */
  model: string;
  /** Researcher id, e.g. `rules`. */
  researcher: string;
  setting: AgentSetting;
  /** Turn limit (RECODE-H: 10). */
  maxTurns: number;
  /** Actions per turn before automatic submit (RECODE-H: 3). */
  maxSteps: number;
  /** Decoding settings of the coder and the researcher, when any differ from the protocol's (recorded in the trajectory). */
  sampling?: SeatSampling;
  /** Protocol profile (src/core/protocol.ts); absent: `playground`. Recorded in the trajectory. */
  protocol?: ProtocolProfile;
}

/** The profile of a configuration (absent: `playground`). */
export function protocolOf(config: { protocol?: ProtocolProfile }): ProtocolProfile {
  return config.protocol ?? DEFAULT_PROTOCOL;
}

/** Anything that runs a task's tests (a PythonRuntime, or a wrapper around one). */
export interface TestRunner {
  run(req: RunRequest, opts?: RunOptions): Promise<RunResult>;
  readonly version: string;
}

/** What the runner needs from its surroundings. */
export interface EpisodeEnv {
  task: Task;
  runtime: TestRunner;
  researcher: Researcher;
  /** A fresh agent for the setting (one per level). */
  createAgent: () => Agent;
  /** Versions recorded in every trajectory. */
  versions: { app: string; gitCommit: string | null };
  /** Token totals of the researcher's model so far (for per-review counts); absent for rules/human. */
  researcherUsage?: () => TokenCounts;
  /** Builds the run request for candidate code (defaults to the task's own settings). */
  request: (task: Task, code: string) => RunRequest;
  signal?: AbortSignal;
}

/** Turn 0 as computed once and shared by every level. */
export interface SharedTurn0 {
  taskId: string;
  config: EpisodeConfig;
  /** The turn without level-specific feedback text. */
  turn: Omit<TrajectoryTurn, "feedbackText">;
  /** Agent memory after turn 0 (restored into each level's agent). */
  memory: AgentMemoryState;
}

/** Persisting an episode after each turn; the memory is the agent's state after the last saved turn. */
export type SaveEpisode = (trajectory: Trajectory, memory: AgentMemoryState) => Promise<void> | void;

/** Thrown (as the abort reason) when the run is stopped on request; the episode is left unfinished. */
export class EpisodeCancelled extends Error {
  constructor() {
    super("stopped on request");
    this.name = "EpisodeCancelled";
  }
}

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new EpisodeCancelled();
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

/** `{ codeOmitted }` when the level removed code from the record (playground profile), else nothing. */
function omitted(record: FeedbackRecord | null, level: FeedbackLevel, profile: ProtocolProfile): { codeOmitted?: number } {
  const n = profile === "playground" ? codeOmitted(record, level) : 0;
  return n > 0 ? { codeOmitted: n } : {};
}

async function review(
  env: EpisodeEnv,
  code: string,
  run: RunResult,
  turn: number,
): Promise<{ record: FeedbackRecord; ms: number; tokens: TokenCounts }> {
  const before = env.researcherUsage?.() ?? { prompt: 0, completion: 0 };
  const t0 = now();
  const record = await env.researcher.review({ task: env.task, code, run, turn });
  const after = env.researcherUsage?.() ?? { prompt: 0, completion: 0 };
  const unreported = (after.unreported ?? 0) - (before.unreported ?? 0);
  return {
    record,
    ms: now() - t0,
    tokens: {
      prompt: after.prompt - before.prompt,
      completion: after.completion - before.completion,
      ...(unreported ? { unreported } : {}),
    },
  };
}

/** Whether the researcher reviews turn `index` (failing, and not the last turn). RECODE-H: feedback after every failing turn except the last. */
export function needsReview(run: RunResult, index: number, maxTurns: number): boolean {
  return !run.allPassed && index < maxTurns - 1;
}

/** What turn 0 had produced when its review failed: reused on the next try, so the coder is not asked again. */
export interface Turn0Partial {
  turn: Omit<TrajectoryTurn, "feedbackText" | "feedback" | "researcherTokens">;
  memory: AgentMemoryState;
  /** The configuration it was computed with (absent in records written before it was kept). */
  config?: EpisodeConfig;
}

/** The review of turn 0 failed; `partial` holds the coder's turn and its test run. */
export class Turn0ReviewError extends Error {
  constructor(
    readonly partial: Turn0Partial,
    cause: Error,
  ) {
    super(`the researcher could not review turn 0: ${cause.message}`);
    this.name = "Turn0ReviewError";
  }
}

/**
 * A run whose tests could not run for want of the task's packages judged nothing: the episode ends in an
 * error (kept, and run again on resume), not in a failed turn that would count against the agent.
 * @throws Error naming the packages' problem.
 */
function throwIfNotJudged(run: RunResult): void {
  if (run.incident?.kind === "packages")
    throw new Error(`the tests could not run (the agent's code was not judged): ${run.incident.message}`);
}

/**
 * Whether the task's packages can be loaded where its tests run, asked before any model is: a run of the
 * starting text, for a task that lists packages (none is made for one that lists none). Returns the
 * runtime's message when they cannot be loaded, else null (a run that fails otherwise is left to the turns).
 * @throws EpisodeCancelled when aborted.
 */
export async function packagesProblem(env: EpisodeEnv): Promise<string | null> {
  if (env.task.meta.packages.length === 0) return null;
  throwIfAborted(env.signal);
  let run: RunResult;
  try {
    run = await env.runtime.run(env.request(env.task, env.task.starter), env.signal ? { signal: env.signal } : {});
  } catch {
    throwIfAborted(env.signal);
    return null;
  }
  return run.incident?.kind === "packages" ? run.incident.message : null;
}

/**
 * A turn's timings before its review (ms): the agent's time without the waits before retried model calls, which are
 * said on their own (`retryWaitMs`, absent when none), and the test run's.
 */
function turnTimings(out: AgentTurnOutput, testMs: number): TrajectoryTurn["timings"] {
  const waited = out.retryWaitMs ?? 0;
  return { agentMs: out.latencyMs - waited, testMs, researcherMs: 0, ...(waited > 0 ? { retryWaitMs: waited } : {}) };
}

/**
 * Compute turn 0: the agent writes the target file without feedback, the
 * tests run, and (when it fails and more turns follow) the researcher reviews
 * it once; the raw record is rendered per level later. `partial` (from a
 * Turn0ReviewError, or a stored turn 0 that was not reviewed) skips the agent and the test run. `reviewed`: whether
 * the researcher reviews it; false when no level that starts from it shows a review (L0 alone shows the test log),
 * and its `feedback` is then null although it failed ({@link unreviewedTurn0}).
 * @throws ModelError from the agent; Turn0ReviewError when the review fails; EpisodeCancelled when aborted.
 */
export async function runTurn0(env: EpisodeEnv, config: EpisodeConfig, partial?: Turn0Partial, reviewed = true): Promise<SharedTurn0> {
  throwIfAborted(env.signal);
  let done: Turn0Partial;
  if (partial) done = partial;
  else {
    const agent = env.createAgent();
    agent.reset();
    const out = await agent.runTurn({ task: env.task, turn: 0, currentCode: env.task.starter, feedback: null, signal: env.signal });
    throwIfAborted(env.signal);
    const run = await env.runtime.run(env.request(env.task, out.code), { signal: env.signal });
    throwIfAborted(env.signal);
    throwIfNotJudged(run);
    done = {
      turn: {
        index: 0,
        code: out.code,
        run,
        messages: out.messages,
        actions: out.actions,
        timings: turnTimings(out, run.durationMs),
        tokens: out.tokens,
      },
      memory: agent.snapshot(),
      config,
    };
  }
  let feedback: FeedbackRecord | null = null;
  let researcherMs = 0;
  let researcherTokens = { prompt: 0, completion: 0 };
  if (reviewed && needsReview(done.turn.run, 0, config.maxTurns)) {
    try {
      const r = await review(env, done.turn.code, done.turn.run, 0);
      feedback = r.record;
      researcherMs = r.ms;
      researcherTokens = r.tokens;
    } catch (e) {
      if (e instanceof EpisodeCancelled || env.signal?.aborted) throw new EpisodeCancelled();
      throw new Turn0ReviewError(done, e as Error);
    }
  }
  return {
    taskId: env.task.id,
    config,
    turn: { ...done.turn, feedback, researcherTokens, timings: { ...done.turn.timings, researcherMs } },
    memory: done.memory,
  };
}

/** Whether a stored turn 0 failed, is followed by more turns, and was not reviewed (computed for L0 alone). */
export function unreviewedTurn0(t: SharedTurn0): boolean {
  return t.turn.feedback === null && needsReview(t.turn.run, 0, t.config.maxTurns);
}

/** A new, empty trajectory for one level. */
export function newTrajectory(env: EpisodeEnv, config: EpisodeConfig, level: FeedbackLevel): Trajectory {
  return {
    schemaVersion: TRAJECTORY_SCHEMA_VERSION,
    createdAt: new Date().toISOString(),
    config: {
      model: config.model,
      researcher: config.researcher,
      level,
      setting: config.setting,
      maxTurns: config.maxTurns,
      maxSteps: config.maxSteps,
      ...(config.sampling ? { sampling: config.sampling } : {}),
      protocol: protocolOf(config),
    },
    versions: {
      app: env.versions.app,
      python: env.runtime.version || "unknown",
      task: { id: env.task.id, contentHash: taskContentHash(env.task) },
      gitCommit: env.versions.gitCommit,
    },
    sharedTurn0: sharesTurn0(protocolOf(config), config.setting),
    turns: [],
    finished: false,
    stoppedReason: null,
    error: null,
    wallMs: 0,
  };
}

/** The trajectory of an episode that could not start (turn 0 failed): no turns, stopped with the error. */
export function failedTrajectory(env: EpisodeEnv, config: EpisodeConfig, level: FeedbackLevel, error: string): Trajectory {
  const t = newTrajectory(env, config, level);
  finish(t, "error", error);
  return t;
}

function finish(t: Trajectory, reason: "solved" | "max_turns" | "error", error: string | null = null): void {
  t.finished = true;
  t.stoppedReason = reason;
  t.error = error;
}

/**
 * Run (or resume) the episode of one level from a shared turn 0.
 * `resume`: a saved unfinished (or errored) trajectory of this level and the
 * agent memory saved with it; the episode continues after its last turn (turn
 * 0 may then be null: the saved episode holds its own).
 * Model and researcher failures end the episode with `stoppedReason: "error"`
 * (saved; a later resume retries from the last finished turn). A stop on
 * request leaves it unfinished and rethrows EpisodeCancelled.
 */
export async function runEpisode(
  env: EpisodeEnv,
  turn0: SharedTurn0 | null,
  level: FeedbackLevel,
  save: SaveEpisode,
  resume?: { trajectory: Trajectory; memory: AgentMemoryState },
): Promise<Trajectory> {
  const t0 = now();
  const agent = env.createAgent();
  let traj: Trajectory;
  let maxTurns: number;
  if (resume && resume.trajectory.turns.length > 0) {
    traj = structuredClone(resume.trajectory);
    traj.finished = false;
    traj.stoppedReason = null;
    traj.error = null;
    maxTurns = traj.config.maxTurns;
    agent.restore(resume.memory);
  } else {
    if (!turn0) throw new Error("an episode starts from turn 0 or resumes a saved episode; neither was given");
    const config = turn0.config;
    maxTurns = config.maxTurns;
    traj = newTrajectory(env, config, level);
    const needs = needsReview(turn0.turn.run, 0, config.maxTurns);
    traj.turns.push({
      ...structuredClone(turn0.turn),
      feedbackText: needs ? agentFeedback(protocolOf(config), config.setting, turn0.turn.feedback, turn0.turn.run, level).text : "",
      ...omitted(needs ? turn0.turn.feedback : null, level, protocolOf(config)),
    });
    agent.restore(turn0.memory);
    if (turn0.turn.run.allPassed) finish(traj, "solved");
    else if (config.maxTurns === 1) finish(traj, "max_turns");
    const t0 = turn0.turn.timings;
    traj.wallMs = t0.agentMs + (t0.retryWaitMs ?? 0) + t0.testMs + t0.researcherMs;
    await save(traj, agent.snapshot());
  }
  const baseWall = traj.wallMs;
  const profile = protocolOf(traj.config);
  // What the agent is handed after a turn: the recorded text in the playground; the reference
  // profile hands the feedback and the test log apart (both rendered again from the turn's record).
  // A turn that ended on a reply cut at the token limit: the next turn says so first.
  const handed = (prev: TrajectoryTurn): { feedback: string; testLog?: string } => {
    const note = (text: string) => (endedOnCutReply(prev.actions) ? `${CUT_REPLY_NOTE}\n\n${text}`.trim() : text);
    if (profile === "playground" || prev.feedbackText === "") return { feedback: note(prev.feedbackText) };
    const f = agentFeedback(profile, traj.config.setting, prev.feedback, prev.run, level);
    return { feedback: note(f.feedback), testLog: f.testLog };
  };
  // Memory saved with the last finished turn: a failed turn is redone from here on resume.
  let memory = agent.snapshot();
  // The review of a turn whose review failed (saved with the turn): one review, then the turn is whole.
  const reviewed = async (turn: TrajectoryTurn): Promise<void> => {
    const r = await review(env, turn.code, turn.run, turn.index);
    turn.feedback = r.record;
    turn.feedbackText = agentFeedback(profile, traj.config.setting, r.record, turn.run, level).text;
    Object.assign(turn, omitted(r.record, level, profile));
    turn.timings = { ...turn.timings, researcherMs: r.ms };
    turn.researcherTokens = r.tokens;
    delete turn.reviewError;
  };
  try {
    const pending = traj.turns.at(-1) as TrajectoryTurn;
    if (pending.reviewError !== undefined) {
      await reviewed(pending);
      traj.wallMs = baseWall + (now() - t0);
      await save(traj, memory);
    }
    while (!traj.finished) {
      throwIfAborted(env.signal);
      const prev = traj.turns.at(-1) as TrajectoryTurn;
      const index = traj.turns.length;
      const out = await agent.runTurn({
        task: env.task,
        turn: index,
        currentCode: prev.code,
        ...handed(prev),
        signal: env.signal,
      });
      throwIfAborted(env.signal);
      const run = await env.runtime.run(env.request(env.task, out.code), { signal: env.signal });
      throwIfAborted(env.signal);
      throwIfNotJudged(run);
      const turn: TrajectoryTurn = {
        index,
        code: out.code,
        run,
        feedback: null,
        feedbackText: "",
        messages: out.messages,
        actions: out.actions,
        timings: turnTimings(out, run.durationMs),
        tokens: out.tokens,
        researcherTokens: { prompt: 0, completion: 0 },
      };
      if (needsReview(run, index, maxTurns)) {
        if (level > 0) {
          try {
            await reviewed(turn);
          } catch (e) {
            if (e instanceof EpisodeCancelled || env.signal?.aborted) throw e;
            // The coder's turn and its test run are kept: a resume reviews them, and does not ask the coder again.
            turn.reviewError = (e as Error).message;
            traj.turns.push(turn);
            traj.wallMs = baseWall + (now() - t0);
            memory = agent.snapshot();
            throw e;
          }
        } else turn.feedbackText = agentFeedback(profile, traj.config.setting, null, run, level).text;
      }
      traj.turns.push(turn);
      if (run.allPassed) finish(traj, "solved");
      else if (traj.turns.length >= maxTurns) finish(traj, "max_turns");
      traj.wallMs = baseWall + (now() - t0);
      memory = agent.snapshot();
      await save(traj, memory);
    }
  } catch (e) {
    if (e instanceof EpisodeCancelled || env.signal?.aborted) throw new EpisodeCancelled();
    // The wall time stays that of the turns kept: the attempt that failed is done again on resume, and counted then.
    finish(traj, "error", (e as Error).message);
    await save(traj, memory);
  }
  return traj;
}
