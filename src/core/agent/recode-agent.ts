/**
 * ReCodeAgent (RECODE-H, "Interaction protocol"): each step the model writes a reflection and one
 * action (READ, BROWSE, RETRIEVE, REPLACE, SUBMIT); at most `maxSteps` actions a turn, then the
 * target file is submitted automatically; a malformed reply gets a correction and uses a step.
 * Settings `agent` (no memory across turns) and `memory_agent` (the conversation carries over and is
 * summarised past a threshold).
 */
import { addTokens, assistantMessage, type ChatMessage, type ChatModel, callTokens, type TokenCounts } from "../model";
import { autoSubmitAction, stepOutcome } from "./actions";
import { ConversationAgent } from "./conversation";
import { compactMemory } from "./memory";
import { parseStep } from "./parse";
import { taskSystemPrompt, turnMessage } from "./prompts";
import type { Agent, AgentAction, AgentTurnInput, AgentTurnOutput } from "./types";
import { checkTurnInput, type ResolvedAgentOptions } from "./validate";

/** Tool-using coder for the `agent` and `memory_agent` settings. */
export class ReCodeAgent extends ConversationAgent implements Agent {
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
    const { task, turn, feedback, signal } = input;
    const remember = this.setting === "memory_agent";
    if (remember && turn === 0) this.reset();
    if (remember && this.taskId !== null && this.taskId !== task.id) {
      throw new RangeError(
        `memory_agent holds the memory of task "${this.taskId}" but turn ${turn} is for task "${task.id}"; call reset() or start at turn 0`,
      );
    }
    const { maxSteps } = this.opts;
    let conv: ChatMessage[] =
      remember && this.memory.length > 0
        ? [...this.memory]
        : [{ role: "system", content: taskSystemPrompt(task, this.setting, maxSteps, this.opts.retrieveTopK) }];
    const out: ChatMessage[] = [];
    const actions: AgentAction[] = [];
    let tokens: TokenCounts = { prompt: 0, completion: 0 };
    let modelCalls = 0;
    let code = input.currentCode;
    const push = (m: ChatMessage) => {
      conv.push(m);
      out.push(m);
    };
    push({ role: "user", content: turnMessage(task, this.setting, turn, code, feedback) });

    let submitted = false;
    for (let step = 1; step <= maxSteps && !submitted; step++) {
      signal?.throwIfAborted();
      if (remember) {
        const c = await compactMemory(this.model, conv, { threshold: this.opts.memoryThreshold, keepRecent: this.opts.keepRecent, signal });
        if (c.summary) {
          conv = c.messages;
          out.push(c.summary);
          tokens = addTokens(tokens, callTokens(c.usage));
          modelCalls += c.modelCalls;
        }
      }
      const res = await this.model.chat({ messages: [...conv], temperature: 0, topP: 1, signal });
      modelCalls++;
      tokens = addTokens(tokens, callTokens(res.usage));
      conv.push({ role: "assistant", content: res.content });
      out.push(assistantMessage(res));
      const stepsLeft = maxSteps - step;
      // A reply cut at the token limit may hold half a file: nothing in it is applied, and the agent is told.
      const parsed = res.truncated ? null : parseStep(res.content);
      const outcome = stepOutcome(task, parsed, code, stepsLeft, this.opts.retrieveTopK);
      actions.push(outcome.action);
      if (outcome.code !== undefined) code = outcome.code;
      if (outcome.observation === null) submitted = true;
      else if (stepsLeft > 0) push({ role: "user", content: outcome.observation });
    }
    if (!submitted) actions.push(autoSubmitAction(maxSteps));
    if (remember) {
      this.memory = conv;
      this.taskId = task.id;
      this.lastTurn = turn;
    }
    return { code, messages: out, actions, tokens, modelCalls, latencyMs: performance.now() - started };
  }
}
