/**
 * The `baseline` setting (RECODE-H, "Interaction protocol"): one-shot generation each turn, no tools,
 * no memory. One model call returns the whole target file.
 */
import { assistantMessage, type ChatMessage, type ChatModel, callTokens } from "../model";
import { extractPythonCode, fencedBlocks } from "./parse";
import { TRUNCATED, taskSystemPrompt, turnMessage } from "./prompts";
import type { Agent, AgentMemoryState, AgentTurnInput, AgentTurnOutput } from "./types";
import { checkMemoryState, checkTurnInput } from "./validate";

function lines(code: string): number {
  return code === "" ? 0 : code.replace(/\n$/, "").split("\n").length;
}

/** The code blocks of a reply as the official harness extracts them: every fenced block (tagged python or untagged), joined by a blank line. */
export function referenceCodeBlocks(reply: string): string {
  return fencedBlocks(reply)
    .filter((b) => b.lang === "" || b.lang === "python")
    .map((b) => b.code)
    .join("\n\n")
    .trim();
}

/** Options of the {@link BaselineAgent}. */
export interface BaselineOptions {
  /**
   * Reference profile: the reply's code blocks are appended to the target file (which is never
   * reset between turns), as the official harness does, instead of replacing it.
   */
  append?: boolean;
}

/**
 * One-shot coder. Each turn sends `[task system message, turn message]` and takes the last fenced
 * python block of the reply (or the whole reply when it has none) as the new target file. The turn's
 * actions are one REPLACE whose argument is that file. With `append`, every code block of the reply
 * is appended to the file instead (nothing when it has none).
 */
export class BaselineAgent implements Agent {
  readonly setting = "baseline" as const;

  constructor(
    private readonly model: ChatModel,
    private readonly opts: BaselineOptions = {},
  ) {}

  async runTurn(input: AgentTurnInput): Promise<AgentTurnOutput> {
    checkTurnInput(input);
    const started = performance.now();
    const { task, turn, currentCode, feedback, signal } = input;
    signal?.throwIfAborted();
    const user: ChatMessage = {
      role: "user",
      content: turnMessage(task, "baseline", turn, currentCode, feedback, this.opts.append ? "Feedback:" : undefined),
    };
    const res = await this.model.chat({
      messages: [{ role: "system", content: taskSystemPrompt(task, "baseline") }, user],
      temperature: 0,
      topP: 1,
      signal,
    });
    // A reply cut at the token limit may hold half a file: the target file stays as it was.
    const blocks = this.opts.append ? referenceCodeBlocks(res.content) : "";
    const code = res.truncated
      ? currentCode
      : this.opts.append
        ? blocks
          ? `${currentCode}\n${blocks}\n`
          : currentCode
        : extractPythonCode(res.content);
    return {
      code,
      messages: [user, assistantMessage(res)],
      actions: [
        res.truncated
          ? { type: "INVALID", argument: "", result: `${TRUNCATED}; the target file was left as it was` }
          : this.opts.append
            ? {
                type: "REPLACE",
                argument: code,
                result: `appended ${lines(blocks)} lines of code from a one-shot reply (${lines(code)} lines now)`,
              }
            : { type: "REPLACE", argument: code, result: `target file set (${lines(code)} lines) from a one-shot reply` },
      ],
      tokens: callTokens(res.usage),
      modelCalls: 1,
      latencyMs: performance.now() - started,
    };
  }

  reset(): void {}

  snapshot(): AgentMemoryState {
    return { taskId: null, lastTurn: -1, messages: [] };
  }

  restore(state: AgentMemoryState): void {
    checkMemoryState(state);
  }
}
