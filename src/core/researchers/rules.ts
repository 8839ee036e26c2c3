/**
 * The rules researcher: deterministic feedback from the test results, the
 * candidate code and the task (canonical solution, repository, task.json),
 * with no model (offline, free, reproducible). It writes one record item per
 * failing interface with the six fields of RECODE-H's structured feedback
 * (RECODE-H.md, "Feedback hierarchy"). The parts: rules-evidence (what a
 * failing test shows, and the category), rules-analysis (the words),
 * rules-item (one item), rules-collection (no test ran), rules-guidance (L3),
 * rules-context (L4 direct code), rules-repo (repository helpers).
 */
import { definitionAt, extractDefinitions, referencesName } from "../canonical";
import type { FeedbackItem, FeedbackRecord, Researcher, ReviewInput } from "../feedback";
import type { TestResult } from "../results";
import { collectionItems, runItem } from "./rules-collection";
import { reviewContext } from "./rules-context";
import { namesMissing, type Observation, observe } from "./rules-evidence";
import { type Group, interfaceItem } from "./rules-item";

/** Options of {@link createRulesResearcher}. */
export interface RulesResearcherOptions {
  /** Characters kept of an error message quoted in a description. Default 300. */
  messageCap?: number;
}

/**
 * A researcher that needs no model. Failing tests are grouped by interface
 * (TestResult.interface; a test with none goes to the definition enclosing its
 * line in the candidate file, or the interface its message names, or the
 * target file). For each failing group it writes:
 * - category, from what the tests show (see {@link categoryOf}): T0 a missing
 *   or unimplemented interface or a wrong signature; T1 an exception raised
 *   by candidate code, or a timeout; T2 a wrong value or failed assertion; T3
 *   a wrong value traced to a knowledge entry of task.json (an unstated
 *   constant or library detail); T4 a repository helper the candidate
 *   re-implements (its own definition of the name, differing from the
 *   repository's) or misuses (an exception inside it, arguments it does not
 *   take, a name it does not have);
 * - description: the deciding failure (check key, expected and got; or the
 *   exception and line);
 * - analysis: every failing test's difference (check key, element, expected
 *   vs got, by how much; exception, file, line and the line's text), the
 *   passing tests, a signature difference, and another failing interface
 *   only when the candidate's definition calls it and it gives wrong results;
 * - actionable_feedback: a sentence about this very mistake where there is
 *   one, then the task's authored text for the kind of mistake
 *   (`guidance_by_check`, `guidance_by_category`, `guidance`);
 * - direct_code_feedback: the canonical definition with the imports and
 *   helpers it needs (self-contained), or the whole canonical file for an item
 *   about the file.
 * A collection error gives the items of {@link collectionItems}. Items are
 * ordered so an interface that other failing interfaces call comes first (by
 * the canonical solution's calls, or the candidate's where the canonical
 * solution does not define the caller).
 */
export function createRulesResearcher(opts: RulesResearcherOptions = {}): Researcher {
  const messageCap = opts.messageCap ?? 300;
  return {
    id: "rules",
    async review(input: ReviewInput): Promise<FeedbackRecord> {
      const ctx = reviewContext(input.task, input.code, input.run, messageCap);
      // Who calls whom, by the canonical solution, and by the candidate's own code for what it does not define
      // (a build without canonical solutions, for students).
      const callerDefs = { ...extractDefinitions(input.code), ...extractDefinitions(ctx.task.canonical) };
      const { run, code, target, interfaces } = ctx;
      if (run.collectionError) return { researcher: "rules", items: orderByCalls(collectionItems(ctx, run.collectionError), callerDefs) };

      const groups = new Map<string, Group>();
      const groupOf = (t: TestResult): string => {
        if (t.interface) return t.interface;
        const at = t.line !== null ? definitionAt(code, t.line) : null;
        return at ?? interfaces.find((n) => namesMissing(t.message, n)) ?? target;
      };
      for (const t of run.tests) {
        const name = groupOf(t);
        const g = groups.get(name) ?? { name, failing: [], passing: [] };
        if (t.status === "passed" || t.status === "xfail") g.passing.push(t);
        else g.failing.push(t);
        groups.set(name, g);
      }
      const observations = new Map<string, Observation[]>();
      for (const g of groups.values()) {
        if (g.failing.length === 0) continue;
        const itf = ctx.itf(g.name);
        observations.set(
          g.name,
          g.failing.map((t) => observe(t, { task: ctx.task, defined: ctx.defined, itf })),
        );
      }
      const items: FeedbackItem[] = [];
      for (const g of groups.values()) if (g.failing.length > 0) items.push(interfaceItem(ctx, g, observations));
      if (items.length === 0 && !run.allPassed) items.push(runItem(ctx));
      return { researcher: "rules", items: orderByCalls(items, callerDefs) };
    },
  };
}

/** Stable order in which an item comes before the items whose definitions (`callerDefs`, by name) call it. */
function orderByCalls(items: FeedbackItem[], callerDefs: Record<string, string>): FeedbackItem[] {
  const depth = (name: string, seen: Set<string>): number => {
    // number of failing items that call this one, transitively
    let d = 0;
    for (const other of items) {
      if (other.interface === name || seen.has(other.interface)) continue;
      const src = callerDefs[other.interface];
      if (src !== undefined && referencesName(src, name)) d = Math.max(d, 1 + depth(other.interface, new Set([...seen, name])));
    }
    return d;
  };
  return items
    .map((item, k) => ({ item, k, d: depth(item.interface, new Set()) }))
    .sort((a, b) => b.d - a.d || a.k - b.k)
    .map((x) => x.item);
}
