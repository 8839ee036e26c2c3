/**
 * The parameter list of a Python `def`, read outside the interpreter: the
 * rules researcher compares a candidate's signature with the canonical one
 * (RECODE-H.md, "Feedback hierarchy": T0, a wrong signature).
 */
import { scan } from "./python-scan";

/** One parameter of a `def`: its name as written (`*args`, `**kw`; a bare `*` or `/` separator is its own entry) and its default. */
export interface PyParameter {
  name: string;
  /** The default value's text, whitespace collapsed; null when there is none. */
  default: string | null;
}

/**
 * The parameters of the first `def` in `definition` (a definition's text), in
 * order, without annotations; null when it has no `def` with a closed
 * parameter list.
 */
export function parameters(definition: string): PyParameter[] | null {
  const code = scan(definition).codeOnly;
  const open = /\bdef\s+[A-Za-z_]\w*\s*\(/.exec(code);
  if (!open) return null;
  const from = open.index + open[0].length;
  let depth = 1;
  let k = from;
  const cuts: number[] = [];
  for (; k < code.length && depth > 0; k++) {
    const c = code[k];
    if (c === "(" || c === "[" || c === "{") depth += 1;
    else if (c === ")" || c === "]" || c === "}") depth -= 1;
    else if (c === "," && depth === 1) cuts.push(k);
  }
  if (depth !== 0) return null;
  const bounds = [from - 1, ...cuts, k - 1];
  const out: PyParameter[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const lo = (bounds[i] as number) + 1;
    const hi = bounds[i + 1] as number;
    const part = code.slice(lo, hi);
    if (part.trim() === "") continue;
    const eq = part.search(/(?<![=!<>])=(?!=)/);
    const head = (eq >= 0 ? part.slice(0, eq) : part).replace(/:.*$/s, "").trim();
    const dflt =
      eq >= 0
        ? definition
            .slice(lo + eq + 1, hi)
            .replace(/\s+/g, " ")
            .trim()
        : null;
    out.push({ name: head, default: dflt });
  }
  return out;
}
