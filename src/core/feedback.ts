/**
 * Feedback records and their rendering by feedback level (RECODE-H.md,
 * "Feedback hierarchy"). Researchers (src/core/researchers/) produce records;
 * the level decides which prefix of an item's fields reaches the agent.
 */
import type { RunResult } from "./results";
import type { Task } from "./task";

/** T0 code structure / planning, T1 correctness (syntax, runtime), T2 implementation alignment, T3 knowledge and context, T4 repository integration. */
export type FeedbackCategory = "T0" | "T1" | "T2" | "T3" | "T4";

/** Feedback levels: L0 none, L1 interface + description, L2 + analysis, L3 + actionable guidance, L4 + direct code. */
export type FeedbackLevel = 0 | 1 | 2 | 3 | 4;

/** One difference the researcher found (fields in the order levels reveal them). */
export interface FeedbackItem {
  interface: string;
  category: FeedbackCategory;
  description: string;
  analysis: string;
  actionable_feedback: string;
  direct_code_feedback: string;
}

/** The raw record of one review: all fields, rendered at any level later ("replay"). */
export interface FeedbackRecord {
  items: FeedbackItem[];
  /** Which researcher wrote it, e.g. `rules`, `llm:openai:gpt-4o-mini`, `human`. */
  researcher: string;
}

/** What a researcher sees for one review. */
export interface ReviewInput {
  task: Task;
  /** The candidate target file that was tested. */
  code: string;
  run: RunResult;
  /** 0-based turn index of the submission. */
  turn: number;
}

/** A simulated (or human) researcher. */
export interface Researcher {
  /** `rules`, `llm:<model id>`, `human`, `replay`. */
  readonly id: string;
  /** Review a failing submission. Rejects with a clear error when it cannot (e.g. a model failed after repair). */
  review(input: ReviewInput): Promise<FeedbackRecord>;
}
