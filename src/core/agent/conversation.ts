/**
 * The memory the tool-using coders keep between turns (the playground's
 * ReCodeAgent and the reference profile's agent): the messages, the task they
 * belong to and the last turn, with the Agent interface's reset, snapshot and
 * restore.
 */
import type { ChatMessage } from "../model";
import type { AgentMemoryState } from "./types";
import { checkMemoryState } from "./validate";

/** Base of the agents that keep a conversation: `memory`, `taskId` and `lastTurn`, as {@link AgentMemoryState} holds them. */
export abstract class ConversationAgent {
  protected memory: ChatMessage[] = [];
  protected taskId: string | null = null;
  protected lastTurn = -1;

  /** Forget everything: a new episode. */
  reset(): void {
    this.memory = [];
    this.taskId = null;
    this.lastTurn = -1;
  }

  /** Copy of the memory (messages are copied). */
  snapshot(): AgentMemoryState {
    return { taskId: this.taskId, lastTurn: this.lastTurn, messages: this.memory.map((m) => ({ ...m })) };
  }

  /** Replace the memory with a copy of `state`. @throws TypeError naming the field when `state` is not an AgentMemoryState. */
  restore(state: AgentMemoryState): void {
    checkMemoryState(state);
    this.memory = state.messages.map((m) => ({ ...m }));
    this.taskId = state.taskId;
    this.lastTurn = state.lastTurn;
  }
}
