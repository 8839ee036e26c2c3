/**
 * Stored records of agent runs: trajectories (saved after every turn), the
 * shared turn 0 and the partial turn 0, their store keys and their upgrades.
 * Loaded when the page first reads or writes an agent run (not in its first
 * load: the trajectory schema is large).
 */
import type { AgentMemoryState } from "../core/agent/types";
import type { SharedTurn0, Turn0Partial } from "../core/episode";
import { restoreAgentMemory, restoreSharedTurn0, restoreTurn0Partial } from "../core/episode-records";
import { DEFAULT_PROTOCOL, type ProtocolProfile } from "../core/protocol";
import { restoreTrajectory, type Trajectory } from "../core/trajectory";
import { RecordError, versionOf } from "./records";

/** Current version of stored trajectory records (the wrapper; the trajectory has its own schemaVersion). */
export const TRAJECTORY_RECORD_VERSION = 1;
/** Current version of stored turn-0 records. */
export const TURN0_RECORD_VERSION = 1;

/** Where a stored trajectory came from. */
export type TrajectorySource = "page" | "import";

/**
 * One episode (model x setting x feedback level x researcher x task) as the
 * page stores it: the trajectory in the current trajectory schema and the
 * agent memory after its last saved turn (for resume; null for imports).
 */
export interface TrajectoryRecord {
  version: typeof TRAJECTORY_RECORD_VERSION;
  /** Store key, see trajectoryKey. */
  key: string;
  trajectory: Trajectory;
  memory: AgentMemoryState | null;
  source: TrajectorySource;
  /** File the trajectory was imported from, or null. */
  fileName: string | null;
  /** When it was last saved, in milliseconds since the Unix epoch. */
  savedAt: number;
}

/** The shared turn 0 of one (model, researcher, setting, task), reused by every feedback level. */
export interface Turn0Record {
  version: typeof TURN0_RECORD_VERSION;
  key: string;
  turn0: SharedTurn0;
  savedAt: number;
}

/** The protocol part of a key: none for `playground` (so keys written before profiles stay valid), else the profile. */
function protocolPart(protocol: ProtocolProfile | undefined): string[] {
  return protocol && protocol !== DEFAULT_PROTOCOL ? [protocol] : [];
}

/**
 * Store key of an episode: model, researcher, setting, level, task, the
 * protocol profile unless `playground`, and `native` when its tests ran
 * natively (an episode imported from a `recode run --backend native` folder
 * is kept beside the page's own Pyodide episode of the same model, level and
 * task, not in its place).
 */
export function trajectoryKey(t: Pick<Trajectory, "config" | "versions"> & { turns?: readonly { run: { backend: string } }[] }): string {
  return JSON.stringify([
    t.config.model,
    t.config.researcher,
    t.config.setting,
    t.config.level,
    t.versions.task.id,
    ...protocolPart(t.config.protocol),
    ...(t.turns?.[0]?.run.backend === "native" ? ["native"] : []),
  ]);
}

/** Store key of a shared turn 0: model, researcher, setting, task, and the protocol profile unless `playground`. */
export function turn0Key(model: string, researcher: string, setting: string, taskId: string, protocol?: ProtocolProfile): string {
  return JSON.stringify([model, researcher, setting, taskId, ...protocolPart(protocol)]);
}

/**
 * Upgrade a stored trajectory record; the trajectory inside goes through
 * restoreTrajectory (any trajectory schema version this build reads).
 * @throws RecordError naming the key and the field when it cannot be read.
 */
export function restoreTrajectoryRecord(key: string, raw: unknown): TrajectoryRecord {
  versionOf("trajectories", key, raw, TRAJECTORY_RECORD_VERSION);
  const rec = raw as Record<string, unknown>;
  let trajectory: Trajectory;
  try {
    trajectory = restoreTrajectory(rec.trajectory);
  } catch (e) {
    throw new RecordError("trajectories", key, `field trajectory: ${(e as Error).message}`);
  }
  let memory: AgentMemoryState | null = null;
  if (rec.memory !== null && rec.memory !== undefined) {
    try {
      memory = restoreAgentMemory(rec.memory, "memory");
    } catch (e) {
      throw new RecordError("trajectories", key, `field ${(e as Error).message}`);
    }
  }
  return {
    version: TRAJECTORY_RECORD_VERSION,
    key,
    trajectory,
    memory,
    source: rec.source === "import" ? "import" : "page",
    fileName: typeof rec.fileName === "string" ? rec.fileName : null,
    savedAt: typeof rec.savedAt === "number" ? rec.savedAt : 0,
  };
}

/**
 * Upgrade a stored turn-0 record.
 * @throws RecordError when the record is malformed or from a newer version.
 */
export function restoreTurn0Record(key: string, raw: unknown): Turn0Record {
  versionOf("turn0", key, raw, TURN0_RECORD_VERSION);
  const rec = raw as Record<string, unknown>;
  let turn0: SharedTurn0;
  try {
    turn0 = restoreSharedTurn0(rec.turn0, "turn0");
  } catch (e) {
    throw new RecordError("turn0", key, `field ${(e as Error).message}`);
  }
  return { version: TURN0_RECORD_VERSION, key, turn0, savedAt: typeof rec.savedAt === "number" ? rec.savedAt : 0 };
}

/** Current version of stored partial turn-0 records. */
export const TURN0_PARTIAL_RECORD_VERSION = 1;

/** The coder's turn 0 of one (model, researcher, setting, task) whose review failed, kept so that the next try only redoes the review. */
export interface Turn0PartialRecord {
  version: typeof TURN0_PARTIAL_RECORD_VERSION;
  key: string;
  partial: Turn0Partial;
  savedAt: number;
}

/** Store key of a partial turn 0 (in the `turn0` store, beside the shared turn 0 of the same key). */
export function turn0PartialKey(model: string, researcher: string, setting: string, taskId: string, protocol?: ProtocolProfile): string {
  return `partial:${turn0Key(model, researcher, setting, taskId, protocol)}`;
}

/**
 * Upgrade a stored partial turn-0 record.
 * @throws RecordError naming the key and the field.
 */
export function restoreTurn0PartialRecord(key: string, raw: unknown): Turn0PartialRecord {
  versionOf("turn0", key, raw, TURN0_PARTIAL_RECORD_VERSION);
  const rec = raw as Record<string, unknown>;
  let partial: Turn0Partial;
  try {
    partial = restoreTurn0Partial(rec.partial, "partial");
  } catch (e) {
    throw new RecordError("turn0", key, `field ${(e as Error).message}`);
  }
  return { version: TURN0_PARTIAL_RECORD_VERSION, key, partial, savedAt: typeof rec.savedAt === "number" ? rec.savedAt : 0 };
}
