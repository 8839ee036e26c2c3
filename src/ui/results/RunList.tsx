/**
 * The list of runs on the results page: search, filters, and one line per
 * run (model, setting, protocol profile, researcher, levels, turn limit,
 * date) with a box to show it; two or more shown are compared.
 */
import type { FeedbackLevel } from "../../core/feedback";
import { plural } from "../../core/plural";
import type { Run, RunFilter } from "../../core/runs";
import { AGENT_SETTINGS, FEEDBACK_LEVELS } from "../../core/vocabulary";
import { shortDate } from "./RunDetail";

const distinct = (values: string[]) => [...new Set(values)].sort();

/** A filter's choice: "" (`any`) or one of `choices` ([value, text]). */
function FilterSelect({
  label,
  any,
  choices,
  value,
  onChange,
}: {
  label: string;
  any: string;
  choices: readonly (readonly [string, string])[];
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{any}</option>
      {choices.map(([v, text]) => (
        <option key={v} value={v}>
          {text}
        </option>
      ))}
    </select>
  );
}

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
        <FilterSelect
          label="Setting"
          any="any setting"
          choices={AGENT_SETTINGS.map((v) => [v, v])}
          value={filter.setting ?? ""}
          onChange={(v) => onFilter({ ...filter, setting: v as Run["setting"] | "" })}
        />
        <FilterSelect
          label="Protocol profile"
          any="any profile"
          choices={profiles.map((v) => [v, v])}
          value={filter.protocol ?? ""}
          onChange={(v) => onFilter({ ...filter, protocol: v })}
        />
        <FilterSelect
          label="Researcher"
          any="any researcher"
          choices={researchers.map((v) => [v, v])}
          value={filter.researcher ?? ""}
          onChange={(v) => onFilter({ ...filter, researcher: v })}
        />
        <FilterSelect
          label="Level"
          any="any level"
          choices={FEEDBACK_LEVELS.map((l) => [String(l), `has L${l}`])}
          value={filter.level == null ? "" : String(filter.level)}
          onChange={(v) => onFilter({ ...filter, level: v === "" ? null : (Number(v) as FeedbackLevel) })}
        />
        <span className="muted small" data-testid="run-count">
          {shown.length === runs.length ? plural(runs.length, "run") : `${shown.length} of ${plural(runs.length, "run")}`}
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
