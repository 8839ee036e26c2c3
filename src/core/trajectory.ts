/**
 * Trajectory records: everything one episode (one model on one task at one
 * feedback level and setting) produced, turn by turn, as versioned JSON.
 * Stored by the page (IndexedDB) and the CLI (run folders); read back through
 * {@link restoreTrajectory}, which upgrades any older `schemaVersion` to the
 * current one, and turned into metrics input by {@link episodeSummary}.
 *
 * Protocol terms follow RECODE-H (RECODE-H.md, "Interaction protocol"): turns
 * are 0-based, turn 0 is generated without feedback and may be shared by all
 * levels (`sharedTurn0`), the episode stops at the first all-pass turn or after
 * `maxTurns` turns, and the agent takes at most `maxSteps` actions per turn.
 *
 * Versions:
 * - 1: flat configuration (`model`, `researcher`, `level`, `setting`, `taskId`,
 *   `maxTurns` at the top), turns `{turn, code, result, ...}`, no token counts,
 *   no versions block, no `maxSteps`, no `sharedTurn0`.
 * - 2: `config`, `versions`, per-turn `tokens` / `researcherTokens`,
 *   `sharedTurn0`, `error`.
 * - 3: test statuses `xfail` and `xpass` (with their counts) and per-test
 *   `subtests`; a version 2 record upgrades with zero counts and no subtests.
 * - 4 (current): test status `not_run` (with its count) for a test the run
 *   never reached (a time limit, a stop or a crash in an earlier test); version
 *   3 called such a test `skipped`, and a version 3 record upgrades as it is,
 *   with a zero count.
 */
import { z } from "zod";
import { FeedbackRecordSchema } from "./feedback";
import { type EpisodeSummary, turnOutcome } from "./metrics";
import { addTokens, type ChatMessage, type TokenCounts } from "./model";
import { type RunResult, runSolved, TEST_STATUSES } from "./results";
import { SeatSamplingSchema } from "./sampling";
import {
  AgentSettingSchema,
  FeedbackLevelSchema,
  ProtocolProfileSchema,
  StoppedReasonSchema as StoppedReasonValueSchema,
} from "./vocabulary";

/** The schema version this build writes. */
export const TRAJECTORY_SCHEMA_VERSION = 4;

/** Actions per turn when an old record does not say (RECODE-H: at most 3 actions per turn). */
export const DEFAULT_MAX_STEPS = 3;

// ---------------------------------------------------------------------------
// Building blocks (shared by all versions)

const count = z.number().int().nonnegative();
const millis = z.number().nonnegative();

const MismatchSchema = z.object({
  key: z.string(),
  kind: z.enum(["type", "length", "shape", "dtype", "keys", "value", "raised"]),
  where: z.string(),
  expected: z.string(),
  actual: z.string(),
  detail: z.string(),
  /** Absent before outcome() calls were named. */
  call: z.string().optional(),
});

const SubTestResultSchema = z.object({
  params: z.string(),
  status: z.enum(["failed", "error", "skipped"]),
  message: z.string(),
  traceback: z.string(),
});

const TestResultSchema = z.object({
  id: z.string(),
  interface: z.string().nullable(),
  status: z.enum(TEST_STATUSES),
  durationMs: millis,
  message: z.string(),
  traceback: z.string(),
  line: z.number().int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  mismatch: MismatchSchema.nullable(),
  /** Absent before version 3. */
  subtests: z.array(SubTestResultSchema).default([]),
});

