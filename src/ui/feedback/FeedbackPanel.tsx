/**
 * Feedback tab: after a run of the open task that did not pass, a researcher
 * reviews it (RECODE-H "Feedback hierarchy"). The panel shows the test log and
 * the feedback rendered at a level L0-L4 of the ladder (Ladder.tsx): a new run
 * starts at L0 and the student asks for the next level one step at a time, up
 * to the class file's cap; each level asked for is recorded with the run's
 * turn. Changing the level re-renders the same raw record without asking the
 * researcher again (replay). The direct code correction (with "Apply to
 * editor", unless the class hides it) appears only at L4.
 */
import { useEffect, useState } from "react";
import {
  CATEGORY_HELP,
  CATEGORY_NAMES,
  type FeedbackItem,
  type FeedbackLevel,
  type FeedbackRecord,
  MAX_RENDERED_ITEMS,
  renderTestLog,
  stripCode,
} from "../../core/feedback";
import { plural } from "../../core/plural";
import type { RunResult } from "../../core/results";
import type { Task } from "../../core/task";
import { STUDENT_BUILD } from "../build-info";
import { useObservable, useServices } from "../services";
import { Markdown } from "../tasks/Markdown";
import type { TaskWorkspace } from "../tasks/panels";
import { applyCorrection } from "./apply";
import { CorrectionBlock } from "./Correction";
import { HumanFeedbackForm } from "./HumanFeedbackForm";
import { Ladder } from "./Ladder";

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
const chosenResearcher = new Map<string, PanelResearcher>();

/** The level viewed per run (at most the level asked for on it). */
const viewed = new WeakMap<RunResult, FeedbackLevel>();
/** The level asked for per run in this page (the stored turn says the same, unless storing it failed). */
const asked = new WeakMap<RunResult, FeedbackLevel>();

/** The Feedback tab of a task. */
export function FeedbackPanel({ ws }: { ws: TaskWorkspace }) {
  const services = useServices();
  const task = ws.task;
  const teaching = services.teaching;
  const classSettings = useObservable(teaching.classSettings);
  useObservable(teaching.progress);
  // L4 is the canonical solution's code: a student build has none.
  const noCanonical = STUDENT_BUILD || task.canonical.trim() === "";
  const cap = Math.min(classSettings?.maxLevel ?? 4, noCanonical ? 3 : 4) as FeedbackLevel;
  const capReason =
    noCanonical && (classSettings?.maxLevel ?? 4) > 3
      ? "L4 (the canonical solution's code) is not part of this build."
      : `Your class allows feedback up to L${cap}.`;
  const [researcherChoice, setResearcherState] = useState<PanelResearcher>(chosenResearcher.get(task.id) ?? "rules");
  const researcher: PanelResearcher = classSettings?.researcher ?? researcherChoice;
  const [, setVersion] = useState(0);
  const review = reviews.get(reviewKey(task.id, researcher)) ?? null;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const models = useObservable(services.models);
  const result = ws.lastResult;

  // The ladder: the levels asked for on this run (recorded with its turn), and the one viewed.
  const reached = result ? (Math.min(Math.max(teaching.reached(task.id), asked.get(result) ?? 0), cap) as FeedbackLevel) : 0;
  const level = result ? (Math.min(viewed.get(result) ?? reached, reached) as FeedbackLevel) : 0;
  const show = (l: FeedbackLevel) => {
    if (result) viewed.set(result, l);
    setVersion((v) => v + 1);
  };
  const climb = (l: FeedbackLevel) => {
    if (result) asked.set(result, l);
    teaching.raiseLevel(task.id, l);
    show(l);
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
          <select
            value={researcher}
            onChange={(e) => setResearcher(e.target.value as PanelResearcher)}
            aria-label="Researcher"
            disabled={Boolean(classSettings?.researcher)}
            title={classSettings?.researcher ? "Set by the class file" : undefined}
          >
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
        <Ladder
          taskId={task.id}
          shown={level}
          reached={reached}
          cap={cap}
          capReason={capReason}
          waiting={record === null}
          onShow={show}
          onNext={climb}
        />
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
      {record && <RenderedFeedback record={record} level={level} task={task} ws={ws} canApply={!classSettings?.hideApply} />}
      <h3>Test log</h3>
      <pre className="test-log" data-testid="test-log">
        {renderTestLog(result)}
      </pre>
    </div>
  );
}

