/**
 * Importing a task pack, as a modal dialog (Escape or Close closes it): the
 * dropped or chosen files are read (zips unpacked, folders walked), each task
 * folder is loaded and validated in the page's Python, and the report says,
 * per task, whether it was stored or why not (the file, line and field of a
 * format error; the check that failed).
 */
import { useEffect, useState } from "react";
import { plural } from "../../core/plural";
import { useModalDialog } from "../modal-dialog";
import { useObservable, useServices } from "../services";
import type { PackSource } from "./pack-drop";
import { packFiles } from "./task-pack-import";
import { checksSummary, type PackReport } from "./task-packs";

/** Every file under the dropped entries, with its path (folders walked). */
async function filesOf(source: PackSource): Promise<File[]> {
  if (!("entries" in source) || source.entries.length === 0) return source.files;
  const out: File[] = [];
  const walk = async (entry: FileSystemEntry): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
      const path = entry.fullPath.replace(/^\//, "");
      // The path in the folder, as a folder picker gives it.
      out.push(path.includes("/") ? Object.defineProperty(file, "webkitRelativePath", { value: path }) : file);
      return;
    }
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      for (const e of batch) await walk(e);
    }
  };
  for (const e of source.entries) await walk(e);
  return out;
}

/** The import of the pack the task packs hold open (null: nothing shown). */
export function TaskPackDialog() {
  const packs = useServices().taskPacks;
  const source = useObservable(packs.opened);
  const dialog = useModalDialog(source);
  const [report, setReport] = useState<PackReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (!source) return;
    let live = true;
    setReport(null);
    setError(null);
    setDone(false);
    (async () => {
      const { files, name } = await packFiles(await filesOf(source));
      await packs.importPack(files, name, (r) => live && setReport(r));
    })().then(
      () => live && setDone(true),
      (e: Error) => {
        if (!live) return;
        setError(e.message);
        setDone(true);
      },
    );
    return () => {
      live = false;
    };
  }, [source, packs]);
  if (!source) return null;
  const stored = report?.tasks.filter((t) => t.stored).length ?? 0;
  return (
    <dialog
      ref={dialog.ref}
      className="settings task-pack"
      aria-label="Import a task pack"
      data-testid="task-pack"
      // (The close event comes after the dialog closed: a pack dropped just after Escape has opened it again by
      // then, and is not dropped with it.)
      onClose={(e) => {
        if (!e.currentTarget.open) packs.opened.set(null);
      }}
    >
      <h2>Import a task pack{report ? `: ${report.source}` : ""}</h2>
      <p className="hint">
        Each task folder is checked as <code>recode tasks validate</code> checks it (the coverage and mutation gates need the command line),
        in this page's Python; a task that passes every check is stored in this browser and joins the task list. An imported RECODE-H task,
        whose tests run under pytest, is stored read-only once its files fit the format.
      </p>
      {error && (
        <p className="panel error" role="alert">
          {error}
        </p>
      )}
      {report?.problems.map((p) => (
        <p key={p} className="panel warning" role="alert">
          {p}
        </p>
      ))}
      <ul className="pack-tasks">
        {report?.tasks.map((t) => (
          <li key={t.folder} data-folder={t.folder} data-stored={t.stored} data-read-only={t.readOnly !== null} data-testid="pack-task">
            <strong>{t.id ?? t.folder}</strong>{" "}
            {t.stored ? (
              <span className="tag ok">{t.readOnly ? "stored read-only" : "stored"}</span>
            ) : t.error ? (
              <span className="tag bad">not stored</span>
            ) : (
              <span className="muted">checking…</span>
            )}
            {t.error && <div className="field-error">{t.error}</div>}
            {t.readOnly && <div className="hint">{t.readOnly}</div>}
            {t.checks.length > 0 && (
              <details open={!t.stored}>
                <summary>{checksSummary(t.checks)}</summary>
                <ul className="small">
                  {t.checks.map((c) => (
                    <li key={c.name} className={c.skipped ? "muted" : c.ok ? "ok" : "bad"}>
                      {c.skipped ? "skipped" : c.ok ? "ok" : "FAIL"} {c.name}: {c.detail}
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </li>
        ))}
      </ul>
      <p className="muted" role="status" data-testid="task-pack-status">
        {done ? `Done: ${stored} of ${plural(report?.tasks.length ?? 0, "task")} stored.` : "Reading and checking the pack…"}
      </p>
      <div className="buttons">
        <button type="button" onClick={() => dialog.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}
