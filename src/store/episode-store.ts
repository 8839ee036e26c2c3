/**
 * The page's stored trajectories as the episode runner's store
 * (src/core/episode-store.ts): episodes, the shared turn 0 and the partial
 * turn 0 live in IndexedDB (or memory) through {@link TrajectoryRepository}.
 * An unreadable record is moved to the `unreadable` store by the repository
 * and reported; the work it held runs again.
 */
import type { EpisodeStore } from "../core/episode-store";
import type { TrajectoryRepository } from "./repositories";
import { trajectoryKey, turn0Key, turn0PartialKey } from "./trajectory-records";

/** An {@link EpisodeStore} over the page's trajectory repository. */
export function repositoryEpisodeStore(repo: TrajectoryRepository): EpisodeStore {
  return {
    async readEpisode(id) {
      const key = trajectoryKey({
        config: { model: id.model, researcher: id.researcher, setting: id.setting, level: id.level, protocol: id.protocol },
        versions: { task: { id: id.taskId } },
      } as Parameters<typeof trajectoryKey>[0]);
      const r = await repo.get(key);
      return { value: r.value ? { trajectory: r.value.trajectory, memory: r.value.memory } : null, problem: r.problem };
    },
    async writeEpisode(trajectory, memory) {
      await repo.save(trajectory, memory);
    },
    async readTurn0(id) {
      const r = await repo.getTurn0(turn0Key(id.model, id.researcher, id.setting, id.taskId, id.protocol));
      return { value: r.value?.turn0 ?? null, problem: r.problem };
    },
    async writeTurn0(turn0) {
      await repo.saveTurn0(turn0);
    },
    async readTurn0Partial(id) {
      const r = await repo.getTurn0Partial(turn0PartialKey(id.model, id.researcher, id.setting, id.taskId, id.protocol));
      return { value: r.value?.partial ?? null, problem: r.problem };
    },
    async writeTurn0Partial(id, partial) {
      await repo.saveTurn0Partial(turn0PartialKey(id.model, id.researcher, id.setting, id.taskId, id.protocol), partial);
    },
  };
}
