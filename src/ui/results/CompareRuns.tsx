/**
 * Two or more runs side by side: one metric per feedback level for each run,
 * at one shared n (the largest every run could reach), and all their Recall@k
 * curves in one chart, a colour per run and a dash pattern per level.
 */
import { useMemo, useState } from "react";
import { plural } from "../../core/plural";
import { buildReport } from "../../core/report";
import { type Run, runInputs, runLabel } from "../../core/runs";
import { FEEDBACK_LEVELS } from "../../core/vocabulary";
import { LEVEL_METRICS, LevelHead, type LevelMetric, MetricCell } from "./level-columns";
import { type RecallSeries, RunChart } from "./RunChart";
import type { CellChoice } from "./RunDetail";

/** The comparison of `runs` at n turns; a cell opens its episodes. */
export function CompareRuns({ runs, n, onOpen }: { runs: Run[]; n: number; onOpen: (c: CellChoice) => void }) {
  const [metric, setMetric] = useState<LevelMetric["id"]>("recall");
  const reports = useMemo(() => runs.map((r) => buildReport(runInputs([r]), n)), [runs, n]);
  const series: RecallSeries[] = useMemo(
    () =>
      reports.flatMap((rep, i) =>
        rep.rows.map((row) => ({ label: `run ${i + 1} · L${row.level}`, level: row.level, run: i, values: row.curve })),
      ),
    [reports],
  );
  const m = LEVEL_METRICS.find((x) => x.id === metric) as LevelMetric;
  return (
    <section className="result-group compare-runs" data-testid="compare-runs">
      <h4>
        {runs.length} runs compared at n = {plural(n, "turn")}
      </h4>
      <label className="inline small">
        Metric{" "}
        <select aria-label="Metric" value={metric} onChange={(e) => setMetric(e.target.value as LevelMetric["id"])}>
          {LEVEL_METRICS.map((x) => (
            <option key={x.id} value={x.id}>
              {x.label(n)}
            </option>
          ))}
        </select>
      </label>
      <table className="metrics" data-testid="compare-table">
        <caption className="muted small">{m.label(n)}, in %; a cell lists its episodes.</caption>
        <LevelHead first="run" levels={FEEDBACK_LEVELS} />
        <tbody>
          {runs.map((run, i) => (
            <tr key={run.id} data-model={run.model}>
              <th scope="row">
                <span className="run-number">run {i + 1}</span> <span className="small">{runLabel(run)}</span>
              </th>
              {FEEDBACK_LEVELS.map((l) => (
                <MetricCell
                  key={l}
                  metric={m}
                  level={l}
                  row={reports[i]?.rows.find((r) => r.level === l)}
                  n={n}
                  runName={`run ${i + 1}`}
                  onOpen={() => onOpen({ run, level: l })}
                />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <RunChart series={series} runs={runs.length} title={`${runs.length} runs`} />
    </section>
  );
}
