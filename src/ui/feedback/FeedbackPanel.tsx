/**
 * Feedback tab: after a run of the open task that did not pass, a researcher
 * reviews it (RECODE-H "Feedback hierarchy"). The panel shows the test log and
 * the feedback rendered at the chosen level L0-L4; changing the level
 * re-renders the same raw record without asking the researcher again (replay).
 * The direct code correction (with "Apply to editor") appears only at L4.
 */
import { useEffect, useState } from "react";
import { CATEGORY_NAMES, type FeedbackLevel, type FeedbackRecord, renderFeedback, renderTestLog } from "../../core/feedback";
import type { RunResult } from "../../core/results";
import type { Task } from "../../core/task";
import { useObservable, useServices } from "../services";
import type { TaskWorkspace } from "../tasks/panels";
import { applyCorrection, codeOfCorrection } from "./apply";
import { HumanFeedbackForm } from "./HumanFeedbackForm";

/** Which researcher reviews the run in the Feedback tab. */
export type PanelResearcher = "rules" | "llm" | "human";

interface Review {
  /** The run that was reviewed. */
  result: RunResult;
  code: string;
  record: FeedbackRecord | null;
  researcher: PanelResearcher;
}

/** Reviews per task and researcher, kept while the page is open (tabs unmount their panels). */
const reviews = new Map<string, Review>();
const reviewKey = (taskId: string, r: PanelResearcher) => `${taskId}|${r}`;
const chosenLevel = new Map<string, FeedbackLevel>();
const chosenResearcher = new Map<string, PanelResearcher>();

const LEVELS: FeedbackLevel[] = [0, 1, 2, 3, 4];
const LEVEL_HINTS: Record<FeedbackLevel, string> = {
  0: "no feedback, only the test log",
  1: "interface + description",
  2: "+ analysis",
  3: "+ actionable guidance (no code)",
  4: "+ direct code correction",
};

