/**
 * The coder seat: the per-turn contract between the episode runner and an
 * agent (RECODE-H.md, "Interaction protocol"; RECODE-H paper, the ReCodeAgent
 * and its `baseline` / `agent` / `memory_agent` settings).
 */
import type { ChatMessage, TokenCounts } from "../model";
import type { ProtocolProfile } from "../protocol";
import type { Task } from "../task";

/**
 * How the coder seat works (RECODE-H, "Interaction protocol", settings; declared in vocabulary.ts):
 * - `baseline`: one-shot generation each turn, no tools, no memory.
 * - `agent`: ReCodeAgent with tools (READ, BROWSE, RETRIEVE, REPLACE, SUBMIT), no memory across turns.
 * - `memory_agent`: ReCodeAgent with tools and memory across turns (the paper's setting).
 */
export { AGENT_SETTINGS, type AgentSetting } from "../vocabulary";

import type { AgentSetting } from "../vocabulary";

/** What the episode runner hands the agent for one turn. */
export interface AgentTurnInput {
  /** The task: instruction, paper (LaTeX), repo files, meta.target_file_path, starter. */
  task: Task;
  /** 0-based turn index (RECODE-H: turns 0..9). Turn 0 has no feedback and starts a new episode. */
  turn: number;
  /** Target file text before this turn (the starter at turn 0). */
  currentCode: string;
  /** Rendered test log + researcher feedback for the last submission; must be null at turn 0. */
  feedback: string | null;
  /**
   * Reference profile only: the test log of the last submission, handed apart from `feedback`
   * (the official harness gives it to a `memory_agent` as the result of its last action, and keeps
   * it in memory, while the feedback is not kept). Absent or "" when the setting does not see it.
   */
  testLog?: string;
  /** Aborts the turn between model calls and inside them (the provider honours it). */
  signal?: AbortSignal;
}

/**
 * Kind of one agent step.
 * `READ`, `BROWSE`, `RETRIEVE`, `REPLACE`, `SUBMIT` are the ReCodeAgent actions;
 * `INVALID` is a malformed reply (it got a correction message and used a step);
 * `AUTO_SUBMIT` records that the step limit ended the turn; the baseline records one `REPLACE` per turn.
 */
export type AgentActionType = "READ" | "BROWSE" | "RETRIEVE" | "REPLACE" | "SUBMIT" | "INVALID" | "AUTO_SUBMIT";

/** One step of a turn, as recorded in the trajectory. */
export interface AgentAction {
  type: AgentActionType;
  /**
   * READ: the repo path read; BROWSE: the folder prefix (usually ""); RETRIEVE: the query;
   * REPLACE: the new target file text; SUBMIT / AUTO_SUBMIT: ""; INVALID: the offending action line ("" when none).
   */
  argument: string;
  /** Short summary of the outcome, e.g. `read decoding/vocab.py (42 lines)`, or what was wrong for INVALID. */
  result: string;
}

/** What one turn produced. */
export interface AgentTurnOutput {
  /** The target file submitted at the end of the turn (currentCode when the agent never replaced it). */
  code: string;
  /**
   * This turn's exchange, in order: the turn's user message, the model's replies, the tool
   * observations and corrections sent back, and (memory_agent) any memory summary message created
   * this turn. The task (system) message, which is the same every turn, is not repeated here; see
   * `taskSystemPrompt` in ./prompts.
   */
  messages: ChatMessage[];
  /** The steps taken, in order. */
  actions: AgentAction[];
  /** Tokens over every model call of the turn (memory summaries included), as providers report them. */
  tokens: TokenCounts;
  /** Number of model calls this turn (memory summaries included). */
  modelCalls: number;
  /** Wall time of the turn in milliseconds (model calls and tools), the waits before retried model calls included. */
  latencyMs: number;
  /** Milliseconds of `latencyMs` spent waiting before retried model calls (ChatResponse.retryWaitMs over the turn's calls). */
  retryWaitMs?: number;
}

/**
 * Conversation state of a `memory_agent` (empty for the other settings). JSON-serialisable, so a
 * runner can take it after the shared turn 0 and restore it into the agent of each feedback level.
 */
export interface AgentMemoryState {
  /** Task the memory belongs to; null when empty. */
  taskId: string | null;
  /** Last turn run, -1 when none. */
  lastTurn: number;
  /** The conversation: the task (system) message first, then turns, with older turns summarised. */
  messages: ChatMessage[];
}

/** A coder seat driven by a ChatModel. */
export interface Agent {
  readonly setting: AgentSetting;
  /**
   * Run one turn. Rejects with the provider's ModelError unchanged when a model call fails, with the
   * signal's reason when aborted, and with a RangeError/TypeError naming the field for bad input.
   * On rejection the agent's memory is left as it was before the turn.
   */
  runTurn(input: AgentTurnInput): Promise<AgentTurnOutput>;
  /**
   * Forget everything: a new episode. Turn 0 also starts a new episode by itself; a memory_agent
   * asked for a later turn with an empty memory starts afresh from the task message.
   */
  reset(): void;
  /** Copy of the memory (messages are copied). */
  snapshot(): AgentMemoryState;
  /** Replace the memory with a copy of `state` (e.g. the state after a shared turn 0). */
  restore(state: AgentMemoryState): void;
}

/** Options of {@link createAgent}. */
export interface AgentOptions {
  /** Protocol profile (src/core/protocol.ts); default `playground`. */
  profile?: ProtocolProfile;
  /** Actions per turn before the target file is submitted automatically. Integer >= 1. Default 3 (RECODE-H). */
  maxSteps?: number;
  /** memory_agent: summarise once the conversation holds more than this many messages. Default 15 (RECODE-H). */
  memoryThreshold?: number;
  /** memory_agent: messages kept verbatim at the end when summarising. Default 5 (RECODE-H). */
  keepRecent?: number;
}
