/**
 * The rules researcher: deterministic feedback from the test results, the
 * candidate code and the canonical solution, with no model (offline, free,
 * reproducible). It writes one record item per failing interface with the six
 * fields of RECODE-H's structured feedback (RECODE-H.md, "Feedback hierarchy").
 */
import {
  codeWithoutCommentsAndStrings,
  definitionAt,
  extractDefinitions,
  listDefinitions,
  listImports,
  referencesName,
} from "../canonical";
import type { FeedbackCategory, FeedbackItem, FeedbackRecord, Researcher, ReviewInput } from "../feedback";
import type { CollectionError, Mismatch, TestResult } from "../results";
import type { Task } from "../task";

/** A repository helper the canonical solution imports. */
interface RepoHelper {
  /** Name bound in canonical.py. */
  local: string;
  /** Repo file defining it, relative to repo/. */
  file: string;
}

/** Python module path -> repo file, or null when the module is not in the task's repo. */
function repoFileOfModule(task: Task, module: string): string | null {
  if (module.startsWith(".")) {
    const base = task.meta.target_file_path.split("/").slice(0, -1);
    const dots = /^\.+/.exec(module)?.[0].length ?? 1;
    const rest = module.slice(dots);
    const dir = base.slice(0, Math.max(0, base.length - (dots - 1)));
    module = [...dir, ...(rest ? rest.split(".") : [])].join(".");
  }
  const p = module.split(".").join("/");
  for (const cand of [`${p}.py`, `${p}/__init__.py`])
    if (Object.hasOwn(task.repo, cand) && cand !== task.meta.target_file_path) return cand;
  return null;
}

/** Functions and classes from the task's repo that canonical.py imports by name. */
function repoHelpers(task: Task): RepoHelper[] {
  const out: RepoHelper[] = [];
  for (const imp of listImports(task.canonical)) {
    if (imp.name === null || imp.name === "*") continue;
    const file = repoFileOfModule(task, imp.module);
    if (file) out.push({ local: imp.local, file });
  }
  return out;
}

/** Where a traceback ends: the last `File "...", line N, in f` frame. */
function lastFrame(traceback: string): { file: string; line: number; func: string } | null {
  const re = /File "([^"]+)", line (\d+)(?:, in (\S+))?/g;
  let last: { file: string; line: number; func: string } | null = null;
  for (let m = re.exec(traceback); m; m = re.exec(traceback)) last = { file: m[1] as string, line: Number(m[2]), func: m[3] ?? "" };
  return last;
}

function exceptionType(message: string): string {
  return /^([A-Za-z_][\w.]*)(?::|$)/.exec(message.trim())?.[1] ?? "";
}

