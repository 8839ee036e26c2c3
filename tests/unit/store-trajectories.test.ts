import "fake-indexeddb/auto";
import { readFileSync } from "node:fs";
import { openDB } from "idb";
import { describe, expect, it } from "vitest";
import type { SharedTurn0 } from "../../src/core/episode";
import { restoreTrajectory, type Trajectory } from "../../src/core/trajectory";
import { DB_VERSION } from "../../src/store/db";
import { RecordError, restoreModelSettings } from "../../src/store/records";
import { memoryStore, openRepositories, repositoriesOver } from "../../src/store/repositories";
import { restoreTrajectoryRecord, trajectoryKey, turn0Key } from "../../src/store/trajectory-records";

let n = 0;
const freshName = () => `recode-traj-${Date.now()}-${n++}`;
const V2 = JSON.parse(readFileSync("tests/fixtures/trajectories/v4-current.json", "utf8")) as unknown;
const V1 = JSON.parse(readFileSync("tests/fixtures/trajectories/v1-solved-turn1.json", "utf8")) as unknown;

/** Schema version 1 as the first released page created it (drafts, settings, runs, unreadable). */
async function createVersion1Db(name: string): Promise<void> {
  const db = await openDB(name, 1, {
    upgrade(d) {
      d.createObjectStore("drafts");
      d.createObjectStore("settings");
      d.createObjectStore("runs");
      d.createObjectStore("unreadable", { autoIncrement: true });
    },
  });
  await db.put("drafts", { version: 1, taskId: "min-p-sampling", code: "draft text", updatedAt: 5, taskHash: "h" }, "min-p-sampling");
  await db.put("drafts", "a bare version-0 draft", "pass-at-k");
  await db.put("settings", { version: 1, indexURL: "/py/", packageBaseUrl: "" }, "settings");
  await db.put(
    "runs",
    {
      version: 1,
      taskId: "min-p-sampling",
      code: "draft text",
      finishedAt: 9,
      result: { tests: [], counts: { total: 0, passed: 0, failed: 0, error: 0, skipped: 0, timeout: 0 } },
    },
    "min-p-sampling",
  );
  db.close();
}

function unfinished(): Trajectory {
  const t = restoreTrajectory(V2);
  t.turns = t.turns.slice(0, 1);
  t.finished = false;
  t.stoppedReason = null;
  return t;
}

describe("schema upgrade 1 -> 4 (trajectory stores, the student's progress, then imported tasks)", () => {
  it("keeps drafts, settings and runs of a version-1 database readable and adds the trajectory, progress and imported-task stores", async () => {
    expect(DB_VERSION).toBe(4);
    const name = freshName();
    await createVersion1Db(name);
    const repos = await openRepositories(name);
    expect(repos.fallback).toBeNull();
    expect((await repos.drafts.get("min-p-sampling")).value?.code).toBe("draft text");
    expect((await repos.drafts.get("pass-at-k")).value?.code).toBe("a bare version-0 draft");
    expect((await repos.settings.get()).value?.indexURL).toBe("/py/");
    expect((await repos.runs.get("min-p-sampling")).value?.finishedAt).toBe(9);
    expect((await repos.models.get()).value?.coder.kind).toBe("endpoint");
    expect(await repos.trajectories.list()).toEqual({ records: [], problems: [] });
    const saved = await repos.trajectories.save(restoreTrajectory(V2), null);
    expect((await repos.trajectories.list()).records.map((r) => r.key)).toEqual([saved.key]);
    expect(await repos.progress.all()).toEqual({ records: [], problems: [] });
    expect(await repos.classes.get(["min-p-sampling"])).toEqual({ value: null, problem: null });
    expect(await repos.importedTasks.all()).toEqual({ records: [], problems: [] });
    const task = { version: 1 as const, id: "t", files: { "task.json": "{}" }, source: "pack.zip", importedAt: 1, checks: [] };
    await repos.importedTasks.put(task);
    expect((await repos.importedTasks.all()).records).toEqual([task]);
  });
});

