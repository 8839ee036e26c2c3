/**
 * Results tab: the metrics of every stored trajectory, grouped as in the
 * RECODE-H paper (per model x setting, columns L0-L4 with Recall@n, MRR and
 * test-case pass rate), the per-turn Recall@k curves, token and wall-time
 * totals, the notes on unfinished, errored and left-out episodes, and export /
 * import / delete. The figures and notes come from src/core/report.ts, the
 * code `recode report` prints too.
 */

import { useEffect, useMemo, useRef, useState } from "react";
import type { MetricsRow } from "../../core/metrics";
import { CONDITION_HEADINGS, conditionText, groupRows, reportCsv, reportNotes } from "../../core/report-text";
import { FEEDBACK_LEVELS } from "../../core/vocabulary";
import { type ImportReport, useObservable, useServices } from "../services";
import { RecallChart } from "./RecallChart";
import { storedReport } from "./stored-report";
import { unreportedNote } from "./tokens";

const pct = (v: number) => (v * 100).toFixed(1);

async function readFiles(list: FileList | null): Promise<{ name: string; text: string }[]> {
  const files = [...(list ?? [])];
  return Promise.all(
    files.map(async (f) => ({
      name: (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name,
      // Only JSON files are read; the others are named in the report as left out.
      text: f.name.endsWith(".json") ? await f.text() : "",
    })),
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

  // The same code as `recode report` (src/core/report.ts): the same trajectories give the same table.
  const results = useMemo(() => storedReport(stored), [stored]);
  const { n } = results;
  const groups = groupRows(results.rows);
  const notes = reportNotes(results);

  const importFiles = async (list: FileList | null) => {
    const files = await readFiles(list);
    if (!files.some((f) => f.name.endsWith(".json"))) {
      setReport({ imported: [], errors: ["No .json files were chosen."], skipped: files.map((f) => f.name) });
      return;
    }
    setReport(await services.importTrajectories(files));
  };
  // The table as `recode report --format csv` writes it (the same function over the same report).
  const exportCsv = () => {
    const url = URL.createObjectURL(new Blob([reportCsv(results)], { type: "text/csv" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = "recode-results.csv";
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
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
        <button type="button" onClick={exportCsv} disabled={results.rows.length === 0} data-testid="export-csv">
          Export CSV
        </button>
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
          {report.skipped.length > 0 && (
            <div className="muted small" data-testid="import-skipped">
              Left out {report.skipped.length} file(s) that are not finished episodes (a run folder's run.json, agent memories, unfinished
              turns, turn 0, or not JSON): {report.skipped.slice(0, 5).join(", ")}
              {report.skipped.length > 5 ? `, and ${report.skipped.length - 5} more` : ""}.
            </div>
          )}
          {report.errors.map((e) => (
            <div key={e}>{e}</div>
          ))}
          {report.errors.length > 0 && <div className="muted small">Nothing already stored was changed.</div>}
        </div>
      )}
      {stored.records.length === 0 ? (
        <p className="muted">No trajectories stored. Run the agent on a task, or import the episode files of a `recode run` folder.</p>
      ) : (
        <>
          <p className="muted small">
            Recall@{n} / MRR / test-case pass rate, in %, over {results.episodes} episode(s). Recall@{n}: share of tasks solved within {n}{" "}
            turns; MRR: mean of 1/(turn+1) of the first all-pass turn.
          </p>
          <div data-testid="metrics-table">
            {groups.map((g) => (
              <section
                key={JSON.stringify([g.model, g.setting, g.researcher, g.conditions])}
                className="result-group"
                data-model={g.model}
                data-setting={g.setting}
                data-backend={g.conditions.backend}
              >
                <h4>
                  <code>{g.model}</code> · {g.setting} · researcher {g.researcher}
                  {/* Conditions only where the episodes differ (e.g. two backends), as `recode report` does. */}
                  {results.varying.map((f) => ` · ${CONDITION_HEADINGS[f]} ${conditionText(g.conditions, f)}`).join("")}
                </h4>
                <div className="muted small">
                  {g.taskCount} task(s) · {g.rows.reduce((a, r) => a + r.tokens.prompt + r.tokens.completion, 0).toLocaleString()} coder
                  tokens
                  {unreportedNote(g.rows.reduce((a, r) => a + (r.tokens.unreported ?? 0), 0))} ·{" "}
                  {(g.rows.reduce((a, r) => a + r.wallMs, 0) / 1000).toFixed(1)} s wall time
                </div>
                <div className="result-body">
                  <table className="metrics">
                    <thead>
                      <tr>
                        <th>%</th>
                        {FEEDBACK_LEVELS.map((l) => (
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
                          {FEEDBACK_LEVELS.map((l) => {
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
          {notes.length > 0 && (
            <div className="panel warning" role="status" data-testid="results-notes">
              {notes.map((note) => (
                <div key={note.kind} data-note={note.kind}>
                  {note.text}
                  {note.items.length > 0 && (
                    <details>
                      <summary>{note.items.length === 1 ? "Which one" : `Which ${note.items.length}`}</summary>
                      <ul className="small">
                        {note.items.map((item, i) => (
                          // biome-ignore lint/suspicious/noArrayIndexKey: the list is rebuilt whole, never reordered
                          <li key={i}>{item}</li>
                        ))}
                      </ul>
                    </details>
                  )}
                </div>
              ))}
            </div>
          )}
        </>
      )}
    </div>
  );
}
