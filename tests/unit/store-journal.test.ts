import { describe, expect, it } from "vitest";
import { loadTaskFromFiles, type Task } from "../../src/core/task";
import type { PythonRuntime } from "../../src/python/runtime";
import { DraftJournal, type SyncStorage } from "../../src/store/journal";
import { memoryStore, repositoriesOver } from "../../src/store/repositories";
import { PlaygroundServices } from "../../src/ui/services";

class MapStorage implements SyncStorage {
  map = new Map<string, string>();
  getItem(k: string) {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.map.set(k, v);
  }
  removeItem(k: string) {
    this.map.delete(k);
  }
}

function toyTask(): Task {
  return loadTaskFromFiles("toy", {
    "task.json": JSON.stringify({
      id: "toy",
      title: "Toy",
      paper: { title: "P", authors: ["A"], venue: "V", year: 2024, url: "https://example.org/p" },
      domain: "d",
      target_file_path: "toy/mod.py",
      interfaces: [{ name: "f", tests: ["TestF.test_one"], guidance: "g" }],
      time_limit_s: 5,
      license: "MIT",
    }),
    "instruction.md": "i",
    "paper.tex": "p",
    "canonical.py": "def f():\n    return 1\n",
    "test.py": "import unittest\nclass TestF(unittest.TestCase):\n    def test_one(self):\n        pass\n",
    "repo/toy/mod.py": "def f():\n    raise NotImplementedError\n",
  });
}

const noRuntime = () => ({}) as PythonRuntime;

describe("draft journal", () => {
  it("keeps text typed just before a reload that cut the IndexedDB save off", async () => {
    const storage = new MapStorage();
    const repos = repositoriesOver(memoryStore());
    const task = toyTask();
    const before = new PlaygroundServices([], Promise.resolve(repos), noRuntime, new DraftJournal(storage));
    before.editDraft(task, "typed a moment ago");
    // The page goes away before the debounced save: a new page opens the task.
    const after = new PlaygroundServices([], Promise.resolve(repos), noRuntime, new DraftJournal(storage));
    expect((await after.openDraft(task)).code).toBe("typed a moment ago");
    await after.flushDrafts();
    expect((await repos.drafts.get("toy")).value?.code).toBe("typed a moment ago");
    expect(storage.map.size).toBe(0);
  });

  it("prefers a newer stored draft, and ignores broken or unavailable storage", async () => {
    const storage = new MapStorage();
    const journal = new DraftJournal(storage);
    journal.write("toy", { code: "old", taskHash: "", at: 1 });
    const repos = repositoriesOver(memoryStore());
    await repos.drafts.save("toy", "newer", null, 10);
    const s = new PlaygroundServices([], Promise.resolve(repos), noRuntime, journal);
    expect((await s.openDraft(toyTask())).code).toBe("newer");
    storage.setItem("recode:unsaved-draft:x", "{not json");
    expect(journal.read("x")).toBeNull();
    const broken = new DraftJournal({
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("quota");
      },
      removeItem: () => {},
    });
    broken.write("toy", { code: "x", taskHash: "", at: 1 });
    expect(broken.read("toy")).toBeNull();
  });
});
