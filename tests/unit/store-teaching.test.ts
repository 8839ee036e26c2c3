import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { parseClassFile } from "../../src/core/class-file";
import { makeRunResult, makeTestResult } from "../../src/core/results";
import { openRepositories } from "../../src/store/repositories";

let n = 0;
const freshName = () => `recode-teach-${Date.now()}-${n++}`;
const failing = makeRunResult([makeTestResult("t.a", "failed")]);

describe("the student's progress and the class in IndexedDB", () => {
  it("keeps each run as a turn with the level asked for, across a reopening", async () => {
    const name = freshName();
    const repos = await openRepositories(name);
    await repos.progress.addRun("pass-at-k", failing, 10);
    await repos.progress.raiseLevel("pass-at-k", 3);
    expect(await repos.progress.raiseLevel("other", 1)).toBeNull();
    const again = await openRepositories(name);
    expect((await again.progress.get("pass-at-k")).value?.turns).toEqual([{ at: 10, passed: 0, total: 1, solved: false, level: 3 }]);
  });

  it("sets a broken progress record aside (kept, named) instead of losing it or failing", async () => {
    const repos = await openRepositories(freshName());
    await repos.kv.put("progress", "pass-at-k", { version: 1, taskId: "pass-at-k", turns: [{ at: 1, level: 9 }] });
    const all = await repos.progress.all();
    expect(all.records).toEqual([]);
    expect(all.problems[0]).toMatch(/stored progress record "pass-at-k": field turns\.0\./);
    expect((await repos.kv.unreadable())[0]?.store).toBe("progress");
  });

  it("reads the stored class again through the schema; one naming a task the page lost is set aside with the reason", async () => {
    const repos = await openRepositories(freshName());
    const text = JSON.stringify({ format: "recode-class", version: 1, name: "W3", tasks: ["pass-at-k"], maxLevel: 2 });
    await repos.classes.save(parseClassFile(text, "w3.json", ["pass-at-k"]));
    expect((await repos.classes.get(["pass-at-k"])).value).toMatchObject({ name: "W3", maxLevel: 2, source: "w3.json" });
    const gone = await repos.classes.get(["min-p-sampling"]);
    expect(gone.value).toBeNull();
    expect(gone.problem).toMatch(/class file w3\.json, line 1: field tasks names a task this page does not have: "pass-at-k"/);
    expect(gone.problem).toMatch(/the page runs without a class/);
    await repos.classes.remove();
    expect((await repos.classes.get(["pass-at-k"])).value).toBeNull();
  });
});
