/**
 * The protocol's vocabulary, declared once (RECODE-H.md): feedback levels,
 * agent settings, test statuses, feedback categories, the reasons an episode
 * stops, and the protocol profiles. The TypeScript types and the zod schemas
 * of stored records derive from these lists, so a word cannot be added in one
 * place and missed in another.
 */
import { z } from "zod";

/** Feedback levels: L0 none, L1 interface + description, L2 + analysis, L3 + actionable guidance, L4 + direct code (RECODE-H, "Feedback hierarchy"). */
export const FEEDBACK_LEVELS = [0, 1, 2, 3, 4] as const;

/** A feedback level (see {@link FEEDBACK_LEVELS}). */
export type FeedbackLevel = (typeof FEEDBACK_LEVELS)[number];

/**
 * How the coder seat works (RECODE-H, "Interaction protocol", settings):
 * `baseline` one-shot generation each turn, no tools; `agent` ReCodeAgent with
 * tools, no memory across turns; `memory_agent` tools and memory (the paper's setting).
 */
export const AGENT_SETTINGS = ["baseline", "agent", "memory_agent"] as const;

/** An agent setting (see {@link AGENT_SETTINGS}). */
export type AgentSetting = (typeof AGENT_SETTINGS)[number];

/**
 * Outcomes of one unit test, as CPython's unittest reports them, plus `timeout`
 * (the run's wall clock ran out, or the user stopped it, during the test) and
 * `not_run` (the run ended before the test started: a time limit, a stop, a
 * crash or an interrupt in an earlier test). `xfail`: an expected failure;
 * `xpass`: an unexpected success. `skipped` is a skip the tests asked for.
 */
export const TEST_STATUSES = ["passed", "failed", "error", "skipped", "xfail", "xpass", "timeout", "not_run"] as const;

/** Outcome of one unit test (see {@link TEST_STATUSES}). */
export type TestStatus = (typeof TEST_STATUSES)[number];

/**
 * Feedback categories (RECODE-H, "Feedback hierarchy"): T0 code structure /
 * planning, T1 code correctness, T2 implementation alignment, T3 knowledge and
 * context, T4 repository integration.
 */
export const FEEDBACK_CATEGORIES = ["T0", "T1", "T2", "T3", "T4"] as const;

/** A feedback category (see {@link FEEDBACK_CATEGORIES}). */
export type FeedbackCategory = (typeof FEEDBACK_CATEGORIES)[number];

/** Why an episode stopped: solved, turn limit reached, a failure (the trajectory's `error` says which), or cancelled by the user. */
export const STOPPED_REASONS = ["solved", "max_turns", "error", "cancelled"] as const;

/** Why an episode stopped (see {@link STOPPED_REASONS}). */
export type StoppedReason = (typeof STOPPED_REASONS)[number];

/** Protocol profiles (src/core/protocol.ts): `playground` (the default) and `reference` (the official harness's behaviour). */
export const PROTOCOL_PROFILES = ["playground", "reference"] as const;

/** A protocol profile (see {@link PROTOCOL_PROFILES}). */
export type ProtocolProfile = (typeof PROTOCOL_PROFILES)[number];

/** Zod schema of a feedback level. */
export const FeedbackLevelSchema = z.literal(FEEDBACK_LEVELS);
/** Zod schema of an agent setting. */
export const AgentSettingSchema = z.enum(AGENT_SETTINGS);
/** Zod schema of a test status. */
export const TestStatusSchema = z.enum(TEST_STATUSES);
/** Zod schema of a feedback category. */
export const FeedbackCategorySchema = z.enum(FEEDBACK_CATEGORIES);
/** Zod schema of a stop reason. */
export const StoppedReasonSchema = z.enum(STOPPED_REASONS);
/** Zod schema of a protocol profile. */
export const ProtocolProfileSchema = z.enum(PROTOCOL_PROFILES);
