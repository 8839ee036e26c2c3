/**
 * One feedback item of the rules researcher for the failing tests of one
 * interface (RECODE-H.md, "Feedback hierarchy": interface, category,
 * description, analysis, actionable feedback, direct code).
 */
import { extractDefinitions, listStatements } from "../canonical";
import type { FeedbackItem } from "../feedback";
import { parameters } from "../python-signature";
import type { TestResult } from "../results";
import {
  andList,
  descriptionOf,
  observationSentence,
  parametersInWords,
  type SignatureDifference,
  signatureDifference,
  testSummary,
} from "./rules-analysis";
import { directCodeText, type ReviewContext, wholeFileText } from "./rules-context";
import { aboutOther, categoryOf, exceptionType, type Observation, primaryObservation, valueRaisedInside } from "./rules-evidence";
import { actionableFeedback, authoredGuidance } from "./rules-guidance";
import { type RepoHelper, reachedNames, reimplementedHelpers, repoFileOfModule } from "./rules-repo";

/** The tests of one interface (or of the target file, for tests with no interface). */
export interface Group {
  name: string;
  failing: TestResult[];
  passing: TestResult[];
}

/** Observations listed one by one in an analysis; the rest are counted. */
const MAX_LISTED = 5;

/**
 * Whether a failure of an interface says its results are wrong, not only that it accepts arguments it should
 * reject: an `assertRaises` that saw nothing raised, or a check of `outcome()` that got a value where the
 * canonical solution raised (a mismatch of kind `raised` whose value is no exception: one the candidate raised
 * is an `exception` observation).
 */
function givesWrongResults(observations: readonly Observation[]): boolean {
  const missedRaise = (o: Observation) =>
    (o.kind === "assertion" && / not raised/.test(o.test.message)) || (o.kind === "mismatch" && o.mismatch.kind === "raised");
  return observations.some((o) => !missedRaise(o) && o.kind !== "other");
}

/**
 * The item for group `g`. `observations` holds what every failing group's
 * tests show, by group name: an analysis says another interface's failure
 * can cause this one only when the candidate's definition of this interface
 * calls it and it gives wrong results in its own tests.
 */
export function interfaceItem(ctx: ReviewContext, g: Group, observations: ReadonlyMap<string, Observation[]>): FeedbackItem {
  const obs = observations.get(g.name) ?? [];
  const isInterface = ctx.interfaces.includes(g.name);
  const canonicalDef = extractDefinitions(ctx.task.canonical)[g.name];
  const mine = ctx.candidate.filter((s) => (s.kind === "def" || s.kind === "class") && s.names[0] === g.name).pop();
  const sig = isInterface ? signatureDifference(canonicalDef, mine?.text, g.name) : null;
  const structural = sig !== null && (sig.kind === "order" || sig.kind === "count");
  const reimplemented = isInterface ? reimplementedHelpers(ctx.task, ctx.code, g.name) : [];
  // A helper raising about a value it got, called from another interface that gives wrong results in its own
  // tests: that interface's mistake (the analysis says to fix it first), not a misuse of the helper here.
  const viaOther = (o: Observation) => {
    const from = o.kind === "helper" && valueRaisedInside(o) ? o.frame?.func : undefined;
    if (!from || from === g.name || !ctx.interfaces.includes(from)) return false;
    return givesWrongResults((observations.get(from) ?? []).filter((x) => aboutOther(x, from) === null));
  };
  const base = categoryOf(
    obs.filter((o) => !viaOther(o)),
    reimplemented.length > 0,
  );
  const upstreamObs = obs.find(viaOther);
  const upstream = upstreamObs?.kind === "helper" ? (upstreamObs.frame?.func ?? undefined) : undefined;
  const category = structural ? "T0" : base;
  const primary = primaryObservation(obs, category, g.name);
  const firstHelper = reimplemented[0];

  let description: string;
  if (structural && base !== "T0") description = `\`${g.name}\` has a different signature from the instruction's. ${sig.text}`;
  else if (category === "T4" && firstHelper && primary?.kind !== "helper") description = reimplementedWords(ctx, g.name, firstHelper);
  else description = descriptionOf(ctx, primary, g.name);

  const analysis = [testSummary(g.failing, g.passing)];
  analysis.push(...observationSentences(ctx, obs, g.name));
  if (sig) analysis.push(sig.text);
  for (const h of reimplemented) analysis.push(reimplementedWords(ctx, g.name, h));
  const deps = dependencyFindings(ctx, g.name, obs, observations, mine?.text);
  analysis.push(...deps.sentences);

  const checks = obs.flatMap((o) => (o.kind === "mismatch" ? [o.mismatch.key] : []));
  if (primary?.kind === "mismatch") checks.unshift(primary.mismatch.key);
  const exception =
    primary?.kind === "exception" && primary.check
      ? primary.type
      : primary && primary.kind !== "mismatch" && primary.kind !== "timeout"
        ? exceptionType(primary.test.message) || null
        : null;
  const authored = authoredGuidance(
    ctx.itf(g.name),
    { category, checks, exception },
    `Re-read the instruction and the method in the paper for the code around this point, and compare your ${ctx.target} with what they specify.`,
  );
  // A called interface that gives wrong results of its own comes first: guidance for a mistake of this
  // interface's own (the task's guidance by check) would send the coder after the wrong code.
  const lead = leadOf(ctx, g.name, primary, sig, structural, firstHelper, canonicalDef, upstream);
  const fixFirst =
    lead === null && deps.fixFirst
      ? `Fix \`${deps.fixFirst}\` first: \`${g.name}\` calls it, and what it returns carries into \`${g.name}\`. Run the tests again before you change \`${g.name}\`.`
      : null;
  return {
    interface: g.name,
    category,
    description,
    analysis: analysis.join(" "),
    // (A lead that sends the coder to the called interface first is said alone, as `fixFirst` is.)
    actionable_feedback:
      fixFirst ?? (upstream !== undefined && primary?.kind === "helper" && lead !== null ? lead : actionableFeedback(lead, authored)),
    direct_code_feedback: isInterface && canonicalDef !== undefined ? directCodeText(ctx, g.name) : wholeFileText(ctx),
  };
}

