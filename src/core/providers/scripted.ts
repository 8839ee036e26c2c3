/**
 * Scripted chat model: replays replies from a script, for tests, demos and
 * reproducible episodes without an LLM.
 *
 * Script file format (JSON), either a plain list of replies consumed in order:
 * ```json
 * ["first reply", "second reply"]
 * ```
 * or an object with rules and/or an ordered list:
 * ```json
 * {
 *   "rules": [
 *     { "match": "task: min-p-sampling", "in": "all", "replies": ["<turn 0 code>", "<turn 1 code>"] },
 *     { "match": "/^Review/i", "reply": { "items": [] }, "times": 3 }
 *   ],
 *   "responses": ["used when no rule matches"]
 * }
 * ```
 * Each call tries the rules in order; the first one that matches and has uses
 * left answers. `match` is a substring, or `/regex/flags`; it is tested against
 * the last user message (`in: "last"`, the default), the system messages
 * (`"system"`) or every message joined by blank lines (`"all"`, so a rule can
 * key on a task id that only the first prompt names). `reply` answers every time
 * (at most `times` times when given); `replies` answers with its items in order,
 * one per call, then is used up. A reply that is a JSON object or array is sent
 * as its JSON text (for `json: true` requests). When no rule answers, the next
 * entry of `responses` does; when none is left the call fails with a ModelError
 * that names the script and shows the start of the unmatched prompt.
 */
import { z } from "zod";
import { fence } from "../agent/prompts";
import { type ChatMessage, type ChatRequest, type ChatResponse, ModelError } from "../model";
import { type MeteredChatModel, nowMs, type OnCall, UsageMeter } from "./usage";

const ReplySchema = z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())], {
  error: "a reply is a string, or a JSON object/array sent as its JSON text",
});

const PatternSchema = z
  .string()
  .min(1, "match must not be empty")
  .superRefine((p, ctx) => {
    const re = /^\/(.*)\/([dgimsuvy]*)$/s.exec(p);
    if (!re) return;
    try {
      new RegExp(re[1] ?? "", re[2]);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: `invalid regular expression ${p}: ${(err as Error).message}` });
    }
  });

/** One rule of a script. */
export const ScriptRuleSchema = z
  .object({
    /** Substring, or `/regex/flags`, searched in the text chosen by `in`. */
    match: PatternSchema,
    /** Which text to search: the last user message (default), the system messages, or all messages. */
    in: z.enum(["last", "system", "all"]).default("last"),
    /** Answer on every match (at most `times` times when given). */
    reply: ReplySchema.optional(),
    /** Answers used one per match, in order; the rule is used up after the last. */
    replies: z.array(ReplySchema).min(1, "replies needs at least one reply").optional(),
    /** How often `reply` may answer; default unlimited. */
    times: z.number().int().positive().optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if ((r.reply === undefined) === (r.replies === undefined)) {
      ctx.addIssue({ code: "custom", message: "a rule needs exactly one of `reply` or `replies`" });
    }
    if (r.replies !== undefined && r.times !== undefined) {
      ctx.addIssue({ code: "custom", path: ["times"], message: "`times` goes with `reply`; `replies` is used once per item" });
    }
  });

/** Zod schema of a script file (after JSON parsing). */
export const ScriptSchema = z.union(
  [
    z.array(ReplySchema).min(1, "a script list needs at least one reply"),
    z
      .object({
        /** Free-form description. */
        description: z.string().optional(),
        rules: z.array(ScriptRuleSchema).default([]),
        responses: z.array(ReplySchema).default([]),
      })
      .strict()
      .refine((s) => s.rules.length + s.responses.length > 0, "a script needs at least one rule or response"),
  ],
  { error: "a script is a list of replies or an object with `rules` and/or `responses`" },
);

/** A script as written in the file. */
export type ScriptInput = z.input<typeof ScriptSchema>;
/** A validated script. */
export type Script = z.output<typeof ScriptSchema>;
/** One validated rule. */
export type ScriptRule = z.output<typeof ScriptRuleSchema>;

