/**
 * Researchers (the feedback side of RECODE-H's interaction protocol): rules,
 * llm, human and replay, and {@link researcherFromSpec} to pick one by name.
 */
import type { Researcher } from "../feedback";
import type { ChatModel } from "../model";
import { createLlmResearcher, type LlmResearcherOptions } from "./llm";
import { createRulesResearcher } from "./rules";

export { createHumanResearcher, type HumanFeedbackCallback } from "./human";
export {
  buildResearcherPrompt,
  createLlmResearcher,
  extractJsonObject,
  LlmFeedbackSchema,
  type LlmResearcherOptions,
  parseResearcherReply,
} from "./llm";
export { createReplayResearcher, replayKey, type StoredFeedback } from "./replay";
export { createRulesResearcher, type RulesResearcherOptions } from "./rules";

/** What {@link researcherFromSpec} needs to build model-backed researchers. */
export interface ResearcherDeps {
  /** Build a chat model from a model spec such as `openai:gpt-4o-mini`. */
  model?: (spec: string) => ChatModel;
  llm?: LlmResearcherOptions;
}

/**
 * Researcher from a spec string: `rules`, or `llm:<model spec>` (e.g.
 * `llm:openai:gpt-4o-mini`, built with `deps.model`). Throws an Error that
 * says what was wrong: an unknown spec (listing the valid forms), an empty
 * model spec, or `llm:` without a `deps.model` factory. `human` and `replay`
 * need a callback or stored records: use createHumanResearcher / createReplayResearcher.
 */
export function researcherFromSpec(spec: string, deps: ResearcherDeps = {}): Researcher {
  const s = spec.trim();
  if (s === "rules") return createRulesResearcher();
  if (s.startsWith("llm:")) {
    const modelSpec = s.slice(4).trim();
    if (!modelSpec) throw new Error(`researcher spec "${spec}": name the model after "llm:", e.g. llm:openai:gpt-4o-mini`);
    if (!deps.model) throw new Error(`researcher spec "${spec}": no model factory was given to build "${modelSpec}"`);
    return createLlmResearcher(deps.model(modelSpec), deps.llm);
  }
  if (s === "human" || s === "replay") {
    throw new Error(
      `researcher spec "${spec}": the ${s} researcher cannot be built from a spec; it needs ${s === "human" ? "a feedback form callback" : "stored records"}`,
    );
  }
  throw new Error(`unknown researcher spec "${spec}": use "rules" or "llm:<provider>:<model>"`);
}
