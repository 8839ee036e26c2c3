/**
 * Tabs with what the coder reads: Instruction, Paper, Repo. The Markdown and
 * paper renderers (with KaTeX) are loaded when first shown (the Markdown one
 * after the editor); until then the instruction shows as plain text.
 */
import { lazy, Suspense, useState } from "react";
import { type Task, venueAndYear } from "../../core/task";
import { preloadEditor } from "../editor/LazyEditor";
import { lazyComponent, type TaskWorkspace, taskPanels } from "./panels";
import { RepoTree } from "./RepoTree";

// The Markdown renderer (with KaTeX) is fetched after the editor, which comes first; the plain text shows meanwhile.
const Markdown = lazy(async () => {
  await preloadEditor().catch(() => undefined);
  return { default: (await import("./Markdown")).Markdown };
});
const Paper = lazyComponent<{ tex: string }>(async () => (await import("./Paper")).Paper, "the paper renderer");

const BUILT_IN = ["Instruction", "Paper", "Repo"] as const;

/** Instruction, paper and repository of a task, plus registered panels, in tabs. */
export function TaskInfo({ task, workspace }: { task: Task; workspace: TaskWorkspace }) {
  const panels = taskPanels();
  const tabs: { id: string; title: string }[] = [
    // (A task with no paper.tex, a course task, has no Paper tab.)
    ...BUILT_IN.filter((t) => t !== "Paper" || task.paper.trim() !== "").map((t) => ({ id: t, title: t })),
    ...panels.map((p) => ({ id: `panel:${p.id}`, title: p.title })),
  ];
  const [tab, setTab] = useState<string>("Instruction");
  const panel = panels.find((p) => `panel:${p.id}` === tab);
  const m = task.meta;
  return (
    <section className="task-info">
      <header className="task-head">
        <h2>{m.title}</h2>
        {m.paper && (
          <div className="task-paper">
            <a href={m.paper.url} target="_blank" rel="noreferrer">
              {m.paper.title}
            </a>{" "}
            — {m.paper.authors.length > 3 ? `${m.paper.authors.slice(0, 3).join(", ")} et al.` : m.paper.authors.join(", ")} (
            {venueAndYear(m.paper)})
          </div>
        )}
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
            <Suspense
              fallback={
                <div className="markdown plain" data-testid="instruction-plain">
                  {task.instruction}
                </div>
              }
            >
              <Markdown text={task.instruction} />
            </Suspense>
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
