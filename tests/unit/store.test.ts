import "fake-indexeddb/auto";
import { openDB } from "idb";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../src/core/results";
import { DB_VERSION, openPlaygroundDb } from "../../src/store/db";
import { DRAFT_VERSION, RecordError, restoreDraft, restoreRun, restoreSettings } from "../../src/store/records";
import { memoryStore, openRepositories, repositoriesOver } from "../../src/store/repositories";

let n = 0;
const freshName = () => `recode-test-${Date.now()}-${n++}`;

const RESULT: RunResult = {
  backend: "pyodide",
  tests: [],
  collectionError: null,
  counts: { total: 0, passed: 0, failed: 0, error: 0, skipped: 0, xfail: 0, xpass: 0, timeout: 0, not_run: 0 },
  allPassed: false,
  durationMs: 12,
  incident: null,
  recorded: null,
};

describe("restoreDraft fixtures", () => {
  it("upgrades a version-0 bare string", () => {
    expect(restoreDraft("t", "def f():\n    pass\n")).toEqual({
      version: DRAFT_VERSION,
      taskId: "t",
      code: "def f():\n    pass\n",
      updatedAt: 0,
      taskHash: null,
    });
  });
  it("upgrades a version-0 object with an ISO savedAt", () => {
    const r = restoreDraft("t", { code: "x = 1", savedAt: "2025-01-02T03:04:05.000Z" });
    expect(r.updatedAt).toBe(Date.parse("2025-01-02T03:04:05.000Z"));
    expect(r.version).toBe(DRAFT_VERSION);
  });
  it("keeps a current record", () => {
    const rec = { version: 1, taskId: "t", code: "y", updatedAt: 5, taskHash: "abc" };
    expect(restoreDraft("t", rec)).toEqual(rec);
  });
  it("rejects a record from a newer version, naming store and key", () => {
    expect(() => restoreDraft("t", { version: 99, code: "x", updatedAt: 1 })).toThrow(/drafts record "t".*newer version/);
  });
  it("rejects a record without code", () => {
    expect(() => restoreDraft("t", { version: 1, updatedAt: 1 })).toThrow(RecordError);
    expect(() => restoreDraft("t", { version: 1, updatedAt: 1 })).toThrow(/field code/);
  });
});

describe("restoreSettings and restoreRun fixtures", () => {
  it("fills defaults and trims URLs", () => {
    expect(restoreSettings({ version: 1, indexURL: " http://x/pyodide/ " })).toEqual({
      version: 1,
      indexURL: "http://x/pyodide/",
      packageBaseUrl: "",
    });
    expect(restoreSettings({})).toEqual({ version: 1, indexURL: "", packageBaseUrl: "" });
  });
  it("rejects a run record without a result", () => {
    expect(() => restoreRun("t", { version: 1, code: "", finishedAt: 1, result: 3 })).toThrow(/result is not a run result/);
  });
});

describe("IndexedDB repositories", () => {
  it("creates the schema and round-trips drafts, settings and runs", async () => {
    const name = freshName();
    const repos = await openRepositories(name);
    expect(repos.fallback).toBeNull();
    expect(repos.kv.kind).toBe("indexeddb");
    expect((await repos.drafts.get("a")).value).toBeNull();
    await repos.drafts.save("a", "print(1)", "h1", 1000);
    expect((await repos.drafts.get("a")).value).toEqual({ version: 1, taskId: "a", code: "print(1)", updatedAt: 1000, taskHash: "h1" });
    await repos.settings.save({ indexURL: " /py/ ", packageBaseUrl: "" });
    expect((await repos.settings.get()).value?.indexURL).toBe("/py/");
    await repos.runs.save("a", "print(1)", RESULT, 7);
    expect((await repos.runs.get("a")).value?.result.durationMs).toBe(12);
    await repos.drafts.remove("a");
    expect((await repos.drafts.get("a")).value).toBeNull();
  });

  it("upgrades old records written straight into the stores", async () => {
    const name = freshName();
    const db = await openPlaygroundDb(name);
    await db.put("drafts", "legacy text", "old-task");
    db.close();
    const repos = await openRepositories(name);
    const got = await repos.drafts.get("old-task");
    expect(got.problem).toBeNull();
    expect(got.value?.code).toBe("legacy text");
  });

  it("sets an unreadable record aside instead of losing it", async () => {
    const repos = await openRepositories(freshName());
    await repos.kv.put("drafts", "t", { version: 42, code: "future" });
    const got = await repos.drafts.get("t");
    expect(got.value).toBeNull();
    expect(got.problem).toMatch(/newer version/);
    const kept = await repos.kv.unreadable();
    expect(kept).toHaveLength(1);
    expect(kept[0]?.raw).toEqual({ version: 42, code: "future" });
  });

  it("reports a database from a newer schema version as a storage error and falls back to memory", async () => {
    const name = freshName();
    const newer = await openDB(name, DB_VERSION + 1);
    newer.close();
    const repos = await openRepositories(name);
    expect(repos.kv.kind).toBe("memory");
    expect(repos.fallback).toMatch(/newer version/);
    await repos.drafts.save("t", "still works", null);
    expect((await repos.drafts.get("t")).value?.code).toBe("still works");
  });

  it("memory store behaves like the IndexedDB one", async () => {
    const repos = repositoriesOver(memoryStore());
    await repos.drafts.save("x", "a", null, 1);
    expect((await repos.drafts.get("x")).value?.code).toBe("a");
    expect((await repos.settings.get()).value).toEqual({ version: 1, indexURL: "", packageBaseUrl: "" });
  });
});
