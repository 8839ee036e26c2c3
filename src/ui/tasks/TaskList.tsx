/**
 * The list of tasks: title, paper, domain and packages, and the student's
 * turns (solved, runs, feedback levels asked for); broken folders show their
 * error. With a class file, only its tasks, in its order.
 */
import { useEffect, useRef, useState } from "react";
import { authorsShort } from "../../core/paper-authors";
import type { TaskProgress } from "../../core/study";
import { summarizeProgress } from "../../core/study";
import { venueAndYear } from "../../core/task";
import { networkWatch, offlineBlocker } from "../offline/network";
import { useObservable, useServices } from "../services";
import type { CatalogEntry } from "./catalog";
import { pageRunBlocker } from "./page-support";

/** Left-hand list of tasks. `selected` is the open task id. */
export function TaskList({ selected, onSelect }: { selected: string | null; onSelect: (id: string) => void }) {
  const services = useServices();
  const all = useObservable(services.catalogEntries);
  const classSettings = useObservable(services.teaching.classSettings);
  const progress = useObservable(services.teaching.progress);
  const net = useObservable(networkWatch.state);
  const imported = useObservable(services.taskPacks.imported);
  const [query, setQuery] = useState("");
  const listRef = useRef<HTMLUListElement | null>(null);
  const catalog = classTasks(all, classSettings?.tasks ?? null);
  const listed = catalog.length;
  // The open task is in sight in the list (opened from a link, or from the list once it was filtered).
  useEffect(() => {
    if (!selected || listed === 0) return;
    const item = listRef.current?.querySelector(`[data-task-id="${CSS.escape(selected)}"]`);
    item?.scrollIntoView({ block: "nearest" });
  }, [selected, listed]);
  if (catalog.length === 0) {
    return <p className="empty">No tasks were bundled. Add task folders under tasks/ and rebuild.</p>;
  }
  const shown = catalog.filter((e) => matchesQuery(e, query));
  return (
    <>
      <div className="task-filter">
        <input
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder="Filter: title, paper, domain, package"
          aria-label="Filter tasks"
        />
        {query.trim() && (
          <span className="muted small" data-testid="task-filter-count">
            {shown.length} of {catalog.length}
          </span>
        )}
      </div>
      <ul className="task-list" aria-label="Tasks" ref={listRef}>
        {shown.map((entry) => {
          if (entry.error) {
            return (
              <li key={entry.id} className="task-item broken" data-task-id={entry.id}>
                <div className="task-title">{entry.id}</div>
                <div className="task-error" role="alert">
                  {entry.error.message}
                </div>
              </li>
            );
          }
          const m = entry.task ? entry.task.meta : entry.meta;
          const blocked = pageRunBlocker({ id: entry.id, meta: m });
          const offline = blocked ? null : offlineBlocker({ meta: m }, net);
          const authors = m.paper && authorsShort(m.paper.authors);
          return (
            <li
              key={entry.id}
              className={`task-item${selected === entry.id ? " selected" : ""}`}
              data-task-id={entry.id}
              data-offline-blocked={offline ? "true" : undefined}
            >
              <button
                type="button"
                className="task-btn"
                onClick={() => onSelect(entry.id)}
                aria-current={selected === entry.id ? "true" : undefined}
              >
                <div className="task-title">{m.title}</div>
                {m.paper && (
                  <div className="task-paper">
                    {authors}, {venueAndYear(m.paper)}
                  </div>
                )}
                <ProgressLine progress={progress.get(entry.id) ?? null} />
                <div className="task-tags">
                  <span className="tag domain">{m.domain}</span>
                  {m.packages.map((p) => (
                    <span key={p} className="tag pkg">
                      {p}
                    </span>
                  ))}
                  {imported.some((t) => t.id === entry.id) && (
                    <span className="tag imported" title={`Imported from ${imported.find((t) => t.id === entry.id)?.source}`}>
                      imported
                    </span>
                  )}
                  {blocked && (
                    <span className="tag readonly" title={blocked}>
                      read-only
                    </span>
                  )}
                  {offline && (
                    <span className="tag offline" title={offline}>
                      needs network
                    </span>
                  )}
                </div>
              </button>
            </li>
          );
        })}
      </ul>
    </>
  );
}

/**
 * Whether a task answers a filter: every word of `query` (any case) is in its id, title, paper (authors,
 * venue, year), domain or packages. An empty query keeps every task; a broken folder answers by its id.
 */
export function matchesQuery(entry: CatalogEntry, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const m = entry.error ? null : entry.task ? entry.task.meta : entry.meta;
  const text = [entry.id, m?.title, ...(m?.paper?.authors ?? []), m?.paper?.venue, m?.paper?.year, m?.domain, ...(m?.packages ?? [])]
    .filter((v) => v !== undefined && v !== null)
    .join(" ")
    .toLowerCase();
  return words.every((w) => text.includes(w));
}

/** The entries of a class's tasks, in the class's order (every entry without a class). */
export function classTasks(all: CatalogEntry[], ids: string[] | null): CatalogEntry[] {
  if (!ids) return all;
  const byId = new Map(all.map((e) => [e.id, e]));
  return ids.map((id) => byId.get(id)).filter((e): e is CatalogEntry => e !== undefined);
}

/** Solved, runs and the levels asked for; nothing before the first run. */
function ProgressLine({ progress }: { progress: TaskProgress | null }) {
  const s = summarizeProgress(progress);
  if (s.runs === 0) return null;
  return (
    <div
      className="task-progress"
      data-testid="task-progress"
      data-solved={s.solved}
      data-last-solved={s.lastSolved}
      data-runs={s.runs}
      data-levels={s.levels.join(",")}
    >
      {s.solved ? <span className="tag solved">solved</span> : <span className="tag attempted">attempted</span>}
      <span className="muted small">
        {s.solved && !s.lastSolved && "last run not passing · "}
        {s.runs} run{s.runs === 1 ? "" : "s"}
        {s.levels.length > 0 && ` · feedback ${s.levels.map((l) => `L${l}`).join(" ")}`}
      </span>
    </div>
  );
}
