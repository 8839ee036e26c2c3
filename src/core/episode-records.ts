/**
 * Schemas of what the episode runner stores besides trajectories: the shared
 * turn 0, the coder's turn 0 whose review failed, and the agent memory saved
 * with every turn. Every read goes through the `restore*` functions here, in
 * the run folder and in the page alike, so a damaged record is named (where,
 * and the field) instead of being used.
 */
import { z } from "zod";
import type { AgentMemoryState } from "./agent/types";
import type { EpisodeConfig, SharedTurn0, Turn0Partial } from "./episode";
import { SeatSamplingSchema } from "./sampling";
import { ChatMessageSchema, describeIssues, SettingSchema, TrajectoryTurnSchema } from "./trajectory";
import { ProtocolProfileSchema } from "./vocabulary";

/** Zod schema of an {@link EpisodeConfig}. */
export const EpisodeConfigSchema = z
  .object({
    model: z.string().min(1),
    researcher: z.string().min(1),
    setting: SettingSchema,
    maxTurns: z.number().int().positive(),
    maxSteps: z.number().int().positive(),
    sampling: SeatSamplingSchema.optional(),
    protocol: ProtocolProfileSchema.optional(),
  })
  .strict();

/** Zod schema of an {@link AgentMemoryState}. */
export const AgentMemorySchema = z
  .object({
    taskId: z.string().nullable(),
    lastTurn: z.number().int().min(-1),
    messages: z.array(ChatMessageSchema),
  })
  .strict();

/** Zod schema of a {@link SharedTurn0}: a turn without the level's feedback text. */
export const SharedTurn0Schema = z
  .object({
    taskId: z.string().min(1),
    config: EpisodeConfigSchema,
    // (A level's own fields, if a record holds them, are dropped: turn 0 is shared by every level.)
    turn: TrajectoryTurnSchema.omit({ feedbackText: true, codeOmitted: true }).strip(),
    memory: AgentMemorySchema,
  })
  .strict()
  .refine((t) => t.turn.index === 0, { message: "turn.index must be 0", path: ["turn", "index"] });

/** Zod schema of a {@link Turn0Partial}: the coder's turn 0 and its test run, before the review. */
export const Turn0PartialSchema = z
  .object({
    turn: TrajectoryTurnSchema.omit({ feedbackText: true, codeOmitted: true, feedback: true, researcherTokens: true }),
    memory: AgentMemorySchema,
    config: EpisodeConfigSchema.optional(),
  })
  .strict();

/** A stored episode record that cannot be read; the message names where it is and the field. */
export class EpisodeRecordError extends Error {
  constructor(
    /** The file or the store key. */
    readonly where: string,
    readonly problem: string,
  ) {
    super(`${where}: ${problem}`);
    this.name = "EpisodeRecordError";
  }
}

function parse<T>(schema: z.ZodType<T, unknown>, raw: unknown, where: string, what: string): T {
  const r = schema.safeParse(raw);
  if (!r.success) throw new EpisodeRecordError(where, `not ${what}: ${describeIssues(r.error)}`);
  return r.data;
}

/** Read a stored shared turn 0. @throws EpisodeRecordError naming `where` and the field. */
export function restoreSharedTurn0(raw: unknown, where: string): SharedTurn0 {
  return parse(SharedTurn0Schema as z.ZodType<SharedTurn0, unknown>, raw, where, "a shared turn 0");
}

/** Read a stored partial turn 0 (the coder's turn whose review failed). @throws EpisodeRecordError */
export function restoreTurn0Partial(raw: unknown, where: string): Turn0Partial {
  return parse(Turn0PartialSchema as z.ZodType<Turn0Partial, unknown>, raw, where, "a partial turn 0");
}

/** Read stored agent memory. @throws EpisodeRecordError */
export function restoreAgentMemory(raw: unknown, where: string): AgentMemoryState {
  return parse(AgentMemorySchema as z.ZodType<AgentMemoryState, unknown>, raw, where, "agent memory");
}
