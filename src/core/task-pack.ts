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

/** Most bytes of one file and of a whole pack, and most files of a pack (what a class's tasks need, with room to spare). */
export const PACK_LIMITS = { fileBytes: 4 * 1024 * 1024, packBytes: 64 * 1024 * 1024, files: 5000 };

/**
 * Sort a pack's files into task folders. Paths use `/`; a leading folder the
 * whole pack shares (the zip's top folder) does not matter, since each task
 * folder is found by its task.json. Files outside every task folder are left
 * out. A file that is not UTF-8 text is a problem named with its path.
 * @param files path in the pack -> bytes (or text).
 * @param name the pack's own name (a zip's name without `.zip`): the folder name of a task whose task.json is at the pack's top.
 */
export function readTaskPack(files: Record<string, Uint8Array | string>, name = "(top folder)"): PackContents {
  const entries = Object.entries(files)
    .map(([p, data]) => [p.replace(/\\/g, "/").replace(/^\.?\//, ""), data] as const)
    .filter(([p]) => p && !p.endsWith("/") && !ignored(p));
  if (entries.length > PACK_LIMITS.files) {
    return { folders: [], problems: [`the pack holds ${entries.length} files; at most ${PACK_LIMITS.files} are read`] };
  }
  const total = entries.reduce((n, [, d]) => n + sizeOf(d), 0);
  if (total > PACK_LIMITS.packBytes) {
    return { folders: [], problems: [`the pack holds ${mb(total)} MB of files; at most ${mb(PACK_LIMITS.packBytes)} MB are read`] };
  }
  // Task folders: those holding a task.json, outermost first; a task.json inside a task's repo/ is that task's file.
  const problems: string[] = [];
  const roots: string[] = [];
  const byName = new Map<string, string>();
  const candidates = entries
    .map(([p]) => p)
    .filter((p) => p === "task.json" || p.endsWith("/task.json"))
    .map((p) => p.slice(0, -"task.json".length))
    .sort((a, b) => a.length - b.length || a.localeCompare(b));
  const rootSet = new Set<string>();
  for (const root of candidates) {
    if (rootOf(root, rootSet) !== null) continue;
    const folder = folderName(root, name);
    const first = byName.get(folder);
    if (first !== undefined) {
      problems.push(
        `${root.replace(/\/$/, "") || "(top)"}: a second task folder named ${folder} (the first, ${first.replace(/\/$/, "") || "(top)"}, is the one read)`,
      );
      continue;
    }
    byName.set(folder, root);
    roots.push(root);
    rootSet.add(root);
  }
  if (roots.length === 0) return { folders: [], problems: ["the pack holds no task folder (a folder with a task.json)"] };
  const byRoot = new Map<string, Map<string, string>>(roots.map((r) => [r, new Map()]));
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (const [path, data] of entries) {
    const root = rootOf(path, rootSet);
    if (root === null) continue;
    if (sizeOf(data) > PACK_LIMITS.fileBytes) {
      problems.push(`${path}: ${mb(sizeOf(data))} MB; a task's file may have at most ${mb(PACK_LIMITS.fileBytes)} MB`);
      continue;
    }
    try {
      byRoot.get(root)?.set(path.slice(root.length), typeof data === "string" ? data : decoder.decode(data));
    } catch {
      problems.push(`${path}: not UTF-8 text`);
    }
  }
  // Object.fromEntries makes own properties, so a file named __proto__ is an ordinary file.
  const folders = roots
    .map((root) => ({ folder: folderName(root, name), files: Object.fromEntries(byRoot.get(root) ?? []) }))
    .sort((a, b) => a.folder.localeCompare(b.folder));
  return { folders, problems };
}

/** The task folder a path belongs to: the outermost root that is a prefix of one of its parent folders, or null. */
function rootOf(path: string, roots: ReadonlySet<string>): string | null {
  if (roots.has("")) return "";
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) {
    const prefix = path.slice(0, i + 1);
    if (roots.has(prefix)) return prefix;
  }
  return null;
}

function folderName(root: string, name: string): string {
  return root.replace(/\/$/, "").split("/").pop() || name;
}

function sizeOf(d: Uint8Array | string): number {
  return typeof d === "string" ? d.length : d.byteLength;
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
