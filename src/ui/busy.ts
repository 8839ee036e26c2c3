/**
 * Work of the page that a task switch or closing the page would cut short
 * (agent runs): registered here while it runs, so that the page asks first.
 * Closing or reloading the page then gets the browser's "leave this page?"
 * question; switching task gets {@link confirmLeaving}.
 */

/** One piece of work going on, and how to stop it. */
export interface BusyWork {
  taskId: string;
  /** What it is, for the question, e.g. "an agent run". */
  what: string;
  stop: () => void;
}

const going = new Map<string, BusyWork>();

/** Note work as going on (replaces an earlier note with the same key); returns the function that clears it. */
export function markBusy(key: string, work: BusyWork): () => void {
  going.set(key, work);
  return () => {
    if (going.get(key) === work) going.delete(key);
  };
}

/** Work going on on a task other than `taskId`. */
export function busyElsewhere(taskId: string): BusyWork[] {
  return [...going.values()].filter((w) => w.taskId !== taskId);
}

/**
 * Before opening `taskId`: when work on another task is going on, ask whether to stop it and go on. Returns
 * whether to go on (the work was stopped, or there was none).
 */
export function confirmLeaving(taskId: string): boolean {
  const others = busyElsewhere(taskId);
  if (others.length === 0) return true;
  const list = others.map((w) => `${w.what} on ${w.taskId}`).join(", ");
  if (!window.confirm(`Stop ${list} and open ${taskId}? Its finished turns are saved; running it again resumes.`)) return false;
  for (const w of others) w.stop();
  return true;
}

if (typeof window !== "undefined") {
  window.addEventListener("beforeunload", (e) => {
    if (going.size === 0) return;
    // The browser asks whether to leave (its own words; the text is not shown by current browsers).
    e.preventDefault();
    e.returnValue = "";
  });
}