/** Format zod issues as `path: problem` lines. */
function describeIssues(error: z.ZodError): string {
  const lines: string[] = [];
  const walk = (issues: readonly z.core.$ZodIssue[], prefix: (string | number | symbol)[]) => {
    for (const issue of issues) {
      const path = [...prefix, ...issue.path];
      // Union failures: show the branch errors of the object form when the input was an object.
      if (issue.code === "invalid_union" && issue.errors.length > 0) {
        const branch = issue.errors.find((errs) => errs.every((e) => e.code !== "invalid_type" || e.path.length > 0));
        if (branch && branch.length > 0) {
          walk(branch, path);
          continue;
        }
      }
      lines.push(`${formatPath(path)}: ${issue.message}`);
    }
  };
  walk(error.issues, []);
  return lines.join("; ");
}

function formatPath(path: readonly (string | number | symbol)[]): string {
  if (path.length === 0) return "(top level)";
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out;
}

/**
 * Validate a parsed script.
 * @throws Error `script "<name>": <field>: <problem>` for an invalid script.
 */
export function parseScript(value: unknown, name: string): Script {
  const res = ScriptSchema.safeParse(value);
  if (!res.success) throw new Error(`script "${name}": ${describeIssues(res.error)}`);
  return res.data;
}

/**
 * Parse and validate the JSON text of a script file.
 * @throws Error naming the script and the field and problem (or the JSON syntax error).
 */
export function loadScript(jsonText: string, name: string): Script {
  let value: unknown;
  try {
    value = JSON.parse(jsonText);
  } catch (err) {
    throw new Error(`script "${name}": not valid JSON: ${(err as Error).message}`);
  }
  return parseScript(value, name);
}

function toMatcher(pattern: string): (text: string) => boolean {
  const re = /^\/(.*)\/([dgimsuvy]*)$/s.exec(pattern);
  if (re) {
    const regex = new RegExp(re[1] ?? "", (re[2] ?? "").replace("g", "").replace("y", ""));
    return (text) => regex.test(text);
  }
  return (text) => text.includes(pattern);
}

function replyText(reply: z.output<typeof ReplySchema>): string {
  return typeof reply === "string" ? reply : JSON.stringify(reply);
}

function searchText(messages: ChatMessage[], where: ScriptRule["in"]): string {
  if (where === "all") return messages.map((m) => m.content).join("\n\n");
  if (where === "system") {
    return messages
      .filter((m) => m.role === "system")
      .map((m) => m.content)
      .join("\n\n");
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "user") return m.content;
  }
  return "";
}

/** Token estimate used by the scripted model: characters / 4, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A scripted model; besides the chat interface it tells what the script still holds. */
export interface ScriptedChatModel extends MeteredChatModel {
  /** Descriptions of what was not used: `responses[3]`, `rules[1] (2 of 3 replies left)`. Empty when all is spent. */
  unused(): string[];
}

/** Options of {@link createScriptedModel}. */
export interface ScriptedModelOptions {
  onCall?: OnCall;
}

/**
 * Create a model that replays `script` (validated here; see the module comment
 * for the format). id `scripted:<name>`. Usage is estimated as characters / 4.
 *
 * @throws Error for an invalid script (names the field).
 * @returns a model whose `chat` rejects with ModelError when nothing in the script answers.
 */
