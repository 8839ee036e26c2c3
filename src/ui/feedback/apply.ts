/**
 * Applying an L4 direct code correction (RECODE-H feedback level 4) to the
 * target file: the correction holds the corrected definition of one interface
 * with the imports and helpers it needs, which go in place of the file's
 * definitions of the same names; a correction that is a whole file replaces
 * the file.
 */
import { applyDirectCode } from "../../core/apply-code";

/** The code inside the first fenced block of `text` (```python ... ```), or the text itself when it has no fence. */
export function codeOfCorrection(text: string): string {
  const m = /(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n?\1/.exec(text);
  return (m ? (m[2] as string) : text).replace(/\s+$/, "");
}

/** Names of the top-level `def`/`class` statements of Python source, in order. */
export function topLevelNames(code: string): string[] {
  const out: string[] = [];
  for (const line of code.split("\n")) {
    const m = /^(?:async\s+def|def|class)\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(line);
    if (m) out.push(m[1] as string);
  }
  return out;
}

/**
 * The target file after applying a correction (the code of its first fenced
 * block, or the whole text): see {@link applyDirectCode}. Its definitions
 * replace the file's definitions of the same names (or are put in), its
 * imports are added, and the rest of the file stays; a correction that opens
 * with a module docstring is a whole file and replaces the file.
 */
export function applyCorrection(current: string, correction: string): string {
  return applyDirectCode(current, codeOfCorrection(correction));
}
