/**
 * Feedback records and their rendering by feedback level (RECODE-H.md,
 * "Feedback hierarchy"). Researchers (src/core/researchers/) produce records;
 * the level decides which prefix of an item's fields reaches the agent.
 */
import { z } from "zod";
import { passingCount, type RunResult, type TestStatus } from "./results";
import type { Task } from "./task";

/** Feedback categories and levels are declared in vocabulary.ts. */
export type { FeedbackCategory, FeedbackLevel } from "./vocabulary";

import { plural } from "./plural";
import { type FeedbackCategory, FeedbackCategorySchema, type FeedbackLevel } from "./vocabulary";

/** One difference the researcher found (fields in the order levels reveal them). */
export interface FeedbackItem {
  interface: string;
  category: FeedbackCategory;
  description: string;
  analysis: string;
  actionable_feedback: string;
  direct_code_feedback: string;
}

/** The raw record of one review: all fields, rendered at any level later ("replay"). */
export interface FeedbackRecord {
  items: FeedbackItem[];
  /** Which researcher wrote it, e.g. `rules`, `llm:openai:gpt-4o-mini`, `human`. */
  researcher: string;
}

/** What a researcher sees for one review. */
export interface ReviewInput {
  task: Task;
  /** The candidate target file that was tested. */
  code: string;
  run: RunResult;
  /** 0-based turn index of the submission. */
  turn: number;
}

/** A simulated (or human) researcher. */
export interface Researcher {
  /** `rules`, `llm:<model id>`, `human`, `replay`. */
  readonly id: string;
  /** Review a failing submission. Rejects with a clear error when it cannot (e.g. a model failed after repair). */
  review(input: ReviewInput): Promise<FeedbackRecord>;
}

/** A researcher that could not produce a valid record: names the researcher (and model) and what was wrong. */
export class ResearcherError extends Error {
  constructor(
    readonly researcherId: string,
    message: string,
  ) {
    super(`researcher ${researcherId}: ${message}`);
    this.name = "ResearcherError";
  }
}

/** Category names, for rendering (RECODE-H.md, "Feedback hierarchy"). */
export const CATEGORY_NAMES: Record<FeedbackCategory, string> = {
  T0: "code structure / planning",
  T1: "code correctness",
  T2: "implementation alignment",
  T3: "knowledge and context",
  T4: "repository integration",
};

/**
 * What each category means, in one sentence for a student, after its name ({@link CATEGORY_NAMES}) (RECODE-H.md, "Feedback hierarchy"; how the rules
 * researcher picks one: docs/protocol.md, "The rules researcher").
 */
export const CATEGORY_HELP: Record<FeedbackCategory, string> = {
  T0: "An interface is missing, not implemented yet, or has a signature other than the instruction's.",
  T1: "The code raises an error or runs out of time.",
  T2: "The code runs, but its results differ from what the paper and the instruction specify.",
  T3: "A wrong value traced to a detail the task names (an unstated constant, a library's convention).",
  T4: "A helper of the task's repository is misused, or written again instead of used.",
};

/** Schema of one feedback item: the six fields, each a string; `category` one of T0..T4. */
export const FeedbackItemSchema = z.object({
  interface: z.string().min(1, "name the interface (or file) the item is about"),
  category: FeedbackCategorySchema,
  description: z.string().min(1, "say what is wrong"),
  analysis: z.string(),
  actionable_feedback: z.string(),
  direct_code_feedback: z.string(),
});

/** Schema of a raw feedback record (what trajectories store and replay re-renders). */
export const FeedbackRecordSchema = z.object({
  items: z.array(FeedbackItemSchema),
  researcher: z.string().min(1),
});

/** One line per zod issue, `path: message` (e.g. `items[0].category: Invalid option ...`). */
export function formatSchemaIssues(error: z.ZodError, max = 5): string {
  const lines = error.issues.slice(0, max).map((issue) => {
    const path = issue.path
      .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
      .join("")
      .replace(/^\./, "");
    return `${path || "(top level)"}: ${issue.message}`;
  });
  if (error.issues.length > max) lines.push(`... and ${error.issues.length - max} more`);
  return lines.join("; ");
}

