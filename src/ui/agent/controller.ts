/**
 * Agent runs of the page, one per task at a time, kept outside the components
 * so that switching tabs (which unmounts a panel) does not lose the live
 * progress of a run that goes on in the background.
 */
import type { AgentSetting } from "../../core/agent/types";
import type { FeedbackLevel } from "../../core/feedback";
import { plural } from "../../core/plural";
import type { ProtocolProfile } from "../../core/protocol";
import type { Task } from "../../core/task";
import type { TaskEpisodeEvent } from "../../core/task-episodes";
import type { Trajectory } from "../../core/trajectory";
import { markBusy } from "../busy";
import { Observable } from "../observable";
import type { PlaygroundServices } from "../services";

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
  /** Protocol profile (src/core/protocol.ts). */
  protocol: ProtocolProfile;
  /** Who takes the coder's seat: the model of the settings (absent), or the task's offline demo script (demo.ts). */
  coder?: "demo";
}

/** Live progress of a run: the episode runner's events, and each answered model call. */
export type AgentRunEvent = TaskEpisodeEvent | { type: "model-call"; calls: number };

/** Live state of the agent run of one task. */
export interface AgentRunState {
  running: boolean;
  /** What is happening now, e.g. `L4, turn 2: model call 5`. */
  phase: string;
  /** Level being run, or null (turn 0, idle). */
  level: FeedbackLevel | null;
  /** Latest saved trajectory per level in this run. */
  latest: Partial<Record<FeedbackLevel, Trajectory>>;
  /** Model calls so far in this run. */
  calls: number;
  /** How the last run ended: an error message, "stopped", "done", or null while running / never run. */
  ended: { kind: "done" | "stopped" | "error"; message: string } | null;
}

const IDLE: AgentRunState = { running: false, phase: "", level: null, latest: {}, calls: 0, ended: null };

/** Runs the protocol for tasks and publishes their state. */
export class AgentRuns {
  private states = new Map<string, Observable<AgentRunState>>();
  private controllers = new Map<string, AbortController>();

  constructor(private readonly services: PlaygroundServices) {}

  /** The observable state of a task's run. */
  state(taskId: string): Observable<AgentRunState> {
    let s = this.states.get(taskId);
    if (!s) {
      s = new Observable<AgentRunState>({ ...IDLE });
      this.states.set(taskId, s);
    }
    return s;
  }

  /** Start a run (ignored while one runs for the task). */
  async start(task: Task, options: AgentRunOptions): Promise<void> {
    if (this.controllers.has(task.id)) return;
    const ctl = new AbortController();
    this.controllers.set(task.id, ctl);
    // Switching task or closing the page while it runs asks first (busy.ts).
    const done = markBusy(`agent:${task.id}`, { taskId: task.id, what: "the agent run", stop: () => ctl.abort() });
    const obs = this.state(task.id);
    let st: AgentRunState = { running: true, phase: "starting…", level: null, latest: {}, calls: 0, ended: null };
    obs.set(st);
    const update = (p: Partial<AgentRunState>) => {
      st = { ...st, ...p };
      obs.set(st);
    };
    let turnLabel = "turn 0";
    const onEvent = (e: AgentRunEvent) => {
      switch (e.type) {
        case "turn0-start":
          turnLabel = "turn 0";
          update({ phase: "turn 0 (shared by every level): the agent writes the file", level: null });
          break;
        case "turn0":
          update({
            phase: e.reused
              ? "turn 0 reused from an earlier run"
              : `turn 0 done: ${e.turn0.turn.run.counts.passed}/${e.turn0.turn.run.counts.total} tests passed`,
          });
          break;
        case "level-start":
          turnLabel = `L${e.level}`;
          update({
            level: e.level,
            phase: e.resumedAt ? `L${e.level}: resuming at turn ${e.resumedAt}` : `L${e.level}: starting from turn 0`,
          });
          break;
        case "level-skip":
          update({
            latest: { ...st.latest, [e.level]: e.trajectory },
            phase: `L${e.level} already finished (${e.trajectory.stoppedReason}); kept`,
          });
          break;
        case "saved": {
          const t = e.trajectory;
          const last = t.turns.at(-1);
          const counts = last ? `turn ${last.index}: ${last.run.counts.passed}/${last.run.counts.total} tests passed` : "no turn";
          update({
            latest: { ...st.latest, [t.config.level]: t },
            phase: t.finished
              ? `L${t.config.level}: ${t.stoppedReason} (${counts})`
              : `L${t.config.level}, turn ${t.turns.length}: the agent is working (${counts})`,
          });
          break;
        }
        case "problem":
          this.services.notify("warning", e.message);
          break;
        case "model-call":
          update({
            calls: e.calls,
            phase:
              st.level === null
                ? `${turnLabel}: model call ${e.calls}`
                : `L${st.level}, turn ${st.latest[st.level]?.turns.length ?? 1}: model call ${e.calls}`,
          });
          break;
      }
    };
    try {
      const out = await this.services.runAgent(task, options, onEvent, ctl.signal);
      const latest = { ...st.latest };
      for (const t of out.trajectories) latest[t.config.level] = t;
      const solved = out.trajectories.filter((t) => t.stoppedReason === "solved").length;
      update({
        running: false,
        latest,
        level: null,
        phase: "",
        ended: out.cancelled
          ? { kind: "stopped", message: "Stopped. The finished turns are saved; Run again resumes." }
          : out.error
            ? { kind: "error", message: out.error }
            : { kind: "done", message: `Done: ${solved} of ${plural(out.trajectories.length, "level")} solved.` },
      });
    } catch (e) {
      update({ running: false, phase: "", ended: { kind: "error", message: (e as Error).message } });
    } finally {
      this.controllers.delete(task.id);
      done();
    }
  }

  /** Stop a task's run; the saved part stays. */
  stop(taskId: string): void {
    this.controllers.get(taskId)?.abort();
  }
}

const runs = new WeakMap<PlaygroundServices, AgentRuns>();

/** The agent runs of a services object (one per page). */
export function agentRunsOf(services: PlaygroundServices): AgentRuns {
  let r = runs.get(services);
  if (!r) {
    r = new AgentRuns(services);
    runs.set(services, r);
  }
  return r;
}
