/**
 * The task catalog of the page: task folders bundled at build time from
 * /tasks, grouped by folder and loaded with loadTaskFromFiles. A folder that
 * does not follow the task format becomes an entry carrying its error, so one
 * broken task never breaks the page.
 *
 * The page starts with every folder's task.json only ({@link lazyCatalog}):
 * enough for the list. A task's other files (instruction, paper, repo, tests,
 * recorded values) are fetched when the task is opened, as one chunk per task
 * folder (vite.config.ts groups them).
 */
import { loadTaskFromFiles, parseTaskMeta, type Task, TaskFormatError, type TaskMeta } from "../../core/task";

/**
 * One folder of the catalog: a loaded task, the reason it could not be
 * loaded, or (in the page) a task whose task.json is read and whose other
 * files are fetched by `load` (which resolves with a loaded or a broken entry
 * and never rejects).
 */
export type CatalogEntry =
  | { id: string; task: Task; error: null }
  | { id: string; task: null; error: TaskFormatError }
  | { id: string; task: null; error: null; meta: TaskMeta; load: () => Promise<LoadedCatalogEntry> };

/** A catalog entry that is loaded (or broken): not waiting for its files. */
export type LoadedCatalogEntry = Exclude<CatalogEntry, { error: null; task: null }>;

/** Wrap what loading a folder threw as the entry of a broken folder. */
function brokenEntry(folder: string, e: unknown): LoadedCatalogEntry {
  const error = e instanceof TaskFormatError ? e : new TaskFormatError(folder, "(folder)", (e as Error).message);
  return { id: folder, task: null, error };
}

/** Whether a bundled path is a file of a task (not Python's byte-code cache). */
function isTaskFile(rel: string): boolean {
  return !rel.includes("__pycache__/") && !rel.endsWith(".pyc");
}

/**
 * A catalog whose entries carry their task.json (parsed, for the list) and
 * load the rest of their folder on demand. `metas` maps `/tasks/<folder>/task.json`
 * to its text; `loaders` maps every other file path (`/tasks/<folder>/<path>`)
 * to a function resolving with its text. A folder whose task.json is missing or
 * invalid is a broken entry at once; any other problem shows when it is loaded.
 * Entries are sorted by folder name. Never throws.
 */
export function lazyCatalog(
  metas: Record<string, string>,
  loaders: Record<string, () => Promise<string>>,
  root = "/tasks/",
): CatalogEntry[] {
  const folders = new Map<string, { meta: string | null; files: Map<string, () => Promise<string>> }>();
  const folderOf = (path: string) => {
    if (!path.startsWith(root)) return null;
    const rest = path.slice(root.length);
    const slash = rest.indexOf("/");
    if (slash <= 0) return null;
    const name = rest.slice(0, slash);
    let group = folders.get(name);
    if (!group) {
      group = { meta: null, files: new Map() };
      folders.set(name, group);
    }
    return { group, rel: rest.slice(slash + 1) };
  };
  for (const [path, text] of Object.entries(metas)) {
    const at = folderOf(path);
    if (at && at.rel === "task.json") at.group.meta = text;
  }
  for (const [path, load] of Object.entries(loaders)) {
    const at = folderOf(path);
    if (at && at.rel !== "task.json" && isTaskFile(at.rel)) at.group.files.set(at.rel, load);
  }
  const out: CatalogEntry[] = [];
  for (const folder of [...folders.keys()].sort()) {
    const group = folders.get(folder) as { meta: string | null; files: Map<string, () => Promise<string>> };
    const metaText = group.meta;
    if (metaText === null) {
      out.push(brokenEntry(folder, new TaskFormatError(folder, "task.json", "file is missing")));
      continue;
    }
    let meta: TaskMeta;
    try {
      meta = parseTaskMeta(folder, metaText);
    } catch (e) {
      out.push(brokenEntry(folder, e));
      continue;
    }
    let loading: Promise<LoadedCatalogEntry> | null = null;
    const load = () => {
      loading ??= (async (): Promise<LoadedCatalogEntry> => {
        try {
          const files: Record<string, string> = { "task.json": metaText };
          const texts = await Promise.all([...group.files].map(async ([rel, get]) => [rel, await get()] as const));
          for (const [rel, text] of texts) files[rel] = text;
          return { id: folder, task: loadTaskFromFiles(folder, files), error: null };
        } catch (e) {
          return brokenEntry(folder, e);
        }
      })();
      return loading;
    };
    out.push({ id: folder, task: null, error: null, meta, load });
  }
  return out;
}

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
    if (!isTaskFile(rel)) continue;
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
      out.push(brokenEntry(folder, e));
    }
  }
  return out;
}

/** Every file of every task folder, as raw text, bundled into the page. */
export function bundledTaskFiles(): Record<string, string> {
  return import.meta.glob("/tasks/*/**/*", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
}

/** Every task folder's task.json, as raw text, bundled into the page (for the list). */
export function bundledTaskMetas(): Record<string, string> {
  return import.meta.glob("/tasks/*/task.json", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
}

/** Loaders of every other file of every task folder (fetched when the task is opened). */
export function bundledTaskLoaders(): Record<string, () => Promise<string>> {
  return import.meta.glob(["/tasks/*/**/*", "!/tasks/*/task.json"], { query: "?raw", import: "default" }) as Record<
    string,
    () => Promise<string>
  >;
}
