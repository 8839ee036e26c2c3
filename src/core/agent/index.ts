/**
 * The coder seat driven by a model: `createAgent(setting, model, options)` builds the RECODE-H
 * `baseline`, `agent` or `memory_agent` (RECODE-H.md, "Interaction protocol").
 */
import type { ChatModel } from "../model";
import { BaselineAgent } from "./baseline";
import { ReCodeAgent } from "./recode-agent";
import { ReferenceAgent } from "./reference-agent";
import { withRetryWaits } from "./retry-waits";
import { AGENT_SETTINGS, type Agent, type AgentOptions, type AgentSetting } from "./types";
import { resolveOptions } from "./validate";

export { normalisePath, resolveRepoPath, runAction } from "./actions";
export { BaselineAgent } from "./baseline";
export { type CompactOptions, type CompactResult, compactMemory, transcript } from "./memory";
export {
  extractPythonCode,
  type FencedBlock,
  fencedBlocks,
  type ParsedStep,
  parseStep,
  type StepActionName,
  type StepError,
} from "./parse";
export {
  fence,
  MAX_OBSERVATION_CHARS,
  MEMORY_SUMMARY_PREFIX,
  repoFileList,
  SUMMARY_SYSTEM_PROMPT,
  taskSystemPrompt,
  turnMessage,
} from "./prompts";
export { ReCodeAgent } from "./recode-agent";
export { NO_ACTION_RESULT, REFERENCE_SUMMARY_PREFIX, ReferenceAgent, referenceStepMessage } from "./reference-agent";
export { extractDefinitions, type RepoDefinition, RepoRetriever, type RetrievalHit, retrieverFor } from "./retrieve";
export * from "./types";
export { type ResolvedAgentOptions, resolveOptions } from "./validate";

/**
 * Build the coder seat for a setting.
 * - `baseline`: one model call per turn returning the whole target file; no tools, no memory.
 * - `agent`: ReCodeAgent, at most `maxSteps` actions a turn, each turn starts afresh from the task,
 *   the current code and the feedback.
 * - `memory_agent`: as `agent`, and the conversation carries over between turns; once it holds more
 *   than `memoryThreshold` messages, everything but the first (task) message and the last
 *   `keepRecent` is summarised by the same model into one message.
 *
 * Under the `reference` profile (src/core/protocol.ts) the seats behave like the official harness: the
 * baseline appends the reply's code blocks to the target file, and the tool-using settings are the
 * {@link ReferenceAgent}.
 *
 * Each turn's output says in `retryWaitMs` how much of its time its model calls waited to be retried.
 *
 * Defaults (RECODE-H): maxSteps 3, memoryThreshold 15, keepRecent 5. Model calls use temperature 0,
 * top-p 1. Throws RangeError for an unknown setting or a bad option (the message names it); model
 * errors (ModelError) reach the caller of `runTurn` unchanged.
 */
export function createAgent(setting: AgentSetting, model: ChatModel, options: AgentOptions = {}): Agent {
  const opts = resolveOptions(options);
  if (!model || typeof model.chat !== "function") throw new TypeError("createAgent: model must be a ChatModel (with a chat() method)");
  if (!AGENT_SETTINGS.includes(setting)) {
    throw new RangeError(`createAgent: unknown setting "${String(setting)}"; expected one of ${AGENT_SETTINGS.join(", ")}`);
  }
  // Each turn says how long its model calls waited to be retried (retry-waits.ts).
  return withRetryWaits(model, (counted) =>
    setting === "baseline"
      ? new BaselineAgent(counted, { append: opts.profile === "reference" })
      : opts.profile === "reference"
        ? new ReferenceAgent(setting, counted, opts)
        : new ReCodeAgent(setting, counted, opts),
  );
}
