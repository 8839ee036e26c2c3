/**
 * The rules researcher's actionable feedback (RECODE-H.md, "Feedback
 * hierarchy": L3, guidance in words): the task's authored text for the kind
 * of mistake the item is about, chosen from task.json (docs/task-format.md).
 */
import type { FeedbackCategory } from "../feedback";
import type { TaskInterface } from "../task";

/** What the mistake is, for choosing an authored text. */
export interface MistakeKind {
  category: FeedbackCategory;
  /** Keys of the checks whose values are wrong, in test order, when the item is about wrong values. */
  checks: readonly string[];
  /** Type of the exception that decided the item (`ZeroDivisionError`), when one did. */
  exception: string | null;
}

/**
 * The authored L3 text for an item about `itf`, the first that applies of:
 * `guidance_by_exception[exception]`; `guidance_by_check[check]` for a T2 or
 * T3 item, for the first wrong check that has one; `guidance_by_category[category]`;
 * the interface's `guidance`; `fallback` (for an item that is not about an
 * interface of the task).
 */
export function authoredGuidance(itf: TaskInterface | undefined, kind: MistakeKind, fallback: string): string {
  if (!itf) return fallback;
  const byException = kind.exception ? itf.guidance_by_exception?.[kind.exception] : undefined;
  const byCheck =
    kind.category === "T2" || kind.category === "T3"
      ? kind.checks.map((k) => itf.guidance_by_check?.[k]).find((t) => t !== undefined)
      : undefined;
  return byException ?? byCheck ?? itf.guidance_by_category?.[kind.category] ?? itf.guidance;
}

/** The L3 text: a sentence about this very mistake (when there is one) before the authored text. */
export function actionableFeedback(lead: string | null, authored: string): string {
  return [lead, authored].filter((s) => s !== null && s.trim() !== "").join(" ");
}
