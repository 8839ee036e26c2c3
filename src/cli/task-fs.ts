/** Reading task folders from disk (Node). */
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { distance } from "fastest-levenshtein";
import { loadTaskFromFiles, type Task, TaskFormatError } from "../core/task";

/** The built-in task pack folder. */
export const BUILTIN_TASKS = resolve(fileURLToPath(new URL("../../tasks", import.meta.url)));

/** The command that records the task `id` of the folder `root` (which holds task folders), to show in a message. */
export function recordCommandFor(root: string, id: string): string {
  const folder = resolve(root);
  return `recode tasks record ${id}${folder === BUILTIN_TASKS ? "" : ` --dir ${folder}`}`;
}

const SKIP = new Set(["__pycache__", ".pytest_cache", ".git", "node_modules"]);

/** Largest file a task may hold, in bytes (the page bundles tasks; Pyodide keeps them in memory). */
export const MAX_TASK_FILE_BYTES = 2 * 1024 * 1024;
/** Largest total size of a task folder, in bytes. */
export const MAX_TASK_BYTES = 8 * 1024 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decode(task: string, rel: string, bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    const text = bytes.toString("utf8");
    const at = text.indexOf("\ufffd");
    const line = at >= 0 ? text.slice(0, at).split("\n").length : undefined;
    throw new TaskFormatError(task, rel, "not valid UTF-8 text (task files must be UTF-8)", undefined, line);
  }
}

/**
 * All files of a task folder as text, keyed by path relative to it (forward
 * slashes). Throws TaskFormatError for a symbolic link, a file that is not
 * UTF-8, or a file or folder over the size limits.
 */
export function readTaskFiles(dir: string): Record<string, string> {
  const task = basename(dir);
  const out: Record<string, string> = {};
  let total = 0;
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (SKIP.has(name) || name.endsWith(".pyc")) continue;
      const p = join(d, name);
      const rel = relative(dir, p).split("\\").join("/");
      const st = lstatSync(p);
      if (st.isSymbolicLink())
        throw new TaskFormatError(task, rel, "is a symbolic link; task folders hold plain files only (copy the file in)");
      if (st.isDirectory()) {
        walk(p);
        continue;
      }
      if (!st.isFile()) throw new TaskFormatError(task, rel, "is not a regular file");
      if (st.size > MAX_TASK_FILE_BYTES) {
        throw new TaskFormatError(
          task,
          rel,
          `is ${(st.size / 1048576).toFixed(1)} MB; a task file may be at most ${MAX_TASK_FILE_BYTES / 1048576} MB`,
        );
      }
      total += st.size;
      if (total > MAX_TASK_BYTES) throw new TaskFormatError(task, rel, `the task folder exceeds ${MAX_TASK_BYTES / 1048576} MB in all`);
      out[rel] = decode(task, rel, readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

/** A task folder (the `--dir`) that cannot be read at all. */
export class TaskFolderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TaskFolderError";
  }
}

/** Task ids in the order a reader expects: numbers within them by value (recodeh-2 before recodeh-11), the rest as text. */
export function byTaskId(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}

/** The ids of the task folders under `root` (hidden folders left out), in {@link byTaskId} order. Throws TaskFolderError when `root` is not a folder. */
export function listTaskIds(root: string = BUILTIN_TASKS): string[] {
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new TaskFolderError(`task folder ${root} does not exist (or is not a folder)`);
  // A task's own folder where the folder of tasks goes (its repo/ would be taken for a task).
  if (existsSync(join(root, "task.json")))
    throw new TaskFolderError(
      `${root} is a task's own folder (it holds task.json), not a folder of tasks: give its parent, --dir ${dirname(resolve(root))} ${basename(resolve(root))}`,
    );
  return readdirSync(root)
    .filter((n) => !n.startsWith(".") && statSync(join(root, n)).isDirectory())
    .sort(byTaskId);
}

/**
 * " (did you mean X?)" for a task id that is not known but is a small edit
 * (Levenshtein distance at most a third of its length, at least 2) or a part
 * of known ones; "" when nothing is close.
 */
export function didYouMean(id: string, known: readonly string[]): string {
  const near = known
    .map((k) => ({ k, d: distance(id.toLowerCase(), k.toLowerCase()) }))
    .filter(({ k, d }) => d <= Math.max(2, Math.floor(id.length / 3)) || (id.length >= 3 && k.includes(id)))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map(({ k }) => k);
  return near.length > 0 ? ` (did you mean ${near.join(" or ")}?)` : "";
}

/** What an unknown id's message says about tasks kept outside the folder read (the usual cause). */
const OTHER_FOLDER = "for a task in another folder, give that folder as --dir";

/**
 * What follows an unknown task id in its message: the near ids, where the folder's other tasks are, and the known
 * ids, all of them when none is near, else where to find them (a near id is what the user meant nearly always).
 * `known`: the ids of the folder read, `root`. Empty ids list: "(none)".
 */
export function unknownIdHelp(id: string, known: readonly string[], root: string): string {
  const near = didYouMean(id, known);
  const listCommand = `recode tasks list${root === BUILTIN_TASKS ? "" : ` --dir ${root}`}`;
  const list = near ? `\`${listCommand}\` names all ${known.length}` : `known tasks: ${known.join(", ") || "(none)"}`;
  return `${near}; ${OTHER_FOLDER}; ${list}`;
}

