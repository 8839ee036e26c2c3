/**
 * A student's work opened by a teacher (a file exported from Settings → Your
 * work): per task solved or attempted, every turn with its tests and the
 * feedback level asked for and the text it ran (the last turns keep it), and the student's text. Read-only: the teacher's
 * own drafts and turns are not touched. The turns are what the student's page
 * recorded (a file can be edited): "Run the tests on this text" checks the
 * text itself, here, without storing anything.
 */
import { useState } from "react";
import { summarizeProgress } from "../../core/study";
import { useModalDialog } from "../modal-dialog";
import { useObservable, useServices } from "../services";

/** The open student's work, as a modal dialog (Escape or Close closes it). */
export function StudentWorkView() {
  const services = useServices();
  const opened = useObservable(services.teaching.openedWork);
  const catalog = useObservable(services.catalogEntries);
  const dialog = useModalDialog(opened);
  if (!opened) return null;
  const { work, source } = opened;
  const title = (id: string) => {
    const e = catalog.find((c) => c.id === id);
    return e?.task?.meta.title ?? (e && "meta" in e ? e.meta.title : null) ?? id;
  };
  return (
    <dialog
      ref={dialog.ref}
      className="settings student-work"
      aria-label="Student work"
      data-testid="student-work"
      onClose={() => services.teaching.openedWork.set(null)}
    >
      <h2>Student work</h2>
      <p className="muted">
        {work.student ? <strong>{work.student}</strong> : "No name given"}: {source}, exported {new Date(work.exportedAt).toLocaleString()}
        {work.className ? `, class ${work.className}` : ""}. {work.tasks.length} task{work.tasks.length === 1 ? "" : "s"}.
      </p>
      {work.tasks.map((t) => {
        const s = summarizeProgress(t.progress);
        return (
          <section key={t.taskId} className="work-task" data-task-id={t.taskId} data-solved={s.solved} data-runs={s.runs}>
            <h3>
              {title(t.taskId)}{" "}
              {s.runs === 0 ? (
                <span className="tag">not run</span>
              ) : s.solved ? (
                <span className="tag solved" title="As the student's page recorded it; Run the tests on this text checks it here">
                  solved (recorded)
                </span>
              ) : (
                <span className="tag attempted">attempted</span>
              )}
            </h3>
            {t.progress && t.progress.turns.length > 0 && (
              <table className="metrics">
                <thead>
                  <tr>
                    <th>Turn</th>
                    <th>When</th>
                    <th>Tests passed</th>
                    <th>Feedback asked for</th>
                    <th>Text run</th>
                  </tr>
                </thead>
                <tbody>
                  {t.progress.turns.map((turn, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: turns are in order and never move
                    <tr key={i}>
                      <td>{i + 1}</td>
                      <td>{new Date(turn.at).toLocaleString()}</td>
                      <td>
                        {turn.passed}/{turn.total}
                        {turn.solved ? " (solved)" : ""}
                      </td>
                      <td>
                        {turn.solved ? (
                          <span title="A turn that solves the task asks for no feedback">none (solved)</span>
                        ) : (
                          `L${turn.level}`
                        )}
                      </td>
                      <td>
                        {turn.code === undefined ? (
                          <span className="muted" title="Only the last turns keep the text they ran">
                            not kept
                          </span>
                        ) : (
                          <details data-testid="turn-code">
                            <summary>show</summary>
                            <pre className="work-draft">{turn.code}</pre>
                            <Check taskId={t.taskId} text={turn.code} testId="turn-check" />
                          </details>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {t.draft !== null && (
              <>
                <Check taskId={t.taskId} text={t.draft} />
                <details>
                  <summary>The student's text</summary>
                  <pre className="work-draft">{t.draft}</pre>
                </details>
              </>
            )}
          </section>
        );
      })}
      <div className="buttons">
        <button type="button" className="primary" onClick={() => dialog.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}

/** Runs the task's tests on a text of the student's in this page (nothing is stored) and says what they give. */
function Check({ taskId, text, testId = "work-check" }: { taskId: string; text: string; testId?: string }) {
  const services = useServices();
  const [state, setState] = useState<{ busy: boolean; text: string | null; ok: boolean | null }>({ busy: false, text: null, ok: null });
  const check = async () => {
    setState({ busy: true, text: null, ok: null });
    try {
      const task = await services.loadTask(taskId);
      if (!task) throw new Error(`this page has no task ${taskId} (a task of a task pack? import the pack first: Settings → Task packs)`);
      const r = await services.runOnly(task, text);
      const c = r.counts;
      setState({
        busy: false,
        ok: r.allPassed,
        text: r.collectionError
          ? `Checked here: the tests could not run (${r.collectionError.message.split("\n").at(-1)}).`
          : `Checked here: ${c.passed + c.xfail}/${c.total} tests passed${r.allPassed ? ", solved" : ", not solved"}.`,
      });
    } catch (e) {
      setState({ busy: false, ok: false, text: `Not checked: ${(e as Error).message}` });
    }
  };
  return (
    <div className="work-check">
      <button type="button" onClick={() => void check()} disabled={state.busy} data-testid={testId}>
        {state.busy ? "Running the tests…" : "Run the tests on this text"}
      </button>
      {state.text && (
        <span className={state.ok ? "ok" : "bad"} data-testid={`${testId}-result`} data-solved={state.ok ? "true" : "false"}>
          {" "}
          {state.text}
        </span>
      )}
    </div>
  );
}