/**
 * One sentence per distinct thing the failing tests show: tests that show the
 * same (same exception at the same line, say) share one sentence that names
 * them all. At most {@link MAX_LISTED} sentences; the rest are counted.
 */
function observationSentences(ctx: ReviewContext, obs: readonly Observation[], name: string): string[] {
  const PLACE = "\u0000";
  const byText = new Map<string, string[]>();
  for (const o of obs) {
    const text = observationSentence(ctx, { ...o, test: { ...o.test, id: PLACE } } as Observation, name);
    byText.set(text, [...(byText.get(text) ?? []), o.test.id]);
  }
  const out: string[] = [];
  let k = 0;
  for (const [text, ids] of byText) {
    if (k++ === MAX_LISTED) {
      const left = [...byText.values()].slice(MAX_LISTED).flat().length;
      out.push(`${left} more failing ${left === 1 ? "test is" : "tests are"} not described here.`);
      break;
    }
    const who = andList(ids);
    const plural = ids.length > 1;
    out.push(
      text
        .replace(PLACE, who)
        .replace(`${who} raises `, plural ? `${who} raise ` : `${who} raises `)
        .replace(`${who} fails `, plural ? `${who} fail ` : `${who} fails `),
    );
  }
  return out;
}

function reimplementedWords(ctx: ReviewContext, name: string, h: RepoHelper): string {
  return `\`${name}\` uses ${ctx.target}'s own \`${h.local}\`, which takes the place of the repository's \`${h.name}\` (${h.file}) and differs from it.`;
}

