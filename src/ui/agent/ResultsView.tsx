/**
 * Results tab: the metrics of every stored trajectory, grouped as in the
 * RECODE-H paper (per model x setting, columns L0-L4 with Recall@n, MRR and
 * test-case pass rate; src/core/metrics.ts over episodeSummary), the per-turn
 * Recall@k curves, token and wall-time totals, and export / import / delete.
 */
import { useEffect, useRef, useState } from "react";
import { aggregate, DEFAULT_N, type MetricsRow } from "../../core/metrics";
import { type ImportReport, useObservable, useServices } from "../services";
import { RecallChart } from "./RecallChart";
import { unreportedNote } from "./tokens";

const pct = (v: number) => (v * 100).toFixed(1);

interface Group {
  model: string;
  setting: string;
  researcher: string;
  rows: MetricsRow[];
}

function groupRows(rows: MetricsRow[]): Group[] {
  const groups = new Map<string, Group>();
  for (const r of rows) {
    const key = JSON.stringify([r.model, r.setting, r.researcher]);
    let g = groups.get(key);
    if (!g) {
      g = { model: r.model, setting: r.setting, researcher: r.researcher, rows: [] };
      groups.set(key, g);
    }
    g.rows.push(r);
  }
  return [...groups.values()];
}

async function readFiles(list: FileList | null): Promise<{ name: string; text: string }[]> {
  const files = [...(list ?? [])].filter((f) => f.name.endsWith(".json"));
  return Promise.all(
    files.map(async (f) => ({ name: (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name, text: await f.text() })),
  );
}

/** The Results tab. */
export function ResultsView() {
  const services = useServices();
  const stored = useObservable(services.trajectories);
  const [report, setReport] = useState<ImportReport | null>(null);
  const folderRef = useRef<HTMLInputElement | null>(null);

  useEffect(() => {
    if (!stored.loaded) void services.refreshTrajectories();
  }, [services, stored.loaded]);
  useEffect(() => {
    // Folder picking is not a standard attribute in React's types.
    folderRef.current?.setAttribute("webkitdirectory", "");
  }, []);

  const summaries = services.summaries();
  const n = Math.max(DEFAULT_N, ...stored.records.map((r) => r.trajectory.config.maxTurns));
  let rows: MetricsRow[] = [];
  let metricsError: string | null = null;
  try {
    rows = aggregate(summaries, n);
  } catch (e) {
    metricsError = (e as Error).message;
  }
  const groups = groupRows(rows);
  const unfinished = stored.records.filter((r) => !r.trajectory.finished);
  const errored = stored.records.filter((r) => r.trajectory.stoppedReason === "error");

  const importFiles = async (list: FileList | null) => {
    const files = await readFiles(list);
    if (files.length === 0) {
      setReport({ imported: [], errors: ["No .json files were chosen."] });
      return;
    }
    setReport(await services.importTrajectories(files));
  };
  const exportAll = () => {
    const blob = new Blob([services.exportTrajectories()], { type: "application/json" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `recode-trajectories-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  };
  const deleteAll = () => {
    if (
      !window.confirm(`Delete all ${stored.records.length} stored trajectories and their shared turn 0? Export them first to keep a copy.`)
    )
      return;
    void services.deleteTrajectories();
    setReport(null);
  };

  return (
    <div className="results-view" data-testid="results-view">
      <div className="results-actions">
        <button type="button" onClick={exportAll} disabled={stored.records.length === 0}>
          Export JSON
        </button>
        <label className="button-like">
          Import files
          <input
            type="file"
            accept=".json,application/json"
            multiple
            onChange={(e) => void importFiles(e.target.files)}
            aria-label="Import trajectory files"
          />
        </label>
        <label className="button-like">
          Import a run folder
          <input ref={folderRef} type="file" multiple onChange={(e) => void importFiles(e.target.files)} aria-label="Import a run folder" />
        </label>
        <span className="spacer" />
        <button type="button" className="danger" onClick={deleteAll} disabled={stored.records.length === 0}>
          Delete stored results
        </button>
      </div>
      {report && (
        <div
          className={`panel ${report.errors.length ? "error" : "ok"}`}
          role={report.errors.length ? "alert" : "status"}
          data-testid="import-report"
        >
          {report.imported.length > 0 && <div>Imported {report.imported.length} trajectory file(s).</div>}
          {report.errors.map((e) => (
            <div key={e}>{e}</div>
          ))}
          {report.errors.length > 0 && <div className="muted small">Nothing already stored was changed.</div>}
        </div>
      )}
      {metricsError && (
        <div className="panel error" role="alert">
          The metrics could not be computed: {metricsError}
        </div>
      )}
      {stored.records.length === 0 ? (
        <p className="muted">No trajectories stored. Run the agent on a task, or import the episode files of a `recode run` folder.</p>
      ) : (
        <>
          <p className="muted small">
            Recall@{n} / MRR / test-case pass rate, in %, over {summaries.length} episode(s). Recall@{n}: share of tasks solved within {n}{" "}
            turns; MRR: mean of 1/(turn+1) of the first all-pass turn.
          </p>
          <div data-testid="metrics-table">
            {groups.map((g) => (
              <section
                key={`${g.model}|${g.setting}|${g.researcher}`}
                className="result-group"
                data-model={g.model}
                data-setting={g.setting}
              >
                <h4>
                  <code>{g.model}</code> · {g.setting} · researcher {g.researcher}
                </h4>
                <div className="muted small">
                  {Math.max(...g.rows.map((r) => r.taskCount))} task(s) ·{" "}
                  {g.rows.reduce((a, r) => a + r.tokens.prompt + r.tokens.completion, 0).toLocaleString()} coder tokens
                  {unreportedNote(g.rows.reduce((a, r) => a + (r.tokens.unreported ?? 0), 0))} ·{" "}
                  {(g.rows.reduce((a, r) => a + r.wallMs, 0) / 1000).toFixed(1)} s wall time
                </div>
                <div className="result-body">
                  <table className="metrics">
                    <thead>
                      <tr>
                        <th>%</th>
                        {[0, 1, 2, 3, 4].map((l) => (
                          <th key={l}>L{l}</th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {(
                        [
                          ["recall", `Recall@${n}`, (r: MetricsRow) => r.recallAtN],
                          ["mrr", "MRR", (r: MetricsRow) => r.mrr],
                          ["pass", "test-case pass rate", (r: MetricsRow) => r.passRate],
                        ] as [string, string, (r: MetricsRow) => number][]
                      ).map(([cls, label, value]) => (
                        <tr key={cls}>
                          <th scope="row">{label}</th>
                          {[0, 1, 2, 3, 4].map((l) => {
                            const r = g.rows.find((x) => x.level === l);
                            return (
                              <td
                                key={l}
                                data-level={l}
                                className={`metric-cell ${cls}`}
                                title={
                                  r ? `L${l}: ${r.solvedCount} of ${r.taskCount} task(s) solved within ${n} turns` : `no L${l} episodes`
                                }
                              >
                                {r ? pct(value(r)) : "–"}
                              </td>
                            );
                          })}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  <RecallChart rows={g.rows} title="Recall@k per turn" />
                </div>
              </section>
            ))}
          </div>
          {(unfinished.length > 0 || errored.length > 0) && (
            <div className="panel warning" role="status">
              {unfinished.length > 0 && (
                <div>
                  {unfinished.length} episode(s) have not finished; they count with the turns they have. Run the agent again on the task to
                  resume.
                </div>
              )}
              {errored.length > 0 && (
                <div>
                  {errored.length} episode(s) ended in an error (
                  {errored
                    .slice(0, 3)
                    .map((r) => `${r.trajectory.versions.task.id} L${r.trajectory.config.level}: ${r.trajectory.error ?? ""}`)
                    .join("; ")}
                  ); run again to retry them. Episodes without any turn are not counted.
                </div>
              )}
            </div>
          )}
        </>
      )}
    </div>
  );
}
