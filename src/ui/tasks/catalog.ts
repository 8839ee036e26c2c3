/**
 * The task catalog of the page: task folders bundled at build time from
 * /tasks, grouped by folder and loaded with loadTaskFromFiles. A folder that
 * does not follow the task format becomes an entry carrying its error, so one
 * broken task never breaks the page.
 */
import { loadTaskFromFiles, type Task, TaskFormatError } from "../../core/task";

/** One folder of the catalog: a loaded task, or the reason it could not be loaded. */
export type CatalogEntry = { id: string; task: Task; error: null } | { id: string; task: null; error: TaskFormatError };

/**
 * Group bundled files (`/tasks/<folder>/<path>` -> text) by folder and load
 * each folder. Entries are sorted by folder name. Never throws.
 */
export function buildCatalog(files: Record<string, string>, root = "/tasks/"): CatalogEntry[] {
  const folders = new Map<string, Record<string, string>>();
  for (const [path, text] of Object.entries(files)) {
    if (!path.startsWith(root)) continue;
    const rest = path.slice(root.length);
    const slash = rest.indexOf("/");
    if (slash <= 0) continue;
    const folder = rest.slice(0, slash);
    const rel = rest.slice(slash + 1);
    if (rel.includes("__pycache__/") || rel.endsWith(".pyc")) continue;
    let group = folders.get(folder);
    if (!group) {
      group = {};
      folders.set(folder, group);
    }
    group[rel] = text;
  }
  const out: CatalogEntry[] = [];
  for (const folder of [...folders.keys()].sort()) {
    try {
      out.push({ id: folder, task: loadTaskFromFiles(folder, folders.get(folder) as Record<string, string>), error: null });
    } catch (e) {
      const error = e instanceof TaskFormatError ? e : new TaskFormatError(folder, "(folder)", (e as Error).message);
      out.push({ id: folder, task: null, error });
    }
  }
  return out;
}

/** Every file of every task folder, as raw text, bundled into the page. */
export function bundledTaskFiles(): Record<string, string> {
  return import.meta.glob("/tasks/*/**/*", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
}