/**
 * Validate a raw feedback record (e.g. read back from a trajectory file).
 * Throws an Error that names `where` (e.g. `trajectory run-1.json turn 3`) and the failing fields.
 */
export function parseFeedbackRecord(raw: unknown, where = "feedback record"): FeedbackRecord {
  const res = FeedbackRecordSchema.safeParse(raw);
  if (!res.success) throw new Error(`${where}: not a valid feedback record: ${formatSchemaIssues(res.error)}`);
  return res.data;
}

/** Marker left where code was removed below L4. */
export const CODE_OMITTED = "[code omitted at this feedback level]";

/**
 * Remove code from Markdown-ish text: fenced blocks (``` or ~~~, closed or
 * running to the end), indented code blocks (lines indented by 4+ spaces or a
 * tab that follow a blank line or the start), unfenced Python lines
 * (definitions, statements, assignments, with the indented lines after them),
 * code after a list marker (`1.`, `a)`, `(ii)`, `- [ ]`, `Step 2:`) or a
 * quote marker (`>`), in a table cell, after prose on the same line (after
 * `:`, `;` or `->`, at `return`/`lambda`, or an assignment inside a sentence:
 * "Set t = p_base * p_max"), lines that are a call, a lambda, a decorator or
 * a call combined with arithmetic, a sentence that starts with "Return" and
 * an expression, and `<pre>` blocks. HTML tags are read as the text they
 * hold (block tags as line breaks), so code inside any tag is found. Each
 * removed block becomes {@link CODE_OMITTED}. Inline `code` (and `<code>`)
 * that is a statement, a method call with arguments, a call combined with
 * arithmetic, or long becomes `[code omitted]`, and so does a method or
 * module call with arguments in a sentence (`out.append(v * factor)`); names
 * and short expressions are kept, and so are values stated in prose ("with
 * p_base = 0.1").
 */
