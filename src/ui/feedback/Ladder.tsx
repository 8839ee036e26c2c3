/**
 * The feedback ladder: the levels asked for so far on this run can be viewed
 * again; the next one is asked for with a button, one step at a time, up to
 * the class's cap (RECODE-H levels L0-L4, "Feedback hierarchy").
 */

import { nextLevel } from "../../core/study";
import { FEEDBACK_LEVELS, type FeedbackLevel } from "../../core/vocabulary";

/** What each level adds. */
export const LEVEL_HINTS: Record<FeedbackLevel, string> = {
  0: "no feedback, only the test log",
  1: "interface + description",
  2: "+ analysis",
  3: "+ actionable guidance (no code)",
  4: "+ direct code correction",
};

/**
 * Level controls of the Feedback tab.
 * @param shown the level shown now (at most `reached`)
 * @param reached the highest level asked for on this run
 * @param cap the highest level offered: the class's cap, and at most L3 in a student build (4 otherwise)
 */
export function Ladder({
  taskId,
  shown,
  reached,
  cap,
  capReason,
  waiting,
  onShow,
  onNext,
}: {
  taskId: string;
  shown: FeedbackLevel;
  reached: FeedbackLevel;
  cap: FeedbackLevel;
  /** Why levels above `cap` are not offered (shown at the top of the ladder when `cap` < 4). */
  capReason: string;
  /** No feedback to show yet (the researcher has not reviewed the run): the next level waits for it. */
  waiting: boolean;
  onShow: (l: FeedbackLevel) => void;
  onNext: (l: FeedbackLevel) => void;
}) {
  const next = nextLevel(reached, cap);
  return (
    <fieldset className="levels" aria-label="Feedback level" data-testid="ladder" data-reached={reached} data-cap={cap}>
      <legend>Level</legend>
      {FEEDBACK_LEVELS.filter((l) => l <= cap).map((l) => (
        <label key={l} title={l > reached ? "Ask for the levels below first" : LEVEL_HINTS[l]} className={l > reached ? "locked" : ""}>
          <input
            type="radio"
            name={`level-${taskId}`}
            checked={shown === l}
            disabled={l > reached}
            onChange={() => onShow(l)}
            aria-label={`L${l}`}
          />
          L{l}
        </label>
      ))}
      {next !== null ? (
        <button
          type="button"
          className="ladder-next"
          onClick={() => onNext(next)}
          disabled={waiting}
          title={waiting ? "The researcher has not reviewed this run yet" : `L${next}: ${LEVEL_HINTS[next]}`}
        >
          Ask for more help (L{next})
        </button>
      ) : cap < 4 ? (
        <span className="muted small" data-testid="level-cap">
          {capReason}
        </span>
      ) : null}
      <span className="muted small">{LEVEL_HINTS[shown]}</span>
    </fieldset>
  );
}
