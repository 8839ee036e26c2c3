import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { restoreTrajectory, type Trajectory } from "../../src/core/trajectory";
import { memoryStore, repositoriesOver } from "../../src/store/repositories";
import { scriptSha256 } from "../../src/store/script-digests";
import { turn0PartialKey } from "../../src/store/trajectory-records";

const V4 = JSON.parse(readFileSync("tests/fixtures/trajectories/v4-current.json", "utf8")) as unknown;
const MODEL = "scripted:fix.json";

/** A stored episode of `model` (the fixture's trajectory under another coder id). */
function episodeOf(model: string): Trajectory {
  const t = restoreTrajectory(structuredClone(V4));
  return { ...t, config: { ...t.config, model } };
}

describe("the script a scripted coder's stored episodes ran with", () => {
  it("refuses another text of the same file name while episodes of the first are stored, and says both digests", async () => {
    const repos = repositoriesOver(memoryStore());
    expect(await repos.scripts.claim(MODEL, "first text")).toBeNull();
    await repos.trajectories.save(episodeOf(MODEL), null);
    // The same text again: its episodes resume.
    expect(await repos.scripts.claim(MODEL, "first text")).toBeNull();
    const refused = await repos.scripts.claim(MODEL, "second text");
    expect(refused).toContain("The stored episodes of scripted:fix.json ran with another script of that file name");
    expect(refused).toContain(`${scriptSha256("first text").slice(0, 12)}…`);
    expect(refused).toContain(`this script: ${scriptSha256("second text").slice(0, 12)}…`);
    expect(refused).toContain("Give this script another file name, or delete the episodes of scripted:fix.json (Results) first");
    // Another file name is another model: no conflict.
    expect(await repos.scripts.claim("scripted:other.json", "second text")).toBeNull();
    // Refused, the first text's digest stays: it still resumes.
    expect(await repos.scripts.claim(MODEL, "first text")).toBeNull();
  });

  it("a stored turn 0 (shared or partial) of the model counts as its episodes", async () => {
    const kv = memoryStore();
    const repos = repositoriesOver(kv);
    expect(await repos.scripts.claim(MODEL, "first text")).toBeNull();
    await kv.put("turn0", turn0PartialKey(MODEL, "rules", "memory_agent", "pass-at-k"), { any: "record" });
    expect(await repos.scripts.claim(MODEL, "second text")).toContain("another script of that file name");
  });

  it("once the episodes are deleted, another text takes the name; episodes stored before digests were kept are taken as the text given", async () => {
    const repos = repositoriesOver(memoryStore());
    const stored = await repos.trajectories.save(episodeOf(MODEL), null);
    // Stored before the page kept digests: the text given now is taken as theirs.
    expect(await repos.scripts.claim(MODEL, "first text")).toBeNull();
    expect(await repos.scripts.claim(MODEL, "second text")).not.toBeNull();
    await repos.trajectories.remove(stored.key);
    expect(await repos.scripts.claim(MODEL, "second text")).toBeNull();
    await repos.trajectories.save(episodeOf(MODEL), null);
    expect(await repos.scripts.claim(MODEL, "first text")).not.toBeNull();
  });

  it("an unreadable record is set aside, not lost, and the check starts over", async () => {
    const kv = memoryStore();
    const repos = repositoriesOver(kv);
    await kv.put("settings", "scripts", { version: 1, digests: { [MODEL]: "not hex" } });
    expect(await repos.scripts.claim(MODEL, "first text")).toBeNull();
    const kept = await kv.unreadable();
    expect(kept.map((r) => [r.store, r.key, r.problem])).toEqual([
      ["settings", "scripts", `field digests.${MODEL} is not a SHA-256 in hex`],
    ]);
  });
});
