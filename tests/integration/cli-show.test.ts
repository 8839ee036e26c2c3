/** `recode show`: a real run of the scripted demo, read back as transcripts by a real `recode` process. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { taskSystemPrompt } from "../../src/core/agent";
import { restoreTrajectory, type Trajectory } from "../../src/core/trajectory";

const BIN = new URL("../../bin/recode.mjs", import.meta.url).pathname;
const recode = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 180_000, env: { ...process.env, COLUMNS: "" } });
const work = mkdtempSync(join(tmpdir(), "recode-show-"));
const run = join(work, "demo");
const episode = (level: number) => join(run, "episodes", "scripted_demo-pass-at-k.script.json", "baseline", `L${level}`, "pass-at-k.json");
const read = (level: number): Trajectory => restoreTrajectory(readFileSync(episode(level), "utf8"));

beforeAll(() => {
  const r = recode(
    "run",
    "--model",
    "scripted:examples/demo-pass-at-k.script.json",
    "--setting",
    "baseline",
    "--tasks",
    "pass-at-k",
    "--levels",
    "0,3",
    "--turns",
    "3",
    "--out",
    run,
  );
  expect(r.status, r.stderr).toBe(0);
}, 200_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("recode show", () => {
  it("shows an episode turn by turn: its outcome, each turn's code change, test results and the feedback the agent received", () => {
    const r = recode("show", run, "--level", "L3");
    expect(r.status, r.stderr).toBe(0);
    // The one episode asked for, under a heading that says what it was and how it ended.
    const headings = r.stdout.split("\n").filter((l) => /^pass-at-k, L\d/.test(l));
    expect(headings).toEqual([
      "pass-at-k, L3: scripted:demo-pass-at-k.script.json, baseline, playground protocol, researcher rules: solved at turn 1 (2 of 3 turns)",
    ]);
    const t = read(3);
    const [first, second] = t.turns;
    if (!first || !second) throw new Error("the demo episode has two turns");
    expect(r.stdout).toContain(`Turn 0: ${first.run.counts.passed} of 6 tests passed`);
    // Turn 0's code whole, turn 1's as the change from turn 0.
    expect(r.stdout).toContain(`    | ${first.code.split("\n")[0]}`);
    expect(r.stdout).toMatch(/Turn 1: all tests passed\n[\s\S]*Code: the change from turn 0 \(\d+ added, \d+ removed\):/);
    expect(r.stdout).toContain("    +     return 1.0 - comb(n - c, k) / comb(n, k)");
    // Each test that did not pass, with its message's first line.
    const failed = first.run.tests.filter((x) => x.status === "failed");
    expect(failed.length).toBeGreaterThan(0);
    for (const x of failed) expect(r.stdout).toContain(`  FAILED  ${x.id} — ${x.message.split("\n")[0]}`);
    // The feedback exactly as the agent received it, every line.
    expect(first.feedbackText).toContain("Researcher feedback");
    const quoted = first.feedbackText
      .replace(/\s+$/, "")
      .split("\n")
      .map((l) => (l ? `    > ${l}` : "    >"))
      .join("\n");
    expect(r.stdout).toContain(quoted);
    // The conversation is folded away unless asked for.
    expect(r.stdout).toContain("(2 messages with the agent: --conversation shows them)");
    const reply = first.messages.find((m) => m.role === "assistant")?.content ?? "";
    expect(reply.length).toBeGreaterThan(0);
    const full = recode("show", run, "--level", "3", "--conversation");
    expect(full.status).toBe(0);
    expect(full.stdout).toContain("  To the agent:\n    # Turn 0");
    expect(full.stdout).toContain(`  Agent:\n    ${reply.split("\n")[0]}`);
    // The system prompt, which trajectories do not store, rebuilt from the task as it ran.
    const system = taskSystemPrompt(loadTaskDir(BUILTIN_TASKS, "pass-at-k"), "baseline");
    expect(full.stdout).toContain(
      `  System prompt (the same at every turn; not stored in the trajectory, rebuilt from ${join(BUILTIN_TASKS, "pass-at-k")}):\n${system
        .split("\n")
        .slice(0, 3)
        .map((l) => (l ? `    ${l}` : ""))
        .join("\n")}`,
    );
    // Both episodes without a filter, L0 first.
    const both = recode("show", run);
    expect(
      both.stdout
        .split("\n")
        .filter((l) => /^pass-at-k, L\d/.test(l))
        .map((l) => l.slice(0, 13)),
    ).toEqual(["pass-at-k, L0", "pass-at-k, L3"]);
    // The demo acts on what the feedback says: with the test log alone it mends the edge case the log shows first,
    // and finds the estimator a turn later than with L3's suggested fix.
    expect(both.stdout).toContain(
      "pass-at-k, L0: scripted:demo-pass-at-k.script.json, baseline, playground protocol, researcher rules: solved at turn 2 (3 of 3 turns)",
    );
    expect(both.stdout).toContain("    +     if n - c < k:\n    +         return 1.0");
  });

  it("takes the model as recode run was given it, level lists, task globs, and a folder inside the run's episodes", () => {
    const heads = (r: ReturnType<typeof recode>) =>
      r.stdout
        .split("\n")
        .filter((l) => /^pass-at-k, L\d/.test(l))
        .map((l) => l.slice(0, 13));
    const byPath = recode("show", run, "--model", "scripted:examples/demo-pass-at-k.script.json", "--level", "L0,3", "--task", "pass-*");
    expect(byPath.status, byPath.stderr).toBe(0);
    expect(heads(byPath)).toEqual(["pass-at-k, L0", "pass-at-k, L3"]);
    expect(heads(recode("show", run, "--level", "1-3"))).toEqual(["pass-at-k, L3"]);
    expect(heads(recode("show", join(run, "episodes")))).toEqual(["pass-at-k, L0", "pass-at-k, L3"]);
    expect(heads(recode("show", join(run, "episodes", "scripted_demo-pass-at-k.script.json", "baseline", "L3")))).toEqual([
      "pass-at-k, L3",
    ]);
    const setting = recode("show", run, "--setting", "bogus");
    expect(setting.status).toBe(2);
    expect(setting.stderr).toContain('--setting: "bogus" is not a setting (baseline, agent, memory_agent)');
  });

  it("says which episodes there are when none matches, and reads a trajectory file given by path", () => {
    const none = recode("show", run, "--task", "min-p-sampling");
    expect(none.status).toBe(2);
    expect(none.stderr).toContain(
      "no episode matches --task min-p-sampling; there are: pass-at-k L0 (scripted:demo-pass-at-k.script.json, baseline); pass-at-k L3",
    );
    const badLevel = recode("show", run, "--level", "5");
    expect(badLevel.status).toBe(2);
    expect(badLevel.stderr).toContain('--level: "5" is not a feedback level or a list of them');
    const file = recode("show", episode(0));
    expect(file.status).toBe(0);
    expect(file.stdout).toMatch(/^pass-at-k, L0: /);
  });

  it("shows what the model wrote as text: its control characters written out, not obeyed", () => {
    const t = read(0);
    const turn = t.turns[0];
    const msg = turn?.messages.find((m) => m.role === "assistant");
    if (!turn || !msg) throw new Error("the demo episode has a reply");
    msg.content = "\u001b[2J\u001b[Hpass-at-k, L0: solved at turn 0\rAll tests pass.";
    const forged = join(work, "forged.json");
    writeFileSync(forged, JSON.stringify(t));
    const r = recode("show", forged, "--conversation");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("\u001b");
    expect(r.stdout).not.toContain("\r");
    // No line of the model's starts at the margin, where the transcript's headings are.
    expect(r.stdout.split("\n").filter((l) => l.startsWith("pass-at-k, L0"))).toHaveLength(1);
  });

  it("names a file it cannot read, shows the others, and exits 1", () => {
    const copy = join(work, "with-broken");
    spawnSync("cp", ["-r", run, copy]);
    const broken = join(copy, "episodes", "scripted_demo-pass-at-k.script.json", "baseline", "L0", "pass-at-k.json");
    writeFileSync(broken, '{"schemaVersion": 4, "turns": [');
    const r = recode("show", copy);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^pass-at-k, L3: /m);
    expect(r.stderr).toMatch(/1 file could not be read and is left out: .*L0\/pass-at-k\.json: /);
  });
});
