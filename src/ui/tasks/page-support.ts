/**
 * What the page can run. Tasks with `isolation: "shared"` (imported official
 * RECODE-H tasks) run their tests under pytest beside the reference solution,
 * with a native Python (`recode test --python`); the page runs tests in
 * Pyodide with the host's recorded values only, so it shows such tasks
 * read-only, with the reason and the packages they need.
 */
import type { Task } from "../../core/task";

/** Why the page cannot run the task's tests (it is shown read-only), or null when it can. */
export function pageRunBlocker(task: Pick<Task, "id" | "meta">): string | null {
  if (task.meta.isolation !== "shared") return null;
  const others = task.meta.packages.filter((p) => p.toLowerCase() !== "pytest");
  const needs = others.length > 0 ? ` It needs pytest and ${others.join(", ")}.` : " It needs pytest.";
  return (
    `Read-only here: this imported RECODE-H task runs its tests under pytest beside the reference solution (isolation "shared"), which the page does not do.${needs} ` +
    `Run a file against it with: recode test ${task.id} <file.py> --dir <its task folder> --python <a Python that has them>.`
  );
}
