/** Reading task folders from disk (Node). */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTaskFromFiles, type Task, TaskFormatError } from "../core/task";

/** The built-in task pack folder. */
export const BUILTIN_TASKS = resolve(fileURLToPath(new URL("../../tasks", import.meta.url)));

const SKIP = new Set(["__pycache__", ".pytest_cache", ".git", "node_modules"]);

/** All text files of a task folder, keyed by path relative to it (forward slashes). */
export function readTaskFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (SKIP.has(name) || name.endsWith(".pyc")) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p).split("\\").join("/")] = readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

/** Task folder names under `root`, sorted. */
export function listTaskIds(root: string = BUILTIN_TASKS): string[] {
  if (!existsSync(root)) throw new Error(`task folder ${root} does not exist`);
  return readdirSync(root)
    .filter((n) => !n.startsWith(".") && statSync(join(root, n)).isDirectory())
    .sort();
}

/** Load one task folder. Throws TaskFormatError (names task, file, field, line). */
export function loadTaskDir(root: string, id: string): Task {
  const dir = join(root, id);
  if (!existsSync(dir)) {
    throw new TaskFormatError(id, dir, `no such task folder; known tasks: ${listTaskIds(root).join(", ") || "(none)"}`);
  }
  return loadTaskFromFiles(id, readTaskFiles(dir));
}

/** Resolve task arguments (ids or globs like `min-*`) to ids; all when empty. Throws on an unknown id. */
export function resolveTaskIds(root: string, args: string[]): string[] {
  const all = listTaskIds(root);
  if (args.length === 0) return all;
  const out: string[] = [];
  for (const a of args.flatMap((s) => s.split(",")).filter(Boolean)) {
    if (a.includes("*")) {
      const re = new RegExp(`^${a.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
      const hit = all.filter((id) => re.test(id));
      if (hit.length === 0) throw new Error(`no task matches "${a}"; known tasks: ${all.join(", ")}`);
      out.push(...hit);
    } else if (all.includes(a)) out.push(a);
    else throw new Error(`unknown task "${a}"; known tasks: ${all.join(", ")}`);
  }
  return [...new Set(out)];
}
