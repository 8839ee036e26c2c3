/**
 * Reading the text of a chat-completions message as servers send it: content
 * as a string or as a list of parts (Mistral reasoning models, some gateways),
 * reasoning in a field of its own (`reasoning_content`: DeepSeek, vLLM;
 * `reasoning`: Ollama, OpenRouter) or inline (`<think>...</think>`: Qwen3,
 * DeepSeek-R1 distills). The answer is the final text only; the reasoning is
 * kept apart, for the trajectory, and never parsed for actions or code.
 */

/** A message's answer and its reasoning. */
export interface ReplyText {
  /** The final answer text ("" when the model gave only reasoning). */
  text: string;
  /** Reasoning the model gave, joined; "" when none. */
  reasoning: string;
}

/** The text of a part list such as `[{type: "text", text: "..."}]`, or of a plain string. */
function partsText(v: unknown): string {
  if (typeof v === "string") return v;
  if (!Array.isArray(v)) return "";
  return v.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : partsText(p?.thinking))).join("");
}

/** Inline reasoning blocks: `<think>...</think>` (also `<thinking>`), and an unclosed one that runs to the end. */
const THINK = /<(think|thinking)>([\s\S]*?)(?:<\/\1>|$)/g;

/** Split inline reasoning blocks out of a text. A text that starts inside a block (its `<think>` was in the prompt) ends it at `</think>`. */
function splitInline(text: string): ReplyText {
  const reasoning: string[] = [];
  let rest = text;
  const lead = /^\s*([\s\S]*?)<\/(think|thinking)>/.exec(rest);
  if (lead && !/<(think|thinking)>/.test(lead[1] ?? "")) {
    reasoning.push((lead[1] ?? "").trim());
    rest = rest.slice(lead[0].length);
  }
  rest = rest.replace(THINK, (_m, _tag, inner: string) => {
    reasoning.push(inner.trim());
    return "";
  });
  return { text: rest.trim(), reasoning: reasoning.filter(Boolean).join("\n\n") };
}

/**
 * The answer and the reasoning of one chat-completions `message`.
 * @throws TypeError naming the shape when `content` is neither a string, null,
 *   nor a list of parts.
 */
export function readReply(message: { content?: unknown; [field: string]: unknown }): ReplyText {
  const reasoning: string[] = [];
  for (const field of ["reasoning_content", "reasoning"]) {
    const r = partsText(message[field]);
    if (r.trim()) reasoning.push(r.trim());
  }
  const content = message.content;
  let text: string;
  if (content === null || content === undefined) text = "";
  else if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    const answer: string[] = [];
    for (const part of content) {
      const type = typeof part?.type === "string" ? part.type : "";
      if (type === "thinking" || type === "reasoning") {
        const r = partsText(part.thinking ?? part.reasoning ?? part.text);
        if (r.trim()) reasoning.push(r.trim());
      } else if (typeof part === "string") answer.push(part);
      else if (typeof part?.text === "string" && (type === "text" || type === "output_text" || type === "")) answer.push(part.text);
    }
    text = answer.join("");
  } else {
    throw new TypeError(
      `the message content is ${typeof content === "object" ? "an object" : `a ${typeof content}`}, not text or a list of parts`,
    );
  }
  const inline = splitInline(text);
  if (inline.reasoning) reasoning.push(inline.reasoning);
  return { text: inline.text, reasoning: reasoning.join("\n\n") };
}