/** Zod schema of a {@link RunResult} (src/core/results.ts). */
export const RunResultSchema: z.ZodType<RunResult, unknown> = z
  .object({
    backend: z.enum(["pyodide", "native"]),
    tests: z.array(TestResultSchema),
    collectionError: z
      .object({ message: z.string(), file: z.string().nullable(), line: z.number().int().nullable(), traceback: z.string() })
      .nullable(),
    counts: z.object({
      total: count,
      passed: count,
      failed: count,
      error: count,
      skipped: count,
      /** Absent before version 3. */
      xfail: count.default(0),
      xpass: count.default(0),
      timeout: count,
      /** Absent before version 4: such runs called a test the run never reached `skipped`. */
      not_run: count.default(0),
    }),
    allPassed: z.boolean(),
    durationMs: millis,
    waitedMs: millis.optional(),
    incident: z
      .object({
        kind: z.enum(["timeout", "terminated", "crashed", "poisoned", "packages", "tampered"]),
        message: z.string(),
        respawned: z.boolean(),
      })
      .nullable(),
    recorded: z.string().nullable(),
  })
  .superRefine((r, ctx) => {
    // The counts and the verdict must agree with the tests (see runSolved).
    const c = r.counts;
    const byStatus = Object.fromEntries(TEST_STATUSES.map((s) => [s, 0])) as Record<(typeof TEST_STATUSES)[number], number>;
    for (const t of r.tests) byStatus[t.status] += 1;
    if (c.total !== r.tests.length)
      ctx.addIssue({ code: "custom", path: ["counts", "total"], message: `${c.total} but ${r.tests.length} tests are listed` });
    for (const k of Object.keys(byStatus) as (keyof typeof byStatus)[]) {
      if (c[k] !== byStatus[k])
        ctx.addIssue({ code: "custom", path: ["counts", k], message: `${c[k]} but ${byStatus[k]} tests have status ${k}` });
    }
    const pass = runSolved(c, r.collectionError);
    if (r.allPassed !== pass) ctx.addIssue({ code: "custom", path: ["allPassed"], message: `is ${r.allPassed} but the tests say ${pass}` });
  });

/** Zod schema of a {@link FeedbackRecord}; the same one src/core/feedback.ts validates researchers' output with. */
export { FeedbackRecordSchema };

/** Zod schema of a {@link ChatMessage} as trajectories and agent memory store it. */
export const ChatMessageSchema: z.ZodType<ChatMessage> = z.object({
  role: z.enum(["system", "user", "assistant"]),
  content: z.string(),
  reasoning: z.string().optional(),
  leftOut: z.array(z.string()).optional(),
  retried: z.array(z.string()).optional(),
});

/** One agent action in a turn (ReCodeAgent: READ, BROWSE, RETRIEVE, REPLACE, SUBMIT; `INVALID` for a malformed one). */
const ActionSchema = z.object({
  /** Action name as the agent wrote it, e.g. `READ`. */
  type: z.string().min(1),
  /** Its argument (a path, a query, the new file text), or "" when it takes none. */
  argument: z.string(),
  /** What the action returned to the agent (file text, list, correction message). */
  result: z.string(),
});

const TimingsSchema = z.object({
  /** Agent (coder) time for the turn, in milliseconds. */
  agentMs: millis,
  /** Test run time, in milliseconds. */
  testMs: millis,
  /** Researcher review time, in milliseconds (0 when no review). */
  researcherMs: millis,
  /** Waits before retried model calls of the coder (a server's Retry-After, backoff), in milliseconds, not in `agentMs`; absent when none. */
  retryWaitMs: millis.optional(),
});

/** Tokens of a turn; `unreported`: calls whose server sent no counts (the sums are then a lower bound). */
const TokensSchema = z.object({ prompt: count, completion: count, unreported: count.optional() });

/** An agent setting (RECODE-H: baseline, agent, memory_agent). */
export const SettingSchema = AgentSettingSchema;
const LevelSchema = FeedbackLevelSchema;

/** Why an episode stopped: solved, turn limit reached, a failure (see `error`), or the user cancelled. */
const StoppedReasonSchema = StoppedReasonValueSchema.nullable();

// ---------------------------------------------------------------------------
// Version 2 (current)

