/** The task's repository: a file tree; clicking a file shows it read-only. */
import { useMemo, useState } from "react";
import type { Task } from "../../core/task";

/** Name under which the unit tests appear (as in tracebacks). */
const TESTS_FILE = "test.py";

/** Repo files of a task, then its unit tests; the target file is marked and opens in the editor instead. */
export function RepoTree({ task }: { task: Task }) {
  const files = useMemo<Record<string, string>>(() => ({ ...task.repo, [TESTS_FILE]: task.tests }), [task]);
  const paths = useMemo(() => [...Object.keys(task.repo).sort(), TESTS_FILE], [task]);
  const target = task.meta.target_file_path;
  const [open, setOpen] = useState<string | null>(paths.find((p) => p !== target) ?? null);
  const shown = open !== null && open !== target ? files[open] : undefined;
  return (
    <div className="repo">
      <ul className="repo-tree" aria-label="Repository files">
        {paths.map((p) => {
          const depth = p.split("/").length - 1;
          const isTarget = p === target;
          return (
            <li key={p} style={{ paddingLeft: `${depth * 12}px` }}>
              <button
                type="button"
                className={`${open === p ? "active " : ""}${isTarget ? "target" : ""}`}
                onClick={() => setOpen(p)}
                title={
                  isTarget
                    ? "The file you write (open in the editor)"
                    : p === TESTS_FILE
                      ? "The task's unit tests (read-only)"
                      : "Read-only context file"
                }
              >
                {p}
                {isTarget ? " \u270e" : ""}
                {p === TESTS_FILE ? " (unit tests)" : ""}
              </button>
            </li>
          );
        })}
      </ul>
      {open === target ? (
        <p className="hint">
          <code>{target}</code> is the file you write: it is open in the editor.
        </p>
      ) : shown !== undefined ? (
        <div className="repo-file">
          <div className="repo-file-head">
            {open} <span className="ro">read-only</span>
          </div>
          <pre className="code" data-testid="repo-file">
            {shown.split("\n").map((line, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional
              <div key={i} className="code-line">
                <span className="ln">{i + 1}</span>
                <span>{line}</span>
              </div>
            ))}
          </pre>
        </div>
      ) : null}
    </div>
  );
}
