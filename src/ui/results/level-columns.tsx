/**
 * What the results page's tables share: the metrics of a level's cell
 * (RECODE-H "Metrics": Recall@n, MRR, test-case pass rate) and the heading
 * row with one column per feedback level.
 */
import type { FeedbackLevel } from "../../core/feedback";
import type { MetricsRow } from "../../core/metrics";
import { plural } from "../../core/plural";

/** A metric of a level: its id (the cell's class), its label for n turns, and its value in 0..1. */
export interface LevelMetric {
  id: "recall" | "mrr" | "pass";
  label: (n: number) => string;
  value: (r: MetricsRow) => number;
}

/** The three metrics, in table order. */
export const LEVEL_METRICS: readonly LevelMetric[] = [
  { id: "recall", label: (n) => `Recall@${n}`, value: (r) => r.recallAtN },
  { id: "mrr", label: () => "MRR", value: (r) => r.mrr },
  { id: "pass", label: () => "test-case pass rate", value: (r) => r.passRate },
];

/** A value in 0..1 as a percentage with one decimal. */
export const pct = (v: number) => (v * 100).toFixed(1);

/** The heading row: `first`, then L0..L4 (the levels given). */
export function LevelHead({ first, levels }: { first: string; levels: readonly FeedbackLevel[] }) {
  return (
    <thead>
      <tr>
        <th scope="col">{first}</th>
        {levels.map((l) => (
          <th key={l} scope="col">
            L{l}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** Props of {@link MetricCell}. */
export interface MetricCellProps {
  /** The metric shown. */
  metric: LevelMetric;
  level: FeedbackLevel;
  /** The level's metrics; none: the run has no episode at this level ("–"). */
  row: MetricsRow | undefined;
  /** n of Recall@n, in turns. */
  n: number;
  /** Names the run in the tooltip when the table holds several ("run 2"). */
  runName?: string;
  /** Opens the episodes behind the cell. */
  onOpen: () => void;
}

/** A level's value of a metric, in %, as a button that opens its episodes (or "–" when the level has none). */
export function MetricCell({ metric, level, row, n, runName, onOpen }: MetricCellProps) {
  return (
    <td data-level={level} className={`metric-cell ${metric.id}`}>
      {row ? (
        <button
          type="button"
          className="cell-button"
          onClick={onOpen}
          title={`${runName ? `${runName}, ` : ""}L${level}: ${row.solvedCount} of ${plural(row.taskCount, "task")} solved within ${plural(n, "turn")}. Show the episodes.`}
        >
          {pct(metric.value(row))}
        </button>
      ) : (
        "–"
      )}
    </td>
  );
}