/** The Feedback tab of a task. */
export function FeedbackPanel({ ws }: { ws: TaskWorkspace }) {
  const services = useServices();
  const task = ws.task;
  const [level, setLevelState] = useState<FeedbackLevel>(chosenLevel.get(task.id) ?? 2);
  const [researcher, setResearcherState] = useState<PanelResearcher>(chosenResearcher.get(task.id) ?? "rules");
  const [, setVersion] = useState(0);
  const review = reviews.get(reviewKey(task.id, researcher)) ?? null;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const models = useObservable(services.models);
  const result = ws.lastResult;

  const setLevel = (l: FeedbackLevel) => {
    chosenLevel.set(task.id, l);
    setLevelState(l);
  };
  const setResearcher = (r: PanelResearcher) => {
    chosenResearcher.set(task.id, r);
    setResearcherState(r);
    // A message about another researcher does not apply any more.
    setError(null);
  };
  const keep = (r: Review) => {
    reviews.set(reviewKey(task.id, r.researcher), r);
    setVersion((v) => v + 1);
  };

  const ask = async (kind: "rules" | "llm") => {
    if (!result || result.allPassed) return;
    setBusy(true);
    setError(null);
    try {
      const last = await services.lastRunWithCode(task.id);
      const code = last && last.result === result ? last.code : (last?.code ?? ws.getCode());
      const record = await services.review(task, code, result, kind);
      keep({ result, code, record, researcher: kind });
    } catch (e) {
      setError(`The ${kind} researcher could not review this run: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  // The rules researcher (offline, instant) reviews every new failing run on its own.
  let current = review && review.result === result ? review : null;
  if (!current && researcher === "human" && result && !result.allPassed) {
    // What a person wrote before a reload comes back (kept per task).
    const saved = services.humanFeedback.get(task.id);
    if (saved && saved.length > 0) {
      current = { result, code: ws.getCode(), record: { researcher: "human", items: saved }, researcher: "human" };
      reviews.set(reviewKey(task.id, "human"), current);
    }
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: review once per new run result
  useEffect(() => {
    if (researcher === "rules" && result && !result.allPassed && !ws.running && !current) void ask("rules");
  }, [result, researcher, ws.running]);

  if (ws.running) return <div className="feedback-panel muted">Tests are running…</div>;
  if (!result) {
    return (
      <div className="feedback-panel">
        <p className="muted">Run the tests first: the researcher reviews a run that did not pass.</p>
      </div>
    );
  }
  if (result.allPassed) {
    return (
      <div className="feedback-panel">
        <p className="panel ok">Every test passed: there is nothing to review.</p>
      </div>
    );
  }
  const record = current?.record ?? null;
  return (
    <div className="feedback-panel" data-testid="feedback-panel">
      <div className="feedback-controls">
        <label>
          Researcher{" "}
          <select value={researcher} onChange={(e) => setResearcher(e.target.value as PanelResearcher)} aria-label="Researcher">
            <option value="rules">rules (offline)</option>
            <option value="llm">llm (researcher model)</option>
            <option value="human">human (write the feedback)</option>
          </select>
        </label>
        {researcher === "llm" && (
          <button type="button" onClick={() => void ask("llm")} disabled={busy}>
            {busy ? "Reviewing…" : current?.researcher === "llm" ? "Ask again" : "Ask the researcher"}
          </button>
        )}
        {researcher === "llm" && (
          <span className="muted small">
            model: {models.researcher.kind === "endpoint" ? models.researcher.model || "not set (Settings)" : models.researcher.kind}
          </span>
        )}
        <fieldset className="levels" aria-label="Feedback level">
          <legend>Level</legend>
          {LEVELS.map((l) => (
            <label key={l} title={LEVEL_HINTS[l]}>
              <input type="radio" name={`level-${task.id}`} checked={level === l} onChange={() => setLevel(l)} aria-label={`L${l}`} />L{l}
            </label>
          ))}
          <span className="muted small">{LEVEL_HINTS[level]}</span>
        </fieldset>
      </div>
      {error && (
        <div className="panel error" role="alert">
          {error}
        </div>
      )}
      {busy && researcher !== "llm" && <p className="muted">The researcher is reviewing the run…</p>}
      {researcher === "human" && (
        <HumanFeedbackForm
          task={task}
          items={current?.researcher === "human" ? (current.record?.items ?? []) : []}
          onChange={(items) => {
            services.humanFeedback.set(task.id, items.length > 0 ? items : null);
            keep({ result, code: ws.getCode(), record: { researcher: "human", items }, researcher: "human" });
          }}
        />
      )}
      {record && <RenderedFeedback record={record} level={level} task={task} ws={ws} />}
      <h3>Test log</h3>
      <pre className="test-log" data-testid="test-log">
        {renderTestLog(result)}
      </pre>
    </div>
  );
}

function RenderedFeedback({ record, level, ws }: { record: FeedbackRecord; level: FeedbackLevel; task: Task; ws: TaskWorkspace }) {
  const text = renderFeedback(record, level);
  return (
    <section className="feedback-record" data-testid="feedback" data-level={level}>
      <h3>
        Feedback at L{level} <span className="muted small">from the {record.researcher} researcher</span>
      </h3>
      {level > 0 && record.items.length > 0 && (
        <ul className="feedback-items">
          {record.items.map((item, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity besides their position
            <li key={i} data-category={item.category}>
              <span className={`category cat-${item.category}`} title={CATEGORY_NAMES[item.category]}>
                {item.category} {CATEGORY_NAMES[item.category]}
              </span>{" "}
              <code>{item.interface}</code>
            </li>
          ))}
        </ul>
      )}
      {level === 0 ? (
        <p className="muted">L0: the agent receives no researcher feedback, only the test log below.</p>
      ) : (
        <pre className="feedback-text" data-testid="feedback-text">
          {text}
        </pre>
      )}
      {level === 4 &&
        record.items
          .filter((item) => item.direct_code_feedback.trim())
          .map((item, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity besides their position
            <div key={i} className="feedback-code" data-testid="feedback-code">
              <div className="feedback-code-head">
                <span>
                  Code correction for <code>{item.interface}</code>
                </span>
                <button
                  type="button"
                  onClick={() => ws.setCode(applyCorrection(ws.getCode(), item.direct_code_feedback))}
                  title="Replaces the definition in the editor (Ctrl+Z undoes it)"
                >
                  Apply to editor
                </button>
              </div>
              <pre className="code">{codeOfCorrection(item.direct_code_feedback)}</pre>
            </div>
          ))}
    </section>
  );
}
