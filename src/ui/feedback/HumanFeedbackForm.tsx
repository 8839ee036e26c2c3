/**
 * The human researcher: a form where a teacher writes feedback items (the six
 * RECODE-H fields). Each item is checked with FeedbackItemSchema; problems are
 * shown next to their field and nothing is added until they are fixed.
 */
import { useState } from "react";
import { CATEGORY_NAMES, type FeedbackCategory, type FeedbackItem, FeedbackItemSchema } from "../../core/feedback";
import type { Task } from "../../core/task";

const EMPTY = (itf: string): FeedbackItem => ({
  interface: itf,
  category: "T2",
  description: "",
  analysis: "",
  actionable_feedback: "",
  direct_code_feedback: "",
});

type Field = keyof FeedbackItem;

/** Form for the human researcher; `onChange` gets the full item list after every add or removal. */
export function HumanFeedbackForm({
  task,
  items,
  onChange,
}: {
  task: Task;
  items: FeedbackItem[];
  onChange: (items: FeedbackItem[]) => void;
}) {
  const interfaces = [...task.meta.interfaces.map((i) => i.name), task.meta.target_file_path];
  const [draft, setDraft] = useState<FeedbackItem>(EMPTY(interfaces[0] ?? ""));
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});

  const set = (f: Field, v: string) => {
    setDraft({ ...draft, [f]: v });
    if (errors[f]) setErrors({ ...errors, [f]: undefined });
  };
  const add = () => {
    const res = FeedbackItemSchema.safeParse({ ...draft, description: draft.description.trim() });
    if (!res.success) {
      const next: Partial<Record<Field, string>> = {};
      for (const issue of res.error.issues) {
        const f = issue.path[0] as Field;
        if (!next[f]) next[f] = issue.message;
      }
      setErrors(next);
      return;
    }
    setErrors({});
    onChange([...items, res.data]);
    setDraft(EMPTY(draft.interface));
  };
  const err = (f: Field) =>
    errors[f] ? (
      <span className="field-error" role="alert" data-field={f}>
        {f}: {errors[f]}
      </span>
    ) : null;

  return (
    <section className="human-form" aria-label="Write feedback">
      <h3>
        Write feedback ({items.length} item{items.length === 1 ? "" : "s"})
      </h3>
      {items.length > 0 && (
        <ol className="human-items">
          {items.map((it, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity besides their position
            <li key={i}>
              <span className={`category cat-${it.category}`}>{it.category}</span> <code>{it.interface}</code> {it.description}{" "}
              <button type="button" className="link" onClick={() => onChange(items.filter((_, k) => k !== i))}>
                remove
              </button>
            </li>
          ))}
        </ol>
      )}
      <div className="form-grid">
        <label>
          Interface
          <select value={draft.interface} onChange={(e) => set("interface", e.target.value)}>
            {interfaces.map((i) => (
              <option key={i} value={i}>
                {i}
              </option>
            ))}
          </select>
          {err("interface")}
        </label>
        <label>
          Category
          <select value={draft.category} onChange={(e) => set("category", e.target.value as FeedbackCategory)}>
            {(Object.keys(CATEGORY_NAMES) as FeedbackCategory[]).map((c) => (
              <option key={c} value={c}>
                {c} {CATEGORY_NAMES[c]}
              </option>
            ))}
          </select>
          {err("category")}
        </label>
        <label className="wide">
          Description (L1: what is wrong)
          <textarea rows={2} value={draft.description} onChange={(e) => set("description", e.target.value)} />
          {err("description")}
        </label>
        <label className="wide">
          Analysis (L2: why it fails)
          <textarea rows={2} value={draft.analysis} onChange={(e) => set("analysis", e.target.value)} />
          {err("analysis")}
        </label>
        <label className="wide">
          Actionable feedback (L3: what to do, in words)
          <textarea rows={2} value={draft.actionable_feedback} onChange={(e) => set("actionable_feedback", e.target.value)} />
          {err("actionable_feedback")}
        </label>
        <label className="wide">
          Direct code (L4: the corrected code)
          <textarea
            rows={4}
            className="mono"
            value={draft.direct_code_feedback}
            onChange={(e) => set("direct_code_feedback", e.target.value)}
          />
          {err("direct_code_feedback")}
        </label>
      </div>
      <div className="buttons">
        <button type="button" className="primary" onClick={add}>
          Add item
        </button>
      </div>
    </section>
  );
}
