/**
 * Rules researcher items for a run in which no test ran: the target file
 * could not be imported (a collection error, which counts as 0 passed in
 * RECODE-H), or the run itself failed.
 */
import { definitionAt, importText } from "../canonical";
import type { FeedbackCategory, FeedbackItem } from "../feedback";
import { codeSpan } from "../markdown-text";
import { plural } from "../plural";
import type { CollectionError } from "../results";
import { quoteLine } from "./rules-analysis";
import { directCodeText, missingImports, type ReviewContext, wholeFileText } from "./rules-context";
import { exceptionType, namesMissing } from "./rules-evidence";
import { actionableFeedback, authoredGuidance } from "./rules-guidance";
import { definesName, repoFileOfModule } from "./rules-repo";

const SYNTAX = new Set(["SyntaxError", "IndentationError", "TabError"]);

/** The authored L3 text of interface `name` for a mistake of `category` (raising `exception`), or `fallback` when `name` is not an interface. */
function guidance(ctx: ReviewContext, name: string, category: FeedbackCategory, fallback: string, exception: string | null = null): string {
  return authoredGuidance(ctx.itf(name), { category, checks: [], exception }, fallback);
}

/**
 * Items for a collection error: about the interface whose definition holds
 * the failing line (its direct code corrects it), or about the target file
 * (the whole file as direct code) when the line is at module level or in a
 * helper of the candidate's own. T0 when the tests cannot import an interface
 * (then every interface the file lacks gets an item), T4 when the file
 * imports a name the repository does not have, T1 otherwise.
 */
