/**
 * The replay researcher: returns stored raw feedback records again with no
 * model call (RECODE-H.md, "Feedback hierarchy": a record can be re-rendered
 * at another level without asking the model again).
 */
import { type FeedbackRecord, parseFeedbackRecord, type Researcher, ResearcherError, type ReviewInput } from "../feedback";

/** One stored record: the review of `taskId` at 0-based `turn`. */
export interface StoredFeedback {
  taskId: string;
  turn: number;
  record: FeedbackRecord;
}

/** Key of a stored record: `<task id>#<turn>`. */
export function replayKey(taskId: string, turn: number): string {
  return `${taskId}#${turn}`;
}

/**
 * A researcher that answers from stored records (e.g. taken from a
 * trajectory), keyed by task id and turn. Every record is validated when the
 * researcher is created (throws an Error naming the task and turn of a bad
 * one; a task id + turn stored twice is an error too). review() returns the
 * stored record unchanged (its `researcher` field still names who wrote it)
 * and rejects with ResearcherError when there is no record for the task and turn.
 */
export function createReplayResearcher(records: Iterable<StoredFeedback>): Researcher {
  const byKey = new Map<string, FeedbackRecord>();
  for (const r of records) {
    const key = replayKey(r.taskId, r.turn);
    if (byKey.has(key)) throw new Error(`replay: two stored records for task ${r.taskId} turn ${r.turn}`);
    byKey.set(key, parseFeedbackRecord(r.record, `replay record for task ${r.taskId} turn ${r.turn}`));
  }
  return {
    id: "replay",
    async review(input: ReviewInput): Promise<FeedbackRecord> {
      const rec = byKey.get(replayKey(input.task.id, input.turn));
      if (!rec) {
        const turns = [...byKey.keys()].filter((k) => k.startsWith(`${input.task.id}#`)).map((k) => k.split("#")[1]);
        throw new ResearcherError(
          "replay",
          `no stored feedback for task ${input.task.id} turn ${input.turn} (stored turns for this task: ${turns.join(", ") || "none"})`,
        );
      }
      return structuredClone(rec);
    },
  };
}
