/**
 * The LLM researcher: a chat model plays the simulated researcher of RECODE-H
 * (o4-mini in the paper; RECODE-H.md, "Feedback hierarchy"). It sees the paper
 * text, the instruction, the canonical code, the candidate code and the test
 * results, and answers with structured feedback items.
 */
import { z } from "zod";
import {
  CATEGORY_NAMES,
  type FeedbackItem,
  FeedbackItemSchema,
  type FeedbackRecord,
  formatSchemaIssues,
  type Researcher,
  ResearcherError,
  type ReviewInput,
  renderTestLog,
} from "../feedback";
import type { ChatMessage, ChatModel } from "../model";

/** Schema of the model's answer: `{items: [...]}` with at least one item. */
export const LlmFeedbackSchema = z.object({
  items: z.array(FeedbackItemSchema).min(1, "give at least one item: the submission fails some tests"),
});

/** Options of {@link createLlmResearcher}. */
export interface LlmResearcherOptions {
  /** Characters kept of the paper text in the prompt. Default 24000. */
  paperCap?: number;
  /** Upper bound on completion tokens. Default: the provider's. */
  maxTokens?: number;
}

const SYSTEM_PROMPT = `You review code written by a research engineer who is turning a paper's method into code inside an existing repository. You know the method well and you hold the reference implementation, which the engineer must never be shown in full unless a field below asks for code.

Compare the engineer's file with the paper, the instruction and the reference implementation, using the test results as evidence. For every distinct problem you find, write one feedback item with these fields:
- "interface": the function or class of the instruction the problem is in (use the exact name).
- "category": one of
  "T0" (${CATEGORY_NAMES.T0}: a required function or class is missing, unimplemented or structured wrongly),
  "T1" (${CATEGORY_NAMES.T1}: syntax errors, exceptions, wrong types at run time),
  "T2" (${CATEGORY_NAMES.T2}: the code contradicts the paper or the instruction, e.g. a wrong formula, order of steps or edge case),
  "T3" (${CATEGORY_NAMES.T3}: a constant, convention or domain library the paper leaves unstated),
  "T4" (${CATEGORY_NAMES.T4}: a helper the repository already provides is re-implemented or used wrongly).
- "description": what is wrong, in one or two sentences, without code.
- "analysis": why it is wrong and how the test results show it, without code.
- "actionable_feedback": what to change, in words, without code.
- "direct_code_feedback": the corrected code for that interface, as a fenced python block.

Answer with one JSON object and nothing else: {"items": [ {six fields}, ... ]}. Order the items so the root cause comes first. Do not praise; name only real problems.`;

function section(title: string, body: string): string {
  return `## ${title}\n${body.trim() || "(empty)"}\n`;
}

/** The user message for one review (exported for inspection and tests). */
export function buildResearcherPrompt(input: ReviewInput, opts: LlmResearcherOptions = {}): string {
  const { task, code, run } = input;
  const paperCap = opts.paperCap ?? 24000;
  const paper =
    task.paper.length > paperCap ? `${task.paper.slice(0, paperCap)}\n[... paper text cut at ${paperCap} characters]` : task.paper;
  const itfs = task.meta.interfaces.map((i) => `- ${i.name} (tests: ${i.tests.join(", ")})`).join("\n");
  return [
    `Task: ${task.meta.title} (turn ${input.turn}).${task.meta.paper ? ` Paper: "${task.meta.paper.title}".` : ""}`,
    ...(paper.trim() ? [section("Method from the paper (LaTeX)", paper)] : []),
    section("Instruction given to the engineer", task.instruction),
    section("Interfaces and their unit tests", itfs),
    section(`Reference implementation (${task.meta.target_file_path})`, `\`\`\`python\n${task.canonical}\n\`\`\``),
    section(`Engineer's submission (${task.meta.target_file_path})`, `\`\`\`python\n${code}\n\`\`\``),
    section("Test results of the submission", renderTestLog(run)),
    'Reply with the JSON object {"items": [...]} only.',
  ].join("\n");
}

/** Pull the JSON object out of a reply: plain, inside a ```json fence, or between the first `{` and the last `}`. */
export function extractJsonObject(reply: string): unknown {
  const text = reply.trim();
  const candidates: string[] = [text];
  const fence = /```(?:json|JSON)?\s*\n([\s\S]*?)\n?```/.exec(text);
  if (fence) candidates.push((fence[1] as string).trim());
  const a = text.indexOf("{");
  const b = text.lastIndexOf("}");
  if (a >= 0 && b > a) candidates.push(text.slice(a, b + 1));
  let firstError = "";
  for (const c of candidates) {
    try {
      return JSON.parse(c);
    } catch (e) {
      firstError ||= (e as Error).message;
    }
  }
  throw new SyntaxError(`the reply is not a JSON object (${firstError})`);
}

/** Light normalisation before validation: a category written as "T2 implementation alignment" or "t2" becomes "T2"; a bare array becomes {items}. */
function normalise(raw: unknown): unknown {
  const obj = Array.isArray(raw) ? { items: raw } : raw;
  if (obj && typeof obj === "object" && Array.isArray((obj as { items?: unknown }).items)) {
    const items = (obj as { items: unknown[] }).items.map((it) => {
      if (it && typeof it === "object" && typeof (it as { category?: unknown }).category === "string") {
        const m = /^\s*(t[0-4])\b/i.exec((it as { category: string }).category);
        if (m) return { ...it, category: (m[1] as string).toUpperCase() };
      }
      return it;
    });
    return { ...obj, items };
  }
  return obj;
}

/** Parse and validate one reply; returns the items or a description of what was wrong. */
export function parseResearcherReply(reply: string): { ok: true; items: FeedbackItem[] } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = extractJsonObject(reply);
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
  const res = LlmFeedbackSchema.safeParse(normalise(raw));
  if (!res.success) return { ok: false, error: `the JSON does not match the feedback format: ${formatSchemaIssues(res.error)}` };
  return { ok: true, items: res.data.items };
}

/**
 * A researcher backed by a chat model (`id` = `llm:<model id>`). Calls the
 * model at temperature 0 with `json: true`; an invalid reply (not JSON, or not
 * the six-field format) gets one repair request that sends the validation
 * error back. Rejects with {@link ResearcherError} naming the model and the
 * problem when the repaired reply is still invalid; a failing model call
 * rejects with the provider's ModelError.
 */
export function createLlmResearcher(model: ChatModel, opts: LlmResearcherOptions = {}): Researcher {
  const id = `llm:${model.id}`;
  return {
    id,
    async review(input: ReviewInput): Promise<FeedbackRecord> {
      const messages: ChatMessage[] = [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: buildResearcherPrompt(input, opts) },
      ];
      const ask = async () => (await model.chat({ messages, temperature: 0, topP: 1, json: true, maxTokens: opts.maxTokens })).content;
      const first = await ask();
      const parsed = parseResearcherReply(first);
      if (parsed.ok) return { researcher: id, items: parsed.items };
      messages.push(
        { role: "assistant", content: first },
        {
          role: "user",
          content: `That reply cannot be used: ${parsed.error}. Answer again with one JSON object {"items": [...]} whose items each have the string fields interface, category (T0-T4), description, analysis, actionable_feedback and direct_code_feedback, and nothing else.`,
        },
      );
      const second = await ask();
      const repaired = parseResearcherReply(second);
      if (repaired.ok) return { researcher: id, items: repaired.items };
      throw new ResearcherError(
        id,
        `model ${model.id} returned invalid feedback twice (first: ${parsed.error}; after repair: ${repaired.error})`,
      );
    },
  };
}
