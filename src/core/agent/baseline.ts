/**
 * The `baseline` setting (RECODE-H, "Interaction protocol"): one-shot generation each turn, no tools,
 * no memory. One model call returns the whole target file.
 */
import { type ChatMessage, type ChatModel, callTokens } from "../model";
import { extractPythonCode } from "./parse";
import { TRUNCATED, taskSystemPrompt, turnMessage } from "./prompts";
import type { Agent, AgentMemoryState, AgentTurnInput, AgentTurnOutput } from "./types";
import { checkMemoryState, checkTurnInput } from "./validate";

function lines(code: string): number {
  return code === "" ? 0 : code.replace(/\n$/, "").split("\n").length;
}

/**
 * One-shot coder. Each turn sends `[task system message, turn message]` and takes the last fenced
 * python block of the reply (or the whole reply when it has none) as the new target file. The turn's
 * actions are one REPLACE whose argument is that file.
 */
export class BaselineAgent implements Agent {
  readonly setting = "baseline" as const;

  constructor(private readonly model: ChatModel) {}

  async runTurn(input: AgentTurnInput): Promise<AgentTurnOutput> {
    checkTurnInput(input);
    const started = performance.now();
    const { task, turn, currentCode, feedback, signal } = input;
    signal?.throwIfAborted();
    const user: ChatMessage = { role: "user", content: turnMessage(task, "baseline", turn, currentCode, feedback) };
    const res = await this.model.chat({
      messages: [{ role: "system", content: taskSystemPrompt(task, "baseline") }, user],
      temperature: 0,
      topP: 1,
      signal,
    });
    // A reply cut at the token limit may hold half a file: the target file stays as it was.
    const code = res.truncated ? currentCode : extractPythonCode(res.content);
    return {
      code,
      messages: [user, { role: "assistant", content: res.content, ...(res.reasoning ? { reasoning: res.reasoning } : {}) }],
      actions: [
        res.truncated
          ? { type: "INVALID", argument: "", result: `${TRUNCATED}; the target file was left as it was` }
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
