/**
 * The episodes behind a cell of the results page, as a modal dialog (Escape
 * or Close closes it): one line per episode with its outcome within n turns,
 * and the transcript of the one opened.
 */
import { useState } from "react";
import { scoreEpisode } from "../../core/metrics";
import { plural } from "../../core/plural";
import { runLabel } from "../../core/runs";
import { EpisodeView } from "../agent/Transcript";
import { useModalDialog } from "../modal-dialog";
import type { CellChoice } from "./RunDetail";

/** The episodes of one run at one level (or one task's episode), with a transcript. */
export function EpisodesDialog({ choice, n, onClose }: { choice: CellChoice; n: number; onClose: () => void }) {
  const dialog = useModalDialog();
  const episodes = choice.run.episodes.filter(
    (e) => e.summary.level === choice.level && (choice.taskId === undefined || e.summary.taskId === choice.taskId),
  );
  const [open, setOpen] = useState<string | null>(choice.taskId !== undefined ? (episodes[0]?.source ?? null) : null);
  const shown = episodes.find((e) => e.source === open) ?? null;
  return (
    <dialog ref={dialog.ref} className="settings episodes-dialog" aria-label="Episodes" data-testid="episodes-dialog" onClose={onClose}>
      <h2>
        L{choice.level} episodes{choice.taskId ? ` of ${choice.taskId}` : ""}
      </h2>
      <p className="muted small">{runLabel(choice.run)}</p>
      <table className="metrics" data-testid="episode-list">
        <thead>
          <tr>
            <th scope="col">task</th>
            <th scope="col">within {plural(n, "turn")}</th>
            <th scope="col">turns</th>
            <th scope="col">ended</th>
            <th scope="col">source</th>
            <th scope="col">
              <span className="sr-only">transcript</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {episodes.map((e) => {
            const s = scoreEpisode(e.summary, n);
            const t = e.trajectory;
            return (
              <tr key={e.source} data-task-id={e.summary.taskId} aria-current={e.source === open ? "true" : undefined}>
                <th scope="row">
                  <code>{e.summary.taskId}</code>
                </th>
                <td className={s.solvedAt !== null ? "ok" : "bad"}>
                  {s.solvedAt !== null ? `solved at turn ${s.solvedAt}` : `not solved, best ${(s.passRate * 100).toFixed(1)}% of tests`}
                </td>
                <td>
                  {t.turns.length}/{t.config.maxTurns}
                </td>
                <td>{t.finished ? (t.stoppedReason ?? "") : "unfinished"}</td>
                <td className="small">
                  <code>{e.source}</code>
                </td>
                <td>
                  <button type="button" onClick={() => setOpen(e.source)} disabled={e.source === open}>
                    Transcript
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {shown && (
        <div className="episode-transcript" data-testid="episode-transcript">
          <EpisodeView t={shown.trajectory} imported={false} ws={null} resume={null} />
        </div>
      )}
      <div className="buttons">
        <button type="button" onClick={() => dialog.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}