/** Load one task folder. Throws TaskFormatError (names task, file, field, line). */
export function loadTaskDir(root: string, id: string): Task {
  const dir = join(root, id);
  if (!existsSync(dir)) {
    const known = listTaskIds(root);
    throw new TaskFormatError(id, dir, `no such task folder${unknownIdHelp(id, known, root)}`);
  }
  if (!existsSync(join(dir, "task.json"))) {
    // A pack's grouping folder (week1/ holding task folders), which the page reads through and --dir does not.
    const inner = nestedTaskFolders(dir);
    if (inner.length > 0) {
      throw new TaskFormatError(
        id,
        "task.json",
        `file is missing: this folder holds task folders (${inner.slice(0, 3).join(", ")}${inner.length > 3 ? ", ..." : ""}), not a task; give --dir ${dir} to use them`,
      );
    }
  }
  return loadTaskFromFiles(id, readTaskFiles(dir));
}

/** Folders with a task.json below `dir` (at most three levels down), as paths relative to `dir`. */
function nestedTaskFolders(dir: string, depth = 3, prefix = ""): string[] {
  if (depth === 0 || !statSync(dir).isDirectory()) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort(byTaskId)) {
    const p = join(dir, name);
    if (name.startsWith(".") || !statSync(p).isDirectory()) continue;
    if (existsSync(join(p, "task.json"))) out.push(`${prefix}${name}`);
    else out.push(...nestedTaskFolders(p, depth - 1, `${prefix}${name}/`));
  }
  return out;
}

/**
 * The host folders a box must not show code under test when it runs tasks of `root`: the folder of tasks and
 * each task's own folder (which may be a link to a folder elsewhere: the box hides its real one too). Their
 * canonical solutions and recorded values are there (native-sandbox.ts, `hideFromBox`).
 */
export function taskFoldersToHide(root: string, ids: readonly string[]): string[] {
  return [resolve(root), ...ids.map((id) => resolve(root, id))];
}

/**
 * Where a task argument `spec` of a command is: a task id (or glob) of `dir`, or a task folder given by path. A bare
 * name (no slash) is a folder of the current directory only when that folder holds a task.json: an output folder
 * named after a task does not hide it.
 * @returns `root`, the folder that holds the task's folder, and `id`, the task's folder name there
 * @throws TaskFolderError for a path that does not exist or is a file
 */
export function taskPlace(spec: string, dir: string): { root: string; id: string } {
  const bare = !spec.includes("/") && !spec.includes("\\");
  if (existsSync(spec) && !(bare && statSync(spec).isDirectory() && !existsSync(join(spec, "task.json")))) {
    if (!statSync(spec).isDirectory())
      throw new TaskFolderError(`${spec} is not a task folder (give the folder that holds task.json, or a task id)`);
    const folder = resolve(spec);
    return { root: dirname(folder), id: basename(folder) };
  }
  if (!bare) throw new TaskFolderError(`task folder ${spec} does not exist`);
  return { root: dir, id: spec };
}

/**
 * The task arguments of `tasks record|validate|doc` (ids and globs of tasks in `dir`, or task folders given by
 * path, as `recode test` takes them; a comma also separates them) as one folder of tasks and the ids and globs in
 * it. Ids given beside a folder's path are tasks of that same folder.
 * @returns `dir`, the folder the tasks are in (`dir` itself when no folder is given by path), and `ids`, their ids and globs there
 * @throws TaskFolderError for a path that is not a task folder, for folders given by path that are not in one
 *   folder, and for a folder given by path outside an `--dir` that was given too (`dirGiven`)
 */
export function placeTaskArgs(dir: string, args: string[], dirGiven = false): { dir: string; ids: string[] } {
  const specs = args.flatMap((s) => s.split(",")).filter(Boolean);
  const placed = specs.map((spec) => {
    const at = spec.includes("*") ? { root: dir, id: spec } : taskPlace(spec, dir);
    return { spec, ...at, byPath: at.root !== dir || at.id !== spec };
  });
  const first = placed.find((p) => p.byPath);
  if (first === undefined) return { dir, ids: specs };
  const root = resolve(first.root);
  const other = placed.find((p) => p.byPath && resolve(p.root) !== root);
  if (other)
    throw new TaskFolderError(
      `${first.spec} is a task of ${root} and ${other.spec} one of ${resolve(other.root)}: give the tasks of one folder at a time`,
    );
  if (dirGiven && resolve(dir) !== root)
    throw new TaskFolderError(`${first.spec} is a task of ${root}, not of --dir ${dir}: give the folder by path or --dir, not both`);
  return { dir: root, ids: placed.map((p) => p.id) };
}

/** A task id or glob (`min-*`: `*` for any characters) as a regular expression of whole ids. */
export function taskGlob(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
}

/** Resolve task arguments (ids or globs like `min-*`) to ids; all when empty. Throws on an unknown id. */
export function resolveTaskIds(root: string, args: string[]): string[] {
  const all = listTaskIds(root);
  if (args.length === 0) return all;
  const out: string[] = [];
  for (const a of args.flatMap((s) => s.split(",")).filter(Boolean)) {
    if (a.includes("*")) {
      const re = taskGlob(a);
      const hit = all.filter((id) => re.test(id));
      if (hit.length === 0) throw new TaskFolderError(`no task matches "${a}"; known tasks: ${all.join(", ")}`);
      out.push(...hit);
    } else if (all.includes(a)) out.push(a);
    else if (a.includes("/")) {
      // A folder's path where an id goes: the folder that holds task folders is --dir.
      const parent = a.replace(/\/+$/, "").split("/").slice(0, -1).join("/") || "/";
      const id = a.replace(/\/+$/, "").split("/").pop();
      throw new TaskFolderError(
        `unknown task "${a}": tasks are named by id; for a task folder, give its parent as --dir (--dir ${parent} ${id})`,
      );
    } else throw new TaskFolderError(`unknown task "${a}"${unknownIdHelp(a, all, root)}`);
  }
  return [...new Set(out)];
}