export function collectionItems(ctx: ReviewContext, e: CollectionError): FeedbackItem[] {
  const { target, interfaces } = ctx;
  // (A syntax error's message begins with its file and line, then the line and a caret: said by its last line.)
  const said = /^File "[^"\n]*", line \d+\n/.test(e.message) ? (e.message.trim().split("\n").at(-1) ?? "") : e.message;
  const type = exceptionType(said);
  const inTarget = e.file === target && e.line !== null;
  const enclosing = inTarget ? definitionAt(ctx.code, e.line as number) : null;
  const missingItf = interfaces.find((n) => !ctx.defined.has(n) && namesMissing(e.message, n)) ?? null;
  const gone = /cannot import name '([A-Za-z_]\w*)' from '([\w.]+)'|No module named '([\w.]+)'/.exec(e.message);
  // (Only when the repository indeed lacks the name or the module: the message is the code under test's to write.)
  const namedFile = gone?.[2] ? repoFileOfModule(ctx.task, gone[2]) : null;
  const goneFile = namedFile && !definesName(ctx.task.repo[namedFile] ?? "", gone?.[1] ?? "") ? namedFile : null;
  const goneRepoPackage = gone?.[3]
    ? Object.keys(ctx.task.repo).some((f) => f.startsWith(`${(gone[3] as string).split(".")[0]}/`)) &&
      repoFileOfModule(ctx.task, gone[3]) === null
    : false;
  const where = e.file ? `${e.file}${e.line !== null ? `, line ${e.line}` : ""}` : "the test module";
  const quoted = e.file === target ? quoteLine(ctx.code, e.line) : "";
  const blocked = `All ${ctx.run.counts.total || "the"} tests are blocked by this one error, which counts as 0 passed.`;

  if (missingItf !== null) {
    const first: FeedbackItem = {
      interface: missingItf,
      category: "T0",
      description: `\`${missingItf}\` cannot be imported from ${target} (${ctx.short(said)}), so no test could run.`,
      analysis: `The tests import \`${missingItf}\` from ${target}, but the file does not define it. ${blocked}`,
      actionable_feedback: actionableFeedback(
        `Define \`${missingItf}\` at module level in ${target}.`,
        guidance(ctx, missingItf, "T0", ""),
      ),
      direct_code_feedback: directCodeText(ctx, missingItf),
    };
    // The import stops at the first missing name: name every interface the file lacks.
    const others = interfaces.filter((n) => n !== missingItf && !ctx.defined.has(n)).map((n) => missingItem(ctx, n));
    return [first, ...others];
  }

  const isItf = enclosing !== null && interfaces.includes(enclosing);
  if ((goneFile || goneRepoPackage) && !SYNTAX.has(type)) {
    const name = gone?.[1] ?? gone?.[3] ?? "";
    const user = interfaces.find((n) => {
      const def = ctx.candidate.filter((s) => s.kind === "def" && s.names[0] === n).pop();
      return def !== undefined && new RegExp(`(?<![\\w.])${name}(?!\\w)`).test(def.text);
    });
    return [
      {
        interface: user ?? target,
        category: "T4",
        description: `${target} imports \`${name}\`, which the repository does not have: ${ctx.short(said)} (${where}).`,
        analysis: `${goneFile ? `The repository's ${goneFile} defines no \`${name}\`` : `The repository has no module \`${name}\``}${quoted ? `; the import is ${codeSpan(quoted)}` : ""}. ${blocked}`,
        actionable_feedback: actionableFeedback(
          "Import only names the repository defines (read its files), and use them as their docstrings say.",
          guidance(ctx, user ?? target, "T4", ""),
        ),
        direct_code_feedback: wholeFileText(ctx),
      },
    ];
  }

  const category: FeedbackCategory = "T1";
  const subject = isItf ? (enclosing as string) : target;
  // A file that lost its imports stops at the first name it lacks; the others would each stop a later turn.
  const lacking = type === "NameError" ? missingImports(ctx) : [];
  const unbound = /name '([A-Za-z_]\w*)' is not defined/.exec(e.message)?.[1];
  const fileImports = unbound !== undefined && lacking.some((i) => i.local === unbound) ? lacking : [];
  const analysis = [
    SYNTAX.has(type)
      ? `Python rejects the file before running anything${e.line !== null ? ` at line ${e.line}` : ""}${quoted ? `: ${codeSpan(quoted)}` : ""}.`
      : `The error is raised while the module is imported${quoted ? `, at ${codeSpan(quoted)}` : ""}${enclosing ? ` (inside \`${enclosing}\`)` : ""}.`,
    fileImports.length > 0
      ? `The file uses ${fileImports.map((i) => `\`${i.local}\``).join(", ")} without importing ${fileImports.length === 1 ? "it" : "them"}; canonical.py imports ${fileImports.length === 1 ? "it" : "them"} (\`${importText(fileImports).split("\n").join("`; `")}\`).`
      : "",
    blocked,
  ]
    .filter(Boolean)
    .join(" ");
  return [
    {
      interface: subject,
      category,
      description: `${target} cannot be imported: ${ctx.short(said)} (${where}). No test could run, which counts as 0 passed.`,
      analysis,
      actionable_feedback: actionableFeedback(
        `Make ${target} importable first: fix ${e.line !== null ? `line ${e.line}` : "the reported line"}.`,
        isItf ? guidance(ctx, subject, category, "", type || null) : "Then check each interface against the instruction.",
      ),
      direct_code_feedback: isItf ? directCodeText(ctx, subject, fileImports) : wholeFileText(ctx),
    },
  ];
}

/** The T0 item for an interface the target file does not define. */
export function missingItem(ctx: ReviewContext, n: string): FeedbackItem {
  return {
    interface: n,
    category: "T0",
    description: `\`${n}\` is not defined in ${ctx.target}.`,
    analysis: `The tests import \`${n}\` from ${ctx.target} as well; it must be defined at module level with the name and signature in the instruction.`,
    actionable_feedback: actionableFeedback(`Define \`${n}\` at module level in ${ctx.target}.`, guidance(ctx, n, "T0", "")),
    direct_code_feedback: directCodeText(ctx, n),
  };
}

/** The item for a run that failed with no failing test to blame (the interpreter died, or nothing was collected). */
export function runItem(ctx: ReviewContext): FeedbackItem {
  const { run } = ctx;
  const reason = run.incident
    ? `${run.incident.kind}: ${run.incident.message}`
    : run.tests.length === 0
      ? "no test was collected"
      : "the run did not succeed";
  return {
    interface: ctx.target,
    category: "T1",
    description: `The test run did not complete normally (${ctx.short(reason)}).`,
    analysis: `${plural(run.counts.passed, "test")} of ${run.counts.total} passed; the run itself failed, so no single interface can be blamed.`,
    actionable_feedback: ctx.task.meta.interfaces[0]?.guidance ?? `Compare your ${ctx.target} with the instruction.`,
    direct_code_feedback: wholeFileText(ctx),
  };
}
