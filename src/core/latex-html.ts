/**
 * Paper text to HTML with a maintained LaTeX parser (unified-latex), for the
 * page's Paper tab and for the check that no raw LaTeX or broken math reaches
 * the reader (latex-check.ts). Platform-free.
 *
 * Takes a method section (paper.tex) or a whole paper (an official RECODE-H
 * latex.txt): the preamble is read for the title, the authors and the
 * definitions (`\newcommand`, `\renewcommand`, `\providecommand`,
 * `\DeclareMathOperator`, argument-less `\def`), which are expanded in the
 * text and in the math; the body (inside `document`, when there is one) is
 * converted. Math stays LaTeX for KaTeX: inline math becomes
 * `<span class="math math-inline">`, display math and the math environments
 * (`equation`, `align`, `gather`, `multline`, `eqnarray`, ... with their
 * labels and `\nonumber` removed) `<div class="math math-display">`, and
 * {@link renderPaper} typesets them. Citations become `[key]`, references
 * `(key)`, figures keep their captions (the picture file is named, not
 * shown), algorithm keywords are set in bold on lines of their own; layout
 * commands are dropped.
 */
import { unifiedLatexToHast } from "@unified-latex/unified-latex-to-hast";
import type * as Ast from "@unified-latex/unified-latex-types";
import { attachMacroArgs, getArgsContent, gobbleArguments } from "@unified-latex/unified-latex-util-arguments";
import { htmlLike, isHtmlLike } from "@unified-latex/unified-latex-util-html-like";
import {
  expandMacrosExcludingDefinitions,
  LATEX_NEWCOMMAND,
  listNewcommands,
  XPARSE_NEWCOMMAND,
} from "@unified-latex/unified-latex-util-macros";
import { parse, parseMath } from "@unified-latex/unified-latex-util-parse";
import { printRaw } from "@unified-latex/unified-latex-util-print-raw";
import { replaceNode } from "@unified-latex/unified-latex-util-replace";
import { visit } from "@unified-latex/unified-latex-util-visit";
import type { Element, ElementContent, Root } from "hast";
import { fromHtmlIsomorphic } from "hast-util-from-html-isomorphic";
import katex from "katex";
import rehypeSanitize, { defaultSchema, type Options as SanitizeSchema } from "rehype-sanitize";
import { unified } from "unified";
import {
  ACCENTS,
  ALGORITHM_KEYWORDS,
  ALGORITHM_WORDS,
  CITE,
  CODE_ENVS,
  DISPLAY_MATH,
  DROPPED,
  ENVIRONMENT_SIGNATURES,
  PLAIN_TEXT,
  REF,
  SIGNATURES,
  SPACING_WITH_LENGTH,
  TEXT_SYMBOLS,
  THEOREMS,
  TO_HAST,
} from "./latex-vocabulary";

/** Title and authors found in a paper's LaTeX (`\title`, `\author`), as plain text. */
export interface PaperInfo {
  title: string | null;
  authors: string[];
}

const str = (content: string): Ast.String => ({ type: "string", content });

const envName = (n: Ast.Environment): string => (typeof n.env === "string" ? n.env : printRaw(n.env as unknown as Ast.Node));

function lastArg(node: Ast.Macro | Ast.Environment): Ast.Node[] {
  const args = getArgsContent(node);
  for (let i = args.length - 1; i >= 0; i--) {
    const a = args[i];
    if (a) return a;
  }
  return [];
}

/** A macro's mandatory arguments as one line of text (for keys: `\cite{a, b}` -> `a, b`). */
function keysOf(node: Ast.Macro): string {
  return printRaw(lastArg(node))
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean)
    .join(", ");
}

