/**
 * What was dropped on the task list, taken while the drop event lasts (a
 * browser empties its DataTransfer afterwards): the dropped folders and files
 * as file-system entries where the browser gives them, else the files.
 */

/** A task pack waiting to be imported: files chosen (a zip, or a folder's files with their paths), or dropped entries. */
export type PackSource = { files: File[] } | { entries: FileSystemEntry[]; files: File[] };

/** Whether a drag carries files (so that the task list takes the drop). */
export function carriesFiles(dt: DataTransfer | null): boolean {
  return !!dt && [...dt.types].includes("Files");
}

/** The dropped items, read now (entries, so that a dropped folder's files can be read later). */
export function captureDrop(dt: DataTransfer): PackSource {
  const entries = [...dt.items]
    .map((i) => (typeof i.webkitGetAsEntry === "function" ? i.webkitGetAsEntry() : null))
    .filter((e): e is FileSystemEntry => e !== null);
  return { entries, files: [...dt.files] };
}
