/**
 * The rules researcher's words for what it observed (RECODE-H.md, "Feedback
 * hierarchy": the L1 description and the L2 analysis): each failing test's
 * difference named by its check key, expected and got values, or its
 * exception, file and line, quoted from the candidate or test.py.
 */

import { codeSpan } from "../markdown-text";
import { plural } from "../plural";
import { type PyParameter, parameters } from "../python-signature";
import { type Mismatch, mismatchPlace, type TestResult } from "../results";
import type { ReviewContext } from "./rules-context";
import { aboutOther, type Observation, valueRatio } from "./rules-evidence";

/** The text of 1-based `line` of `source`, trimmed, or "" when there is none. */
export function quoteLine(source: string, line: number | null): string {
  if (line === null) return "";
  const text = source.replace(/\r\n?/g, "\n").split("\n")[line - 1];
  return text === undefined ? "" : text.trim();
}

const quoted = (text: string) => (text ? `: ${codeSpan(text)}` : "");

/** What a value mismatch is, after the interface name (what it gives: returned, or printed, or otherwise made, as the test checks it): `gives a wrong value for check "k" at [1]: expected 1, got 2 (...).` */
export function describeMismatch(m: Mismatch): string {
  const at = mismatchPlace(m);
  switch (m.kind) {
    case "shape":
      return `gives an array of the wrong shape for check "${m.key}": expected ${m.expected}, got ${m.actual}.`;
    case "dtype":
      return `gives the wrong dtype for check "${m.key}": expected ${m.expected}, got ${m.actual}.`;
    case "length":
      return `gives a sequence of the wrong length for check "${m.key}"${at}: expected ${m.expected} items, got ${m.actual}.`;
    case "type":
      return `gives a value of the wrong type for check "${m.key}"${at}: ${m.detail}.`;
    case "keys":
      return `gives a mapping with the wrong keys for check "${m.key}"${at}: ${m.detail}.`;
    case "raised":
      return `returns where it should raise, for check "${m.key}"${at}: ${m.detail}.`;
    default:
      return `gives a wrong value for check "${m.key}"${at}: ${m.detail}.`;
  }
}

/** A check of `recode_check.outcome` where the candidate raised: what was expected and what it raised. */
function raisedWords(m: Mismatch): string {
  return `expects ${expectedText(m)}, got ${raisedText(m.actual)}`;
}

/** `ValueError: message` for the repr `ValueError raised: message` of what a call raised. */
function raisedText(repr: string): string {
  return repr.replace(/^([A-Za-z_]\w*) raised(?=:|$)/, "$1");
}

/** What a check of `recode_check.outcome` expects: `ValueError to be raised`, or `the value 0.5`. */
function expectedText(m: Mismatch): string {
  const raised = /^([A-Za-z_]\w*) raised(?::|$)/.exec(m.expected);
  return raised ? `${raised[1]} to be raised` : `the value ${m.expected}`;
}

/** For a numeric value mismatch: how far off and in which direction, e.g. "The value is 12% too small in magnitude (ratio 0.880)." */
export function numericDirection(m: Mismatch): string | null {
  const ratio = valueRatio(m);
  if (ratio === null) return null;
  if (ratio < 0) return "The value has the wrong sign.";
  const pct = Math.abs(ratio - 1) * 100;
  const size = Math.abs(ratio) < 1 ? "too small" : "too large";
  return `The value is ${pct < 1 ? pct.toPrecision(2) : Math.round(pct)}% ${size} in magnitude (ratio ${ratio.toPrecision(3)}).`;
}

/** `a`, `a and b`, `a, b and c`. */
export function andList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** Which tests of the interface fail and which pass, in one sentence. */
export function testSummary(failing: readonly TestResult[], passing: readonly TestResult[]): string {
  const total = failing.length + passing.length;
  const ids = failing.map((t) => t.id).join(", ");
  if (passing.length > 0)
    return `${failing.length} of ${plural(total, "test")} for this interface ${failing.length === 1 ? "fails" : "fail"} (${ids}), while ${andList(passing.map((t) => t.id))} ${passing.length === 1 ? "passes" : "pass"}.`;
  return total === 1
    ? `The only test for this interface fails (${ids}).`
    : `${total === 2 ? "Both" : `All ${total}`} tests for this interface fail (${ids}).`;
}

