/** The list of tasks: title, paper, domain and packages; broken folders show their error. */
import { networkWatch, offlineBlocker } from "../offline/network";
import { useObservable, useServices } from "../services";
import { pageRunBlocker } from "./page-support";

/** Left-hand list of tasks. `selected` is the open task id. */
export function TaskList({ selected, onSelect }: { selected: string | null; onSelect: (id: string) => void }) {
  const catalog = useObservable(useServices().catalogEntries);
  const net = useObservable(networkWatch.state);
  if (catalog.length === 0) {
    return <p className="empty">No tasks were bundled. Add task folders under tasks/ and rebuild.</p>;
  }
  return (
    <ul className="task-list" aria-label="Tasks">
      {catalog.map((entry) => {
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
        const authors = m.paper.authors.length > 2 ? `${m.paper.authors[0]} et al.` : m.paper.authors.join(" and ");
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
              <div className="task-paper">
                {authors}, {m.paper.venue.includes(String(m.paper.year)) ? m.paper.venue : `${m.paper.venue} ${m.paper.year}`}
              </div>
              <div className="task-tags">
                <span className="tag domain">{m.domain}</span>
                {m.packages.map((p) => (
                  <span key={p} className="tag pkg">
                    {p}
                  </span>
                ))}
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
  );
}
