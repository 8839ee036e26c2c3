/**
 * Extension point of the task view: feature folders (feedback, agent, ...)
 * register panels that appear as extra tabs beside Instruction, Paper and
 * Repo. A panel gets the task workspace: the task, the editor text, and the
 * run button, so it never needs to touch the editor, storage or workers.
 */
import { type ComponentType, createElement, lazy, type ReactNode, Suspense } from "react";
import type { RunResult } from "../../core/results";
import type { Task } from "../../core/task";

/** What a panel can see and do in the open task. */
export interface TaskWorkspace {
  task: Task;
  /** Current text of the target file in the editor. */
  getCode(): string;
  /** Replace the target file's text (undoable in the editor; saved as the draft). */
  setCode(text: string): void;
  /** Run the unit tests on the current text, like the Run button. Resolves with the result, or null when the run could not start or another is running. */
  runTests(): Promise<RunResult | null>;
  /** Result shown in the results panel (the last run), or null. */
  lastResult: RunResult | null;
  /** Whether a run is in progress. */
  running: boolean;
}

/** A tab of the task view added by a feature. */
export interface TaskPanel {
  /** Unique id, e.g. `feedback`. */
  id: string;
  /** Tab title. */
  title: string;
  render: (ws: TaskWorkspace) => ReactNode;
}

const registry: TaskPanel[] = [];

/**
 * Add a panel to every task view (in registration order, after Repo). Call at
 * module load, before the app renders.
 * @throws Error when a panel with the same id is already registered.
 */
export function registerTaskPanel(panel: TaskPanel): void {
  if (registry.some((p) => p.id === panel.id)) throw new Error(`a task panel with id "${panel.id}" is already registered`);
  registry.push(panel);
}

/** Registered panels, in order. */
export function taskPanels(): readonly TaskPanel[] {
  return registry;
}

/**
 * A component loaded when it first renders (its chunk is fetched then), with a
 * small loading line meanwhile. For panels and views that are not needed to
 * show a task and the editor. `name` says what is loading ("Loading the
 * agent…"); the loading line carries `data-testid="lazy-loading"`.
 */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>, name: string): ComponentType<P> {
  const Lazy = lazy(async () => ({ default: await load() }));
  // biome-ignore lint/correctness/noComponentHookFactories: called once per component at module load, never during a render.
  function LazyComponent(props: P) {
    const fallback = createElement(
      "p",
      { className: "muted lazy-loading", "data-testid": "lazy-loading", role: "status" },
      `Loading ${name}…`,
    );
    // biome-ignore lint/suspicious/noExplicitAny: props pass through unchanged to the loaded component.
    return createElement(Suspense, { fallback }, createElement(Lazy as ComponentType<any>, props));
  }
  LazyComponent.displayName = `Lazy(${name})`;
  return LazyComponent;
}
