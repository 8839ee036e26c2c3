/**
 * Applying an L4 direct code correction (RECODE-H feedback level 4) to the
 * target file: the correction usually holds the corrected definition of one
 * interface, which replaces that definition in the file; a correction that is
 * a whole file replaces the file.
 */

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

/** [start, end) line range of the top-level definition `name` (decorators included), or null. */
function definitionRange(lines: string[], name: string): [number, number] | null {
  const re = new RegExp(`^(?:async\\s+def|def|class)\\s+${name}\\b`);
  const at = lines.findIndex((l) => re.test(l));
  if (at < 0) return null;
  let start = at;
  while (start > 0 && /^@/.test(lines[start - 1] as string)) start -= 1;
  let end = at + 1;
  while (end < lines.length) {
    const l = lines[end] as string;
    if (l.trim() !== "" && !/^\s/.test(l) && !/^[)\]}]/.test(l) && !/^#/.test(l)) break;
    end += 1;
  }
  while (end > at + 1 && (lines[end - 1] as string).trim() === "") end -= 1;
  return [start, end];
}

/**
 * The target file after applying a correction: when the correction defines
 * exactly one top-level name that the file also defines, that definition is
 * replaced; when it defines a name the file lacks, it is appended; otherwise
 * (a whole file, or no definition at all) it replaces the file.
 */
export function applyCorrection(current: string, correction: string): string {
  const code = codeOfCorrection(correction);
  const names = topLevelNames(code);
  const isWholeFile = names.length !== 1 || /^(import|from)\s/m.test(code);
  if (isWholeFile) return `${code}\n`;
  const name = names[0] as string;
  const lines = current.replace(/\s+$/, "").split("\n");
  const range = definitionRange(lines, name);
  if (!range) return `${current.replace(/\s+$/, "")}\n\n\n${code}\n`;
  const [start, end] = range;
  return `${[...lines.slice(0, start), ...code.split("\n"), ...lines.slice(end)].join("\n")}\n`;
}
