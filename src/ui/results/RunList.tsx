/**
 * The list of runs on the results page: search, filters, and one line per
 * run (model, setting, protocol profile, researcher, levels, turn limit,
 * date) with a box to show it; two or more shown are compared.
 */
import type { FeedbackLevel } from "../../core/feedback";
import type { Run, RunFilter } from "../../core/runs";
import { AGENT_SETTINGS, FEEDBACK_LEVELS } from "../../core/vocabulary";
import { shortDate } from "./RunDetail";

const distinct = (values: string[]) => [...new Set(values)].sort();

/**
 * @param runs every run (for the filters' choices); `shown`: those the filter keeps.
 * @param selected ids of the runs shown below the list.
 */
export function RunList({
  runs,
  shown,
  filter,
  onFilter,
  selected,
  onToggle,
}: {
  runs: Run[];
  shown: Run[];
  filter: RunFilter;
  onFilter: (f: RunFilter) => void;
  selected: ReadonlySet<string>;
  onToggle: (id: string) => void;
}) {
  const profiles = distinct(runs.map((r) => r.conditions.protocol));
  const researchers = distinct(runs.map((r) => r.researcher));
  return (
    <section className="run-list" aria-label="Runs" data-testid="run-list">
      <div className="run-filters">
        <input
          type="search"
          placeholder="Search model, task, researcher, file…"
          aria-label="Search runs"
          value={filter.search ?? ""}
          onChange={(e) => onFilter({ ...filter, search: e.target.value })}
        />
        <select
          aria-label="Setting"
          value={filter.setting ?? ""}
          onChange={(e) => onFilter({ ...filter, setting: e.target.value as Run["setting"] | "" })}
        >
          <option value="">any setting</option>
          {AGENT_SETTINGS.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select
          aria-label="Protocol profile"
          value={filter.protocol ?? ""}
          onChange={(e) => onFilter({ ...filter, protocol: e.target.value })}
        >
          <option value="">any profile</option>
          {profiles.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
        <select
          aria-label="Researcher"
          value={filter.researcher ?? ""}
          onChange={(e) => onFilter({ ...filter, researcher: e.target.value })}
        >
          <option value="">any researcher</option>
          {researchers.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
        <select
          aria-label="Level"
          value={filter.level == null ? "" : String(filter.level)}
          onChange={(e) => onFilter({ ...filter, level: e.target.value === "" ? null : (Number(e.target.value) as FeedbackLevel) })}
        >
          <option value="">any level</option>
          {FEEDBACK_LEVELS.map((l) => (
            <option key={l} value={l}>
              has L{l}
            </option>
          ))}
        </select>
        <span className="muted small" data-testid="run-count">
          {shown.length === runs.length ? `${runs.length} run(s)` : `${shown.length} of ${runs.length} run(s)`}
        </span>
      </div>
      <div className="run-table-scroll">
        <table className="metrics run-table">
          <thead>
            <tr>
              <th scope="col">
                <span className="sr-only">show</span>
              </th>
              <th scope="col">model</th>
              <th scope="col">setting</th>
              <th scope="col">profile</th>
              <th scope="col">researcher</th>
              <th scope="col">levels</th>
              <th scope="col">turn limit</th>
              <th scope="col">tasks</th>
              <th scope="col">date</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.id} data-testid="run-row" data-model={r.model} aria-selected={selected.has(r.id)}>
                <td>
                  <input
                    type="checkbox"
                    checked={selected.has(r.id)}
                    onChange={() => onToggle(r.id)}
                    aria-label={`Show the run of ${r.model}, ${r.setting}, researcher ${r.researcher}`}
                  />
                </td>
                <td>
                  <code>{r.model}</code>
                  {r.conditions.backend !== "pyodide" && <span className="muted small"> ({r.conditions.backend})</span>}
                </td>
                <td>{r.setting}</td>
                <td>{r.conditions.protocol}</td>
                <td>{r.researcher}</td>
                <td>{r.levels.map((l) => `L${l}`).join(" ")}</td>
                <td>{r.maxTurns}</td>
                <td>
                  {r.tasks.length}
                  {r.unfinished > 0 && <span className="muted small"> ({r.unfinished} unfinished)</span>}
                </td>
                <td className="small">{shortDate(r.lastAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {shown.length === 0 && <p className="muted">No run matches.</p>}
      </div>
    </section>
  );
}
