/**
 * A student's work on a task, turn by turn, and the feedback ladder.
 *
 * A turn here is one run of the task's unit tests by the person at the editor
 * (the same word as an agent's turn: write, run, read feedback). On a failing
 * run the feedback starts at L0 (the test log alone); the student asks for the
 * next level one step at a time, up to the cap a class file sets. Each turn
 * records the highest level the student asked for, so a teacher can see how
 * much help a solution took. Levels follow RECODE-H's feedback hierarchy
 * (L0-L4, "Feedback hierarchy").
 */
import { z } from "zod";
import { type RunResult, runSolved } from "./results";
import { FEEDBACK_LEVELS, type FeedbackLevel, FeedbackLevelSchema } from "./vocabulary";

/** Current version of {@link TaskProgress} records. */
export const PROGRESS_VERSION = 1;

/** One run of the tests by the student, and the help it took. */
export interface StudyTurn {
  /** When the run finished, in milliseconds since the Unix epoch. */
  at: number;
  /** Tests that passed (passed or xfail). */
  passed: number;
  /** Tests collected (0 after a collection error). */
  total: number;
  /** Whether this run solved the task ({@link runSolved}). */
  solved: boolean;
  /** The highest feedback level asked for on this run (0: the test log only). */
  level: FeedbackLevel;
  /**
   * The target file's text this run tested; kept for the last {@link TURN_CODE_KEPT} turns and when at most
   * {@link TURN_CODE_CHARS} characters (absent for older turns, and in records made before it was kept).
   */
  code?: string;
}

/** Every turn of a student on one task, oldest first. */
export interface TaskProgress {
  version: typeof PROGRESS_VERSION;
  taskId: string;
  turns: StudyTurn[];
}

/** Turns (the last ones) that keep the text they tested. */
export const TURN_CODE_KEPT = 50;
/** Longest text a turn keeps (characters); a longer one is not kept. */
export const TURN_CODE_CHARS = 100_000;

/** Zod schema of a stored or imported {@link TaskProgress}. */
export const TaskProgressSchema = z.object({
  version: z.literal(PROGRESS_VERSION),
  taskId: z.string().min(1),
  turns: z.array(
    z.object({
      at: z.number().finite(),
      passed: z.number().int().nonnegative(),
      total: z.number().int().nonnegative(),
      solved: z.boolean(),
      level: FeedbackLevelSchema,
      code: z.string().max(TURN_CODE_CHARS).optional(),
    }),
  ),
});

/** Most turns kept per task: the oldest are dropped past it. */
export const MAX_STUDY_TURNS = 500;

/**
 * The progress of a task with one more run: a new turn at level 0.
 * @param code the target file's text the run tested (kept with the turn; see {@link StudyTurn.code}).
 */
export function addRun(
  progress: TaskProgress | null,
  taskId: string,
  result: RunResult,
  at: number = Date.now(),
  code: string | null = null,
): TaskProgress {
  const passed = result.counts.passed + (result.counts.xfail ?? 0);
  const turn: StudyTurn = {
    at,
    passed,
    total: result.counts.total,
    solved: runSolved(result.counts, result.collectionError),
    level: 0,
    ...(code !== null && code.length <= TURN_CODE_CHARS ? { code } : {}),
  };
  const turns = [...(progress?.turns ?? []), turn].slice(-MAX_STUDY_TURNS);
  // Older turns let go of their text: a student's record stays small however long they work.
  const old = turns.length - TURN_CODE_KEPT;
  return { version: PROGRESS_VERSION, taskId, turns: turns.map((t, i) => (i < old && t.code !== undefined ? withoutCode(t) : t)) };
}

function withoutCode(turn: StudyTurn): StudyTurn {
  const { code: _code, ...rest } = turn;
  return rest;
}

/**
 * The progress with the last turn's level raised to `level` (a lower level
 * changes nothing: going back down the ladder is free).
 * @throws Error when there is no turn yet (no run to ask feedback about).
 */
export function raiseLevel(progress: TaskProgress, level: FeedbackLevel): TaskProgress {
  const last = progress.turns.at(-1);
  if (!last) throw new Error(`task ${progress.taskId}: no run yet, so no feedback level to record`);
  if (level <= last.level) return progress;
  return { ...progress, turns: [...progress.turns.slice(0, -1), { ...last, level }] };
}

/** What the task list shows for a task. */
export interface ProgressSummary {
  /** Runs so far. */
  runs: number;
  /** Whether any run solved the task (as the benchmark counts it: at its first solving run). */
  solved: boolean;
  /** Whether the last run solved it (false with no run): a task solved once whose latest text fails says so. */
  lastSolved: boolean;
  /** The distinct levels asked for, ascending (0 included only when a failing run had no further help). */
  levels: FeedbackLevel[];
  /** Highest level asked for before the first solving run (or over all runs when unsolved); null with no failing run. */
  helpToSolve: FeedbackLevel | null;
}

/** Summary of a task's progress for the task list; all zero for null. */
export function summarizeProgress(progress: TaskProgress | null): ProgressSummary {
  const turns = progress?.turns ?? [];
  const firstSolved = turns.findIndex((t) => t.solved);
  const before = firstSolved < 0 ? turns : turns.slice(0, firstSolved);
  const failing = turns.filter((t) => !t.solved);
  const levels = FEEDBACK_LEVELS.filter((l) => failing.some((t) => t.level === l));
  const help = before.filter((t) => !t.solved);
  return {
    runs: turns.length,
    solved: firstSolved >= 0,
    lastSolved: turns.at(-1)?.solved ?? false,
    levels,
    helpToSolve: help.length === 0 ? null : (Math.max(...help.map((t) => t.level)) as FeedbackLevel),
  };
}

/** The next rung of the ladder above `reached`, or null at the top or at the `cap` (a class file's limit). */
export function nextLevel(reached: FeedbackLevel, cap: FeedbackLevel = 4): FeedbackLevel | null {
  return reached < cap ? ((reached + 1) as FeedbackLevel) : null;
}