/** One turn of a trajectory. */
export const TrajectoryTurnSchema = z
  .object({
    /** 0-based turn index; equals the position in `turns`. */
    index: count,
    /** The target file text submitted this turn. */
    code: z.string(),
    /** Test results of `code`. */
    run: RunResultSchema,
    /** Raw researcher record (all fields, renderable at any level), or null when there was no review. */
    feedback: FeedbackRecordSchema.nullable(),
    /** Feedback text as the agent received it after this turn, rendered at the episode's level ("" when none). */
    feedbackText: z.string(),
    /** Pieces of code the level removed from the researcher's record before the agent saw it (below L4; absent when none). */
    codeOmitted: count.optional(),
    /** The agent's chat messages for this turn. */
    messages: z.array(ChatMessageSchema),
    /** The agent's actions this turn, in order. */
    actions: z.array(ActionSchema),
    timings: TimingsSchema,
    /** Tokens of the coder model this turn. */
    tokens: TokensSchema,
    /** Tokens of the researcher model for the review of this turn (0 for rules/human researchers). */
    researcherTokens: TokensSchema,
    /**
     * Why the researcher could not review this turn, when it could not: the turn (the coder's reply and its test run)
     * is kept, the episode ended in an error, and a resume reviews it before the next turn (the coder is not asked
     * again). Absent once reviewed.
     */
    reviewError: z.string().optional(),
  })
  .strict();

/** Current trajectory schema. */
export const TrajectorySchema = z
  .object({
    schemaVersion: z.literal(TRAJECTORY_SCHEMA_VERSION),
    /** ISO 8601 start time, or null when unknown (upgraded records). */
    createdAt: z.string().nullable(),
    config: z
      .object({
        /** Coder model id, e.g. `ollama:qwen2.5-coder:7b`, or `human`. */
        model: z.string().min(1),
        /** Researcher id, e.g. `rules`, `llm:openai:gpt-4o-mini`, `human`. */
        researcher: z.string().min(1),
        level: LevelSchema,
        setting: SettingSchema,
        /** Turn limit (RECODE-H: 10). */
        maxTurns: z.number().int().positive(),
        /** Actions per turn before the code is submitted automatically (RECODE-H: 3). */
        maxSteps: z.number().int().positive(),
        /** Decoding settings of the coder and the researcher; absent: the protocol's (temperature 0, top-p 1). */
        sampling: SeatSamplingSchema.optional(),
        /** Protocol profile (src/core/protocol.ts); absent in records written before profiles: `playground`. */
        protocol: ProtocolProfileSchema.optional(),
      })
      .strict(),
    versions: z
      .object({
        /** Product version (package.json), or `unknown`. */
        app: z.string().min(1),
        /** Python version string of the runtime, e.g. `3.14.0 (pyodide)`, or `unknown`. */
        python: z.string().min(1),
        task: z.object({ id: z.string().min(1), contentHash: z.string().min(1).nullable() }).strict(),
        /** Git commit of the product, or null when unknown. */
        gitCommit: z.string().min(1).nullable(),
      })
      .strict(),
    /** Turn 0 was reused from another level's episode of the same model and task (RECODE-H: turn 0 is shared). */
    sharedTurn0: z.boolean(),
    turns: z.array(TrajectoryTurnSchema),
    /** True once the episode ended (solved, turn limit, error or cancelled). */
    finished: z.boolean(),
    stoppedReason: StoppedReasonSchema,
    /** What went wrong when `stoppedReason` is `error`, else null. */
    error: z.string().nullable(),
    /** Wall time of the episode, in milliseconds. */
    wallMs: millis,
  })
  .strict()
  .superRefine((t, ctx) => {
    t.turns.forEach((turn, i) => {
      if (turn.index !== i)
        ctx.addIssue({ code: "custom", path: ["turns", i, "index"], message: `expected ${i} (the turn's position), got ${turn.index}` });
    });
    if (t.turns.length > t.config.maxTurns) {
      ctx.addIssue({ code: "custom", path: ["turns"], message: `${t.turns.length} turns exceed config.maxTurns ${t.config.maxTurns}` });
    }
    if (t.finished !== (t.stoppedReason !== null)) {
      ctx.addIssue({
        code: "custom",
        path: ["stoppedReason"],
        message: t.finished ? "a finished episode needs a stoppedReason" : "an unfinished episode has stoppedReason null",
      });
    }
    if (t.stoppedReason === "solved" && !t.turns.at(-1)?.run.allPassed) {
      ctx.addIssue({ code: "custom", path: ["stoppedReason"], message: "is solved but the last turn did not pass every test" });
    }
  });

