/** Tabs with what the coder reads: Instruction, Paper, Repo. */
import { useState } from "react";
import type { Task } from "../../core/task";
import { Markdown } from "./Markdown";
import { Paper } from "./Paper";
import { type TaskWorkspace, taskPanels } from "./panels";
import { RepoTree } from "./RepoTree";

const BUILT_IN = ["Instruction", "Paper", "Repo"] as const;

/** Instruction, paper and repository of a task, plus registered panels, in tabs. */
export function TaskInfo({ task, workspace }: { task: Task; workspace: TaskWorkspace }) {
  const panels = taskPanels();
  const tabs: { id: string; title: string }[] = [
    ...BUILT_IN.map((t) => ({ id: t, title: t })),
    ...panels.map((p) => ({ id: `panel:${p.id}`, title: p.title })),
  ];
  const [tab, setTab] = useState<string>("Instruction");
  const panel = panels.find((p) => `panel:${p.id}` === tab);
  const m = task.meta;
  return (
    <section className="task-info">
      <header className="task-head">
        <h2>{m.title}</h2>
        <div className="task-paper">
          <a href={m.paper.url} target="_blank" rel="noreferrer">
            {m.paper.title}
          </a>{" "}
          — {m.paper.authors.length > 3 ? `${m.paper.authors.slice(0, 3).join(", ")} et al.` : m.paper.authors.join(", ")} (
          {m.paper.venue.includes(String(m.paper.year)) ? m.paper.venue : `${m.paper.venue} ${m.paper.year}`})
        </div>
      </header>
      <div className="tabs" role="tablist">
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            className={tab === t.id ? "active" : ""}
            onClick={() => setTab(t.id)}
          >
            {t.title}
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
        {tab === "Paper" && <Paper tex={task.paper} />}
        {tab === "Repo" && <RepoTree task={task} />}
        {panel?.render(workspace)}
      </div>
    </section>
  );
}
