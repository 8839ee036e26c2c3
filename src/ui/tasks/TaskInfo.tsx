/** Tabs with what the coder reads: Instruction, Paper, Repo. */
import { useMemo, useState } from "react";
import type { Task } from "../../core/task";
import { latexToMarkdown } from "./latex";
import { Markdown } from "./Markdown";
import { RepoTree } from "./RepoTree";

const TABS = ["Instruction", "Paper", "Repo"] as const;
type Tab = (typeof TABS)[number];

/** Instruction, paper and repository of a task, in tabs. */
export function TaskInfo({ task }: { task: Task }) {
  const [tab, setTab] = useState<Tab>("Instruction");
  const paper = useMemo(() => latexToMarkdown(task.paper), [task]);
  const m = task.meta;
  return (
    <section className="task-info">
      <header className="task-head">
        <h2>{m.title}</h2>
        <div className="task-paper">
          <a href={m.paper.url} target="_blank" rel="noreferrer">
            {m.paper.title}
          </a>{" "}
          — {m.paper.authors.join(", ")} (
          {m.paper.venue.includes(String(m.paper.year)) ? m.paper.venue : `${m.paper.venue} ${m.paper.year}`})
        </div>
      </header>
      <div className="tabs" role="tablist">
        {TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            className={tab === t ? "active" : ""}
            onClick={() => setTab(t)}
          >
            {t}
          </button>
        ))}
      </div>
      <div className="tab-body" role="tabpanel">
        {tab === "Instruction" && (
          <>
            <Markdown text={task.instruction} />
            <h3>Interfaces</h3>
            <ul className="interfaces">
              {m.interfaces.map((i) => (
                <li key={i.name}>
                  <code>{i.name}</code> — {i.tests.length} test{i.tests.length === 1 ? "" : "s"}
                </li>
              ))}
            </ul>
          </>
        )}
        {tab === "Paper" && <Markdown text={paper} />}
        {tab === "Repo" && <RepoTree task={task} />}
      </div>
    </section>
  );
}