/** One sentence (or two) naming what one failing test of interface `name` shows. */
export function observationSentence(ctx: ReviewContext, o: Observation, name: string): string {
  const id = o.test.id;
  const msg = ctx.short(o.test.message || o.test.status);
  const testQuote = (line: number | null) => (line !== null ? ` at test.py line ${line}${quoted(quoteLine(ctx.task.tests, line))}` : "");
  switch (o.kind) {
    case "mismatch": {
      const m = o.mismatch;
      // (A call that returned where it should raise: "expects ValueError to be raised, got 1.0".)
      const parts = [
        m.kind === "raised"
          ? `${id}: check "${m.key}"${mismatchPlace(m)} ${raisedWords(m)}.`
          : `${id}: check "${m.key}"${mismatchPlace(m)} differs (${m.kind}): expected ${m.expected}, got ${m.actual}.`,
      ];
      const direction = numericDirection(m);
      if (direction) parts.push(direction);
      if (m.kind === "shape" || m.kind === "length")
        parts.push("A size difference means an axis, a filter or an aggregation step differs from the specification.");
      if (o.knowledge)
        parts.push(
          o.knowledge.ratio !== undefined
            ? `That factor is the mark of a detail the task names as knowledge and context. ${o.knowledge.detail}`
            : `This check depends on a detail the task names as knowledge and context. ${o.knowledge.detail}`,
        );
      return parts.join(" ");
    }
    case "exception": {
      if (o.check) return `${id}: check "${o.check.key}"${mismatchPlace(o.check)} ${raisedWords(o.check)}.`;
      const at = o.line !== null ? ` at line ${o.line} of ${ctx.target}${quoted(quoteLine(ctx.code, o.line))}` : "";
      return `${id} raises ${msg}${at}${insideWords(o, name)}.`;
    }
    case "helper": {
      const from = o.frame ? `, called from line ${o.frame.line} of ${ctx.target}${quoted(quoteLine(ctx.code, o.frame.line))}` : "";
      if (o.how === "raised-inside")
        return `${id} raises ${msg} inside the repository helper \`${o.helper}\` (${o.test.traceback ? lastRepoLine(o.test.traceback, o.file) : o.file})${from}: the arguments passed to it are not what it expects.`;
      if (o.how === "arguments")
        return `${id}: ${msg}: the call does not match the parameters of the repository helper \`${o.helper}\` (${o.file})${from}.`;
      return `${id}: ${msg}: the repository's ${o.file} has no \`${o.helper}\`.`;
    }
    case "signature":
      return `${id}: ${msg}: the tests call \`${o.func}\` as the instruction specifies, and its definition does not accept that call.`;
    case "missing":
      return o.name === name
        ? `${id}: ${msg}: \`${name}\` must be defined at module level in ${ctx.target}, with the name and signature in the instruction.`
        : `${id}: ${msg}: \`${name}\` calls \`${o.name}\`, which ${ctx.target} does not define.`;
    case "not-implemented":
      return aboutOther(o, name)
        ? `${id}: \`${o.inside}\` still raises NotImplementedError${o.chain.includes(name) ? `, and \`${name}\` calls it` : `; the test calls it itself, before \`${name}\``}.`
        : `${id}: the body still raises NotImplementedError, so the test gets no value to check.`;
    case "test-exception":
      return `${id}: test.py raises ${msg}${testQuote(o.testLine)} on the value \`${name}\` returned: it is not the kind of value the instruction specifies.`;
    case "assertion": {
      const raised = /^AssertionError: (\w+) not raised/.exec(o.test.message.trim());
      const expectation = raised ? ` The test expects ${raised[1]} for these arguments, and none was raised.` : "";
      return `${id} fails an assertion${testQuote(o.testLine)}: ${msg}.${expectation}`;
    }
    case "timeout":
      return `${id} did not finish within the time limit (${msg}): look for a loop that never ends or work that grows much faster than the input.`;
    default:
      // (A test the run never reached says so in its message: "not run: ...".)
      return o.test.status === "not_run" && o.test.message
        ? `${id}: ${msg}.`
        : `${id}: ${o.test.status}${o.test.message ? `: ${msg}` : ""}.`;
  }
}

/** ` (inside \`f\`, which \`name\` calls)` or ` (inside \`f\`, called by the test)` for an observation raised inside another function, else "". */
function insideWords(o: Observation, name: string): string {
  const other = aboutOther(o, name);
  if (!other || (o.kind !== "exception" && o.kind !== "not-implemented")) return "";
  return o.chain.includes(name) ? ` (inside \`${other}\`, which \`${name}\` calls)` : ` (inside \`${other}\`, which the test calls itself)`;
}

/** `file, line N` of the last frame of `traceback` in `file`, or `file`. */
function lastRepoLine(traceback: string, file: string): string {
  const all = [...traceback.matchAll(/File "([^"]+)", line (\d+)/g)].filter((m) => m[1] === file);
  const last = all[all.length - 1];
  return last ? `${file}, line ${last[2]}` : file;
}