/** The sentence of L3 about this very mistake, before the authored text, or null. `upstream`: another interface whose wrong values made a helper fail here. */
function leadOf(
  ctx: ReviewContext,
  name: string,
  o: Observation | undefined,
  sig: SignatureDifference | null,
  structural: boolean,
  helper: RepoHelper | undefined,
  canonicalDef: string | undefined,
  upstream?: string,
): string | null {
  const want = canonicalDef ? parameters(canonicalDef) : null;
  const signatureWords = want ? ` with the parameters ${parametersInWords(want)}, in this order` : " with the instruction's signature";
  if (o?.kind === "signature" && o.func !== name)
    return `Define \`${o.func}\` with the signature the instruction gives it: \`${name}\` calls it.`;
  if (structural || o?.kind === "signature" || sig?.kind === "defaults")
    return `Define \`${name}\`${signatureWords}${sig?.kind === "defaults" ? " and the instruction's default values" : ""}, as the instruction gives it.`;
  if (o?.kind === "missing")
    return o.name === name
      ? `Define \`${name}\` at module level in ${ctx.target}${signatureWords}.`
      : `Define \`${o.name}\` first: \`${name}\` calls it.`;
  if (o?.kind === "not-implemented") {
    if (!o.inside || o.inside === name) return `Replace the NotImplementedError in \`${name}\` with the implementation.`;
    return o.chain.includes(name)
      ? `Implement \`${o.inside}\` first: \`${name}\` calls it.`
      : `Implement \`${o.inside}\` too: the test calls it before \`${name}\`.`;
  }
  if (o?.kind === "helper") {
    if (upstream)
      return `Fix \`${upstream}\` first: \`${name}\` calls it, and what it passes to the repository's \`${o.helper}\` is wrong.`;
    if (o.how === "no-such-name") return `Use only what the repository's ${o.file} defines; it has no \`${o.helper}\`.`;
    return `Read the docstring of the repository's \`${o.helper}\` (${o.file}) and pass it the arguments it documents.`;
  }
  if (helper) return `Delete your own \`${helper.local}\` and use the repository's \`${helper.name}\` from ${helper.file} instead.`;
  if (o?.kind === "exception" && o.type === "NameError") return nameErrorLead(ctx, o.test.message);
  return null;
}

/** For `NameError: name 'x' is not defined`: where `x` comes from in the canonical solution (an import, or a helper of its own), in words; null when it does not know. */
function nameErrorLead(ctx: ReviewContext, message: string): string | null {
  const name = /name '([A-Za-z_]\w*)' is not defined/.exec(message)?.[1];
  if (!name) return null;
  const statements = listStatements(ctx.task.canonical);
  const imp = statements.flatMap((s) => s.imports).find((i) => i.local === name);
  if (imp) {
    const file = repoFileOfModule(ctx.task, imp.module);
    if (file) return `\`${name}\` is not defined in ${ctx.target}: import it from the repository's ${file}.`;
    return imp.name === null
      ? `\`${name}\` is not defined in ${ctx.target}: import the \`${imp.module}\` module.`
      : `\`${name}\` is not defined in ${ctx.target}: import it from \`${imp.module}\`.`;
  }
  if (statements.some((s) => s.kind !== "import" && s.names.includes(name)))
    return `\`${name}\` is not defined in ${ctx.target}: define it at module level, or do without it.`;
  return `\`${name}\` is not defined where it is used: define it, or use a name that is.`;
}

/**
 * Sentences about other failing interfaces that this one's candidate definition calls, only where their
 * failure can cause this one; `fixFirst`: the first of them that gives wrong results in its own tests.
 */
function dependencyFindings(
  ctx: ReviewContext,
  name: string,
  obs: readonly Observation[],
  all: ReadonlyMap<string, Observation[]>,
  mine: string | undefined,
): { sentences: string[]; fixFirst: string | null } {
  let fixFirst: string | null = null;
  if (mine === undefined) return { sentences: [], fixFirst };
  const reached = reachedNames(ctx.candidate, mine, new Set(ctx.interfaces.filter((n) => n !== name)));
  const out: string[] = [];
  for (const other of ctx.interfaces) {
    if (other === name || !reached.has(other)) continue;
    // Only failures about `other` itself count (not one raised inside a function its test calls first).
    const theirs = (all.get(other) ?? []).filter((o) => aboutOther(o, other) === null);
    const raisedInside = obs.find((o) => o.kind === "exception" && o.inside === other && o.chain.includes(name));
    if (raisedInside && (all.get(other) ?? []).length === 0) {
      out.push(
        `The exception is raised inside \`${other}\`, which \`${name}\` calls and which passes its own tests: look at the arguments \`${name}\` passes to it.`,
      );
      continue;
    }
    if (!givesWrongResults(theirs)) continue;
    fixFirst ??= other;
    out.push(
      raisedInside
        ? `The exception is raised inside \`${other}\`, which \`${name}\` calls and which also fails its own tests: fix \`${other}\` first.`
        : `\`${name}\` calls \`${other}\`, which also fails its own tests (${theirs[0]?.test.id}); what \`${other}\` returns carries into \`${name}\`, so fix \`${other}\` first and run the tests again.`,
    );
  }
  return { sentences: out, fixFirst };
}
