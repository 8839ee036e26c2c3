/**
 * Parsing model replies: code blocks (baseline) and the ReCodeAgent step format
 * (a reflection, then exactly one `Action:` line; REPLACE is followed by a fenced python block).
 */

/** A fenced code block found in a reply. `start`/`end` are character offsets of the whole fence in the text. */
export interface FencedBlock {
  /** Info string after the opening fence, lower-cased and trimmed (e.g. `python`, `""`). */
  lang: string;
  /** Text between the fences, without the final newline. */
  code: string;
  start: number;
  end: number;
}

const FENCE_RE = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)\n([\s\S]*?)\n?^[ \t]*\1[ \t]*$/gm;

/** All closed fenced blocks (``` or ~~~) of `text`, in order. An unclosed fence is not a block. */
export function fencedBlocks(text: string): FencedBlock[] {
  const out: FencedBlock[] = [];
  for (const m of text.replace(/\r\n/g, "\n").matchAll(FENCE_RE)) {
    out.push({ lang: (m[2] ?? "").trim().toLowerCase(), code: m[3] ?? "", start: m.index, end: m.index + m[0].length });
  }
  return out;
}

const PYTHON_LANGS = new Set(["python", "py", "python3"]);

function isPythonOrPlain(b: FencedBlock): boolean {
  return PYTHON_LANGS.has(b.lang) || b.lang === "";
}

/**
 * The code of a one-shot reply (baseline): the last fenced block tagged python (`python`, `py`,
 * `python3`); else the last untagged fenced block; else the whole reply, trimmed.
 * A trailing newline is added to non-empty code.
 */
export function extractPythonCode(reply: string): string {
  const blocks = fencedBlocks(reply);
  const tagged = blocks.filter((b) => PYTHON_LANGS.has(b.lang));
  const plain = blocks.filter((b) => b.lang === "");
  const chosen = tagged.at(-1) ?? plain.at(-1);
  const code = chosen ? chosen.code : reply.replace(/\r\n/g, "\n").trim();
  return withFinalNewline(code);
}

/** `code` with exactly one trailing newline, or "" when it is blank. */
export function withFinalNewline(code: string): string {
  const trimmed = code.replace(/\s+$/, "");
  return trimmed === "" ? "" : `${trimmed}\n`;
}

/** The tool actions a reply may name. */
export type StepActionName = "READ" | "BROWSE" | "RETRIEVE" | "REPLACE" | "SUBMIT";

const ACTION_NAMES: readonly StepActionName[] = ["READ", "BROWSE", "RETRIEVE", "REPLACE", "SUBMIT"];

/** A well-formed step. `argument` is the text after the action name (cleaned); `code` is set for REPLACE. */
export interface ParsedStep {
  ok: true;
  reflection: string;
  action: StepActionName;
  argument: string;
  /** REPLACE only: the new target file (trailing newline added). */
  code?: string;
  /** The action line as written. */
  line: string;
}

/** A malformed step: what was wrong, and the offending action line ("" when none). */
export interface StepError {
  ok: false;
  problem: string;
  line: string;
}

const ACTION_LINE_RE = /^[ \t>*_-]*(?:\*\*|__)?action(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*(.*)$/gim;

function cleanArgument(s: string): string {
  return s
    .trim()
    .replace(/^[`'"*]+|[`'"*]+$/g, "")
    .trim();
}

/**
 * Parse one ReCodeAgent reply. Format:
 * ```
 * Reflection: <free text>
 * Action: READ <path> | BROWSE | RETRIEVE <query> | REPLACE | SUBMIT
 * ```
 * REPLACE is followed by a fenced python block holding the whole target file (the first block after
 * the action line; when none follows, the reply's only block). `Action:` lines inside fenced blocks
 * are ignored; markdown bold and backticks around the action are tolerated; the action name is
 * case-insensitive. The reflection is optional for parsing.
 *
 * Errors (returned, not thrown): no action line, more than one, an unknown action name, READ or
 * RETRIEVE without an argument, REPLACE without a closed fenced block.
 */
export function parseStep(reply: string): ParsedStep | StepError {
  const text = reply.replace(/\r\n/g, "\n");
  const blocks = fencedBlocks(text);
  // Blank out fenced blocks (same length) so that action lines inside code do not count.
  let masked = text;
  for (const b of blocks) masked = masked.slice(0, b.start) + masked.slice(b.start, b.end).replace(/[^\n]/g, " ") + masked.slice(b.end);
  const lines = [...masked.matchAll(ACTION_LINE_RE)];
  if (lines.length === 0) {
    return { ok: false, problem: "the reply has no `Action:` line", line: "" };
  }
  if (lines.length > 1) {
    return {
      ok: false,
      problem: `the reply has ${lines.length} \`Action:\` lines (${lines.map((l) => `"${l[0].trim()}"`).join(", ")}); write exactly one action per reply`,
      line: lines.map((l) => l[0].trim()).join("\n"),
    };
  }
  const m = lines[0] as RegExpMatchArray;
  const line = m[0].trim();
  const body = cleanArgument(m[1] ?? "");
  const nameMatch = /^([A-Za-z_]+)\s*(.*)$/s.exec(body);
  const name = (nameMatch?.[1] ?? "").toUpperCase() as StepActionName;
  if (!nameMatch || !ACTION_NAMES.includes(name)) {
    const shown = body === "" ? "nothing" : `"${body.split(/\s/)[0]}"`;
    return { ok: false, problem: `unknown action ${shown}; use one of ${ACTION_NAMES.join(", ")}`, line };
  }
  const argument = cleanArgument(nameMatch[2] ?? "");
  const at = m.index ?? 0;
  const reflection = text
    .slice(0, at)
    .replace(/^[ \t>*_-]*(?:\*\*|__)?reflection(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?/im, "")
    .trim();
  if ((name === "READ" || name === "RETRIEVE") && argument === "") {
    const what = name === "READ" ? "a file path (READ <path>)" : "a query (RETRIEVE <query>)";
    return { ok: false, problem: `${name} needs ${what}`, line };
  }
  if (name === "REPLACE") {
    const after = blocks.filter((b) => b.start >= at && isPythonOrPlain(b));
    const only = blocks.length === 1 && isPythonOrPlain(blocks[0] as FencedBlock) ? blocks[0] : undefined;
    const block = after[0] ?? only;
    if (!block) {
      return {
        ok: false,
        problem: "REPLACE needs the whole target file in a closed fenced python block (```python ... ```) after the action line",
        line,
      };
    }
    return { ok: true, reflection, action: name, argument, code: withFinalNewline(block.code), line };
  }
  return { ok: true, reflection, action: name, argument, line };
}