/** The L1 description of an item from its deciding observation. */
export function descriptionOf(ctx: ReviewContext, o: Observation | undefined, name: string): string {
  if (!o) return `\`${name}\` fails its tests.`;
  const msg = ctx.short(o.test.message || o.test.status);
  switch (o.kind) {
    case "missing":
      return o.name === name
        ? `\`${name}\` is missing from ${ctx.target}: ${msg}.`
        : `\`${name}\` calls \`${o.name}\`, which is not defined in ${ctx.target}.`;
    case "not-implemented":
      return aboutOther(o, name) && o.chain.includes(name)
        ? `\`${name}\` calls \`${o.inside}\`, which is not implemented yet (NotImplementedError).`
        : aboutOther(o, name)
          ? `\`${name}\` cannot be tested yet: the test first calls \`${o.inside}\`, which is not implemented (NotImplementedError).`
          : `\`${name}\` is not implemented yet: it raises NotImplementedError.`;
    case "signature":
      return `\`${o.func}\` does not accept the arguments the tests pass: ${msg}.`;
    case "helper":
      if (o.how === "raised-inside") return `\`${name}\` fails inside the repository helper \`${o.helper}\` (${o.file}): ${msg}.`;
      if (o.how === "arguments")
        return `\`${name}\` calls the repository helper \`${o.helper}\` with arguments it does not accept: ${msg}.`;
      return `\`${name}\` asks the repository for \`${o.helper}\`, which ${o.file} does not have: ${msg}.`;
    case "exception":
      if (o.check) return `\`${name}\` raises ${raisedText(o.check.actual)} where check "${o.check.key}" expects ${expectedText(o.check)}.`;
      return `\`${name}\` raises ${msg}${o.line !== null ? ` at line ${o.line} of ${ctx.target}` : ""}${insideWords(o, name)}.`;
    case "timeout":
      return `\`${name}\` does not finish within the time limit (${msg}).`;
    case "mismatch":
      return `\`${name}\` ${describeMismatch(o.mismatch)}`;
    case "test-exception":
      return `\`${name}\` returns a value the test cannot use: ${msg}.`;
    case "assertion":
      return `\`${name}\` fails an assertion of ${o.test.id}: ${msg}.`;
    default:
      return `\`${name}\` fails its test: ${msg}.`;
  }
}

/** Parameters in words: `a`, `b` and `k` (default 10). */
export function parametersInWords(ps: readonly PyParameter[]): string {
  const words = ps.map((p) => `\`${p.name}\`${p.default !== null ? ` (default ${p.default})` : ""}`);
  return words.length === 0 ? "no parameters" : andList(words);
}

/** How a candidate's parameters differ from the instruction's: `order` (same names, another order), `count` (more or fewer), `renamed` (same count, other names), `defaults` (other default values). */
export interface SignatureDifference {
  kind: "order" | "count" | "renamed" | "defaults";
  /** The difference in words. */
  text: string;
}

/** How the candidate's parameters of `name` differ from the canonical's, or null when they agree (or either is unknown). */
export function signatureDifference(
  canonicalDef: string | undefined,
  candidateDef: string | undefined,
  name: string,
): SignatureDifference | null {
  const want = canonicalDef ? parameters(canonicalDef) : null;
  const have = candidateDef ? parameters(candidateDef) : null;
  if (!want || !have) return null;
  const sameNames = want.length === have.length && want.every((p, k) => p.name === have[k]?.name);
  if (!sameNames) {
    const sorted = (ps: PyParameter[]) =>
      ps
        .map((p) => p.name)
        .sort()
        .join(",");
    const kind = want.length !== have.length ? "count" : sorted(want) === sorted(have) ? "order" : "renamed";
    return {
      kind,
      text: `Your \`${name}\` takes ${parametersInWords(have)}; the instruction's signature has ${parametersInWords(want)}, in this order.`,
    };
  }
  const changed = want.filter((p, k) => !sameDefault(p.default, have[k]?.default ?? null));
  if (changed.length === 0) return null;
  const list = changed.map((p) => {
    const mine = have.find((h) => h.name === p.name)?.default ?? null;
    return `\`${p.name}\` defaults to ${mine ?? "nothing"} here but to ${p.default ?? "nothing"} in the instruction's signature`;
  });
  return { kind: "defaults", text: `${list.join("; ")}: a test that leaves it out gets a different result.` };
}

function sameDefault(a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const x = Number(a);
  const y = Number(b);
  return (Number.isFinite(x) && Number.isFinite(y) && x === y) || a.replace(/\s+/g, "") === b.replace(/\s+/g, "");
}