/** A trajectory record (current schema). */
export type Trajectory = z.infer<typeof TrajectorySchema>;
/** One turn of a trajectory. */
export type TrajectoryTurn = z.infer<typeof TrajectoryTurnSchema>;
/** One agent action. */
export type AgentAction = z.infer<typeof ActionSchema>;
/** Why an episode stopped. */
export type StoppedReason = z.infer<typeof StoppedReasonSchema>;

// ---------------------------------------------------------------------------
// Version 1

const TrajectoryV1Schema = z
  .object({
    schemaVersion: z.literal(1),
    startedAt: z.string().optional(),
    model: z.string().min(1),
    researcher: z.string().min(1),
    level: LevelSchema,
    setting: SettingSchema,
    taskId: z.string().min(1),
    maxTurns: z.number().int().positive(),
    turns: z.array(
      z
        .object({
          turn: count,
          code: z.string(),
          result: RunResultSchema,
          feedback: FeedbackRecordSchema.nullable(),
          feedbackText: z.string(),
          messages: z.array(ChatMessageSchema),
          actions: z.array(ActionSchema),
          timings: TimingsSchema,
        })
        .strict(),
    ),
    finished: z.boolean(),
    stoppedReason: z.enum(["solved", "max_turns", "error"]).nullable(),
    wallMs: millis,
  })
  .strict();

type TrajectoryV1 = z.infer<typeof TrajectoryV1Schema>;

function upgradeV1(v1: TrajectoryV1): TrajectoryV2 {
  const zero = { prompt: 0, completion: 0 };
  return {
    schemaVersion: 2,
    createdAt: v1.startedAt ?? null,
    config: {
      model: v1.model,
      researcher: v1.researcher,
      level: v1.level,
      setting: v1.setting,
      maxTurns: v1.maxTurns,
      maxSteps: DEFAULT_MAX_STEPS,
    },
    versions: { app: "unknown", python: "unknown", task: { id: v1.taskId, contentHash: null }, gitCommit: null },
    sharedTurn0: false,
    turns: v1.turns.map((t) => ({
      index: t.turn,
      code: t.code,
      run: t.result,
      feedback: t.feedback,
      feedbackText: t.feedbackText,
      messages: t.messages,
      actions: t.actions,
      timings: t.timings,
      tokens: { ...zero },
      researcherTokens: { ...zero },
    })),
    finished: v1.finished,
    stoppedReason: v1.stoppedReason,
    error: v1.stoppedReason === "error" ? "unknown (recorded before errors were kept)" : null,
    wallMs: v1.wallMs,
  };
}

// ---------------------------------------------------------------------------
// Version 2: the same shape; its run results lack the fields version 3 added,
// which the run-result schema fills (no xfail/xpass, no subtests).

// The current schema checks every field after the upgrades.
const TrajectoryV2Schema = z.looseObject({ schemaVersion: z.literal(2) });
type TrajectoryV2 = Omit<Trajectory, "schemaVersion"> & { schemaVersion: 2 };

function upgradeV2(v2: TrajectoryV2): unknown {
  return { ...v2, schemaVersion: 3 };
}

// Version 3: the same shape; its run results lack the `not_run` count, which the run-result schema fills.
const TrajectoryV3Schema = z.looseObject({ schemaVersion: z.literal(3) });
type TrajectoryV3 = Omit<Trajectory, "schemaVersion"> & { schemaVersion: 3 };

function upgradeV3(v3: TrajectoryV3): unknown {
  return { ...v3, schemaVersion: 4 };
}

/** Each known version: its schema and the step to the next version (none for the current one). */
const VERSIONS: Record<number, { schema: z.ZodType; upgrade?: (old: never) => unknown }> = {
  1: { schema: TrajectoryV1Schema, upgrade: upgradeV1 as (old: never) => unknown },
  2: { schema: TrajectoryV2Schema, upgrade: upgradeV2 as (old: never) => unknown },
  3: { schema: TrajectoryV3Schema, upgrade: upgradeV3 as (old: never) => unknown },
  4: { schema: TrajectorySchema },
};

// ---------------------------------------------------------------------------
// Reading

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(top level)";
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out;
}

