import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunResult } from "../../src/core/results";
import { loadTaskFromFiles, type Task } from "../../src/core/task";
import type { PythonRuntime, RunRequest } from "../../src/python/runtime";
import type { RecordStore } from "../../src/store/db";
import { StorageError } from "../../src/store/db";
import { type KeyValueStore, memoryStore, openRepositories, repositoriesOver } from "../../src/store/repositories";
import { DRAFT_DEBOUNCE_MS, PlaygroundServices } from "../../src/ui/services";

const META = {
  id: "toy",
  title: "Toy task",
  paper: { title: "A paper", authors: ["A. Author"], venue: "Venue", year: 2024, url: "https://example.org/p" },
  domain: "testing",
  target_file_path: "toy/mod.py",
  interfaces: [{ name: "f", tests: ["TestF.test_one"], guidance: "return 1" }],
  time_limit_s: 5,
  license: "MIT",
};

function toyTask(): Task {
  return loadTaskFromFiles("toy", {
    "task.json": JSON.stringify(META),
    "instruction.md": "Write f.",
    "paper.tex": "\\section{M}",
    "canonical.py": "def f():\n    return 1\n",
    "test.py": "import unittest\nclass TestF(unittest.TestCase):\n    def test_one(self):\n        pass\n",
    "repo/toy/mod.py": "def f():\n    raise NotImplementedError\n",
  });
}

const RESULT: RunResult = {
  backend: "pyodide",
  tests: [],
  collectionError: null,
  counts: { total: 0, passed: 0, failed: 0, error: 0, skipped: 0, xfail: 0, xpass: 0, timeout: 0, not_run: 0 },
  allPassed: false,
  durationMs: 1,
  incident: null,
  recorded: null,
};

class FakeRuntime implements PythonRuntime {
  readonly backend = "pyodide" as const;
  version = "";
  requests: RunRequest[] = [];
  disposed = false;
  constructor(private readonly fail: string | null = null) {}
  async ready() {
    if (this.fail) throw new Error(this.fail);
    this.version = "3.14 (fake)";
  }
  async run(req: RunRequest) {
    this.requests.push(req);
    return RESULT;
  }
  async dispose() {
    this.disposed = true;
  }
}

