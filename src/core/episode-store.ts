/**
 * Where the episodes of the interaction protocol are kept between turns: the
 * one interface the episode runner ({@link runTaskEpisodes} in
 * task-episodes.ts) saves to and resumes from. The run folder of `recode run`
 * (src/cli/run-folder.ts) and the page's IndexedDB (src/store) implement it.
 */
import type { AgentMemoryState, AgentSetting } from "./agent/types";
import type { SharedTurn0, Turn0Partial } from "./episode";
import type { FeedbackLevel } from "./feedback";
import type { ProtocolProfile } from "./protocol";
import type { Trajectory } from "./trajectory";

/** The shared turn 0 of one (model, researcher, setting, task): every level of it starts there. */
export interface Turn0Id {
  /** Coder model id, e.g. `ollama:qwen2.5-coder:7b`. */
  model: string;
  /** Researcher id, e.g. `rules`. */
  researcher: string;
  setting: AgentSetting;
  taskId: string;
  /** Protocol profile (absent: `playground`). A run folder holds one profile; the page's store keys by it. */
  protocol?: ProtocolProfile;
}

/** One episode: a shared turn 0 and a feedback level. */
export interface EpisodeId extends Turn0Id {
  level: FeedbackLevel;
}

/** A saved episode: its trajectory, and the agent memory after its last saved turn (null when not kept, e.g. an import). */
export interface SavedEpisode {
  trajectory: Trajectory;
  memory: AgentMemoryState | null;
}

/** What a read found: the record, or nothing; `problem` says why a stored record could not be read (it was set aside, not deleted). */
export interface StoreRead<T> {
  value: T | null;
  /** Names the record (file or key) and the field at fault, and where the record was set aside; null when nothing was wrong. */
  problem: string | null;
}

/**
 * Storage of episodes. Reads check the record's shape; a record that cannot
 * be read is set aside by the store (kept, never deleted) and reported as
 * `problem`, so the episode runs again without losing it. Writes replace the
 * record whole (a crash never leaves half of one).
 * Every method may reject with an error that names the record and the cause
 * (a full disk, a closed database).
 */
export interface EpisodeStore {
  readEpisode(id: EpisodeId): Promise<StoreRead<SavedEpisode>>;
  /** Save an episode after a turn (its id is read from the trajectory). */
  writeEpisode(trajectory: Trajectory, memory: AgentMemoryState | null): Promise<void>;
  readTurn0(id: Turn0Id): Promise<StoreRead<SharedTurn0>>;
  /** Save the shared turn 0 (and forget the partial turn 0 of the same id). */
  writeTurn0(turn0: SharedTurn0): Promise<void>;
  /** The coder's turn 0 whose review failed, reused by the next try so that the coder is not asked again. */
  readTurn0Partial(id: Turn0Id): Promise<StoreRead<Turn0Partial>>;
  writeTurn0Partial(id: Turn0Id, partial: Turn0Partial): Promise<void>;
}

/** The id of the episode a trajectory belongs to. */
export function episodeIdOf(t: Pick<Trajectory, "config" | "versions">): EpisodeId {
  return {
    model: t.config.model,
    researcher: t.config.researcher,
    setting: t.config.setting,
    level: t.config.level,
    taskId: t.versions.task.id,
    protocol: t.config.protocol,
  };
}
