/**
 * What one failing test shows, read from its result for the rules researcher:
 * a missing or unimplemented interface, a call that does not match a
 * signature, an exception in candidate code or inside a repository helper, a
 * wrong value (traced to a knowledge entry of the task when it matches one),
 * a failed assertion, or a timeout. Each kind decides a feedback category
 * (RECODE-H.md, "Feedback hierarchy"; see {@link categoryOf}).
 */
import type { FeedbackCategory } from "../feedback";
import type { Mismatch, TestResult } from "../results";
import type { Knowledge, Task, TaskInterface } from "../task";
import { definesName, repoDefines, repoFileOfModule } from "./rules-repo";

/** One frame of a traceback: `File "<file>", line <line>, in <func>`. */
export interface Frame {
  file: string;
  line: number;
  func: string;
}

/** What one failing test shows (see the module comment). `test` is the test result it was read from. */
export type Observation =
  /** `name` (an interface) is not defined in the target file. */
  | { kind: "missing"; test: TestResult; name: string }
  /** NotImplementedError, raised in `inside` (a function of the target file) when known; `chain`: the target file's functions on the traceback, outermost first. */
  | { kind: "not-implemented"; test: TestResult; inside: string | null; chain: string[] }
  /** A TypeError about the arguments of a call to the interface `func`. */
  | { kind: "signature"; test: TestResult; func: string }
  /** A repository helper misused: raised inside it, called with arguments it does not take, or a name it does not have. */
  | {
      kind: "helper";
      test: TestResult;
      helper: string;
      file: string;
      how: "raised-inside" | "arguments" | "no-such-name";
      frame: Frame | null;
    }
  /**
   * An exception raised by candidate code, at `line` of the target file, inside `inside` when known; `chain` as
   * for not-implemented. `check`: the check of `recode_check.outcome` that recorded it (then no line is known).
   */
  | { kind: "exception"; test: TestResult; type: string; line: number | null; inside: string | null; chain: string[]; check?: Mismatch }
  /** An exception raised by test.py itself on the value the candidate returned. */
  | { kind: "test-exception"; test: TestResult; type: string; testLine: number | null }
  | { kind: "timeout"; test: TestResult }
  /** A wrong value in a check; `knowledge` is the task's entry it is traced to, if any. */
  | { kind: "mismatch"; test: TestResult; mismatch: Mismatch; knowledge: Knowledge | null; testLine: number | null }
  /** A unittest assertion failed without a value check (e.g. `ValueError not raised`). */
  | { kind: "assertion"; test: TestResult; testLine: number | null }
  /** Anything else (skipped, unexpected success). */
  | { kind: "other"; test: TestResult };

/**
 * Every `File "...", line N, in f` frame of a traceback, outermost first: the frame lines of the traceback's
 * frames alone, as the harness writes them (each at the start of a line, from "Traceback (most recent call
 * last):" on, with the source lines under them), up to the exception's own text. A line of the same form in the
 * exception's message, or in anything after it (what was printed), is the code under test's text, not a frame.
 */
export function framesOf(traceback: string): Frame[] {
  const out: Frame[] = [];
  let inFrames = false;
  for (const line of traceback.split("\n")) {
    if (line === "Traceback (most recent call last):") {
      inFrames = true;
      continue;
    }
    if (!inFrames) continue;
    const m = /^ {2}File "([^"]+)", line (\d+)(?:, in ([\p{L}\p{N}_.<>]+))?$/u.exec(line);
    // (A line with no function is a syntax error's place, under the frames that imported its file: no frame.)
    if (m?.[3]) out.push({ file: m[1] as string, line: Number(m[2]), func: m[3] });
    else if (m) continue;
    else if (!line.startsWith("    ") && !/^ {2}\[Previous line repeated \d+ more times?\]$/.test(line)) break;
  }
  return out;
}

/** The exception type a one-line failure message starts with (`ZeroDivisionError`), or "". */
export function exceptionType(message: string): string {
  return /^([A-Za-z_][\w.]*)(?::|$)/.exec(message.trim())?.[1] ?? "";
}

/** Whether the message says `name` is missing (ImportError / AttributeError / NameError naming it). */
export function namesMissing(message: string, name: string): boolean {
  const n = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return (
    new RegExp(`cannot import name '${n}'`).test(message) ||
    new RegExp(`has no attribute '${n}'`).test(message) ||
    new RegExp(`name '${n}' is not defined`).test(message)
  );
}

/** The name a TypeError about call arguments gives the function (`Model.fit` in `Model.fit() takes ...`), or null. */
function calledIn(message: string): string | null {
  return (
    /^TypeError: ([A-Za-z_][\w.]*)\(\) (?:takes|missing \d+ required|got an unexpected keyword|got multiple values|got some positional-only)/.exec(
      message.trim(),
    )?.[1] ?? null
  );
}

