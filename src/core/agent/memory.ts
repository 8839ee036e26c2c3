/**
 * Conversation memory of the `memory_agent` setting (RECODE-H.md, "Interaction protocol": past 15
 * messages, older ones are summarised by the same model; the last 5 stay verbatim).
 */
import type { ChatMessage, ChatModel, TokenUsage } from "../model";
import { MEMORY_SUMMARY_PREFIX, SUMMARY_SYSTEM_PROMPT } from "./prompts";

/** Result of {@link compactMemory}. */
export interface CompactResult {
  /** The conversation to use from now on (a new array; the input is not changed). */
  messages: ChatMessage[];
  /** The summary message that replaced older messages, or null when nothing was summarised. */
  summary: ChatMessage | null;
  /** Tokens of the summary call (zeros when no call was made). */
  usage: TokenUsage;
  /** 1 when the model was called, else 0. */
  modelCalls: number;
}

/** Options of {@link compactMemory}. */
export interface CompactOptions {
  /** Summarise when `messages.length` is greater than this. */
  threshold: number;
  /** Messages kept verbatim at the end. */
  keepRecent: number;
  signal?: AbortSignal;
}

/** The transcript handed to the summary call: one `### role` section per message. */
export function transcript(messages: ChatMessage[]): string {
  return messages.map((m) => `### ${m.role}\n${m.content.trim()}`).join("\n\n");
}

/**
 * When `messages` holds more than `threshold` messages, ask `model` (temperature 0, top-p 1) to
 * summarise every message between the first (the task message, always kept) and the last
 * `keepRecent`, and return `[first, summary, ...last keepRecent]`. The summary is a `user` message
 * starting with MEMORY_SUMMARY_PREFIX; an earlier summary is itself summarised again.
 * Rejects with the model's error unchanged.
 */
export async function compactMemory(model: ChatModel, messages: ChatMessage[], opts: CompactOptions): Promise<CompactResult> {
  const none: CompactResult = { messages: [...messages], summary: null, usage: { promptTokens: 0, completionTokens: 0 }, modelCalls: 0 };
  if (messages.length <= opts.threshold) return none;
  const first = messages[0] as ChatMessage;
  const older = messages.slice(1, messages.length - opts.keepRecent);
  const recent = messages.slice(messages.length - opts.keepRecent);
  if (older.length === 0) return none;
  const res = await model.chat({
    messages: [
      { role: "system", content: SUMMARY_SYSTEM_PROMPT },
      { role: "user", content: `Summarise this history:\n\n${transcript(older)}` },
    ],
    temperature: 0,
    topP: 1,
    signal: opts.signal,
  });
  const summary: ChatMessage = { role: "user", content: `${MEMORY_SUMMARY_PREFIX}\n${res.content.trim()}` };
  return { messages: [first, summary, ...recent], summary, usage: res.usage, modelCalls: 1 };
}