export function createScriptedModel(script: ScriptInput | Script, name: string, options: ScriptedModelOptions = {}): ScriptedChatModel {
  const parsed = parseScript(script, name);
  const id = `scripted:${name}`;
  const rules = Array.isArray(parsed) ? [] : parsed.rules;
  const responses = Array.isArray(parsed) ? parsed : parsed.responses;
  const matchers = rules.map((r) => toMatcher(r.match));
  const used = rules.map(() => 0);
  let next = 0;
  const meter = new UsageMeter(options.onCall);

  const usesLeft = (i: number): number => {
    const r = rules[i] as ScriptRule;
    const cap = r.replies ? r.replies.length : (r.times ?? Number.POSITIVE_INFINITY);
    return cap - (used[i] ?? 0);
  };

  async function chat(req: ChatRequest): Promise<ChatResponse> {
    const started = nowMs();
    if (!req || !Array.isArray(req.messages) || req.messages.length === 0) {
      meter.failure();
      throw new ModelError(id, "chat request needs at least one message in `messages`");
    }
    if (req.signal?.aborted) {
      meter.failure();
      throw new ModelError(id, "the request was cancelled");
    }
    let content: string | undefined;
    for (let i = 0; i < rules.length && content === undefined; i++) {
      const rule = rules[i] as ScriptRule;
      if (usesLeft(i) <= 0) continue;
      if (!(matchers[i] as (t: string) => boolean)(searchText(req.messages, rule.in))) continue;
      const k = used[i] ?? 0;
      used[i] = k + 1;
      content = replyText(rule.replies ? (rule.replies[k] as z.output<typeof ReplySchema>) : (rule.reply as z.output<typeof ReplySchema>));
    }
    if (content === undefined && next < responses.length) {
      content = replyText(responses[next] as z.output<typeof ReplySchema>);
      next += 1;
    }
    if (content === undefined) {
      meter.failure();
      const last = searchText(req.messages, "last");
      const start = last.length > 200 ? `${last.slice(0, 200)}...` : last;
      const what =
        rules.length > 0
          ? `no rule of ${rules.length} matched (or their uses are spent) and ${responses.length === 0 ? "there are no responses" : `all ${responses.length} responses are used`}`
          : `all ${responses.length} responses are used`;
      throw new ModelError(id, `script "${name}": ${what}; the last user message starts: ${JSON.stringify(start)}`);
    }
    const promptChars = req.messages.reduce((n, m) => n + m.content.length, 0);
    const usage = { promptTokens: Math.ceil(promptChars / 4), completionTokens: estimateTokens(content) };
    const latencyMs = nowMs() - started;
    meter.success({ usage, latencyMs, retries: 0 });
    return { content, usage, latencyMs, model: name };
  }

  function unused(): string[] {
    const out: string[] = [];
    rules.forEach((r, i) => {
      if (r.replies && usesLeft(i) > 0) out.push(`rules[${i}] (${usesLeft(i)} of ${r.replies.length} replies left)`);
      else if (r.reply !== undefined && (used[i] ?? 0) === 0) out.push(`rules[${i}] (never matched)`);
    });
    for (let j = next; j < responses.length; j++) out.push(`responses[${j}]`);
    return out;
  }

  return { id, chat, unused, totals: () => meter.totals(), calls: () => meter.calls() };
}

/** One task of {@link solverScript}: its target path, the file written at turn 0, and the file written on later turns. */
export interface SolverTask {
  targetPath: string;
  first: string;
  later: string;
}

/**
 * A script that plays a ReCodeAgent coder (`agent` / `memory_agent` step
 * format) on each task: at turn 0 it REPLACEs the target file with `first`, on
 * every later turn with `later`, and SUBMITs after each REPLACE. Rules key on
 * the turn header and the target path, so one script serves several tasks.
 * Used for offline demos, the benchmarks and the tests.
 */
export function solverScript(tasks: SolverTask[]): { rules: { match: string; reply: string }[] } {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const replace = (why: string, code: string) => `Reflection: ${why}\nAction: REPLACE\n${fence(code)}`;
  const rules: { match: string; reply: string }[] = [{ match: "Result of REPLACE", reply: "Reflection: written.\nAction: SUBMIT" }];
  for (const t of tasks) {
    rules.push({ match: `/# Turn 0[\\s\\S]*${esc(t.targetPath)}/`, reply: replace("a first version.", t.first) });
    rules.push({ match: `/# Turn [1-9][\\s\\S]*${esc(t.targetPath)}/`, reply: replace("follow the feedback.", t.later) });
  }
  return { rules };
}