/** The function a TypeError about call arguments names (`f() takes 2 positional arguments but 3 were given` gives `f`; a method or `__init__` gives its class), or null. */
export function callArgumentsError(message: string): string | null {
  const name = calledIn(message);
  if (name === null) return null;
  // `Model.__init__()` is a call of the class `Model`; `Model.fit()` of its method, named by the class.
  const parts = name.split(".");
  return (parts.length > 1 ? parts[parts.length - 2] : parts[0]) as string;
}

/** The repository module and name an ImportError / AttributeError says is missing (`cannot import name 'x' from 'pkg.mod'`), or null. */
function missingRepoName(message: string): { module: string; name: string } | null {
  const imp = /cannot import name '([A-Za-z_]\w*)' from '([\w.]+)'/.exec(message);
  if (imp) return { name: imp[1] as string, module: imp[2] as string };
  const attr = /module '([\w.]+)' has no attribute '([A-Za-z_]\w*)'/.exec(message);
  return attr ? { module: attr[1] as string, name: attr[2] as string } : null;
}

/** What {@link observe} needs besides the test. */
export interface ObserveContext {
  task: Task;
  /** The candidate's top-level names (defs, classes, assignments, imports). */
  defined: ReadonlySet<string>;
  /** The task.json entry of the interface the test belongs to, if any. */
  itf: TaskInterface | undefined;
}

/** The knowledge entry of `itf` a wrong value is traced to: its key is one of the entry's checks, and its ratio matches when the entry gives one. */
export function traceKnowledge(itf: TaskInterface | undefined, m: Mismatch): Knowledge | null {
  for (const k of itf?.knowledge ?? []) {
    if (!k.checks.includes(m.key)) continue;
    if (k.ratio === undefined) return k;
    const r = valueRatio(m);
    if (r !== null && Math.abs(r - k.ratio) <= 1e-6 * Math.abs(k.ratio)) return k;
  }
  return null;
}

/** got / expected of a numeric value mismatch, or null when the two are not finite numbers with a non-zero expected. */
export function valueRatio(m: Mismatch): number | null {
  if (m.kind !== "value" || m.expected.trim() === "" || m.actual.trim() === "") return null;
  const exp = Number(m.expected);
  const act = Number(m.actual);
  return Number.isFinite(exp) && Number.isFinite(act) && exp !== 0 ? act / exp : null;
}

/**
 * Whether `frame`'s line of the file `text` lies in a function of the frame's name: a frame's file name is the
 * name its code was compiled under, which code under test chooses (a function of its own, compiled as a
 * repository file, "failed inside the repository helper" at a blank line of that file).
 */
function inFunction(text: string, frame: Frame): boolean {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const at = lines[frame.line - 1] ?? "";
  if (!at.trim() || !/^[A-Za-z_]\w*$/.test(frame.func)) return false;
  const def = new RegExp(`^\\s*(?:async\\s+)?def\\s+${frame.func}\\s*\\(`);
  if (def.test(at)) return true;
  // The nearest definition above the line that holds it (indented less): it must be that function.
  for (let i = frame.line - 2; i >= 0; i--) {
    const line = lines[i] as string;
    if (/^\s*(?:async\s+)?(?:def|class)\s/.test(line) && indentOf(line) < indentOf(at)) return def.test(line);
  }
  return false;
}

const indentOf = (line: string): number => /^\s*/.exec(line)?.[0].length ?? 0;

