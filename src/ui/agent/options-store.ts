/**
 * The Agent tab's options per task, kept in the browser (localStorage) so that
 * a reload, or a run resumed later, starts from what was chosen. A stored value
 * that does not pass its schema (another version of the page, a hand edit) is
 * ignored and the defaults are used.
 */
import { z } from "zod";
import { AgentSettingSchema, FeedbackLevelSchema, ProtocolProfileSchema } from "../../core/vocabulary";
import type { AgentRunOptions } from "./controller";

const KEY = "recode.agent-options.";

const OptionsSchema: z.ZodType<AgentRunOptions> = z.object({
  setting: AgentSettingSchema,
  levels: z.array(FeedbackLevelSchema).min(1),
  maxTurns: z.number().int().min(1).max(50),
  maxSteps: z.number().int().min(1).max(20),
  researcher: z.enum(["rules", "llm"]),
  protocol: ProtocolProfileSchema,
});

/** The options stored for `taskId`, or null (none, unreadable, or storage unavailable). */
export function loadAgentOptions(taskId: string): AgentRunOptions | null {
  try {
    const raw = globalThis.localStorage?.getItem(KEY + taskId);
    if (!raw) return null;
    const r = OptionsSchema.safeParse(JSON.parse(raw));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/** Keep `options` for `taskId` (nothing happens where storage is unavailable or full). */
export function saveAgentOptions(taskId: string, options: AgentRunOptions): void {
  try {
    globalThis.localStorage?.setItem(KEY + taskId, JSON.stringify(options));
  } catch {
    // private mode or a full quota: the options last while the page is open
  }
}