function quoteLine(source: string, line: number | null): string {
  if (line === null) return "";
  const text = source.replace(/\r\n?/g, "\n").split("\n")[line - 1];
  return text === undefined ? "" : text.trim();
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Whether the message says `name` is missing (ImportError / AttributeError / NameError naming it). */
function namesMissing(message: string, name: string): boolean {
  const n = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return (
    new RegExp(`cannot import name '${n}'`).test(message) ||
    new RegExp(`has no attribute '${n}'`).test(message) ||
    new RegExp(`name '${n}' is not defined`).test(message)
  );
}

function describeMismatch(m: Mismatch): string {
  const at = m.where ? ` at ${m.where}` : "";
  switch (m.kind) {
    case "shape":
      return `returns an array of the wrong shape for check "${m.key}": expected ${m.expected}, got ${m.actual}.`;
    case "dtype":
      return `returns the wrong dtype for check "${m.key}": expected ${m.expected}, got ${m.actual}.`;
    case "length":
      return `returns a sequence of the wrong length for check "${m.key}"${at}: expected ${m.expected} items, got ${m.actual}.`;
    case "type":
      return `returns a value of the wrong type for check "${m.key}"${at}: ${m.detail}.`;
    case "keys":
      return `returns a mapping with the wrong keys for check "${m.key}"${at}: ${m.detail}.`;
    default:
      return `returns a wrong value for check "${m.key}"${at}: ${m.detail}.`;
  }
}

/** For a numeric value mismatch: how far off and in which direction, e.g. "The value is 12% too small (ratio 0.88)." */
function numericDirection(m: Mismatch): string | null {
  if (m.kind !== "value") return null;
  const exp = Number(m.expected);
  const act = Number(m.actual);
  if (!Number.isFinite(exp) || !Number.isFinite(act) || exp === 0 || m.expected.trim() === "" || m.actual.trim() === "") return null;
  if (Math.sign(exp) !== Math.sign(act) && act !== 0) return "The value has the wrong sign.";
  const ratio = act / exp;
  const pct = Math.abs(ratio - 1) * 100;
  const size = Math.abs(act) < Math.abs(exp) ? "too small" : "too large";
  return `The value is ${pct < 1 ? pct.toPrecision(2) : Math.round(pct)}% ${size} in magnitude (ratio ${ratio.toPrecision(3)}).`;
}

interface Group {
  name: string;
  failing: TestResult[];
  passing: TestResult[];
}

/** Options of {@link createRulesResearcher}. */
export interface RulesResearcherOptions {
  /** Characters kept of an error message quoted in a description. Default 300. */
  messageCap?: number;
}

/**
 * A researcher that needs no model. For each failing interface (failing tests
 * grouped by TestResult.interface; a collection error is attributed to the
 * interface whose definition encloses its line in the candidate file, or the
 * one its message names) it writes:
 * - category: T0 when the interface is missing (not defined, ImportError /
 *   AttributeError / NameError naming it, NotImplementedError); T1 when an
 *   exception is raised in candidate code (or the time limit ran out); T4 when
 *   the failure points at repository helpers (the candidate redefines a helper
 *   the canonical imports, never references one the canonical interface calls,
 *   or an exception is raised inside a repo helper); T2 for wrong values;
 * - description: from the structured mismatch (kind, element, by how much) or the error;
 * - analysis: the evidence (failing vs passing tests of the interface, the candidate line, helpers);
 * - actionable_feedback: the task's authored guidance for the interface;
 * - direct_code_feedback: the canonical definition of the interface (the whole
 *   canonical file when it is not a top-level name) in a fenced python block.
 * Items are ordered so an interface that other failing interfaces call comes first.
 */
export function createRulesResearcher(opts: RulesResearcherOptions = {}): Researcher {
  const messageCap = opts.messageCap ?? 300;
  const short = (s: string) => (s.length <= messageCap ? s : `${s.slice(0, messageCap)}...`);
  return {
    id: "rules",
    async review(input: ReviewInput): Promise<FeedbackRecord> {
      const { task, code, run } = input;
      const target = task.meta.target_file_path;
      const interfaces = task.meta.interfaces.map((i) => i.name);
      const canonicalDefs = extractDefinitions(task.canonical);
      const candidateDefs = new Set(listDefinitions(code).map((d) => d.name));
      const definedInCandidate = (name: string) => candidateDefs.has(name) || new RegExp(`^${name}\\s*(?::[^=]*)?=`, "m").test(code);
      const helpers = repoHelpers(task);
      const guidance = (name: string) =>
        task.meta.interfaces.find((i) => i.name === name)?.guidance ??
        `Re-read the instruction and the method in the paper for the code around this point, and compare your ${target} with what they specify.`;
      const directCode = (name: string) => {
        const src = canonicalDefs[name] ?? task.canonical;
        return `\`\`\`python\n${src.replace(/\s+$/, "")}\n\`\`\``;
      };
      const helperEvidence = (name: string): string | null => {
        const canon = canonicalDefs[name];
        if (canon === undefined) return null;
        const used = helpers.filter((h) => referencesName(canon, h.local));
        const redefined = used.filter((h) => candidateDefs.has(h.local));
        if (redefined.length > 0) {
          const h = redefined[0] as RepoHelper;
          return `${target} defines its own \`${h.local}\`, which replaces the repository helper \`${h.local}\` from ${h.file} that this interface is meant to use.`;
        }
        // An import alone is not a use: look at the code without its import statements.
        const body = codeWithoutCommentsAndStrings(code).replace(/^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t]+(?:\([^)]*\)|.*)$/gm, "");
        const unused = used.filter((h) => !referencesName(body, h.local));
        if (unused.length > 0) {
          const list = unused.map((h) => `\`${h.local}\` (${h.file})`).join(", ");
          return `The repository already provides ${list} for this step, and ${target} never uses ${unused.length === 1 ? "it" : "them"}.`;
        }
        return null;
      };

      const items: FeedbackItem[] = [];
      if (run.collectionError) {
        const first = collectionItem(run.collectionError);
        items.push(first);
        // When the file imports but lacks interfaces, name every missing one (the import stops at the first).
        if (first.category === "T0") {
          for (const n of interfaces) {
            if (n !== first.interface && !definedInCandidate(n)) items.push(missingItem(n));
          }
        }
      } else {
        const groups = new Map<string, Group>();
        const groupOf = (t: TestResult): string => {
          if (t.interface) return t.interface;
          const at = t.line !== null ? definitionAt(code, t.line) : null;
          return at ?? interfaces.find((n) => namesMissing(t.message, n)) ?? target;
        };
        for (const t of run.tests) {
          const name = groupOf(t);
          const g = groups.get(name) ?? { name, failing: [], passing: [] };
          if (t.status === "passed") g.passing.push(t);
          else g.failing.push(t);
          groups.set(name, g);
        }
        for (const g of groups.values()) if (g.failing.length > 0) items.push(testItem(g));
        if (items.length === 0 && !run.allPassed) {
          const reason = run.incident
            ? `${run.incident.kind}: ${run.incident.message}`
            : run.tests.length === 0
              ? "no test was collected"
              : "the run did not succeed";
          items.push({
            interface: target,
            category: "T1",
            description: `The test run did not complete normally (${short(reason)}).`,
            analysis: `${plural(run.counts.passed, "test")} of ${run.counts.total} passed; the run itself failed, so no single interface can be blamed.`,
            actionable_feedback: guidance(interfaces[0] ?? target),
            direct_code_feedback: `\`\`\`python\n${task.canonical.replace(/\s+$/, "")}\n\`\`\``,
          });
        }
      }
      return { researcher: "rules", items: orderByCalls(items, canonicalDefs) };

      function missingItem(n: string): FeedbackItem {
        return {
          interface: n,
          category: "T0",
          description: `\`${n}\` is not defined in ${target}.`,
          analysis: `The tests import \`${n}\` from ${target} as well; it must be defined at module level with the name and signature in the instruction.`,
          actionable_feedback: guidance(n),
          direct_code_feedback: directCode(n),
        };
      }

      function collectionItem(e: CollectionError): FeedbackItem {
        const type = exceptionType(e.message);
        let name: string | null = null;
        if (e.file === target && e.line !== null) name = definitionAt(code, e.line);
        name ??= interfaces.find((n) => namesMissing(e.message, n)) ?? null;
        const where = e.file ? `${e.file}${e.line !== null ? `, line ${e.line}` : ""}` : "the test module";
        const missing = name !== null && interfaces.includes(name) && (!definedInCandidate(name) || namesMissing(e.message, name));
        const category: FeedbackCategory = missing ? "T0" : "T1";
        // A helper of the candidate's own is not an interface: the item is about the file then.
        const subject = name !== null && interfaces.includes(name) ? name : target;
        const quoted = e.file === target ? quoteLine(code, e.line) : "";
        const description = missing
          ? `\`${subject}\` cannot be imported from ${target} (${short(e.message)}), so no test could run.`
          : `${target} cannot be imported: ${short(e.message)} (${where}). No test could run, which counts as 0 passed.`;
        const analysis = [
          type === "SyntaxError" || type === "IndentationError" || type === "TabError"
            ? `Python rejects the file before running anything${e.line !== null ? ` at line ${e.line}` : ""}${quoted ? `: \`${quoted}\`` : ""}.`
            : missing
              ? `The tests import \`${subject}\` from ${target}, but the file does not define it.`
              : `The error is raised while the module is imported${quoted ? `, at \`${quoted}\`` : ""}${name ? ` (inside \`${name}\`)` : ""}.`,
          `All ${run.counts.total || "the"} tests are blocked by this one error.`,
        ].join(" ");
        return {
          interface: subject,
          category,
          description,
          analysis,
          actionable_feedback:
            name && interfaces.includes(name)
              ? guidance(name)
              : `Make ${target} importable first: fix the reported line, then check each interface against the instruction.`,
          direct_code_feedback: directCode(subject),
        };
      }

      function testItem(g: Group): FeedbackItem {
        const first = g.failing[0] as TestResult;
        const isInterface = interfaces.includes(g.name);
        const notImplemented = g.failing.some((t) => exceptionType(t.message) === "NotImplementedError");
        const missing = isInterface && (!definedInCandidate(g.name) || g.failing.some((t) => namesMissing(t.message, g.name)));
        const errored = g.failing.find((t) => t.status === "error");
        const timedOut = g.failing.find((t) => t.status === "timeout");
        const mismatched = g.failing.find((t) => t.mismatch !== null);
        const frame = errored ? lastFrame(errored.traceback) : null;
        const inHelper = frame !== null && frame.file !== target && frame.file !== "test.py" && Object.hasOwn(task.repo, frame.file);
        const helperNote = isInterface ? helperEvidence(g.name) : null;

        let category: FeedbackCategory;
        if (missing || notImplemented) category = "T0";
        else if (inHelper) category = "T4";
        else if ((errored && !mismatched && exceptionType(errored.message) !== "AssertionError") || timedOut)
          category = helperNote ? "T4" : "T1";
        else category = helperNote ? "T4" : "T2";

        let description: string;
        if (category === "T0") {
          description = notImplemented
            ? `\`${g.name}\` is not implemented yet: it raises NotImplementedError.`
            : `\`${g.name}\` is missing from ${target}: ${short(first.message)}.`;
        } else if (mismatched?.mismatch && !(category === "T1" && errored)) {
          description = `\`${g.name}\` ${describeMismatch(mismatched.mismatch)}`;
          if (errored)
            description += ` Another test raises ${short(errored.message)}${errored.line !== null ? ` at line ${errored.line}` : ""}.`;
        } else if (errored) {
          const at = errored.line !== null ? ` at line ${errored.line} of ${target}` : frame ? ` in ${frame.file}, line ${frame.line}` : "";
          description = `\`${g.name}\` raises ${short(errored.message)}${at}.`;
        } else if (timedOut) {
          description = `\`${g.name}\` does not finish within the time limit (${short(timedOut.message)}).`;
        } else {
          description = `\`${g.name}\` fails its test: ${short(first.message || first.status)}.`;
        }

        const evidence: string[] = [];
        const total = g.failing.length + g.passing.length;
        const failIds = g.failing.map((t) => t.id).join(", ");
        evidence.push(
          g.passing.length > 0
            ? `${g.failing.length} of ${plural(total, "test")} for this interface ${g.failing.length === 1 ? "fails" : "fail"} (${failIds}), while ${g.passing.map((t) => t.id).join(", ")} ${g.passing.length === 1 ? "passes" : "pass"}: the basic behaviour is right and the problem is specific to what the failing ${g.failing.length === 1 ? "test exercises" : "tests exercise"}.`
            : total === 1
              ? `The only test for this interface fails (${failIds}).`
              : `${total === 2 ? "Both" : `All ${total}`} tests for this interface fail (${failIds}).`,
        );
        if (category === "T0") {
          evidence.push(
            notImplemented
              ? `The body still raises NotImplementedError, so the tests never get a value to check.`
              : `The tests cannot find \`${g.name}\` in ${target}; it must be defined at module level with the name and signature in the instruction.`,
          );
        }
        if (errored && category !== "T0") {
          const quoted = quoteLine(code, errored.line);
          if (errored.line !== null)
            evidence.push(`The exception is raised at line ${errored.line} of ${target}${quoted ? `: \`${quoted}\`` : ""}.`);
          else if (frame)
            evidence.push(
              `The exception is raised in ${frame.file}, line ${frame.line}${frame.func ? ` (in \`${frame.func}\`)` : ""}${inHelper ? ", a repository helper, so the arguments passed to it are not what it expects" : ""}.`,
            );
        }
        if (timedOut)
          evidence.push("A test ran out of time: look for a loop that never ends or work that grows much faster than the input.");
        if (mismatched?.mismatch) {
          const n = g.failing.filter((t) => t.mismatch !== null).length;
          const m = mismatched.mismatch;
          evidence.push(
            `The first differing value is check "${m.key}"${m.where ? ` at ${m.where}` : ""} (${m.kind} differs: expected ${m.expected}, got ${m.actual})${n > 1 ? `; ${n} failing tests show value differences` : ""}.`,
          );
          const direction = numericDirection(m);
          if (direction) evidence.push(direction);
          if (m.kind === "shape" || m.kind === "length")
            evidence.push("A size difference usually means an axis, a filter or an aggregation step differs from the specification.");
        }
        if (helperNote) evidence.push(helperNote);
        const callers = calledBy(g.name);
        if (callers.length > 0)
          evidence.push(
            `\`${g.name}\` calls ${callers.map((c) => `\`${c}\``).join(", ")}, which also fail${callers.length === 1 ? "s" : ""}; fixing ${callers.length === 1 ? "it" : "them"} first may fix this too.`,
          );
        return {
          interface: g.name,
          category,
          description,
          analysis: evidence.join(" "),
          actionable_feedback: guidance(g.name),
          direct_code_feedback: directCode(g.name),
        };
      }

      /** Other failing interfaces that the canonical definition of `name` calls. */
      function calledBy(name: string): string[] {
        const canon = canonicalDefs[name];
        if (canon === undefined) return [];
        const failing = new Set(run.tests.filter((t) => t.status !== "passed" && t.interface).map((t) => t.interface as string));
        return interfaces.filter((o) => o !== name && failing.has(o) && referencesName(canon, o));
      }
    },
  };
}

/** Stable order in which an item comes before the items whose canonical definitions call it. */
function orderByCalls(items: FeedbackItem[], canonicalDefs: Record<string, string>): FeedbackItem[] {
  const depth = (name: string, seen: Set<string>): number => {
    // number of failing items that call this one, transitively
    let d = 0;
    for (const other of items) {
      if (other.interface === name || seen.has(other.interface)) continue;
      const src = canonicalDefs[other.interface];
      if (src !== undefined && referencesName(src, name)) d = Math.max(d, 1 + depth(other.interface, new Set([...seen, name])));
    }
    return d;
  };
  return items
    .map((item, k) => ({ item, k, d: depth(item.interface, new Set()) }))
    .sort((a, b) => b.d - a.d || a.k - b.k)
    .map((x) => x.item);
}
