/**
 * The tool-using coder as the official RECODE-H harness runs it (the
 * `reference` profile, src/core/protocol.ts; its `CodeAgent.generate_agent_history`).
 * Every step is one model call with a fresh prompt: the task, the memory (the
 * (result, response) pairs of earlier steps), the current target file, the
 * feedback on the last submission and the result of the last action. The
 * memory keeps only those pairs (the feedback is not kept); when it holds more
 * than `memoryThreshold` messages, all but the last `keepRecent` are
 * summarised by the same model into one message. Unlike the paper's text, the
 * `agent` setting keeps its memory across turns too, as the official code
 * does; it differs from `memory_agent` only in what it is handed (no test
 * result, and no shared turn 0).
 */
import { addTokens, assistantMessage, type ChatMessage, type ChatModel, callTokens, type TokenCounts } from "../model";
import { autoSubmitAction, stepOutcome } from "./actions";
import { ConversationAgent } from "./conversation";
import { transcript } from "./memory";
import { parseStep } from "./parse";
import { fence, SUMMARY_SYSTEM_PROMPT, taskSystemPrompt } from "./prompts";
import type { Agent, AgentAction, AgentTurnInput, AgentTurnOutput } from "./types";
import { checkTurnInput, type ResolvedAgentOptions } from "./validate";

/** The action result a step starts from when there is none (turn 0, and the `agent` setting). */
export const NO_ACTION_RESULT = "No action result yet.";

/** First line of the memory message that replaces summarised steps. */
export const REFERENCE_SUMMARY_PREFIX = "Summary of earlier work:";

/** The user message of one step (the task itself is in the system message). */
export function referenceStepMessage(
  path: string,
  turn: number,
  memory: readonly ChatMessage[],
  code: string,
  feedback: string,
  result: string,
): string {
  return [
    `# Turn ${turn}`,
    "## Memory (earlier steps)",
    memory.length ? transcript([...memory]) : "No history yet.",
    "",
    `## Current target file \`${path}\``,
    code.trim() === "" ? "(empty)" : fence(code),
    "",
    "## Feedback on the last submission",
    feedback,
    "",
    "## Result of the last action",
    result,
    "",
    "Reply with a reflection and one action.",
  ].join("\n");
}

/** The `agent` and `memory_agent` settings of the reference profile. */
export class ReferenceAgent extends ConversationAgent implements Agent {
  constructor(
    readonly setting: "agent" | "memory_agent",
    private readonly model: ChatModel,
    private readonly opts: ResolvedAgentOptions,
  ) {
    super();
  }

  async runTurn(input: AgentTurnInput): Promise<AgentTurnOutput> {
    checkTurnInput(input);
    const started = performance.now();
    const { task, turn, signal } = input;
    if (turn === 0 || (this.taskId !== null && this.taskId !== task.id)) this.reset();
    const { maxSteps } = this.opts;
    const system: ChatMessage = { role: "system", content: taskSystemPrompt(task, this.setting, maxSteps, this.opts.retrieveTopK) };
    const feedback = turn === 0 ? "No feedback yet." : (input.feedback ?? "").trim() || "No feedback.";
    let result = input.testLog?.trim() ? `Result of the last submission (unit tests):\n${input.testLog.trim()}` : NO_ACTION_RESULT;
    let code = input.currentCode;
    const out: ChatMessage[] = [];
    const actions: AgentAction[] = [];
    let tokens: TokenCounts = { prompt: 0, completion: 0 };
    let modelCalls = 0;
    let submitted = false;
    for (let step = 1; step <= maxSteps && !submitted; step++) {
      signal?.throwIfAborted();
      if (this.memory.length > this.opts.memoryThreshold) {
        const older = this.memory.slice(0, -this.opts.keepRecent);
        const res = await this.model.chat({
          messages: [
            { role: "system", content: SUMMARY_SYSTEM_PROMPT },
            { role: "user", content: `Summarise this history:\n\n${transcript(older)}` },
          ],
          temperature: 0,
          topP: 1,
          signal,
        });
        modelCalls++;
        tokens = addTokens(tokens, callTokens(res.usage));
        const summary: ChatMessage = { role: "system", content: `${REFERENCE_SUMMARY_PREFIX}\n${res.content.trim()}` };
        this.memory = [summary, ...this.memory.slice(-this.opts.keepRecent)];
        out.push(summary);
      }
      const user: ChatMessage = {
        role: "user",
        content: referenceStepMessage(task.meta.target_file_path, turn, this.memory, code, feedback, result),
      };
      const res = await this.model.chat({ messages: [system, user], temperature: 0, topP: 1, signal });
      modelCalls++;
      tokens = addTokens(tokens, callTokens(res.usage));
      out.push(user, assistantMessage(res));
      this.memory.push({ role: "user", content: result }, { role: "assistant", content: res.content });
      const stepsLeft = maxSteps - step;
      const parsed = res.truncated ? null : parseStep(res.content);
      const outcome = stepOutcome(task, parsed, code, stepsLeft, this.opts.retrieveTopK);
      actions.push(outcome.action);
      if (outcome.code !== undefined) code = outcome.code;
      if (outcome.observation === null) submitted = true;
      else result = outcome.observation;
    }
    if (!submitted) actions.push(autoSubmitAction(maxSteps));
    this.taskId = task.id;
    this.lastTurn = turn;
    return { code, messages: out, actions, tokens, modelCalls, latencyMs: performance.now() - started };
  }
}