describe("trajectory records", () => {
  it("save, list and get round-trip a trajectory with its agent memory (resume)", async () => {
    const repos = await openRepositories(freshName());
    const t = unfinished();
    const memory = { taskId: "min-p-sampling", messages: [{ role: "user" as const, content: "hi" }], lastTurn: 0 };
    const rec = await repos.trajectories.save(t, memory as never, "page", null, 77);
    expect(rec.key).toBe(trajectoryKey(t));
    const got = await repos.trajectories.get(rec.key);
    expect(got.problem).toBeNull();
    expect(got.value?.trajectory.turns).toHaveLength(1);
    expect(got.value?.trajectory.finished).toBe(false);
    expect(got.value?.memory).toEqual(memory);
    expect(got.value?.savedAt).toBe(77);
    // Saving after the next turn overwrites the same episode.
    const next = restoreTrajectory(V2);
    await repos.trajectories.save(next, memory as never);
    const list = await repos.trajectories.list();
    expect(list.records).toHaveLength(1);
    expect(list.records[0]?.trajectory.stoppedReason).toBe("solved");
  });

  it("keeps an episode whose tests ran natively beside the page's own Pyodide episode of the same model, level and task", async () => {
    const repos = await openRepositories(freshName());
    const page = restoreTrajectory(V2);
    for (const turn of page.turns) turn.run.backend = "pyodide";
    const native = restoreTrajectory(V2);
    for (const turn of native.turns) turn.run.backend = "native";
    await repos.trajectories.save(page, null);
    await repos.trajectories.save(native, null, "import", "run/episode.json");
    const list = await repos.trajectories.list();
    expect(list.records.map((r) => r.trajectory.turns[0]?.run.backend).sort()).toEqual(["native", "pyodide"]);
    expect(trajectoryKey(native)).not.toBe(trajectoryKey(page));
  });

  it("upgrades an old trajectory inside a stored record", () => {
    const r = restoreTrajectoryRecord("k", { version: 1, trajectory: V1, memory: null, source: "import", fileName: "a.json", savedAt: 1 });
    expect(r.trajectory.schemaVersion).toBe(4);
    expect(r.source).toBe("import");
    expect(r.fileName).toBe("a.json");
  });

  it("names the key and the field of a broken record, and sets it aside in a listing", async () => {
    expect(() => restoreTrajectoryRecord("k", { version: 1, trajectory: { schemaVersion: 2 } })).toThrow(RecordError);
    expect(() => restoreTrajectoryRecord("k", { version: 1, trajectory: { schemaVersion: 2 } })).toThrow(
      /trajectories record "k".*field trajectory/,
    );
    const repos = repositoriesOver(memoryStore());
    await repos.trajectories.save(restoreTrajectory(V2), null);
    await repos.kv.put("trajectories", "broken", { version: 1, trajectory: { schemaVersion: 99 } });
    const list = await repos.trajectories.list();
    expect(list.records).toHaveLength(1);
    expect(list.problems[0]).toMatch(/"broken".*schemaVersion/);
    const kept = await repos.kv.unreadable();
    expect(kept.map((k) => k.key)).toEqual(["broken"]);
  });

  it("stores the shared turn 0 and clears everything on request", async () => {
    const repos = await openRepositories(freshName());
    const t = restoreTrajectory(V2);
    const turn0: SharedTurn0 = {
      taskId: "min-p-sampling",
      config: { model: "scripted:s", researcher: "rules", setting: "memory_agent", maxTurns: 3, maxSteps: 3 },
      turn: { ...(t.turns[0] as Trajectory["turns"][number]) },
      memory: { taskId: "min-p-sampling", messages: [], lastTurn: 0 } as never,
    };
    const rec = await repos.trajectories.saveTurn0(turn0);
    expect(rec.key).toBe(turn0Key("scripted:s", "rules", "memory_agent", "min-p-sampling"));
    expect((await repos.trajectories.getTurn0(rec.key)).value?.turn0.turn.code).toBe(turn0.turn.code);
    await repos.trajectories.save(t, null);
    await repos.trajectories.clear();
    expect((await repos.trajectories.list()).records).toEqual([]);
    expect((await repos.trajectories.getTurn0(rec.key)).value).toBeNull();
  });
});

describe("model settings records", () => {
  it("fills defaults, drops unknown values and keeps the key only locally", () => {
    const r = restoreModelSettings({
      version: 1,
      coder: { kind: "scripted", scriptName: "s.json", scriptText: "[]", apiKey: " k " },
      extra: 1,
    });
    expect(r.coder.kind).toBe("scripted");
    expect(r.coder.apiKey).toBe("k");
    expect(r.researcher).toMatchObject({ kind: "endpoint", preset: "ollama", model: "" });
    expect(restoreModelSettings({ version: 1, coder: { kind: "martian", preset: "x" } }).coder).toMatchObject({
      kind: "endpoint",
      preset: "ollama",
    });
    expect(() => restoreModelSettings({ version: 5 })).toThrow(/newer version/);
  });

  it("round-trips through the settings store without touching the Pyodide settings", async () => {
    const repos = await openRepositories(freshName());
    await repos.settings.save({ indexURL: "/py/", packageBaseUrl: "" });
    const m = (await repos.models.get()).value;
    if (!m) throw new Error("no defaults");
    m.coder = { ...m.coder, preset: "vllm", baseURL: "http://127.0.0.1:1/v1", model: "m" };
    await repos.models.save(m);
    expect((await repos.models.get()).value?.coder.baseURL).toBe("http://127.0.0.1:1/v1");
    expect((await repos.settings.get()).value?.indexURL).toBe("/py/");
  });
});