/** Read one failing test (any status but passed). */
export function observe(t: TestResult, ctx: ObserveContext): Observation {
  const { task } = ctx;
  const target = task.meta.target_file_path;
  const frames = framesOf(t.traceback);
  const last = frames[frames.length - 1] ?? null;
  const lastTest = frames.filter((f) => f.file === "test.py").pop();
  const testLine = lastTest?.line ?? null;
  if (t.status === "timeout") return { kind: "timeout", test: t };
  if (t.mismatch) {
    // A check of recode_check.outcome where the candidate raised: an exception of its own, as if the test had
    // called it directly (its type decides the category and the task's guidance by exception).
    const raised = t.mismatch.kind === "raised" ? /^([A-Za-z_]\w*) raised(?::|$)/.exec(t.mismatch.actual) : null;
    // A stub that still raises NotImplementedError there is unimplemented (T0), as when called directly.
    if (raised?.[1] === "NotImplementedError") return { kind: "not-implemented", test: t, inside: null, chain: [] };
    if (raised?.[1]) return { kind: "exception", test: t, type: raised[1], line: null, inside: null, chain: [], check: t.mismatch };
    return { kind: "mismatch", test: t, mismatch: t.mismatch, knowledge: traceKnowledge(ctx.itf, t.mismatch), testLine };
  }
  const type = exceptionType(t.message);
  const own = frames.filter((f) => f.file === target);
  const lastOwn = own[own.length - 1];
  const chain = own.map((f) => f.func);
  const missing = task.meta.interfaces.find((i) => !ctx.defined.has(i.name) && namesMissing(t.message, i.name));
  if (missing) return { kind: "missing", test: t, name: missing.name };
  if (type === "NotImplementedError") return { kind: "not-implemented", test: t, inside: last?.file === target ? last.func : null, chain };
  // (A TypeError about a call is raised where the call is made, not in the function it names: one raised from
  // inside that function is the code's own text.)
  const called = last?.file === target && last.func === calledIn(t.message)?.split(".").pop() ? null : callArgumentsError(t.message);
  if (called !== null) {
    if (task.meta.interfaces.some((i) => i.name === called)) return { kind: "signature", test: t, func: called };
    const file = repoDefines(task, called);
    if (file) return { kind: "helper", test: t, helper: called, file, how: "arguments", frame: lastOwn ?? null };
  }
  if (
    last &&
    last.file !== target &&
    last.file !== "test.py" &&
    Object.hasOwn(task.repo, last.file) &&
    inFunction(task.repo[last.file] ?? "", last)
  )
    return { kind: "helper", test: t, helper: last.func, file: last.file, how: "raised-inside", frame: lastOwn ?? null };
  let gone = missingRepoName(t.message);
  // (Only when the repository's file indeed lacks the name: the message is the code under test's to write.)
  const goneFile = gone ? repoFileOfModule(task, gone.module) : null;
  if (gone && goneFile && definesName(task.repo[goneFile] ?? "", gone.name)) gone = null;
  if (gone && goneFile) return { kind: "helper", test: t, helper: gone.name, file: goneFile, how: "no-such-name", frame: lastOwn ?? null };
  // (A failed assertion is a test "failed": unittest decides that by the exception's class. An error whose message
  // begins "AssertionError" is another class's, named so.)
  if (t.status === "failed" && (type === "AssertionError" || type === "")) return { kind: "assertion", test: t, testLine };
  if (t.status === "failed" || t.status === "error") {
    if (lastOwn || t.line !== null)
      return { kind: "exception", test: t, type, line: t.line ?? lastOwn?.line ?? null, inside: lastOwn?.func ?? null, chain };
    if (last?.file === "test.py") return { kind: "test-exception", test: t, type, testLine };
    return { kind: "exception", test: t, type, line: null, inside: null, chain };
  }
  return { kind: "other", test: t };
}

/**
 * The category of an interface's item from what its failing tests show and
 * whether the candidate re-implements a repository helper the interface
 * uses (RECODE-H.md, "Feedback hierarchy"), in this order: T0 when the
 * interface (or one it calls) is missing, unimplemented, or called with
 * arguments its signature does not take; T4 when a repository helper is
 * misused or re-implemented (a helper raising about a value it got counts
 * only when no wrong value or failed assertion of the interface explains
 * it); T1 when candidate code raises or runs out of
 * time; T3 when every failure is a wrong value traced to a knowledge entry of
 * the task; T2 otherwise (wrong values, failed assertions, unusable results).
 */
export function categoryOf(observations: readonly Observation[], reimplemented: boolean): FeedbackCategory {
  const has = (...kinds: Observation["kind"][]) => observations.some((o) => kinds.includes(o.kind));
  if (has("missing", "not-implemented", "signature")) return "T0";
  // A helper's own check failing on values the candidate computed wrong (its ValueError, say), beside
  // wrong values of the same interface, is their symptom: those decide. Alone, it is about the helper.
  const misuse = observations.some((o) => o.kind === "helper" && !valueRaisedInside(o));
  const symptom = has("mismatch", "assertion");
  if (misuse || reimplemented || (has("helper") && !symptom)) return "T4";
  if (has("exception", "timeout")) return "T1";
  if (observations.length > 0 && observations.every((o) => o.kind === "mismatch" && o.knowledge !== null)) return "T3";
  return "T2";
}

/** Exceptions by which a helper says it was called wrongly (a wrong type, a missing key or name), not that a value it got was wrong. */
const MISUSE_TYPES = new Set(["TypeError", "AttributeError", "KeyError", "IndexError", "NameError"]);

/** Whether a helper observation is a helper raising about a value it got (its own check), not a wrong call. */
export function valueRaisedInside(o: Observation): boolean {
  return o.kind === "helper" && o.how === "raised-inside" && !MISUSE_TYPES.has(exceptionType(o.test.message));
}

/** Whether an observation is about another function than `name` (raised inside it): not-implemented or exception with `inside` set to another name. */
export function aboutOther(o: Observation, name: string): string | null {
  if ((o.kind === "not-implemented" || o.kind === "exception") && o.inside && o.inside !== name && o.inside !== "<module>") return o.inside;
  return null;
}

/** The observation that decided `category`: the first of its kinds in test order, preferring one about `name` itself over one raised inside another function. */
export function primaryObservation(
  observations: readonly Observation[],
  category: FeedbackCategory,
  name: string,
): Observation | undefined {
  const kinds: Record<FeedbackCategory, Observation["kind"][]> = {
    T0: ["missing", "not-implemented", "signature"],
    T1: ["exception", "timeout"],
    T2: ["mismatch", "assertion", "test-exception", "other"],
    T3: ["mismatch"],
    T4: ["helper"],
  };
  const fit = observations.filter((o) => kinds[category].includes(o.kind));
  return fit.find((o) => aboutOther(o, name) === null) ?? fit[0] ?? observations[0];
}