/** Zod issues as one line: `field.path: message; ...` (at most `max`). */
export function describeIssues(error: z.ZodError, max = 5): string {
  const lines = error.issues.slice(0, max).map((i) => `${formatPath(i.path)}: ${i.message}`);
  if (error.issues.length > max) lines.push(`... and ${error.issues.length - max} more`);
  return lines.join("; ");
}

/** A trajectory record that cannot be read: names the version and the field. */
export class TrajectoryError extends Error {
  constructor(message: string) {
    super(`trajectory: ${message}`);
    this.name = "TrajectoryError";
  }
}

/**
 * Read a stored trajectory record of any known version and return it in the
 * current schema. Accepts the parsed JSON value or its text.
 *
 * @throws TrajectoryError for text that is not JSON, a value that is not an
 *   object, a missing or unknown `schemaVersion` (says which versions this build
 *   reads), or a record that does not match its version's schema (names the
 *   field, e.g. `turns[2].run.counts.passed: ...`).
 */
export function restoreTrajectory(json: unknown): Trajectory {
  let value = json;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch (err) {
      throw new TrajectoryError(`not valid JSON: ${(err as Error).message}`);
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TrajectoryError(`expected a JSON object, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`);
  }
  const version = (value as { schemaVersion?: unknown }).schemaVersion;
  const known = Object.keys(VERSIONS).join(", ");
  if (version === undefined) throw new TrajectoryError(`schemaVersion: missing; this build reads versions ${known}`);
  if (typeof version !== "number" || !Number.isInteger(version) || !(version in VERSIONS)) {
    const newer = typeof version === "number" && version > TRAJECTORY_SCHEMA_VERSION;
    throw new TrajectoryError(
      `schemaVersion: unknown version ${JSON.stringify(version)}; this build reads versions ${known}${newer ? " (the record comes from a newer build: update the app)" : ""}`,
    );
  }
  let current: unknown = value;
  for (let v = version; ; v++) {
    const step = VERSIONS[v] as { schema: z.ZodType; upgrade?: (old: never) => unknown };
    const parsed = step.schema.safeParse(current);
    if (!parsed.success) {
      const upgraded = v !== version ? ` (after upgrading from version ${version})` : "";
      throw new TrajectoryError(`invalid version ${v} record${upgraded}: ${describeIssues(parsed.error)}`);
    }
    if (!step.upgrade) return parsed.data as Trajectory;
    current = step.upgrade(parsed.data as never);
  }
}

/**
 * Check a record in the current schema (e.g. before saving).
 * @throws TrajectoryError naming the field.
 */
export function validateTrajectory(value: unknown): Trajectory {
  const parsed = TrajectorySchema.safeParse(value);
  if (!parsed.success) throw new TrajectoryError(`invalid version ${TRAJECTORY_SCHEMA_VERSION} record: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * How an episode ended, in words, as the page's transcript and `recode show` say it: `unfinished`, `solved at turn
 * <n>` (n from 0), `not solved (turn limit)`, or `stopped by an error`.
 */
export function episodeOutcome(t: Trajectory): string {
  if (!t.finished) return "unfinished";
  if (t.stoppedReason === "solved") return `solved at turn ${t.turns.length - 1}`;
  if (t.stoppedReason === "max_turns") return "not solved (turn limit)";
  return "stopped by an error";
}

/**
 * Metrics input for one trajectory: per-turn outcomes from each turn's run
 * (collection errors count as 0 passed), the coder model's tokens summed over
 * all turns (a shared turn 0 included: it is part of what the episode cost),
 * and the episode's wall time.
 */
export function episodeSummary(t: Trajectory): EpisodeSummary {
  return {
    model: t.config.model,
    setting: t.config.setting,
    level: t.config.level,
    researcher: t.config.researcher,
    taskId: t.versions.task.id,
    turns: t.turns.map((turn) => turnOutcome(turn.run)),
    tokens: t.turns.reduce((a: TokenCounts, turn) => addTokens(a, turn.tokens), { prompt: 0, completion: 0 }),
    wallMs: t.wallMs,
  };
}
