/**
 * The task packs part of Settings: import a pack from a zip or a folder (as
 * dropping it on the task list does), and the imported tasks, each with
 * Remove (its drafts and turns stay).
 */
import { useEffect, useRef, useState } from "react";
import { useObservable, useServices } from "../services";

/** Task pack controls (applied at once, not on Save). */
export function TaskPacksSection({ onImport }: { onImport: () => void }) {
  const packs = useServices().taskPacks;
  const imported = useObservable(packs.imported);
  const folderRef = useRef<HTMLInputElement | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    // Folder picking is not a standard attribute in React's types.
    folderRef.current?.setAttribute("webkitdirectory", "");
  }, []);
  const choose = (list: FileList | null) => {
    const files = [...(list ?? [])];
    if (files.length === 0) return;
    onImport();
    packs.opened.set({ files });
  };
  return (
    <section aria-label="Task packs" data-testid="task-packs-section">
      <h3>Task packs</h3>
      <p className="hint">
        A task pack is a zip or a folder of task folders (docs/task-format.md). Each task is validated here before it joins the task list;
        you can also drop a pack on the task list.
      </p>
      <div className="results-actions">
        <label className="button-like">
          Import a zip
          <input type="file" accept=".zip,application/zip" aria-label="Import a task pack (zip)" onChange={(e) => choose(e.target.files)} />
        </label>
        <label className="button-like">
          Import a folder
          <input ref={folderRef} type="file" multiple aria-label="Import a task pack (folder)" onChange={(e) => choose(e.target.files)} />
        </label>
      </div>
      {error && <p className="field-error">{error}</p>}
      {imported.length > 0 && (
        <ul className="imported-tasks" data-testid="imported-tasks">
          {imported.map((t) => (
            <li key={t.id} data-task-id={t.id}>
              <code>{t.id}</code>{" "}
              <span className="muted small">
                from {t.source}, {new Date(t.importedAt).toLocaleString()}
              </span>{" "}
              <button
                type="button"
                onClick={() => {
                  if (!window.confirm(`Remove the imported task ${t.id}? Your drafts and turns on it stay.`)) return;
                  packs.remove(t.id).catch((e: Error) => setError(e.message));
                }}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
