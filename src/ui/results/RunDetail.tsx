/**
 * One run on the results page: its table by feedback level (Recall@n, MRR,
 * test-case pass rate, with the n used), its per-task table, and its per-turn
 * Recall@k chart. A cell opens the episodes behind it.
 */
import { useId, useMemo } from "react";
import type { FeedbackLevel } from "../../core/feedback";
import { plural } from "../../core/plural";
import { buildReport } from "../../core/report";
import { type Run, runInputs, taskTable } from "../../core/runs";
import { FEEDBACK_LEVELS } from "../../core/vocabulary";
import { unreportedNote } from "../agent/tokens";
import { LEVEL_METRICS, LevelHead, MetricCell, pct } from "./level-columns";
import { type RecallSeries, RunChart } from "./RunChart";

/** What a click on a cell asks to see. */
export interface CellChoice {
  run: Run;
  level: FeedbackLevel;
  /** One task's episode; absent: every episode of the level. */
  taskId?: string;
}

/** A date as the list shows it (local time, to the minute), or "–". */
export function shortDate(iso: string | null): string {
  if (!iso) return "–";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/**
 * One run's tables and chart.
 * @param n the n of Recall@n, MRR and pass rate (turns counted).
 * @param onOpen called with the cell clicked.
 */
export function RunDetail({ run, n, onOpen }: { run: Run; n: number; onOpen: (c: CellChoice) => void }) {
  const nId = useId();
  const report = useMemo(() => buildReport(runInputs([run]), n), [run, n]);
  const tasks = useMemo(() => taskTable(run, n), [run, n]);
  const series: RecallSeries[] = useMemo(
    () => report.rows.map((r) => ({ label: `L${r.level}`, level: r.level, run: 0, values: r.curve })),
    [report],
  );
  const levels = FEEDBACK_LEVELS.filter((l) => run.levels.includes(l));
  const tokens = report.rows.reduce((a, r) => a + r.tokens.prompt + r.tokens.completion, 0);
  const unreported = report.rows.reduce((a, r) => a + (r.tokens.unreported ?? 0), 0);
  return (
    <section className="result-group run-detail" data-testid="run-detail" data-model={run.model} data-setting={run.setting}>
      <h4>
        <code>{run.model}</code> · {run.setting} · {run.conditions.protocol} protocol · researcher {run.researcher}
      </h4>
      <div className="muted small">
        {plural(run.tasks.length, "task")} · {plural(run.episodes.length, "episode")}
        {run.unfinished ? ` (${run.unfinished} unfinished)` : ""} · turn limit {run.maxTurns} · {run.conditions.maxSteps} actions per turn ·
        backend {run.conditions.backend}
        {run.conditions.sampling ? ` · ${run.conditions.sampling}` : ""} · {tokens.toLocaleString()} coder tokens
        {unreportedNote(unreported)} · {shortDate(run.firstAt)}
        {run.lastAt !== run.firstAt ? ` – ${shortDate(run.lastAt)}` : ""}
      </div>
      <table className="metrics level-table" data-testid="metrics-table" aria-describedby={nId}>
        <LevelHead first="%" levels={levels} />
        <tbody>
          {LEVEL_METRICS.map((metric) => (
            <tr key={metric.id}>
              <th scope="row">{metric.label(n)}</th>
              {levels.map((l) => (
                <MetricCell
                  key={l}
                  metric={metric}
                  level={l}
                  row={report.rows.find((x) => x.level === l)}
                  n={n}
                  onOpen={() => onOpen({ run, level: l })}
                />
              ))}
            </tr>
          ))}
          <tr>
            <th scope="row">tasks (solved)</th>
            {levels.map((l) => {
              const r = report.rows.find((x) => x.level === l);
              return (
                <td key={l} data-level={l} className="metric-cell tasks">
                  {r ? `${r.taskCount} (${r.solvedCount})` : "–"}
                </td>
              );
            })}
          </tr>
        </tbody>
      </table>
      <p className="muted small" id={nId}>
        In %, over the first n = {plural(n, "turn")}
        {n < run.maxTurns ? ` of ${run.maxTurns}` : ""}; a cell lists its episodes.
      </p>
      <RunChart series={series} runs={1} title={`${run.model}, ${run.setting}`} />
      <details className="task-table" open={run.tasks.length <= 12}>
        <summary>Per task ({run.tasks.length})</summary>
        <p className="muted small">
          First all-pass turn within {plural(n, "turn")} (turns count from 0, as MRR does: turn 1 is the second), else the best test-case
          pass rate; a cell opens the episode.
        </p>
        <table className="metrics" data-testid="task-table">
          <LevelHead first="task" levels={levels} />
          <tbody>
            {tasks.map((line) => (
              <tr key={line.taskId} data-task-id={line.taskId}>
                <th scope="row">
                  <code>{line.taskId}</code>
                </th>
                {levels.map((l) => {
                  const c = line.cells[l];
                  return (
                    <td key={l} data-level={l} className={`metric-cell ${c ? (c.solvedAt !== null ? "ok" : "bad") : ""}`}>
                      {c ? (
                        <button
                          type="button"
                          className="cell-button"
                          onClick={() => onOpen({ run, level: l, taskId: line.taskId })}
                          title={`Open the L${l} episode of ${line.taskId}`}
                        >
                          {c.solvedAt !== null ? `turn ${c.solvedAt}` : `${pct(c.passRate)}%`}
                          {c.episode.trajectory.finished ? "" : " …"}
                        </button>
                      ) : (
                        "–"
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
