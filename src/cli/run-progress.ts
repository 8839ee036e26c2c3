/**
 * What `recode run` shows while it works: bars on a terminal (one for the
 * episodes, one per worker for the turns of its task), plain lines elsewhere
 * (a line per task started and per episode finished), and the line that says
 * how an episode ended.
 */
import cliProgress from "cli-progress";
import { TRUNCATED } from "../core/agent/prompts";
import { plural } from "../core/plural";
import type { Trajectory } from "../core/trajectory";

/** One finished episode, as the progress display reports it. */
export interface EpisodeLine {
  taskId: string;
  level: number;
  outcome: string;
  turns: number;
  error: string | null;
}

/** How an episode ended, as a line of the progress display says it. */
export function episodeLine(t: Trajectory): EpisodeLine {
  return {
    taskId: t.versions.task.id,
    level: t.config.level,
    outcome: t.stoppedReason ?? "unfinished",
    turns: t.turns.length,
    error: t.error ?? invalidReplies(t),
  };
}

/**
 * Why an episode could not act, when no action of any turn could be used
 * (a model that does not follow the setting's reply format): the first
 * reason, so that the run's output says it rather than the trajectory alone.
 */
function invalidReplies(t: Trajectory): string | null {
  // (The submission the step limit makes by itself is not the model's.)
  const actions = t.turns.flatMap((turn) => turn.actions).filter((a) => a.type !== "AUTO_SUBMIT");
  if (actions.length === 0 || actions.some((a) => a.type !== "INVALID")) return null;
  // Replies cut at the token limit say nothing of the setting: the limit is what to raise.
  const cut = actions.every((a) => a.result.startsWith(TRUNCATED));
  return `every reply was refused, e.g. ${actions[0]?.result ?? ""}; ${cut ? "raise the token limit (--sampling max_tokens=<n>, or the server's own limit)" : "check the --setting the model's replies are written for"}`;
}

/** Progress display: bars on a terminal, plain lines elsewhere. */
export interface Progress {
  /** A worker starts a task: `turns` is the most turns its episodes can take (levels x turn limit). */
  start(taskId: string, worker: number, turns: number): void;
  /** A turn of a level's episode was saved (`label` says which); `skip`: turns that episode will not take because it ended early. */
  turn(worker: number, label: string, skip?: number): void;
  /** Say what a worker is doing without counting a turn. */
  note(worker: number, label: string): void;
  episodeDone(e: EpisodeLine): void;
  /** An episode a previous run finished, kept as it is: counted, not printed again. */
  episodeKept(): void;
  /** A worker finished its task. */
  taskDone(worker: number): void;
  /** A message, printed above the bars on a terminal. */
  log(s: string): void;
  stop(): void;
}

/** The progress display of a run of `total` episodes on `workers` workers (`tty`: bars, else lines through `log`). */
export function makeProgress(total: number, workers: number, log: (s: string) => void, tty: boolean): Progress {
  let done = 0;
  if (!tty) {
    // Said once the task's work begins: a task whose episodes a previous run finished is not "started".
    const pending = new Map<number, string>();
    const begin = (worker: number) => {
      const id = pending.get(worker);
      if (id === undefined) return;
      pending.delete(worker);
      log(`started ${id}\n`);
    };
    return {
      start: (id, worker) => {
        pending.set(worker, id);
      },
      turn: (worker) => begin(worker),
      note: (worker) => begin(worker),
      episodeDone: (e) => {
        done += 1;
        // Turns count from 0, as in the page and the reports: solved at turn 1 is the second turn.
        const when =
          e.outcome === "solved" && e.turns > 0 ? `at turn ${e.turns - 1} (turn 0 is the first)` : `after ${plural(e.turns, "turn")}`;
        // (In words: "max_turns" is the trajectory's own field value.)
        const outcome = e.outcome === "max_turns" ? "not solved" : e.outcome === "error" ? "ended in an error" : e.outcome;
        log(`[${done}/${total}] ${e.taskId} L${e.level}: ${outcome}${e.error ? ` (${e.error})` : ""} ${when}\n`);
      },
      episodeKept: () => {
        done += 1;
      },
      taskDone: (worker) => {
        pending.delete(worker);
      },
      log,
      stop: () => {},
    };
  }
  const multi = new cliProgress.MultiBar(
    { format: " {bar} {value}/{total} {label}", hideCursor: true, clearOnComplete: false, stopOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  const overall = multi.create(total, 0, { label: "episodes" });
  // One bar per task in progress (one per worker): turns done of the most its episodes can take.
  const bars = Array.from({ length: workers }, () => multi.create(1, 0, { label: "starting Python..." }));
  return {
    start: (id, w, turns) => {
      bars[w]?.setTotal(Math.max(1, turns));
      bars[w]?.update(0, { label: id });
    },
    turn: (w, label, skip = 0) => bars[w]?.increment(1 + skip, { label }),
    note: (w, label) => bars[w]?.update({ label }),
    episodeDone: () => overall.increment(),
    episodeKept: () => overall.increment(),
    taskDone: (w) => {
      const bar = bars[w];
      if (bar) bar.update(bar.getTotal(), { label: "task done" });
    },
    log: (s) => multi.log(s.endsWith("\n") ? s : `${s}\n`),
    stop: () => multi.stop(),
  };
}
