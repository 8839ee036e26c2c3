/**
 * The test ids test.py's text defines, read from the text (not run), and the one a mistyped id was likely
 * meant as: for the messages that name a test task.json lists and test.py lacks.
 */
import { closest, distance } from "fastest-levenshtein";

/**
 * The test ids of `tests` (test.py's text): `Class.test_name` for each `def test_...` indented under a
 * top-level `class Class`, and `test_name` for a top-level `def test_...` (a pytest task's). In text order.
 */
export function testIdsIn(tests: string): string[] {
  const ids: string[] = [];
  let cls: string | null = null;
  for (const line of tests.split(/\r?\n/)) {
    const top = /^class\s+([A-Za-z_]\w*)/.exec(line);
    if (top) {
      cls = top[1] ?? null;
      continue;
    }
    const def = /^(\s*)(?:async\s+)?def\s+(test\w*)\s*\(/.exec(line);
    if (def) {
      if ((def[1] ?? "") === "") ids.push(def[2] as string);
      else if (cls) ids.push(`${cls}.${def[2]}`);
      continue;
    }
    // Any other top-level statement ends the class.
    if (/^[^\s#]/.test(line)) cls = null;
  }
  return ids;
}

/**
 * The id of `ids` that `id` was likely meant as, or null: the one id whose method is `id` (a test named
 * without its class), or the closest id when at most a quarter of its letters (two at least) differ.
 */
export function suggestTestId(id: string, ids: readonly string[]): string | null {
  if (ids.length === 0 || ids.includes(id)) return null;
  if (!id.includes(".")) {
    const byMethod = ids.filter((t) => t.endsWith(`.${id}`));
    if (byMethod.length === 1) return byMethod[0] ?? null;
  }
  const best = closest(id, ids as string[]);
  return distance(id, best) <= Math.max(2, Math.floor(best.length / 4)) ? best : null;
}