/** One item's fields at `level`, each as sanitised Markdown; below L4 with code taken out (as the agent gets them). */
function ItemFields({ item, level }: { item: FeedbackItem; level: FeedbackLevel }) {
  const clean = (v: string) => (level >= 4 ? v.trim() : stripCode(v));
  const fields: [string, string][] = [["Description", item.description]];
  if (level >= 2) fields.push(["Analysis", item.analysis]);
  if (level >= 3) fields.push(["Suggested fix", item.actionable_feedback]);
  return (
    <dl className="feedback-fields">
      {fields
        .map(([label, v]) => [label, clean(v)] as const)
        .filter(([, v]) => v)
        .map(([label, v]) => (
          <div key={label}>
            <dt>{label}:</dt>
            <dd>
              <Markdown text={v} links={false} />
            </dd>
          </div>
        ))}
    </dl>
  );
}

function RenderedFeedback({
  record,
  level,
  ws,
  canApply,
}: {
  record: FeedbackRecord;
  level: FeedbackLevel;
  task: Task;
  ws: TaskWorkspace;
  /** Whether "Apply" is offered (a class file can hide it). */
  canApply: boolean;
}) {
  const items = record.items.slice(0, MAX_RENDERED_ITEMS);
  // At L4 each interface's code is shown once, in its own block (highlighted, with the change it makes).
  const corrections = level === 4 ? record.items.filter((item) => item.direct_code_feedback.trim()) : [];
  const applyAll = () => ws.setCode(corrections.reduce((text, item) => applyCorrection(text, item.direct_code_feedback), ws.getCode()));
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
              <span className={`category cat-${item.category}`} title={CATEGORY_HELP[item.category]}>
                {item.category} {CATEGORY_NAMES[item.category]}
              </span>{" "}
              <code>{item.interface}</code>
            </li>
          ))}
        </ul>
      )}
      {level === 0 ? (
        <p className="muted">L0: no researcher feedback at this level, only the test log below.</p>
      ) : (
        <div className="feedback-text" data-testid="feedback-text">
          <p>
            {record.items.length === 0
              ? "Researcher feedback: no specific problems were named."
              : `Researcher feedback (${record.items.length} item${record.items.length === 1 ? "" : "s"}):`}
          </p>
          <ol className="feedback-list">
            {items.map((item, k) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity besides their position
              <li key={k}>
                <div className="feedback-item-head">
                  Interface:{" "}
                  <code>{level >= 4 ? item.interface.trim() : (/^[A-Za-z_][\w.]*/.exec(item.interface.trim())?.[0] ?? "(unnamed)")}</code>{" "}
                  <span className={`category cat-${item.category}`} title={CATEGORY_HELP[item.category]}>
                    {item.category} {CATEGORY_NAMES[item.category]}
                  </span>
                </div>
                <ItemFields item={item} level={level} />
              </li>
            ))}
          </ol>
          {record.items.length > items.length && (
            <p className="muted">({plural(record.items.length - items.length, "more item")} left out)</p>
          )}
        </div>
      )}
      {canApply && corrections.length > 1 && (
        <div className="feedback-apply-all">
          <button type="button" onClick={applyAll} title="Applies every correction below, in order (Ctrl+Z undoes it)">
            Apply all {corrections.length} corrections
          </button>
        </div>
      )}
      {corrections.map((item, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity besides their position
        <CorrectionBlock key={i} item={item} ws={ws} canApply={canApply} />
      ))}
    </section>
  );
}
