/**
 * The results page (`#results`): every stored trajectory as runs (one model x
 * setting x researcher x conditions x turn limit each; src/core/runs.ts),
 * searchable and filtered; the runs ticked are shown with their tables by
 * level and task and their Recall@k curves, and two or more are compared at
 * one n. A cell opens its episodes and their transcripts. Export CSV (as
 * `recode report --format csv`) and JSON; import episode files or a
 * `recode run` folder; delete. The figures come from src/core/report.ts, the
 * code `recode report` prints too.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import { plural } from "../../core/plural";
import { buildReport } from "../../core/report";
import { reportCsv, reportNotes } from "../../core/report-text";
import { filterRuns, listRuns, type RunFilter, runInputs, sharedN } from "../../core/runs";
import { storedReport } from "../agent/stored-report";
import { downloadText } from "../download";
import { type ImportReport, useObservable, useServices } from "../services";
import { CompareRuns } from "./CompareRuns";
import { EpisodesDialog } from "./EpisodesDialog";
import { type CellChoice, RunDetail } from "./RunDetail";
import { RunList } from "./RunList";

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

/** The results page. */
export function ResultsPage() {
  const services = useServices();
  const stored = useObservable(services.trajectories);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [filter, setFilter] = useState<RunFilter>({});
  /** Runs ticked; null until the reader ticks one: the newest run is shown. */
  const [ticked, setTicked] = useState<ReadonlySet<string> | null>(null);
  const [cell, setCell] = useState<CellChoice | null>(null);
  const folderRef = useRef<HTMLInputElement | null>(null);

  useEffect(() => {
    if (!stored.loaded) void services.refreshTrajectories();
  }, [services, stored.loaded]);
  useEffect(() => {
    // Folder picking is not a standard attribute in React's types.
    folderRef.current?.setAttribute("webkitdirectory", "");
  }, []);

  const { runs } = useMemo(
    () => listRuns(stored.records.map((r) => ({ source: r.fileName ?? r.key, trajectory: r.trajectory }))),
    [stored],
  );
  // What could not be counted among everything stored (duplicates, unreadable), as `recode report` prints it.
  const storedNotes = useMemo(() => storedReport(stored), [stored]);
  const shown = useMemo(() => filterRuns(runs, filter), [runs, filter]);
  const selected = useMemo(() => {
    const ids = ticked ?? new Set(runs.slice(0, 1).map((r) => r.id));
    return new Set(runs.filter((r) => ids.has(r.id)).map((r) => r.id));
  }, [ticked, runs]);
  // In list order, and only those the filter keeps.
  const chosen = useMemo(() => shown.filter((r) => selected.has(r.id)), [shown, selected]);
  const n = sharedN(chosen);
  // The notes of the runs shown at their n (unfinished, errored, a turn limit below n), and of everything stored.
  const notes = useMemo(
    () => reportNotes({ ...buildReport(runInputs(chosen), n), unreadable: storedNotes.unreadable, duplicates: storedNotes.duplicates }),
    [chosen, n, storedNotes],
  );

  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setTicked(next);
  };
  const importFiles = async (list: FileList | null) => {
    const files = await readFiles(list);
    if (!files.some((f) => f.name.endsWith(".json"))) {
      setReport({ imported: [], errors: ["No .json files were chosen."], skipped: files.map((f) => f.name), alreadyStored: [] });
      return;
    }
    setReport(await services.importTrajectories(files));
  };
  // The runs shown, as `recode report --format csv` writes them (the same functions over the same episodes).
  const exportCsv = () => downloadText("recode-results.csv", reportCsv(buildReport(runInputs(chosen))), "text/csv");
  const exportJson = () =>
    downloadText(
      `recode-trajectories-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}.json`,
      services.exportTrajectories(),
      "application/json",
    );
  const deleteAll = () => {
    if (
      !window.confirm(`Delete all ${stored.records.length} stored trajectories and their shared turn 0? Export them first to keep a copy.`)
    )
      return;
    void services.deleteTrajectories();
    setReport(null);
    setTicked(null);
  };
  const deleteShown = () => {
    const episodes = chosen.flatMap((r) => r.episodes.map((e) => e.trajectory));
    if (
      !window.confirm(
        `Delete the ${plural(chosen.length, "run")} shown (${plural(episodes.length, "episode")})? Export them first to keep a copy.`,
      )
    )
      return;
    void services.deleteEpisodes(episodes);
    setReport(null);
    setTicked(null);
  };

  return (
    <div className="results-page" data-testid="results-view">
      <div className="results-head">
        <h2>Results</h2>
        <div className="results-actions">
          <button
            type="button"
            onClick={exportCsv}
            disabled={chosen.length === 0}
            data-testid="export-csv"
            title="The table of the runs shown, as `recode report --format csv` writes it"
          >
            Export CSV
          </button>
          <button type="button" onClick={exportJson} disabled={stored.records.length === 0} title="Every stored trajectory">
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
            <input
              ref={folderRef}
              type="file"
              multiple
              onChange={(e) => void importFiles(e.target.files)}
              aria-label="Import a run folder"
            />
          </label>
          <span className="spacer" />
          <button type="button" className="danger" onClick={deleteShown} disabled={chosen.length === 0} data-testid="delete-shown">
            Delete the runs shown
          </button>
          <button type="button" className="danger" onClick={deleteAll} disabled={stored.records.length === 0}>
            Delete stored results
          </button>
        </div>
      </div>
      {report && (
        <div
          className={`panel ${report.errors.length ? "error" : "ok"}`}
          role={report.errors.length ? "alert" : "status"}
          data-testid="import-report"
        >
          {report.imported.length > 0 && <div>Imported {plural(report.imported.length, "episode")}.</div>}
          {report.alreadyStored.length > 0 && (
            <div data-testid="import-already-stored">
              {plural(report.alreadyStored.length, "episode")} already stored {report.alreadyStored.length === 1 ? "was" : "were"} kept as
              they are (one per model, setting, level and task; delete a run to import it again):{" "}
              {report.alreadyStored.slice(0, 3).join("; ")}
              {report.alreadyStored.length > 3 ? `; and ${report.alreadyStored.length - 3} more` : ""}.
            </div>
          )}
          {report.imported.length === 0 && report.alreadyStored.length > 0 && report.errors.length === 0 && (
            <div className="muted small">Nothing new to import.</div>
          )}
          {report.skipped.length > 0 && (
            <div className="muted small" data-testid="import-skipped">
              Left out {plural(report.skipped.length, "file")} that {report.skipped.length === 1 ? "is" : "are"} not finished episodes (a
              run folder's run.json, agent memories, unfinished turns, turn 0, or not JSON): {report.skipped.slice(0, 5).join(", ")}
              {report.skipped.length > 5 ? `, and ${report.skipped.length - 5} more` : ""}.
            </div>
          )}
          {report.errors.map((e) => (
            <div key={e}>{e}</div>
          ))}
          {report.errors.length > 0 && <div className="muted small">Nothing already stored was changed.</div>}
        </div>
      )}
      {!stored.loaded ? (
        <p className="muted" role="status">
          Reading the stored results…
        </p>
      ) : stored.records.length === 0 ? (
        <p className="muted" data-testid="results-empty">
          No agent runs stored. This page shows the runs of an agent (a model in the coder's seat): run the agent on a task (its Agent tab),
          or import the episode files of a <code>recode run</code> folder. Your own test runs are in each task: the task list shows which
          you solved or attempted and the feedback levels you used.
        </p>
      ) : (
        <>
          <p className="muted small">
            Recall@n: share of tasks solved within n turns; MRR: mean of 1/(turn+1) of the first all-pass turn; test-case pass rate: mean of
            each task's best share of passing tests (docs/metrics.md). Tick runs to show them; two or more are compared.
          </p>
          <RunList runs={runs} shown={shown} filter={filter} onFilter={setFilter} selected={selected} onToggle={toggle} />
          {chosen.length >= 2 && <CompareRuns runs={chosen} n={n} onOpen={setCell} />}
          <div className={`run-columns${chosen.length >= 2 ? " side-by-side" : ""}`}>
            {chosen.map((r) => (
              <RunDetail key={r.id} run={r} n={n} onOpen={setCell} />
            ))}
          </div>
          {chosen.length === 0 && <p className="muted">Tick a run in the list to see its tables and curves.</p>}
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
      {cell && (
        <EpisodesDialog key={`${cell.run.id}/${cell.level}/${cell.taskId ?? ""}`} choice={cell} n={n} onClose={() => setCell(null)} />
      )}
    </div>
  );
}
