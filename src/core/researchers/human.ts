/**
 * The human researcher: a person writes the feedback record (in the page, a
 * form). RECODE-H simulates the researcher with a model; this seat lets a
 * teacher or a researcher give the same structured feedback themselves.
 */
import { z } from "zod";
import {
  type FeedbackItem,
  FeedbackItemSchema,
  type FeedbackRecord,
  formatSchemaIssues,
  type Researcher,
  ResearcherError,
  type ReviewInput,
} from "../feedback";

/** Supplies the items a person wrote for one review (the page shows the form and resolves when it is sent). */
export type HumanFeedbackCallback = (input: ReviewInput) => Promise<FeedbackItem[]>;

const ItemsSchema = z.array(FeedbackItemSchema);

/**
 * A researcher whose review() awaits `ask(input)` and validates the items with
 * the feedback schema. Rejects with ResearcherError (`researcher human: ...`)
 * naming the item and field that are invalid; a rejection of `ask` (e.g. the
 * person cancelled) propagates unchanged.
 */
export function createHumanResearcher(ask: HumanFeedbackCallback): Researcher {
  return {
    id: "human",
    async review(input: ReviewInput): Promise<FeedbackRecord> {
      const items = await ask(input);
      const res = ItemsSchema.safeParse(items);
      if (!res.success)
        throw new ResearcherError("human", `the feedback form is not valid: ${formatSchemaIssues(res.error).replace(/^\[/, "item [")}`);
      return { researcher: "human", items: res.data };
    },
  };
}
