/**
 * RETRIEVE for the ReCodeAgent (RECODE-H, "Interaction protocol": RETRIEVE repo functions by a
 * query): the top-level functions and classes of the repository's Python files, ranked against a
 * query with BM25 (minisearch).
 */
import MiniSearch from "minisearch";
import type { Task } from "../task";

/** One top-level `def` / `async def` / `class` of a repository file. */
export interface RepoDefinition {
  /** `path::name`, unique within a repository. */
  id: string;
  /** File path relative to repo/. */
  path: string;
  name: string;
  kind: "function" | "class";
  /** The header (decorators excluded) up to and including the closing `:` of the signature. */
  signature: string;
  /** The docstring's text (quotes removed, whitespace kept), or "" when there is none. */
  docstring: string;
  /** Full source: decorators, header and body, trailing blank lines removed. */
  source: string;
  /** 1-based line of the first line of `source`. */
  line: number;
}

/** A ranked definition. `score` is minisearch's BM25 score (higher is better, unitless). */
export interface RetrievalHit {
  definition: RepoDefinition;
  score: number;
}

/**
 * Per-line state of a light Python scanner: whether a line starts a new top-level logical line,
 * i.e. it begins at column 0 outside any string or bracket. Approximate (f-string nesting is not
 * modelled) but enough to cut a file into top-level blocks.
 */
function topLevelStarts(lines: string[]): boolean[] {
  const starts: boolean[] = [];
  let depth = 0;
  let quote: string | null = null; // the open string delimiter: ' " ''' """
  let continued = false; // previous line ended with a backslash
  for (const line of lines) {
    const first = line[0];
    starts.push(depth === 0 && quote === null && !continued && first !== undefined && first !== " " && first !== "\t" && first !== "#");
    continued = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i] as string;
      if (quote !== null) {
        if (c === "\\") {
          i++;
          continue;
        }
        if (line.startsWith(quote, i)) {
          i += quote.length - 1;
          quote = null;
        }
        continue;
      }
      if (c === "#") break;
      if (c === '"' || c === "'") {
        const triple = c.repeat(3);
        quote = line.startsWith(triple, i) ? triple : c;
        i += quote.length - 1;
        continue;
      }
      if (c === "(" || c === "[" || c === "{") depth++;
      else if (c === ")" || c === "]" || c === "}") depth = Math.max(0, depth - 1);
      else if (c === "\\" && i === line.length - 1) continued = true;
    }
    if (quote !== null && quote.length === 1) quote = null; // single-quoted strings end at the line end
  }
  return starts;
}

const HEADER_RE = /^(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)/;

function docstringOf(body: string): string {
  const m = /^\s*[rRuU]?("""|'''|"|')([\s\S]*?)\1/.exec(body);
  return m ? (m[2] ?? "").trim() : "";
}

/**
 * The top-level functions and classes of one Python file, in file order. Decorators directly above
 * a definition belong to it.
 */
export function extractDefinitions(path: string, source: string): RepoDefinition[] {
  const lines = source.replace(/\r\n/g, "\n").split("\n");
  const starts = topLevelStarts(lines);
  const out: RepoDefinition[] = [];
  let i = 0;
  while (i < lines.length) {
    const text = lines[i] as string;
    if (!starts[i] || !(text.startsWith("@") || HEADER_RE.test(text))) {
      i++;
      continue;
    }
    const first = i;
    while (i < lines.length && starts[i] && (lines[i] as string).startsWith("@")) {
      i++;
      while (i < lines.length && !starts[i]) i++; // multi-line decorator arguments
    }
    const header = HEADER_RE.exec(lines[i] ?? "");
    if (i >= lines.length || !starts[i] || !header) {
      i = Math.max(i, first + 1);
      continue;
    }
    const headerLine = i;
    i++;
    while (i < lines.length && !starts[i]) i++;
    let last = i - 1;
    while (last > headerLine && (lines[last] as string).trim() === "") last--;
    const block = lines.slice(headerLine, last + 1).join("\n");
    // The signature ends at the first ':' that closes the header at bracket depth 0.
    let depth = 0;
    let end = block.length;
    for (let k = 0; k < block.length; k++) {
      const c = block[k];
      if (c === "(" || c === "[" || c === "{") depth++;
      else if (c === ")" || c === "]" || c === "}") depth--;
      else if (c === ":" && depth === 0) {
        end = k + 1;
        break;
      }
    }
    const name = header[2] as string;
    out.push({
      id: `${path}::${name}`,
      path,
      name,
      kind: header[1] === "class" ? "class" : "function",
      signature: block.slice(0, end).trim(),
      docstring: docstringOf(block.slice(end)),
      source: lines.slice(first, last + 1).join("\n"),
      line: first + 1,
    });
  }
  return out;
}

const STOP_WORDS = new Set("a an and are as at be by for from how in is it of on or that the this to was what which with".split(" "));

/** Split identifiers and prose into lower-case words: `logSumExp` / `log_sum_exp` -> log, sum, exp. */
function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((t) => t !== "");
}

function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  if (t.length < 2 || STOP_WORDS.has(t)) return null;
  // Light plural folding so that "probabilities" meets "probability" and "weights" meets "weight".
  if (t.length > 4 && t.endsWith("ies")) return `${t.slice(0, -3)}y`;
  if (t.length > 3 && t.endsWith("s") && !t.endsWith("ss")) return t.slice(0, -1);
  return t;
}

interface IndexedDefinition {
  id: string;
  name: string;
  docstring: string;
  signature: string;
  path: string;
  source: string;
}

/**
 * A searchable index of a repository's top-level definitions. Files ending in `.py` are indexed,
 * except `excludePath` (the target file, which the agent writes itself).
 */
export class RepoRetriever {
  /** Every indexed definition, by file path then file order. */
  readonly definitions: RepoDefinition[];
  private readonly byId = new Map<string, RepoDefinition>();
  private readonly index: MiniSearch<IndexedDefinition>;

  constructor(repo: Record<string, string>, excludePath?: string) {
    this.definitions = Object.keys(repo)
      .filter((p) => p.endsWith(".py") && p !== excludePath)
      .sort()
      .flatMap((p) => extractDefinitions(p, repo[p] as string));
    this.index = new MiniSearch<IndexedDefinition>({
      fields: ["name", "docstring", "signature", "path", "source"],
      storeFields: [],
      tokenize,
      processTerm,
    });
    for (const d of this.definitions) this.byId.set(d.id, d);
    this.index.addAll(this.definitions.map((d) => ({ ...d })));
  }

  /**
   * The `limit` definitions that best match `query` (any word may match; names weigh most, then
   * docstrings and signatures, then paths and bodies; prefixes and small typos match at a discount).
   * Returns [] for a query with no searchable words or no match.
   */
  search(query: string, limit = 3): RetrievalHit[] {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`RepoRetriever.search: limit must be an integer >= 1, got ${limit}`);
    const results = this.index.search(query, {
      boost: { name: 4, docstring: 2, signature: 2, path: 1, source: 0.5 },
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
      combineWith: "OR",
    });
    return results.slice(0, limit).map((r) => ({ definition: this.byId.get(String(r.id)) as RepoDefinition, score: r.score }));
  }
}

const cache = new WeakMap<Task, RepoRetriever>();

/** The retriever of a task's repository (target file excluded), built once per Task object. */
export function retrieverFor(task: Task): RepoRetriever {
  let r = cache.get(task);
  if (!r) {
    r = new RepoRetriever(task.repo, task.meta.target_file_path);
    cache.set(task, r);
  }
  return r;
}