/** Escape text for `\text{..}` in math. */
function mathText(s: string): string {
  return s.replace(/[\\{}$&#^_%~]/g, (c) => (c === "\\" ? "\\backslash " : `\\${c}`));
}

interface Definition {
  name: string;
  signature: string;
  body: Ast.Node[];
}

/** `\DeclareMathOperator{\name}{text}` and argument-less `\def\name{body}` definitions, removed from the tree. */
function otherDefinitions(ast: Ast.Root): Definition[] {
  const out: Definition[] = [];
  visit(ast, (node) => {
    if (node.type !== "macro" || node.content !== "DeclareMathOperator") return;
    const args = getArgsContent(node);
    const name = printRaw(args[1] ?? []).replace(/^\\/, "");
    if (!/^[A-Za-z]+$/.test(name)) return;
    const star = args[0] !== null && args[0] !== undefined && printRaw(args[0]) === "*";
    out.push({ name, signature: "", body: parseMath(`\\operatorname${star ? "*" : ""}{${printRaw(args[2] ?? [])}}`) });
  });
  visit(
    ast,
    (nodes) => {
      if (!Array.isArray(nodes)) return;
      const arr = nodes as Ast.Node[];
      for (let i = 0; i < arr.length; i++) {
        const n = arr[i];
        if (n?.type !== "macro" || n.content !== "def" || n.args) continue;
        let j = i + 1;
        while (arr[j]?.type === "whitespace") j++;
        const name = arr[j];
        const body = arr[j + 1];
        if (name?.type !== "macro" || body?.type !== "group") continue;
        out.push({ name: name.content, signature: "", body: body.content });
        arr.splice(i, j + 2 - i);
        i -= 1;
      }
    },
    { includeArrays: true },
  );
  return out;
}

/** Expand the paper's own definitions in the text and the math (nested ones too, a few levels deep). */
function expandDefinitions(ast: Ast.Root): void {
  const defs: Definition[] = [
    ...listNewcommands(ast).map((d) => ({ name: d.name, signature: d.signature, body: d.body })),
    ...otherDefinitions(ast),
  ];
  if (defs.length === 0) return;
  const signatures = Object.fromEntries(defs.map((d) => [d.name, { signature: d.signature }]));
  const names = new Set(defs.map((d) => d.name));
  for (let round = 0; round < 4; round++) {
    attachMacroArgs(ast, signatures);
    let found = false;
    visit(ast, (n) => {
      if (n.type === "macro" && names.has(n.content)) found = true;
    });
    if (!found) break;
    expandMacrosExcludingDefinitions(ast, defs);
  }
}

/** The title and author arguments of the preamble (or the body), before the body is converted. */
function titleNodes(ast: Ast.Root): { title: Ast.Node[] | null; authors: Ast.Node[] | null } {
  let title: Ast.Node[] | null = null;
  let authors: Ast.Node[] | null = null;
  visit(ast, (node) => {
    if (node.type !== "macro") return;
    if (node.content === "title" && title === null && node.args) title = lastArg(node);
    if (node.content === "author" && authors === null && node.args) authors = lastArg(node);
  });
  return { title, authors };
}

/** Separators {@link plainText} puts for `\and`, for a line break and for a horizontal space (`\quad`). */
const AND = "\uE000";
const LINE = "\uE001";
const SPACE = "\uE002";

/** A control symbol that stands for its character (`\&`, `\%`, `\_`). */
const CONTROL_SYMBOL = /^[%$&#_{}]$/;

/** Commands that put a horizontal space between names on an author line. */
const NAME_SPACES = new Set(["quad", "qquad", "hspace", "hfill", "enspace", "hskip"]);

/**
 * The author names of an `\author` argument: the first line of each `\and` block, split where a horizontal
 * space (`\quad`) stands between names. Affiliation marks (`$^{1,2}$`, `\textsuperscript{1}`) are left out.
 */
function authorNames(nodes: Ast.Node[]): string[] {
  return plainText(nodes)
    .split(AND)
    .flatMap((block) => (block.split(LINE)[0] ?? "").split(SPACE))
    .map((name) => name.replace(/\s+/g, " ").trim())
    .filter((s) => s.length > 0 && s.length < 120 && !s.includes("@"));
}

/** Whether inline math is a superscript alone (`$^{1,2}$`, `${}^\dagger$`): an affiliation or a note's mark. */
function isMark(math: Ast.Node[]): boolean {
  return /^(?:\{\})?\^/.test(printRaw(math).trim());
}

/** Plain text of LaTeX nodes: commands dropped, groups opened, whitespace collapsed. */
function plainText(nodes: Ast.Node[]): string {
  const parts: string[] = [];
  const walk = (ns: Ast.Node[]) => {
    for (const n of ns) {
      if (n.type === "string") parts.push(n.content);
      else if (n.type === "whitespace" || n.type === "parbreak") parts.push(" ");
      else if (n.type === "group") walk(n.content);
      else if (n.type === "inlinemath") {
        if (!isMark(n.content)) parts.push(printRaw(n.content));
      } else if (n.type === "macro") {
        if (n.content === "and" || n.content === "And" || n.content === "AND") parts.push(AND);
        else if (n.content === "\\" || n.content === "newline") parts.push(LINE);
        else if (NAME_SPACES.has(n.content)) parts.push(SPACE);
        else if (CONTROL_SYMBOL.test(n.content)) parts.push(n.content);
        else if (TEXT_SYMBOLS[n.content] !== undefined) parts.push(TEXT_SYMBOLS[n.content] as string);
        else if (["textbf", "textit", "emph", "textsc", "textrm", "text", "mbox"].includes(n.content) && n.args) walk(lastArg(n));
      }
    }
  };
  walk(nodes);
  return parts
    .join("")
    .replace(/[ \t\n]+/g, " ")
    .trim();
}

/** Plain text of LaTeX nodes on one line. */
function oneLine(nodes: Ast.Node[]): string {
  return plainText(nodes)
    .replace(/[\uE000-\uE002]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Parse, expand the paper's definitions, and read the arguments of the commands handled here. */
function prepare(tex: string): Ast.Root {
  const ast = parse(tex.replace(/\r\n?/g, "\n"));
  expandDefinitions(ast);
  attachMacroArgs(ast, SIGNATURES);
  attachEnvironmentArgs(ast);
  dropLengths(ast);
  return ast;
}

/**
 * The arguments of the environments of {@link ENVIRONMENT_SIGNATURES}, which the parser leaves at the start of
 * their body, read as arguments: `[t]` or `{r}{0.5\textwidth}` is then no text of the body.
 */
function attachEnvironmentArgs(ast: Ast.Root): void {
  visit(ast, (node) => {
    if (node.type !== "environment" || node.args?.length) return;
    const spec = ENVIRONMENT_SIGNATURES[envName(node)];
    if (!spec) return;
    const { args } = gobbleArguments(node.content, spec);
    node.args = args;
  });
}

/** A TeX length (a number and a unit) as the parser leaves it after a spacing command: `2pt`, `-1.5em`. */
const LENGTH = /^-?(\d+\.?\d*|\.\d+)(pt|em|ex|cm|mm|in|bp|sp|pc|mu|dd|cc)$/;

/** The length after each spacing command of {@link SPACING_WITH_LENGTH} in the text, removed (the command is dropped later). */
function dropLengths(ast: Ast.Root): void {
  visit(ast, (node, info) => {
    if (node.type !== "macro" || !SPACING_WITH_LENGTH.has(node.content) || info.context.inMathMode || info.context.hasMathModeAncestor)
      return;
    const siblings = info.containingArray;
    if (!siblings || info.index === undefined) return;
    let i = info.index + 1;
    if (siblings[i]?.type === "whitespace") i += 1;
    // (A sign the parser kept apart: "-" then "1.5em".)
    let text = "";
    let j = i;
    while (j < siblings.length && siblings[j]?.type === "string" && text.length < 12) {
      text += (siblings[j] as Ast.String).content;
      j += 1;
      if (LENGTH.test(text)) {
        // (With one space after it, as TeX reads a length.)
        if (siblings[j]?.type === "whitespace") j += 1;
        siblings.splice(info.index + 1, j - info.index - 1);
        return;
      }
    }
  });
}

/**
 * The title and the authors of a paper's LaTeX, from `\title{..}` and
 * `\author{..}` (authors split at `\and` and line breaks, affiliations and
 * `\thanks` left out as far as they are on lines of their own). Never throws.
 */
export function paperInfo(tex: string): PaperInfo {
  try {
    const { title, authors } = titleNodes(prepare(tex));
    const t = title ? oneLine(title) : "";
    return { title: t || null, authors: authors ? authorNames(authors) : [] };
  } catch {
    return { title: null, authors: [] };
  }
}

/** A display-math node holding `body` (LaTeX) set in `env`. */
function displayMath(env: { env: string | null; arg?: string }, body: string): Ast.DisplayMath {
  const text = env.env ? `\\begin{${env.env}}${env.arg ?? ""}${body}\\end{${env.env}}` : body;
  return { type: "displaymath", content: [str(text.trim())] };
}

/** Math cleanup: labels and numbering switches removed, references inside math as text. */
function cleanMath(ast: Ast.Root): void {
  replaceNode(ast, (node, info) => {
    if (!(info.context.inMathMode || info.context.hasMathModeAncestor) || node.type !== "macro") return undefined;
    if (node.content === "label" || node.content === "nonumber" || node.content === "notag") return null;
    if (REF.has(node.content)) return parseMath(`\\text{(${mathText(keysOf(node))})}`);
    return undefined;
  });
}

/** Commands whose arguments are read as raw text (addresses, keys, file names), not shown as parsed. */
const RAW_ARGUMENTS = new Set(["url", "href", "hyperref", "includegraphics", ...CITE, ...REF]);

/** Whether a node is inside the arguments of a command whose arguments are not text (a link, a key) or that is dropped. */
function underRawMacro(parents: (Ast.Node | Ast.Argument)[]): boolean {
  return parents.some((p) => p.type === "macro" && (RAW_ARGUMENTS.has(p.content) || DROPPED.has(p.content)));
}

/**
 * Classes naming where a node is in the source, for the check's reports (latex-check.ts): the line it starts
 * on (`src-line-23`) and, when known, the characters it spans (`src-span-120-134`, offsets into the text with
 * its line ends made `\n`: the formula as written, before the paper's definitions were expanded); "" when
 * the line is unknown.
 */
function lineClass(node: Ast.Node): string {
  const at = (node as { position?: { start?: { line?: number; offset?: number }; end?: { offset?: number } } }).position;
  const line = at?.start?.line;
  if (typeof line !== "number") return "";
  const [from, to] = [at?.start?.offset, at?.end?.offset];
  return typeof from === "number" && typeof to === "number" && to > from ? `src-line-${line} src-span-${from}-${to}` : `src-line-${line}`;
}

/** Whether a class is one of {@link lineClass}'s. */
const isSourceClass = (c: string) => c.startsWith("src-line-") || c.startsWith("src-span-");

/**
 * Wrap every math node outside other math in an element naming its source line (math environments are
 * wrapped where they become display math, replaceEnvironment): what the check reports points at it.
 */
function markMathLines(ast: Ast.Root): void {
  const done = new WeakSet<Ast.Node>();
  replaceNode(ast, (node, info) => {
    if ((node.type !== "inlinemath" && node.type !== "displaymath") || done.has(node)) return undefined;
    if (info.parents.some((p) => p.type === "inlinemath" || p.type === "displaymath")) return undefined;
    const cls = lineClass(node);
    if (!cls) return undefined;
    done.add(node);
    return htmlLike({ tag: node.type === "inlinemath" ? "span" : "div", attributes: { className: cls }, content: [node] });
  });
}

/**
 * Mark what the parser could not place: outside math and code, a `$`, `{` or
 * `}` in plain text is a delimiter without its partner (the escaped ones,
 * `\$`, `\{`, `\}`, are commands, not text). Such text is wrapped in
 * `span.latex-raw`, which latex-check.ts reports.
 */
function markUnbalanced(ast: Ast.Root): void {
  replaceNode(ast, (node, info) => {
    if (node.type !== "string" || !/[$}{]/.test(node.content)) return undefined;
    if (info.context.inMathMode || info.context.hasMathModeAncestor) return undefined;
    const rawParent =
      underRawMacro(info.parents) ||
      info.parents.some(
        (p) => (p.type === "environment" || p.type === "mathenv") && (CODE_ENVS.has(envName(p)) || DISPLAY_MATH[envName(p)] !== undefined),
      );
    if (rawParent) return undefined;
    return htmlLike({ tag: "span", attributes: { className: `latex-raw ${lineClass(node)}`.trim() }, content: [str(node.content)] });
  });
}

/** A list from `\item`s (description lists: the optional label in bold). */
function itemList(env: Ast.Environment): Ast.Macro {
  const items = env.content.filter((n): n is Ast.Macro => n.type === "macro" && n.content === "item");
  return htmlLike({
    tag: "ul",
    attributes: { className: "description" },
    content: items.map((item) => {
      const args = getArgsContent(item);
      const body = args[args.length - 1] ?? [];
      const label = args.slice(0, -1).find((a) => a && a.length > 0) ?? null;
      return htmlLike({
        tag: "li",
        content: label ? [htmlLike({ tag: "b", content: label }), str(" "), ...body] : body,
      });
    }),
  });
}

/** Environment replacements (outside math). */
function replaceEnvironment(node: Ast.Environment): Ast.Node | Ast.Node[] | null | undefined {
  const name = envName(node);
  const math = DISPLAY_MATH[name];
  if (math) {
    const arg = name.startsWith("alignat") ? `{${printRaw(lastArgBefore(node))}}` : undefined;
    const shown = displayMath(arg ? { ...math, arg } : math, printRaw(node.content));
    const cls = lineClass(node);
    return cls ? htmlLike({ tag: "div", attributes: { className: cls }, content: [shown] }) : shown;
  }
  if (name === "math") return { type: "inlinemath", content: node.content };
  if (CODE_ENVS.has(name)) return htmlLike({ tag: "pre", content: [str(printRaw(node.content).replace(/^\n/, ""))] });
  if (name === "description") return itemList(node);
  if (name === "abstract") {
    return htmlLike({
      tag: "div",
      attributes: { className: "abstract" },
      content: [htmlLike({ tag: "h4", content: [str("Abstract")] }), ...node.content],
    });
  }
  const base = name.replace(/\*$/, "");
  const theorem = THEOREMS[base];
  if (theorem) {
    const args = getArgsContent(node);
    const note = args.find((a) => a && a.length > 0);
    const head = note ? [str(`${theorem} (`), ...note, str(").")] : [str(`${theorem}.`)];
    return htmlLike({
      tag: "div",
      attributes: { className: "theorem" },
      content: [htmlLike({ tag: base === "proof" ? "i" : "b", content: head }), str(" "), ...node.content],
    });
  }
  if (name === "algorithmic" || name === "algorithm2e") {
    return htmlLike({ tag: "div", attributes: { className: "algorithmic" }, content: node.content });
  }
  return undefined;
}

/** `alignat{n}`: the column count, which the parser may leave as the first group of the body. */
function lastArgBefore(node: Ast.Environment): Ast.Node[] {
  const args = node.args ? getArgsContent(node) : [];
  const given = args.find((a) => a && a.length > 0);
  if (given) return given;
  const first = node.content.find((n) => n.type !== "whitespace");
  if (first?.type === "group") {
    node.content.splice(node.content.indexOf(first), 1);
    return first.content;
  }
  return [str("1")];
}

/** Macro replacements (outside math). */
function replaceMacro(node: Ast.Macro): Ast.Node | Ast.Node[] | null | undefined {
  const name = node.content;
  if (DROPPED.has(name) || LATEX_NEWCOMMAND.has(name) || XPARSE_NEWCOMMAND.has(name)) return null;
  const symbol = TEXT_SYMBOLS[name];
  if (symbol !== undefined) return str(symbol);
  if (CITE.has(name)) return str(`[${keysOf(node)}]`);
  if (REF.has(name)) return str(`(${keysOf(node)})`);
  if (PLAIN_TEXT.has(name) && node.args) return htmlLike({ tag: "span", content: lastArg(node) });
  if (name === "ensuremath" && node.args) return { type: "inlinemath", content: lastArg(node) };
  if (name === "caption" || name === "subcaption") {
    return htmlLike({ tag: "p", attributes: { className: "caption" }, content: [htmlLike({ tag: "em", content: lastArg(node) })] });
  }
  if (name === "footnote")
    return htmlLike({ tag: "span", attributes: { className: "footnote" }, content: [str(" ("), ...lastArg(node), str(")")] });
  if (name === "includegraphics")
    return htmlLike({ tag: "span", attributes: { className: "figure-file" }, content: [str(`[figure: ${printRaw(lastArg(node))}]`)] });
  if (name === "appendix") return htmlLike({ tag: "h3", content: [str("Appendix")] });
  // Run-in headings, as LaTeX sets them: bold, at the start of the paragraph.
  if ((name === "paragraph" || name === "subparagraph") && node.args) return [htmlLike({ tag: "b", content: lastArg(node) }), str(" ")];
  if (name === "newline") return htmlLike({ tag: "br", content: [] });
  const args = node.args ? getArgsContent(node) : [];
  if ((name === "nicefrac" || name === "sfrac") && args.length === 3) return [...(args[1] ?? []), str("/"), ...(args[2] ?? [])];
  if (name === "enquote" && node.args) return [str("“"), ...lastArg(node), str("”")];
  // The text version, not the one for PDF bookmarks.
  if (name === "texorpdfstring" && node.args) return args[0] ?? [];
  // A control symbol is its character; kept as text so that the space after it stays.
  if (CONTROL_SYMBOL.test(name)) return str(name);
  // The old emphasis switch (`{\em text}`), as the converter sets `\it`.
  if (name === "em") return { ...node, content: "it" };
  const word = ALGORITHM_WORDS[name];
  if (word !== undefined) return [htmlLike({ tag: "b", content: [str(word)] }), str(" ")];
  const keyword = ALGORITHM_KEYWORDS[name];
  if (keyword !== undefined) {
    const out: Ast.Node[] = [htmlLike({ tag: "br", content: [] })];
    if (keyword) out.push(htmlLike({ tag: "b", content: [str(keyword)] }), str(" "));
    if (node.args) out.push(...lastArg(node));
    return out;
  }
  const htmlTag = isHtmlLike(node as unknown);
  if (node.args?.length && !TO_HAST.has(name) && !ACCENTS.has(name) && !htmlTag) {
    // A command with arguments the converter does not know (\multicolumn, \marginpar, ...): its last argument is the text.
    const last = [...node.args].reverse().find((a) => a.openMark === "{");
    return last ? last.content : null;
  }
  return undefined;
}

/** The title block `\maketitle` stands for. */
function titleBlock(title: Ast.Node[] | null, authors: Ast.Node[] | null): Ast.Node[] {
  const out: Ast.Node[] = [];
  if (title) out.push(htmlLike({ tag: "h2", attributes: { className: "paper-title" }, content: [str(oneLine(title))] }));
  const names = authors ? authorNames(authors).join(" · ") : "";
  if (names) out.push(htmlLike({ tag: "p", attributes: { className: "paper-authors" }, content: [str(names)] }));
  return out;
}

function hasClass(el: Element, name: string): boolean {
  return classList(el).includes(name);
}

/** An element's classes, as a list (hast keeps a list; a string is split at spaces). */
export function classList(el: Element): string[] {
  const c: unknown = el.properties?.className;
  return Array.isArray(c) ? c.map(String) : typeof c === "string" ? c.split(/\s+/).filter(Boolean) : [];
}

/**
 * Tidy the converted tree: math classes for KaTeX, commands the converter
 * did not know unwrapped to the text of their arguments (or dropped when they
 * have none), `<br>`s of paragraph breaks between blocks removed. The
 * wrappers naming a formula's source line (markMathLines) are unwrapped: with
 * `keepLines` their `src-line-N` class moves onto the formula, else it goes,
 * as it goes from misplaced text.
 */
function tidy(root: Root, keepLines: boolean): void {
  const walk = (children: (Root["children"][number] | ElementContent)[], line?: string[]): ElementContent[] => {
    const out: ElementContent[] = [];
    for (const child of children) {
      if (child.type !== "element") {
        if (child.type === "text" || child.type === "comment") out.push(child);
        continue;
      }
      const el = child;
      const own = classList(el).filter(isSourceClass);
      const kept = keepLines ? own : [];
      if (own.length > 0 && !hasClass(el, "latex-raw") && !hasClass(el, "dropped-cmd")) {
        out.push(...walk(el.children, own));
        continue;
      }
      const withLine = keepLines && line ? line : [];
      if (hasClass(el, "inline-math")) {
        el.properties = { className: ["math", "math-inline", ...withLine] };
        out.push(el);
        continue;
      }
      if (hasClass(el, "display-math")) {
        el.properties = { className: ["math", "math-display", ...withLine] };
        out.push(el);
        continue;
      }
      if (own.length > 0) el.properties = { ...el.properties, className: [...classList(el).filter((c) => !isSourceClass(c)), ...kept] };
      if (el.tagName === "span" && hasClass(el, "macro")) {
        // An unknown command: keep what its mandatory arguments say.
        for (const arg of el.children) {
          if (arg.type === "element" && arg.properties?.dataOpenMark === "{") out.push(...walk(arg.children, line));
        }
        continue;
      }
      el.children = walk(el.children, line);
      out.push(el);
    }
    return out;
  };
  root.children = walk(root.children);
}

/** How to convert a paper. */
export interface PaperOptions {
  /**
   * Mark formulas and misplaced text with their source line (class `src-line-N`), and put an empty
   * `span.dropped-cmd` where a command no converter knows leaves nothing, for latex-check.ts. Default false.
   */
  lines?: boolean;
}

/** Commands unified-latex-to-hast sets by itself (`\\S`, `\\ldots`, `\\quad`, ...), found by asking it once per name. */
const setByConverter = new Map<string, boolean>();

function knownToConverter(name: string): boolean {
  let known = setByConverter.get(name);
  if (known === undefined) {
    const out = unified()
      .use(unifiedLatexToHast as never)
      .runSync({ type: "root", content: [{ type: "macro", content: name }] } as never) as unknown as Root;
    const first = out.children[0];
    known = !(first?.type === "element" && first.tagName === "span" && classList(first).includes("macro"));
    setByConverter.set(name, known);
  }
  return known;
}

/**
 * Whether the command `node` (which nothing here converts) would leave the text with nothing of it: no
 * converter knows it and no non-empty `{...}` follows it (whose text would stay). `\\eg{}`, a `\\method` from a
 * style file the paper does not include.
 */
function losesText(node: Ast.Macro, siblings: (Ast.Node | Ast.Argument)[] | undefined, index: number | undefined): boolean {
  const name = node.content;
  if (node.args?.length || !/^[A-Za-z@]+$/.test(name) || TO_HAST.has(name) || ACCENTS.has(name) || isHtmlLike(node as unknown))
    return false;
  if (siblings && index !== undefined) {
    let next = siblings[index + 1];
    if (next?.type === "whitespace") next = siblings[index + 2];
    if (next?.type === "group" && next.content.length > 0) return false;
  }
  return !knownToConverter(name);
}

/**
 * The paper's LaTeX as an HTML tree (hast), math not yet typeset: inline
 * math as `span.math.math-inline`, display math as `div.math.math-display`,
 * holding the LaTeX. Never throws: text that cannot be parsed gives a tree
 * with a `p.paper-error` saying so.
 */
export function latexToHast(tex: string, opts: PaperOptions = {}): Root {
  try {
    const ast = prepare(tex);
    const { title, authors } = titleNodes(ast);
    // Made before the commands inside the title are replaced below.
    const block = titleBlock(title, authors);
    cleanMath(ast);
    markUnbalanced(ast);
    if (opts.lines) markMathLines(ast);
    replaceNode(ast, (node, info) => {
      if (info.context.inMathMode || info.context.hasMathModeAncestor) return undefined;
      if (node.type === "environment" || node.type === "mathenv") return replaceEnvironment(node);
      if (node.type === "macro") {
        if (node.content === "maketitle") return block;
        const replaced = replaceMacro(node);
        if (replaced === undefined && opts.lines && !underRawMacro(info.parents) && losesText(node, info.containingArray, info.index)) {
          // (For latex-check.ts: an empty marker naming the command, where the page shows nothing.)
          return htmlLike({
            tag: "span",
            attributes: { className: `dropped-cmd dropped-cmd-${node.content} ${lineClass(node)}`.trim() },
            content: [],
          });
        }
        return replaced;
      }
      return undefined;
    });
    const tree = unified()
      .use(unifiedLatexToHast as never)
      .runSync(ast as never) as unknown as Root;
    tidy(tree, opts.lines === true);
    return tree;
  } catch (e) {
    return {
      type: "root",
      children: [
        {
          type: "element",
          tagName: "p",
          properties: { className: ["paper-error"] },
          children: [{ type: "text", value: `The paper text could not be read as LaTeX: ${(e as Error).message.split("\n")[0]}` }],
        },
      ],
    };
  }
}

const CLASSES = [
  "math",
  "math-inline",
  "math-display",
  "caption",
  "footnote",
  "figure-file",
  "paper-title",
  "paper-authors",
  "paper-error",
  "latex-raw",
  "dropped-cmd",
  "url",
  "href",
  "abstract",
  "theorem",
  "algorithmic",
  "description",
  "environment",
  "figure",
  "table",
  "algorithm",
  "tabular",
  "enumerate",
  "itemize",
  "texttt",
  "textit",
  "textbf",
  "emph",
  "center",
  "quote",
];

/**
 * Sanitiser schema: the default one, plus the classes the converter sets
 * (math ones included), on every element (tags with classes of their own in
 * the default schema keep those too).
 */
const schema: SanitizeSchema = {
  ...defaultSchema,
  attributes: Object.fromEntries(
    [...new Set([...Object.keys(defaultSchema.attributes ?? {}), "*"])].map((tag) => {
      const own = defaultSchema.attributes?.[tag] ?? [];
      const ownClasses = own.flatMap((a) => (Array.isArray(a) && a[0] === "className" ? a.slice(1) : []));
      const rest = own.filter((a) => !(Array.isArray(a) && a[0] === "className"));
      return [tag, [...rest, ["className", ...ownClasses, ...CLASSES, /^src-line-\d+$/, /^src-span-\d+-\d+$/, /^dropped-cmd-[A-Za-z@]+$/]]];
    }),
  ),
};

function textContent(nodes: ElementContent[]): string {
  return nodes.map((n) => (n.type === "text" ? n.value : n.type === "element" ? textContent(n.children) : "")).join("");
}

/**
 * Typeset every `.math-inline` / `.math-display` element with KaTeX, in
 * place. A formula KaTeX rejects (a parse error, an undefined command)
 * becomes `span.katex-error` holding its LaTeX, with KaTeX's message as title.
 */
function typeset(root: Root): void {
  const walk = (children: ElementContent[]): ElementContent[] =>
    children.flatMap((n): ElementContent[] => {
      if (n.type !== "element") return [n];
      const display = hasClass(n, "math-display");
      if (!display && !hasClass(n, "math-inline")) {
        n.children = walk(n.children);
        return [n];
      }
      const value = textContent(n.children);
      try {
        const html = katex.renderToString(value, { displayMode: display, throwOnError: true, strict: "ignore" });
        return fromHtmlIsomorphic(html, { fragment: true }).children as ElementContent[];
      } catch (e) {
        const message = (e as Error).message;
        return [
          {
            type: "element",
            tagName: "span",
            // (The formula's source line, when the tree was made with it, stays for latex-check.ts.)
            properties: {
              className: ["katex-error", ...classList(n).filter(isSourceClass)],
              title: message,
              style: "color:#cc0000",
            },
            children: [{ type: "text", value }],
          },
        ];
      }
    });
  root.children = walk(root.children as ElementContent[]) as Root["children"];
}

/**
 * The paper's LaTeX as sanitised HTML (hast) with the math typeset by KaTeX,
 * as the page shows it. A formula KaTeX cannot set becomes a
 * `span.katex-error` holding its LaTeX, with KaTeX's message as its title
 * (latex-check.ts reports those). Never throws.
 */
export function renderPaper(tex: string, opts: PaperOptions = {}): Root {
  const tree = unified().use(rehypeSanitize, schema).runSync(latexToHast(tex, opts)) as Root;
  typeset(tree);
  return tree;
}