/** A store whose writes fail as if the quota were full. */
function fullStore(): KeyValueStore {
  const inner = memoryStore();
  return {
    ...inner,
    kind: "indexeddb",
    put: async (store: RecordStore, key: string) => {
      throw new StorageError(`Could not save ${store} "${key}": the browser's storage quota is full.`, "QuotaExceededError");
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("services: drafts", () => {
  it("opens a task with its starting text, then with the saved draft", async () => {
    const repos = await openRepositories(`svc-${Date.now()}`);
    const s = new PlaygroundServices([], Promise.resolve(repos), () => new FakeRuntime());
    const task = toyTask();
    expect((await s.openDraft(task)).code).toBe(task.starter);
    s.editDraft(task, "def f():\n    return 1\n");
    expect(s.draftState.get().state).toBe("pending");
    await s.flushDrafts();
    expect(s.draftState.get().state).toBe("saved");
    const again = new PlaygroundServices([], Promise.resolve(repos), () => new FakeRuntime());
    const opened = await again.openDraft(task);
    expect(opened.code).toBe("def f():\n    return 1\n");
    expect(opened.stale).toBe(false);
  });

  it("saves after the debounce delay without an explicit flush", async () => {
    vi.useFakeTimers();
    const repos = repositoriesOver(memoryStore());
    const s = new PlaygroundServices([], Promise.resolve(repos), () => new FakeRuntime());
    const task = toyTask();
    s.editDraft(task, "a");
    s.editDraft(task, "ab");
    await vi.advanceTimersByTimeAsync(DRAFT_DEBOUNCE_MS + 1);
    expect((await repos.drafts.get("toy")).value?.code).toBe("ab");
  });

  it("reports a full quota and keeps the text in memory", async () => {
    const s = new PlaygroundServices([], Promise.resolve(repositoriesOver(fullStore())), () => new FakeRuntime());
    const task = toyTask();
    s.editDraft(task, "precious work");
    await s.flushDrafts();
    const st = s.draftState.get();
    expect(st.state).toBe("error");
    expect(st.state === "error" && st.message).toMatch(/quota is full.*kept in the editor/);
    expect((await s.openDraft(task)).code).toBe("precious work");
  });

  it("marks a draft written against other task files as stale", async () => {
    const repos = repositoriesOver(memoryStore());
    await repos.drafts.save("toy", "old", "0000000000000000");
    const s = new PlaygroundServices([], Promise.resolve(repos), () => new FakeRuntime());
    expect((await s.openDraft(toyTask())).stale).toBe(true);
  });

  it("reset forgets the draft", async () => {
    const repos = repositoriesOver(memoryStore());
    const s = new PlaygroundServices([], Promise.resolve(repos), () => new FakeRuntime());
    const task = toyTask();
    s.editDraft(task, "x");
    await s.flushDrafts();
    await s.resetDraft(task);
    expect((await s.openDraft(task)).code).toBe(task.starter);
  });
});

describe("services: python and runs", () => {
  it("reports Python ready with its version, runs the task and stores the last run", async () => {
    const rt = new FakeRuntime();
    const repos = repositoriesOver(memoryStore());
    const s = new PlaygroundServices([], Promise.resolve(repos), () => rt);
    await s.start();
    await vi.waitUntil(() => s.python.get().state === "ready");
    expect(s.python.get()).toEqual({ state: "ready", version: "3.14 (fake)", fromSnapshot: false });
    const task = toyTask();
    await s.run(task, "def f():\n    return 1\n");
    expect(rt.requests[0]?.targetPath).toBe("toy/mod.py");
    expect(rt.requests[0]?.timeLimitMs).toBe(5000);
    expect((await s.lastRun("toy"))?.code).toBe("def f():\n    return 1\n");
  });

  it("shows a Python start failure, and restarts when the settings change", async () => {
    let fail: string | null = "could not load /bad/pyodide.mjs";
    const made: FakeRuntime[] = [];
    const s = new PlaygroundServices([], Promise.resolve(repositoriesOver(memoryStore())), () => {
      const rt = new FakeRuntime(fail);
      made.push(rt);
      return rt;
    });
    await s.start();
    await vi.waitUntil(() => s.python.get().state !== "loading");
    expect(s.python.get()).toEqual({ state: "error", message: "could not load /bad/pyodide.mjs" });
    fail = null;
    await s.saveSettings({ indexURL: "", packageBaseUrl: "https://example.org/wheels/" });
    await vi.waitUntil(() => s.python.get().state === "ready");
    expect(made[0]?.disposed).toBe(true);
    expect(s.settings.get().packageBaseUrl).toBe("https://example.org/wheels/");
  });

  it("falls back to memory storage with a notice when IndexedDB cannot be used", async () => {
    const s = new PlaygroundServices(
      [],
      Promise.resolve(repositoriesOver(memoryStore(), "IndexedDB is not available in this browser.")),
      () => new FakeRuntime(),
    );
    await s.start();
    expect(s.notices.get().map((n) => n.text)).toContain("IndexedDB is not available in this browser.");
  });
});

describe("services: imported tasks and the class", () => {
  it("a stored class that names an imported task stays the class at the next start (the imported tasks are read first)", async () => {
    const repos = repositoriesOver(memoryStore());
    const files = {
      "task.json": JSON.stringify({ ...META, id: "imported-toy" }),
      "instruction.md": "Write f.",
      "paper.tex": "\\section{M}",
      "canonical.py": "def f():\n    return 1\n",
      "test.py": "import unittest\nclass TestF(unittest.TestCase):\n    def test_one(self):\n        pass\n",
      "repo/toy/mod.py": "def f():\n    raise NotImplementedError\n",
    };
    await repos.importedTasks.put({ version: 1, id: "imported-toy", files, source: "week3.zip", importedAt: 1, checks: [] });
    const first = new PlaygroundServices([{ id: "toy", task: toyTask(), error: null }], Promise.resolve(repos), () => new FakeRuntime());
    await first.taskPacks.load();
    const text = JSON.stringify({ format: "recode-class", version: 1, name: "Week 3", tasks: ["imported-toy", "toy"] });
    await first.teaching.applyClass(await first.teaching.readClass(text, "week3.class.json"));

    const next = new PlaygroundServices([{ id: "toy", task: toyTask(), error: null }], Promise.resolve(repos), () => new FakeRuntime());
    await next.start();
    expect(next.notices.get().map((n) => n.text)).toEqual([]);
    expect(next.teaching.classSettings.get()?.tasks).toEqual(["imported-toy", "toy"]);
    expect(next.catalog.map((e) => e.id)).toEqual(["imported-toy", "toy"]);
  });
});
