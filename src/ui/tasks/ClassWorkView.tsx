/**
 * A class's work at a glance, as a modal dialog (Escape or Close closes it):
 * the students' work files opened together, one line per student and one
 * column per task (the class file's tasks when one is active, else every
 * task in the files), each cell solved, attempted (with its runs and the
 * feedback levels asked for) or not run. A student's name opens that
 * student's work in full (StudentWorkView). The files that could not be read
 * are named with why. **Export CSV** saves the table for a gradebook
 * (src/core/class-work-csv.ts).
 */

import { classWorkCsv } from "../../core/class-work-csv";
import { plural } from "../../core/plural";
import { summarizeProgress } from "../../core/study";
import { downloadText } from "../download";
import { useModalDialog } from "../modal-dialog";
import { useObservable, useServices } from "../services";

/** The class view of the opened work files. */
export function ClassWorkView() {
  const services = useServices();
  const teaching = services.teaching;
  const opened = useObservable(teaching.openedClassWork);
  const classSettings = useObservable(teaching.classSettings);
  const dialog = useModalDialog(opened);
  if (!opened) return null;
  const { works, errors } = opened;
  const tasks = classSettings?.tasks ?? [...new Set(works.flatMap((w) => w.work.tasks.map((t) => t.taskId)))].sort();
  const solvedBy = (taskId: string) =>
    works.filter((w) => summarizeProgress(w.work.tasks.find((t) => t.taskId === taskId)?.progress ?? null).solved).length;
  return (
    <dialog
      ref={dialog.ref}
      className="settings class-work"
      aria-label="Class work"
      data-testid="class-work"
      onClose={() => teaching.openedClassWork.set(null)}
    >
      <h2>Class work</h2>
      <p className="muted">
        {plural(works.length, "student")}
        {classSettings ? `, class ${classSettings.name}` : ""}. A cell: solved, or the runs and the feedback levels asked for, as each
        student's page recorded them (a file can be edited: a name opens that student's work, where "Run the tests on this text" checks it
        here).
      </p>
      {errors.map((e) => (
        <p key={e} className="panel warning" role="alert">
          {e}
        </p>
      ))}
      <div className="run-table-scroll">
        <table className="metrics" data-testid="class-work-table">
          <thead>
            <tr>
              <th scope="col">student</th>
              {tasks.map((id) => (
                <th key={id} scope="col">
                  <code>{id}</code>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {works.map((w) => (
              <tr key={w.source} data-student={w.work.student ?? w.source}>
                <th scope="row">
                  <button
                    type="button"
                    className="cell-button"
                    // Over the class view, which is there again when the student's work is closed.
                    onClick={() => teaching.openedWork.set(w)}
                    title={`${w.source}, exported ${new Date(w.work.exportedAt).toLocaleString()}`}
                  >
                    {w.work.student ?? w.source}
                  </button>
                </th>
                {tasks.map((id) => {
                  const s = summarizeProgress(w.work.tasks.find((t) => t.taskId === id)?.progress ?? null);
                  const state = s.runs === 0 ? "not-run" : s.solved ? "solved" : "attempted";
                  return (
                    <td key={id} data-task-id={id} data-state={state} className={`metric-cell ${s.solved ? "ok" : s.runs ? "bad" : ""}`}>
                      {s.runs === 0
                        ? "–"
                        : `${s.solved ? "solved" : "attempted"}, ${plural(s.runs, "run")}${s.levels.length ? `, L${s.levels.join(" L")}` : ""}`}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">solved</th>
              {tasks.map((id) => (
                <td key={id} className="metric-cell">
                  {solvedBy(id)}/{works.length}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      </div>
      <div className="buttons">
        <button
          type="button"
          data-testid="class-work-csv"
          onClick={() =>
            downloadText(`recode-class-work-${new Date().toISOString().slice(0, 10)}.csv`, classWorkCsv(works, tasks), "text/csv")
          }
        >
          Export CSV
        </button>
        <button type="button" className="primary" onClick={() => dialog.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}
