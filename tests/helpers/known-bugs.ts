/**
 * Known-bug versions of the built-in tasks: tests/fixtures/known-bugs/<task>.py
 * holds `# bug-in: <interface>` and the buggy definition of that one interface;
 * the buggy file is canonical.py with that definition swapped in.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { replaceDefinition } from "../../src/core/canonical";

const DIR = join(import.meta.dirname, "../fixtures/known-bugs");

/** One known bug: the task, the interface it is in, and the whole buggy target file. */
export interface KnownBug {
  taskId: string;
  interface: string;
  code: string;
}

/** The known bug of one task. Throws naming the file when it is malformed. */
export function knownBug(taskId: string): KnownBug {
  const file = join(DIR, `${taskId}.py`);
  const text = readFileSync(file, "utf8");
  const m = /^# bug-in: *([A-Za-z_]\w*)/.exec(text);
  if (!m) throw new Error(`${file}: the first line must be "# bug-in: <interface>"`);
  const name = m[1] as string;
  const canonical = readFileSync(join(import.meta.dirname, "../../tasks", taskId, "canonical.py"), "utf8");
  const definition = text
    .split("\n")
    .filter((l, i) => i > 0 && !(l.startsWith("#") && i < 3))
    .join("\n");
  return { taskId, interface: name, code: replaceDefinition(canonical, name, definition.trim()) };
}

/** Every task that has a known-bug file, sorted. */
export function knownBugTasks(): string[] {
  if (!existsSync(DIR)) return [];
  return readdirSync(DIR)
    .filter((f) => f.endsWith(".py"))
    .map((f) => f.slice(0, -3))
    .sort();
}