export function stripCode(text: string): string {
  const lines = htmlAsText(text.replace(/\r\n?/g, "\n")).split("\n");
  const out: string[] = [];
  let i = 0;
  const marker = () => {
    if (out[out.length - 1] !== CODE_OMITTED) out.push(CODE_OMITTED);
  };
  while (i < lines.length) {
    let line = lines[i] as string;
    // A fence opened after some words on the same line: keep the words, then treat the rest as a fence.
    // (Only a line holding a fence can have one; the pattern is slow on long lines.)
    const mid = line.includes("```") || line.includes("~~~") ? /^(.*?\S.*?)\s*(`{3,}|~{3,})[^`~]*$/.exec(line) : null;
    if (mid && !/^\s*(`{3,}|~{3,})/.test(line)) {
      out.push(mid[1] as string);
      line = (mid[2] as string) + line.slice((mid[1] as string).length).replace(/^\s*(`{3,}|~{3,})/, "");
      lines[i] = line;
    }
    const fence = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const open = fence[1] as string;
      i += 1;
      while (i < lines.length && !new RegExp(`^\\s*${open[0] === "`" ? "`" : "~"}{${open.length},}\\s*$`).test(lines[i] as string)) i += 1;
      i += 1; // the closing fence
      marker();
      continue;
    }
    const prevBlank = out.length === 0 || (out[out.length - 1] as string).trim() === "";
    if (/^( {4}|\t)/.test(line) && line.trim() !== "" && prevBlank) {
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i] as string) || (lines[i] as string).trim() === "")) i += 1;
      marker();
      out.push("");
      continue;
    }
    // A table row: each cell that holds code.
    if (/^\s*\|.*\|\s*$/.test(line)) {
      out.push(
        line.replace(/\|([^|]*)(?=\|)/g, (cell, inner: string) =>
          looksLikeCode(inner.trim().replace(/^`+|`+$/g, "")) ? `| ${CODE_OMITTED} ` : cell,
        ),
      );
      i += 1;
      continue;
    }
    // A list item or a numbered step whose text is code: keep the marker.
    const item = LIST_ITEM.exec(line);
    if (item && (CODE_LINE.test(item[2] as string) || looksLikeCode((item[2] as string).trim()))) {
      out.push(`${item[1]}${CODE_OMITTED}`);
      i = skipBody(lines, i + 1);
      continue;
    }
    // A whole line of code that CODE_LINE does not know (a one-line compound statement, a method call).
    if (looksLikeCode(line.trim())) {
      marker();
      i = skipBody(lines, i + 1);
      continue;
    }
    // Code after prose on the same line ("Replace the body with: return ..."), or an assignment inside a
    // sentence ("Set t = p_base * p_max and ..."): from where it starts, with the indented lines after it.
    const at = codeInProse(line);
    const assigned = at > 0 ? -1 : assignmentInProse(line);
    if (at > 0 || assigned >= 0) {
      const from = at > 0 ? at : assigned;
      out.push(`${line.slice(0, from)}${CODE_OMITTED}`);
      i = skipBody(lines, i + 1);
      continue;
    }
    if (CODE_LINE.test(line)) {
      // Unfenced code: this line and the indented or code-like lines right after it.
      i += 1;
      while (
        i < lines.length &&
        ((lines[i] as string).trim() !== "" ? /^\s+\S/.test(lines[i] as string) || CODE_LINE.test(lines[i] as string) : false)
      )
        i += 1;
      marker();
      continue;
    }
    out.push(line);
    i += 1;
  }
  return (
    out
      .join("\n")
      .replace(/<code>([\s\S]*?)<\/code>/gi, (_m, inner: string) => (isInlineCode(inner.trim()) ? INLINE_OMITTED : `\`${inner}\``))
      // A tag left open (or closed alone) is not shown as text.
      .replace(/<\/?code\b[^<>]*>/gi, "")
      .replace(/`([^`\n]+)`/g, (m, inner: string) => (isInlineCode(inner.trim()) ? INLINE_OMITTED : m))
      // A method or module call with arguments in a sentence: `out.append(v * factor)`, `math.comb(n, k)`.
      .replace(DOTTED_CALL, INLINE_OMITTED)
      .replace(/\n{3,}/g, "\n\n")
      .trim()
  );
}

/** A list item, a step or a quoted line: its marker (`-`, `1.`, `a)`, `(ii)`, `- [ ]`, `Step 2:`, `>`) and its text. */
const LIST_ITEM = /^(\s*(?:>+\s*|[-*+\u2022]\s+(?:\[[ xX]\]\s+)?|\(?(?:\d+|[a-zA-Z]|[ivxIVX]{1,4})[.)]|step\s+\d+\s*[.:)-]?)\s*)(.*)$/i;

/** The index after the lines that continue a piece of code at `i` (indented, and code-like). */
function skipBody(lines: string[], i: number): number {
  while (
    i < lines.length &&
    /^\s{2,}\S/.test(lines[i] as string) &&
    (looksLikeCode((lines[i] as string).trim()) || CODE_LINE.test(lines[i] as string))
  )
    i += 1;
  return i;
}

/** A value as prose states it: a number, a string, True/False/None (with what may follow it in a sentence). */
const LITERAL = /^(?:-?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?%?|True|False|None|"[^"]*"|'[^']*')(?:[\s,.;:)]|$)/;

/**
 * Where an assignment inside a sentence starts ("Set threshold = p_base * p_max and ..."), or -1. An
 * assignment of a plain value ("with p_base = 0.1") is prose stating a value and is kept.
 */
function assignmentInProse(line: string): number {
  for (const m of line.matchAll(/(^|[\s(,;>])([A-Za-z_][\w.]*(?:\[[^\]\n]*\])?\s*(?:[-+*/%]|\*\*|\/\/)?=(?!=)\s*)(?=\S)/g)) {
    const start = (m.index ?? 0) + (m[1] as string).length;
    const rhs = line.slice(start + (m[2] as string).length);
    if (!LITERAL.test(rhs)) return start;
  }
  return -1;
}

/** Tags that start a new line when HTML is read as text. */
const BLOCK_TAGS =
  /^(?:div|p|br|hr|li|ul|ol|dl|dt|dd|table|thead|tbody|tfoot|tr|td|th|details|summary|blockquote|section|article|header|footer|h[1-6])$/i;

/**
 * HTML read as the text it holds: `<pre>` blocks become {@link CODE_OMITTED} (on a line of their own), block
 * tags line breaks, other tags (but `<code>`, judged inline later) nothing, and the common entities their
 * characters, so that code inside any tag is judged as code.
 */
function htmlAsText(text: string): string {
  return text
    .replace(/<pre\b[\s\S]*?(?:<\/pre>|$)/gi, `\n${CODE_OMITTED}\n`)
    .replace(/<\/?([a-zA-Z][\w-]*)\b[^<>]*>/g, (tag, name: string) =>
      name.toLowerCase() === "code" ? tag : BLOCK_TAGS.test(name) ? "\n" : "",
    )
    .replace(
      /&(lt|gt|amp|quot|#39|nbsp);/g,
      (_m, e: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"', "#39": "'", nbsp: " " })[e] ?? "",
    );
}

/** A line of Python written as prose would not be: a statement, a definition, or an assignment. */
const CODE_LINE =
  /^\s*(?:def\s+\w+\s*\(|class\s+\w+\s*[(:]|return\b|import\s+\w|from\s+[\w.]+\s+import\b|for\s+.+\s+in\s+.+:\s*$|while\s+.+:\s*$|if\s+.+:\s*$|elif\s+.+:\s*$|else\s*:\s*$|try\s*:\s*$|except\b.*:\s*$|with\s+.+:\s*$|raise\s+\w|[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*(?:[-+*/%]|\*\*|\/\/)?=(?!=)\s*\S)/;

/** A one-line compound statement: `for v in values: out.append(v)`, `if x: return y`. */
const ONE_LINER = /^(?:for\s+[\w, ]+\s+in\s+.+|while\s+.+|if\s+.+|elif\s+.+|with\s+.+|else|try)\s*:\s*\S/;

/**
 * Whether a piece of text (a table cell, a list item, the rest of a line after
 * prose) is Python rather than words: a return or yield with an expression, a
 * definition, an import, a one-line compound statement, an assignment, a
 * call statement, a lambda or a decorator; a sentence that starts with
 * "Return" and an expression counts too. "return value", "Return the result"
 * and "the return is wrong" are words.
 */
function looksLikeCode(t: string): boolean {
  return (
    /^(?:[Rr]eturn|[Yy]ield)\s+(?:[[({"'\d-]|[\w.]+\s*(?:[[(.,]|[-+*/%<>=!]|$))/.test(t) ||
    /^(?:return|pass|break|continue)\s*$/.test(t) ||
    /^(?:def\s+\w+\s*\(|class\s+\w+\s*[(:]|import\s+[\w.]+\s*(?:as\s+\w+\s*)?$|from\s+[\w.]+\s+import\s)/.test(t) ||
    ONE_LINER.test(t) ||
    /^[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*(?:[-+*/%]|\*\*|\/\/)?=(?!=)\s*\S/.test(t) ||
    /^[A-Za-z_][\w.]*\(.*\)\s*$/.test(t) ||
    /^lambda\b[^:]*:/.test(t) ||
    (/^[\w\s.+\-*/%(),]+$/.test(t) && CALL_WITH_OPERATOR.test(t)) ||
    /^@[A-Za-z_][\w.]*(?:\(.*\))?\s*$/.test(t)
  );
}

/** Where code starts after prose on a line (after a colon, semicolon or arrow, or at a return/def/lambda with code after it), or -1. */
function codeInProse(line: string): number {
  for (const m of line.matchAll(/(?:[:;]|->|=>)\s+/g)) {
    const at = (m.index ?? 0) + m[0].length;
    const rest = line.slice(at);
    if (looksLikeCode(rest.trim()) || CODE_LINE.test(rest)) return at;
  }
  const kw = /[\s=(,](?=(?:[Rr]eturn|[Yy]ield)\s+(?:[[({]|[\w.]+\s*(?:[[(]|[-+*/%]\s*\w))|def\s+\w+\s*\(|lambda\b[^:]*:)/.exec(line);
  return kw ? kw.index + 1 : -1;
}

/**
 * Inline code that is a statement or a whole piece of code (`return 1 - p`,
 * `x = y`, a comprehension, a lambda, or anything long) is removed below L4;
 * names and short expressions (`min_p_filter`, `p_base * p_max`) are kept.
 */
const INLINE_CODE = /\breturn\b|\blambda\b|\bdef\b|\bimport\b|\bfor\b.+\bin\b|(?:^|[^=!<>])=(?!=)|;|^.{61,}$|^@\w|\w\.\w+\([^)]/;
/** Inline code judged with {@link CALL_WITH_OPERATOR} too. */
const isInlineCode = (t: string) => INLINE_CODE.test(t) || CALL_WITH_OPERATOR.test(t);

/** An expression that combines a call with arithmetic: `sum(x) / len(x)`, `1 - comb(n - c, k)`. */
const CALL_WITH_OPERATOR = /\w\([^()]*\)\s*(?:[-+*/%]|\*\*)|(?:[-+*/%]|\*\*)\s*[A-Za-z_][\w.]*\(/;

/** A call of a method or a module's function with arguments (two levels of parentheses inside). */
const DOTTED_CALL = /\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\((?=[^)])(?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\)/g;

/** Marker left where inline code was removed below L4. */
const INLINE_OMITTED = "[code omitted]";

/** `text` with every line after its first indented by four spaces (the first goes after a label). */
function hangingIndent(text: string): string {
  const [first, ...rest] = text.split("\n");
  return rest.length === 0 ? (first as string) : `${first}\n${indentBlock(rest.join("\n"), "    ")}`;
}

function indentBlock(text: string, pad: string): string {
  return text
    .split("\n")
    .map((l) => (l.trim() === "" ? "" : pad + l))
    .join("\n");
}

/**
 * How many pieces of code the level removed from a record (blocks and inline
 * code, below L4): what the agent did not see, for the trajectory. Markers the
 * researcher wrote itself are not counted. 0 at L0 and L4, and for no record.
 */
export function codeOmitted(record: FeedbackRecord | null, level: FeedbackLevel): number {
  if (!record || level === 0 || level >= 4) return 0;
  const count = (s: string) => s.split(CODE_OMITTED).length - 1 + (s.split(INLINE_OMITTED).length - 1);
  return Math.max(0, count(renderFeedback(record, level)) - count(JSON.stringify(record)));
}

/**
 * Render a feedback record at a feedback level (RECODE-H.md, "Feedback
 * hierarchy"): L0 gives "" (no feedback text); L1 interface, category and
 * description; L2 adds the analysis; L3 the actionable guidance; L4 the direct
 * code correction. Below L4 code blocks are removed from every shown field
 * (see {@link stripCode}), so a level never reveals more than it promises.
 * Empty fields are left out. Throws RangeError for a level outside 0..4.
 */
export function renderFeedback(record: FeedbackRecord, level: FeedbackLevel): string {
  if (!Number.isInteger(level) || level < 0 || level > 4) throw new RangeError(`feedback level must be 0..4, got ${String(level)}`);
  if (level === 0) return "";
  const clean = (s: string) => (level >= 4 ? s.trim() : stripCode(s));
  const n = record.items.length;
  if (n === 0) return "Researcher feedback: no specific problems were named.";
  const parts: string[] = [`Researcher feedback (${n} item${n === 1 ? "" : "s"}):`];
  const shown = record.items.slice(0, MAX_RENDERED_ITEMS);
  shown.forEach((item, k) => {
    // The interface is a name; anything after it (a signature, code) is not shown below L4.
    const itf = level >= 4 ? item.interface.trim() : (/^[A-Za-z_][\w.]*/.exec(item.interface.trim())?.[0] ?? "(unnamed)");
    const block: string[] = [`${k + 1}. Interface: ${itf} [${item.category} ${CATEGORY_NAMES[item.category]}]`];
    const field = (label: string, value: string) => {
      const v = clean(value);
      if (v) block.push(`   ${label}:\n${indentBlock(v, "      ")}`);
    };
    field("Description", item.description);
    if (level >= 2) field("Analysis", item.analysis);
    if (level >= 3) field("Suggested fix", item.actionable_feedback);
    if (level >= 4 && item.direct_code_feedback.trim()) block.push(`   Code correction:\n${item.direct_code_feedback.trim()}`);
    parts.push(block.join("\n"));
  });
  if (n > shown.length) parts.push(`(${plural(n - shown.length, "more item")} left out)`);
  const text = parts.join("\n\n");
  return text.length > MAX_RENDERED_CHARS
    ? `${text.slice(0, MAX_RENDERED_CHARS)}\n[feedback cut at ${MAX_RENDERED_CHARS} characters]`
    : text;
}

/** Items of one record shown to the agent. */
export const MAX_RENDERED_ITEMS = 12;
/** Characters of rendered feedback shown to the agent. */
export const MAX_RENDERED_CHARS = 16_000;

/** Limits of {@link renderTestLog}. */
export interface TestLogOptions {
  /** Characters kept of each failure message. Default 600. */
  messageCap?: number;
  /** Lines kept from the end of each traceback (0: none). Default 6. */
  tracebackLines?: number;
  /** Characters kept of the whole log. Default 12000. */
  totalCap?: number;
  /**
   * Lines kept from the end of what each test that failed, raised or timed out printed (its stdout, then its
   * stderr, each line capped at 300 characters). Default 0: the agent's log, like RECODE-H's, holds none.
   */
  outputLines?: number;
}

function cap(text: string, n: number): string {
  return text.length <= n ? text : `${text.slice(0, n)}... [${text.length - n} more characters]`;
}

/** `tb` without its last lines when `message` already holds them (whitespace aside); "" when nothing else is left. */
function beforeRepeat(tb: string, message: string): string {
  const squash = (t: string) => t.replace(/\s+/g, "");
  const said = squash(message);
  const lines = tb.split("\n");
  let k = 0;
  while (k < lines.length && !said.includes(squash(lines.slice(k).join("\n")))) k++;
  const left = lines.slice(0, k);
  return left.some((l) => l.trim() !== "" && l.trim() !== "...") ? left.join("\n") : "";
}

/** A traceback's marks under a source line (Python 3.11 on): `~~~~^^^^`. */
const CARET_LINE = /^\s*[~^]+\s*$/;
/** The body of a traceback's frame: its source line and the marks under it, below the frame's `  File "...", line N` header. */
const FRAME_BODY = /^ {4}/;
/** A traceback frame's header. */
const FRAME_HEAD = /^ {2}File "/;

/**
 * The last `n` lines of `text`, each cut to `lineCap` characters; a cut that would begin inside a frame (its
 * source line or the marks under it, without the `File` line that says where they are) begins at the next
 * frame, whatever the Python version's marks (3.13 on leaves out marks under a whole line).
 */
function tail(text: string, n: number, lineCap = 400): string {
  if (n <= 0) return "";
  const lines = text.replace(/\s+$/, "").split("\n");
  let start = Math.max(0, lines.length - n);
  // (A frame's body only when a frame's header follows: an exception's own indented lines stay.)
  const lastHead = lines.findLastIndex((l) => FRAME_HEAD.test(l));
  while (
    start > 0 &&
    start < lines.length - 1 &&
    (CARET_LINE.test(lines[start] as string) || (start < lastHead && FRAME_BODY.test(lines[start] as string)))
  )
    start++;
  const kept = lines.slice(start).map((l) => cap(l, lineCap));
  return (lines.length > n ? ["  ..."] : []).concat(kept).join("\n");
}

/**
 * The last `lines` lines of what a test printed (each capped), after a line that says what was left out; "" for
 * none. Output over its cap keeps its start (`cut`): then what is shown are the last lines kept, and the line
 * before them says that the rest was cut, in place of the harness's own note at the end.
 */
function printedTail(text: string, cut: boolean, lines: number): string {
  if (lines <= 0 || text.trim() === "") return "";
  const kept = cut ? text.replace(/\n*\[output cut at \d+ characters\]$/, "") : text.replace(/\n$/, "");
  const all = kept.split("\n");
  const shown = all.slice(-lines).map((l) => cap(l, 300));
  const before = all.length - shown.length;
  const note = cut
    ? [
        `[the output was cut at its cap: these are lines ${before + 1}-${all.length} of what was kept, and what it printed after them is lost]`,
      ]
    : before > 0
      ? [`[${plural(before, "earlier line")} left out]`]
      : [];
  return [...note, ...shown].join("\n");
}

/** Log label of each test status (the test log's, also used where a turn's tests are listed). */
export const STATUS_LABEL = {
  passed: "PASS",
  failed: "FAILED",
  error: "ERROR",
  skipped: "SKIPPED",
  xfail: "XFAIL",
  xpass: "XPASS",
  timeout: "TIMEOUT",
  not_run: "NOT RUN",
} as const satisfies Record<TestStatus, string>;

/** Statuses that need no explanation in the log. */
const QUIET: ReadonlySet<TestStatus> = new Set(["passed", "xfail"]);

/**
 * The test log the agent sees at every feedback level (RECODE-H.md, "Feedback
 * hierarchy"): how many tests ran, passed and failed; one line per test with
 * PASS / FAILED / ERROR / TIMEOUT / NOT RUN / SKIPPED / XFAIL / XPASS and its interface;
 * for each other test its failure message (capped), its failing subTests and
 * the tail of its traceback (lines capped); a collection error with file and
 * line (counted as 0 passed); and what happened to the interpreter, if
 * anything. Every test's status line is listed whatever the size of the
 * details: when the details would pass `totalCap`, the later ones are left out
 * and the log says how many.
 */
export function renderTestLog(run: RunResult, opts: TestLogOptions = {}): string {
  const messageCap = opts.messageCap ?? 600;
  const tbLines = opts.tracebackLines ?? 6;
  const totalCap = opts.totalCap ?? 12000;
  const c = run.counts;
  const head: string[] = [];
  if (run.collectionError) {
    const e = run.collectionError;
    // (A file's name on one line: code under test can name the file of an error it raises.)
    const where = [e.file?.replace(/\n/g, "\\n"), e.line !== null ? `line ${e.line}` : null].filter(Boolean).join(", ");
    head.push(`Test run: collection error, no test ran (counts as ${c.total ? `0 of ${c.total} tests` : "no test"} passed).`);
    // A syntax error's message is Python's block: the file and line (said in the heading), the source line, the
    // marks under it, and the error. The heading says the error; the traceback then reads as CPython's, the
    // frames that imported the file followed by the file's line and its marks (not the frames after the error).
    const said = `File "${e.file}", line ${e.line}\n`;
    const syntax = e.file && e.line !== null && e.message.startsWith(said) ? e.message.replace(/\s+$/, "").split("\n") : null;
    const message = syntax ? (syntax.at(-1) as string) : e.message;
    // Its lines after the first are indented, as every test's details are: code under test writes the message, and
    // a line of its own at the left margin could read as the log's ("Test run: 6 tests, 6 passed").
    head.push(`Collection error${where ? ` in ${where}` : ""}: ${hangingIndent(cap(message, messageCap))}`);
    // (The message's lines the traceback ends with are said once.)
    const tb = syntax
      ? tail([beforeRepeat(e.traceback, e.message), `  ${syntax[0]}`, ...syntax.slice(1, -1)].filter(Boolean).join("\n"), tbLines)
      : beforeRepeat(tail(e.traceback, tbLines), e.message);
    if (tb) head.push(indentBlock(tb, "  "));
  } else {
    const passing = passingCount(c);
    // The tests that did not pass, by status, each said as a count of its own ("2 errors", "1 unexpected success").
    const words: Record<"failed" | "error" | "timeout" | "not_run" | "skipped" | "xpass", (n: number) => string> = {
      failed: (n) => `${n} failed`,
      error: (n) => plural(n, "error"),
      timeout: (n) => plural(n, "timeout"),
      not_run: (n) => `${n} not run`,
      skipped: (n) => `${n} skipped`,
      xpass: (n) => plural(n, "unexpected success", "unexpected successes"),
    };
    const breakdown = (["failed", "error", "timeout", "not_run", "skipped", "xpass"] as const)
      .filter((s) => (c[s] ?? 0) > 0)
      .map((s) => words[s](c[s] ?? 0));
    // "3 failed" when every test that did not pass failed; else "3 did not pass (1 failed, 2 errors)".
    const notPassing = c.total - passing;
    const onlyFailed = breakdown.length === 1 && breakdown[0] === `${notPassing} failed`;
    const rest = notPassing === 0 || onlyFailed ? `${notPassing} failed` : `${notPassing} did not pass`;
    // An expected failure counts as passing (wasSuccessful()), said apart from the tests that passed.
    const xfail = c.xfail ?? 0;
    const expected = xfail > 0 ? `, ${plural(xfail, "expected failure")} (xfail, counted as passing)` : "";
    head.push(
      `Test run: ${plural(c.total, "test")}, ${passing - xfail} passed${expected}, ${rest}${breakdown.length && !onlyFailed ? ` (${breakdown.join(", ")})` : ""}.` +
        (run.allPassed ? " All tests pass." : ""),
    );
  }
  // (An incident whose message is the collection error's, such as a package that did not load, is said once.)
  if (run.incident && run.incident.message !== run.collectionError?.message) {
    head.push(`Interpreter: ${run.incident.kind}: ${hangingIndent(cap(run.incident.message, messageCap))}`);
  }
  const rows = run.tests.map((t) => {
    const itf = t.interface ? `  [${t.interface}]` : "";
    const line = `${STATUS_LABEL[t.status].padEnd(7)} ${t.id}${itf}`;
    const detail: string[] = [];
    if (!QUIET.has(t.status)) {
      // (A message that is a failing subTest's, as the runner gives it, is said once: in the subTest's own line.)
      const fromSubTest = (t.subtests ?? []).some((s) => t.message === `subTest ${s.params}: ${s.message}`);
      if (t.message && !fromSubTest) detail.push(indentBlock(cap(t.message, messageCap), "    "));
      for (const s of t.subtests ?? []) {
        detail.push(indentBlock(cap(`subTest ${s.params}: ${s.status}: ${s.message}`, messageCap), "    "));
      }
      if (t.status === "failed" || t.status === "error" || t.status === "timeout") {
        // (Its message is said once, above: the traceback's last lines, when they repeat it, are left out. A
        // recorded value's mismatch shows where test.py checked it; a time limit's, the line the interrupt stopped.)
        const tb = beforeRepeat(tail(t.traceback, tbLines), t.message);
        if (tb) detail.push(indentBlock(tb, "    "));
        for (const [name, text, cut] of [
          ["stdout", t.stdout, t.stdoutTruncated],
          ["stderr", t.stderr, t.stderrTruncated],
        ] as const) {
          const shown = printedTail(text ?? "", cut ?? false, opts.outputLines ?? 0);
          if (shown) detail.push(`    printed (${name}):\n${indentBlock(shown, "      ")}`);
        }
      }
    }
    return { line, detail: detail.join("\n") };
  });
  // Status lines first: they are always kept; details fill what room is left, in test order.
  let room = totalCap - head.join("\n").length - rows.reduce((n, r) => n + r.line.length + 1, 0);
  let left = 0;
  const out = [...head];
  for (const r of rows) {
    out.push(r.line);
    if (!r.detail) continue;
    if (r.detail.length + 1 <= room) {
      out.push(r.detail);
      room -= r.detail.length + 1;
    } else left += 1;
  }
  if (left > 0) out.push(`[details of ${left} test${left === 1 ? "" : "s"} left out: the log is capped at ${totalCap} characters]`);
  return out.join("\n");
}

/**
 * What the episode runner hands to the agent after a turn: the test log
 * (every level), then the rendered feedback at `level` when there is a record
 * and the level is above L0.
 */
export function renderForAgent(record: FeedbackRecord | null, run: RunResult, level: FeedbackLevel, opts: TestLogOptions = {}): string {
  const log = renderTestLog(run, opts);
  const fb = record ? renderFeedback(record, level) : "";
  return fb ? `${log}\n\n${fb}` : log;
}
