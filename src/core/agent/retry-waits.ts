/**
 * The waits before retried model calls, apart from the agent's own time: a turn's `latencyMs` includes them
 * (a server's 429 with Retry-After, backoff after a 5xx), and the trajectory records them on their own
 * (`timings.retryWaitMs`), so that the agent's time is what the model and the tools took.
 */
import type { ChatModel, ChatRequest, ChatResponse } from "../model";
import type { Agent, AgentTurnInput, AgentTurnOutput } from "./types";

/**
 * `build`'s agent over a model that passes every call to `model` and adds up the replies' `retryWaitMs`; each
 * turn's output says the waits of that turn's calls in `retryWaitMs` (absent when there were none).
 */
export function withRetryWaits(model: ChatModel, build: (model: ChatModel) => Agent): Agent {
  let waited = 0;
  const counted: ChatModel = {
    id: model.id,
    async chat(req: ChatRequest): Promise<ChatResponse> {
      const res = await model.chat(req);
      waited += res.retryWaitMs ?? 0;
      return res;
    },
  };
  const agent = build(counted);
  return {
    get setting() {
      return agent.setting;
    },
    async runTurn(input: AgentTurnInput): Promise<AgentTurnOutput> {
      waited = 0;
      const out = await agent.runTurn(input);
      return waited > 0 ? { ...out, retryWaitMs: Math.min(waited, out.latencyMs) } : out;
    },
    reset: () => agent.reset(),
    snapshot: () => agent.snapshot(),
    restore: (state) => agent.restore(state),
  };
}
