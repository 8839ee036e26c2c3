/**
 * A task pack as a teacher hands it over: a zip or a folder holding one or
 * more task folders in the task format (docs/task-format.md). Here its files
 * are sorted into task folders (each folder with a task.json is one task) and
 * read as text; loading and validating each task is the caller's.
 */

/** One task folder of a pack: its name and its files (paths relative to it), as text. */
export interface PackFolder {
  folder: string;
  files: Record<string, string>;
}

/** What a pack holds. */
export interface PackContents {
  folders: PackFolder[];
  /** Files that could not be read, or a pack with no task in it, one message each naming the file. */
  problems: string[];
}

/** Files a task never needs: byte-code caches, and what archivers and file browsers add. */
function ignored(path: string): boolean {
  return /(^|\/)(__pycache__|__MACOSX|\.git)\//.test(path) || /(^|\/)(\.DS_Store|Thumbs\.db)$/.test(path) || path.endsWith(".pyc");
}

/** Most bytes of one file, and of a whole pack (what a class's tasks need, with room to spare). */
export const PACK_LIMITS = { fileBytes: 4 * 1024 * 1024, packBytes: 64 * 1024 * 1024 };

/**
 * Sort a pack's files into task folders. Paths use `/`; a leading folder the
 * whole pack shares (the zip's top folder) does not matter, since each task
 * folder is found by its task.json. Files outside every task folder are left
 * out. A file that is not UTF-8 text is a problem named with its path.
 * @param files path in the pack -> bytes (or text).
 * @param name the pack's own name (a zip's name without `.zip`): the folder name of a task whose task.json is at the pack's top.
 */
export function readTaskPack(files: Record<string, Uint8Array | string>, name = "(top folder)"): PackContents {
  const problems: string[] = [];
  const paths = Object.keys(files)
    .map((p) => p.replace(/\\/g, "/").replace(/^\.?\//, ""))
    .filter((p) => p && !p.endsWith("/") && !ignored(p));
  const original = new Map(Object.keys(files).map((p) => [p.replace(/\\/g, "/").replace(/^\.?\//, ""), p]));
  const total = paths.reduce((n, p) => n + sizeOf(files[original.get(p) as string] as Uint8Array | string), 0);
  if (total > PACK_LIMITS.packBytes) {
    return { folders: [], problems: [`the pack holds ${mb(total)} MB of files; at most ${mb(PACK_LIMITS.packBytes)} MB are read`] };
  }
  // Task folders: those holding a task.json (the deepest one wins for a file).
  const roots = paths
    .filter((p) => p === "task.json" || p.endsWith("/task.json"))
    .map((p) => p.slice(0, -"task.json".length))
    .sort((a, b) => b.length - a.length);
  if (roots.length === 0) return { folders: [], problems: ["the pack holds no task folder (a folder with a task.json)"] };
  const byRoot = new Map<string, Record<string, string>>(roots.map((r) => [r, {}]));
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (const path of paths) {
    const root = roots.find((r) => path.startsWith(r));
    if (root === undefined) continue;
    const data = files[original.get(path) as string] as Uint8Array | string;
    if (sizeOf(data) > PACK_LIMITS.fileBytes) {
      problems.push(`${path}: ${mb(sizeOf(data))} MB; a task's file may have at most ${mb(PACK_LIMITS.fileBytes)} MB`);
      continue;
    }
    try {
      (byRoot.get(root) as Record<string, string>)[path.slice(root.length)] = typeof data === "string" ? data : decoder.decode(data);
    } catch {
      problems.push(`${path}: not UTF-8 text`);
    }
  }
  const folders = [...byRoot.entries()]
    .map(([root, f]) => ({ folder: root.replace(/\/$/, "").split("/").pop() || name, files: f }))
    .sort((a, b) => a.folder.localeCompare(b.folder));
  return { folders, problems };
}

function sizeOf(d: Uint8Array | string): number {
  return typeof d === "string" ? d.length : d.byteLength;
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
