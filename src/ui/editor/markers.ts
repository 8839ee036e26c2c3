/** Editor markers from a run: failing lines of the target file. */
import type { RunResult } from "../../core/results";

/** Owner of the markers the page sets (monaco.editor.setModelMarkers). */
export const MARKER_OWNER = "recode";

/** A marker on one line of the target file (1-based), with the text to show on hover. */
export interface LineMarker {
  line: number;
  message: string;
}

/**
 * Markers for the target file: the collection error's line (when it is in the
 * target file) and the line of every test that did not pass. Several tests
 * failing on the same line are merged into one marker.
 */
export function runMarkers(result: RunResult | null, targetPath: string): LineMarker[] {
  if (!result) return [];
  const byLine = new Map<number, string[]>();
  const add = (line: number | null, msg: string) => {
    if (line === null || line < 1) return;
    const list = byLine.get(line) ?? [];
    list.push(msg);
    byLine.set(line, list);
  };
  const ce = result.collectionError;
  if (ce && (ce.file === null || ce.file === targetPath)) add(ce.line, `collection error: ${ce.message}`);
  for (const t of result.tests) {
    // (An expected failure counts as passing: where it failed is no error to mark.)
    if (t.status !== "passed" && t.status !== "skipped" && t.status !== "xfail") add(t.line, `${t.id} (${t.status}): ${t.message}`);
  }
  return [...byLine.entries()].sort((a, b) => a[0] - b[0]).map(([line, msgs]) => ({ line, message: msgs.join("\n") }));
}
