/** Checks of agent inputs and options, with errors that name the field. */
import { DEFAULT_PROTOCOL, PROTOCOL_PROFILES, type ProtocolProfile, retrieveTopK } from "../protocol";
import type { AgentMemoryState, AgentOptions, AgentTurnInput } from "./types";

/** Options with defaults applied (RECODE-H: 3 actions per turn, summarise past 15 messages, keep 5). */
export interface ResolvedAgentOptions {
  maxSteps: number;
  memoryThreshold: number;
  keepRecent: number;
  profile: ProtocolProfile;
  /** Hits RETRIEVE returns (3 in the playground, 5 in the reference profile). */
  retrieveTopK: number;
}

/**
 * Apply defaults and check: maxSteps integer >= 1; keepRecent integer >= 1; memoryThreshold integer
 * >= keepRecent + 2 (so that summarising shortens the conversation). Throws RangeError naming the option.
 */
export function resolveOptions(opts: AgentOptions = {}): ResolvedAgentOptions {
  const maxSteps = opts.maxSteps ?? 3;
  const memoryThreshold = opts.memoryThreshold ?? 15;
  const keepRecent = opts.keepRecent ?? 5;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new RangeError(`agent option maxSteps must be an integer >= 1, got ${maxSteps}`);
  if (!Number.isInteger(keepRecent) || keepRecent < 1)
    throw new RangeError(`agent option keepRecent must be an integer >= 1, got ${keepRecent}`);
  if (!Number.isInteger(memoryThreshold) || memoryThreshold < keepRecent + 2) {
    throw new RangeError(`agent option memoryThreshold must be an integer >= keepRecent + 2 (${keepRecent + 2}), got ${memoryThreshold}`);
  }
  const profile = opts.profile ?? DEFAULT_PROTOCOL;
  if (!PROTOCOL_PROFILES.includes(profile))
    throw new RangeError(`agent option profile must be one of ${PROTOCOL_PROFILES.join(", ")}, got ${String(profile)}`);
  return { maxSteps, memoryThreshold, keepRecent, profile, retrieveTopK: retrieveTopK(profile) };
}

/** Throw a TypeError/RangeError naming the first bad field of a turn input. */
export function checkTurnInput(input: AgentTurnInput): void {
  if (input === null || typeof input !== "object") throw new TypeError("agent turn input must be an object");
  const task = input.task as Partial<AgentTurnInput["task"]> | undefined;
  if (!task || typeof task !== "object" || typeof task.meta?.target_file_path !== "string" || typeof task.repo !== "object") {
    throw new TypeError("agent turn input field task: expected a loaded Task (with meta.target_file_path and repo)");
  }
  if (!Number.isInteger(input.turn) || input.turn < 0) {
    throw new RangeError(`agent turn input field turn: expected an integer >= 0, got ${String(input.turn)}`);
  }
  if (typeof input.currentCode !== "string") {
    throw new TypeError(`agent turn input field currentCode: expected a string, got ${typeof input.currentCode}`);
  }
  if (input.feedback !== null && typeof input.feedback !== "string") {
    throw new TypeError(`agent turn input field feedback: expected a string or null, got ${typeof input.feedback}`);
  }
  if (input.testLog !== undefined && typeof input.testLog !== "string") {
    throw new TypeError(`agent turn input field testLog: expected a string, got ${typeof input.testLog}`);
  }
  if (input.turn === 0 && input.feedback !== null) {
    throw new RangeError("agent turn input field feedback: must be null at turn 0 (turn 0 is generated without feedback)");
  }
}

/** Throw a TypeError naming the field when `state` is not an AgentMemoryState. */
export function checkMemoryState(state: AgentMemoryState): void {
  if (state === null || typeof state !== "object") throw new TypeError("agent memory state must be an object");
  if (state.taskId !== null && typeof state.taskId !== "string")
    throw new TypeError("agent memory state field taskId: expected a string or null");
  if (!Number.isInteger(state.lastTurn) || state.lastTurn < -1)
    throw new TypeError("agent memory state field lastTurn: expected an integer >= -1");
  if (!Array.isArray(state.messages)) throw new TypeError("agent memory state field messages: expected an array");
  state.messages.forEach((m, i) => {
    if (!m || !["system", "user", "assistant"].includes(m.role) || typeof m.content !== "string") {
      throw new TypeError(`agent memory state field messages[${i}]: expected { role: system|user|assistant, content: string }`);
    }
  });
}
