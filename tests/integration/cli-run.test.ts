import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findTrajectoryFiles } from "../../src/cli/run-folder";
import { fence } from "../../src/core/agent/prompts";
import { solverScript } from "../../src/core/providers/scripted";
import { restoreTrajectory } from "../../src/core/trajectory";
import { type ChatStub, closedPort, type RecordedRequest, startChatStub } from "../helpers/chat-stub-server";
import { knownBug } from "../helpers/known-bugs";

const work = mkdtempSync(join(tmpdir(), "recode-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TASKS = ["min-p-sampling", "pass-at-k"];
const target = (id: string) => JSON.parse(readFileSync(`tasks/${id}/task.json`, "utf8")).target_file_path as string;
const canonical = (id: string) => readFileSync(`tasks/${id}/canonical.py`, "utf8");
const buggy = (id: string) => knownBug(id).code;

/** A script for the memory_agent: per task, turn 0 is the known-bug file, turn 1 the canonical solution. */
function writeScript(): string {
  const file = join(work, "script.json");
  writeFileSync(
    file,
    JSON.stringify(solverScript(TASKS.map((id) => ({ targetPath: target(id), first: buggy(id), later: canonical(id) })))),
  );
  return file;
}

interface Result {
  code: number | null;
  out: string;
}

function recode(args: string[], env: NodeJS.ProcessEnv = {}, onStart?: (child: ChildProcess) => void): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/recode.mjs", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    onStart?.(child);
    child.on("close", (code) => resolve({ code, out }));
  });
}

/** Every process below `pid` (children, their children, ...). */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}

/** Whether a process is running (not gone, not a zombie waiting for its new parent to reap it). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

const script = writeScript();
const base = ["run", "--model", `scripted:${script}`, "--levels", "0,4", "--turns", "3", "--setting", "memory_agent"];

describe("recode run / report / merge", () => {
  it("runs episodes, writes trajectories, and reports the paper-style table", async () => {
    const out = join(work, "full");
    const r = await recode([...base, "--tasks", ...TASKS, "--workers", "2", "--out", out]);
    expect(r.out).toContain("done: 4 episodes");
    expect(r.code).toBe(0);
    for (const id of TASKS) expect(r.out).toContain(`started ${id}`);
    // Turns count from 0 here as in the page: each episode is solved at its second turn, turn 1.
    expect(r.out).toMatch(/L0: solved at turn 1 \(turn 0 is the first\)/);
    const files = findTrajectoryFiles(out);
    expect(files).toHaveLength(4);
    for (const f of files) {
      const t = restoreTrajectory(JSON.parse(readFileSync(f, "utf8")));
      expect(t.stoppedReason).toBe("solved");
      expect(t.turns).toHaveLength(2);
    }
    const md = await recode(["report", out]);
    expect(md.code).toBe(0);
    expect(md.out).toContain("| L0 | L1 | L2 | L3 | L4 |");
    expect(md.out).toMatch(
      /memory_agent \| rules \| playground \| 2 \| 100\.0 \/ 50\.0 \/ 100\.0 \| - \| - \| - \| 100\.0 \/ 50\.0 \/ 100\.0 \|/,
    );
    expect(md.out).toContain("Per-turn Recall@k");
    // A folder that is not there is bad input, as for every command (exit 2), not a finding of the report (1).
    const missing = await recode(["report", join(out, "no-such-run")]);
    expect(missing.code).toBe(2);
    expect(missing.out).toContain("no such folder or file");
    const csv = await recode(["report", out, "--format", "csv"]);
    expect(csv.out.split("\n")[0]).toContain("solved,n,recall_at_n,mrr,pass_rate");
    // n, the turn limit, is stated, and it is the number of curve columns.
    const [head = "", row = ""] = csv.out.split("\n");
    const cols = head.split(",");
    expect(row.split(",")[cols.indexOf("n")]).toBe(String(cols.filter((c) => /^recall_at_\d+$/.test(c)).length));
    const json = JSON.parse((await recode(["report", out, "--format", "json"])).out);
    expect(json.rows).toHaveLength(2);
    // A scripted model is named by its script's file name, as the page names an uploaded script.
    expect(json.rows[0].model).toBe(`scripted:${basename(script)}`);
    expect(json.n).toBe(3);
    // A list of trajectories in one file (the page's export) reports the same.
    const exported = join(work, "export.json");
    writeFileSync(exported, JSON.stringify(files.map((f) => JSON.parse(readFileSync(f, "utf8")))));
    const fromFile = JSON.parse((await recode(["report", exported, "--format", "json"])).out);
    expect(fromFile.rows).toEqual(json.rows);

    const again = await recode([...base, "--tasks", ...TASKS, "--workers", "2", "--out", out]);
    expect(again.code).toBe(0);
    expect(again.out).toContain("4 already finished");
    // Episodes a previous run finished are counted, not printed again, and their tasks are not "started".
    expect(again.out).not.toMatch(/\[\d+\/\d+\]/);
    expect(again.out).not.toContain("started");
  });

  it("splits tasks into shards and merges them into the same results", async () => {
    const s0 = join(work, "s0");
    const s1 = join(work, "s1");
    expect((await recode([...base, "--tasks", ...TASKS, "--shard", "0/2", "--out", s0])).code).toBe(0);
    expect((await recode([...base, "--tasks", ...TASKS, "--shard", "1/2", "--out", s1])).code).toBe(0);
    expect(findTrajectoryFiles(s0)).toHaveLength(2);
    const merged = join(work, "merged");
    // A shard left out, or a folder given twice, would shrink the grid with nothing to say so: refused.
    const half = join(work, "merged-half");
    const twice = await recode(["merge", half, s0, s0]);
    expect(twice.code).toBe(1);
    expect(twice.out).toContain(`${s0}: given twice (as ${s0}); nothing was merged`);
    const missing = await recode(["merge", half, s0]);
    expect(missing.code).toBe(1);
    expect(missing.out).toContain(
      "shard 1/2 is missing (the folders hold 0/2): give every shard's folder, or --partial to merge these alone (the merged run then holds their tasks alone); nothing was merged",
    );
    expect(existsSync(half)).toBe(false);
    // --partial merges them all the same, says what is not there, and the rest can be merged into it later.
    const partial = await recode(["merge", half, s0, "--partial"]);
    expect(partial.code).toBe(0);
    expect(partial.out).toContain("(not merged: shard 1/2; the run holds the other shards' tasks alone)");
    // Its report names the grid's episodes no merged shard brought.
    const partReport = await recode(["report", half]);
    expect(partReport.out).toMatch(/2 episodes of the run configuration have no trajectory yet \(not run\): .*L0 /);
    // The shard folders named in the wrong order (no merged folder first): refused, the shard left as it was.
    const swapped = await recode(["merge", s1, s0]);
    expect(swapped.code).toBe(1);
    expect(swapped.out).toContain(`${s1} is the run folder of shard 1/2, not a merged run: name the folder to merge into first`);
    expect(JSON.parse(readFileSync(join(s1, "run.json"), "utf8")).shard).toBe("1/2");
    // A folder that holds something else.
    const junk = join(work, "junk");
    mkdirSync(junk, { recursive: true });
    writeFileSync(join(junk, "notes.txt"), "mine");
    expect((await recode(["merge", junk, s0, s1])).out).toContain(`${junk} is not empty and holds no run`);
    // A shard of another task list is another grid's part: refused at the run and at the merge.
    const otherGrid = await recode([...base, "--tasks", TASKS[1] as string, "--shard", "1/2", "--out", s1]);
    expect(otherGrid.code).toBe(2);
    expect(otherGrid.out).toContain("different --tasks (the grid the shard is taken from)");
    const s1other = join(work, "s1-other");
    cpSync(s1, s1other, { recursive: true });
    const c1 = JSON.parse(readFileSync(join(s1other, "run.json"), "utf8"));
    expect(c1.gridTasks).toEqual([...TASKS].sort());
    writeFileSync(join(s1other, "run.json"), JSON.stringify({ ...c1, gridTasks: [...c1.gridTasks, "zzz-task"] }));
    const grids = await recode(["merge", join(work, "merged-grids"), s0, s1other]);
    expect(grids.code).toBe(1);
    expect(grids.out).toContain(`${s1other} is a shard of another task list`);
    const rest = await recode(["merge", half, s1]);
    expect(rest.code, rest.out).toBe(0);
    expect(rest.out).not.toContain("not merged");
    const m = await recode(["merge", merged, s0, s1]);
    expect(m.code).toBe(0);
    const a = JSON.parse((await recode(["report", merged, "--format", "json"])).out);
    expect(a.rows.map((r: { taskCount: number; recallAtN: number }) => [r.taskCount, r.recallAtN])).toEqual([
      [2, 1],
      [2, 1],
    ]);
  });

  it("keeps going past a corrupt trajectory: report leaves it out, a resumed run sets it aside and runs it again", async () => {
    const out = join(work, "corrupt");
    const args = [...base, "--tasks", TASKS[0] as string, "--out", out];
    expect((await recode(args)).code).toBe(0);
    const [first, second] = findTrajectoryFiles(out);
    writeFileSync(first as string, readFileSync(first as string, "utf8").slice(0, 300));
    const rep = await recode(["report", out]);
    expect(rep.code).toBe(1);
    expect(rep.out).toContain("could not be read");
    expect(rep.out).toContain("| L0 |");
    const again = await recode(args);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain("set aside as");
    expect(findTrajectoryFiles(out)).toHaveLength(2);
    expect(second).toBeDefined();
    expect((await recode(["report", out])).code).toBe(0);
    // Another backend or shard in the same folder is refused.
    const other = await recode([...args, "--backend", "native"]);
    expect(other.code).toBe(2);
    expect(other.out).toContain(`different --backend ("pyodide"; this run: "native")`);
    // Another script of the same file name does not resume this one's episodes.
    mkdirSync(join(work, "elsewhere"), { recursive: true });
    const lookalike = join(work, "elsewhere", basename(script));
    writeFileSync(lookalike, JSON.stringify(solverScript([{ targetPath: target(TASKS[0] as string), first: "", later: "" }])));
    const swapped = await recode([...args.map((a) => (a === `scripted:${script}` ? `scripted:${lookalike}` : a))]);
    expect(swapped.code, swapped.out).toBe(2);
    expect(swapped.out).toMatch(/different --model's script \(its text, by SHA-256\) \([0-9a-f]{12}…; this run: [0-9a-f]{12}…\)/);
    expect(JSON.parse(readFileSync(join(out, "run.json"), "utf8")).scriptSha256).toMatch(/^[0-9a-f]{64}$/);
    // In a folder of its own, it is run; but the two are not reported as one model.
    const apart = join(work, "corrupt-lookalike");
    await recode([...args.map((a) => (a === `scripted:${script}` ? `scripted:${lookalike}` : a === out ? apart : a))]);
    const both = await recode(["report", out, apart]);
    expect(both.code).not.toBe(0);
    expect(both.out).toContain(`scripted:${basename(script)} names two scripts, another text in ${apart}`);
    // A folder named twice is one folder.
    const twice = await recode(["report", out, `${out}/`]);
    expect(twice.code).toBe(2);
    expect(twice.out).toContain("given twice");
  });

  it("a scripted LLM researcher whose script changed does not resume the reviews of its first text", async () => {
    const out = join(work, "researcher-script");
    const reviewer = join(work, "reviewer.json");
    const item = (detail: string) => ({
      interface: "min_p_filter",
      category: "T2",
      description: detail,
      analysis: "The tests fail.",
      actionable_feedback: "Follow the paper.",
      direct_code_feedback: "",
    });
    const review = (detail: string) => JSON.stringify({ rules: [{ match: "/./", reply: { items: [item(detail)] } }] });
    writeFileSync(reviewer, review("first"));
    const args = ["run", "--model", `scripted:${script}`, "--researcher", `llm:scripted:${reviewer}`];
    const rest = ["--levels", "1", "--turns", "2", "--setting", "memory_agent", "--tasks", TASKS[0] as string, "--out", out];
    const first = await recode([...args, ...rest]);
    expect(first.code, first.out).toBe(0);
    const sha = JSON.parse(readFileSync(join(out, "run.json"), "utf8")).researcherScriptSha256;
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    // The same text resumes; an edited one is refused, and the folder keeps the first.
    expect((await recode([...args, ...rest])).code).toBe(0);
    writeFileSync(reviewer, review("edited"));
    const edited = await recode([...args, ...rest]);
    expect(edited.code, edited.out).toBe(2);
    expect(edited.out).toMatch(/different --researcher's script \(its text, by SHA-256\) \([0-9a-f]{12}…; this run: [0-9a-f]{12}…\)/);
    expect(JSON.parse(readFileSync(join(out, "run.json"), "utf8")).researcherScriptSha256).toBe(sha);
    // In a folder of its own it runs, but the two are neither reported as one researcher nor merged.
    const apart = join(work, "researcher-script-edited");
    expect((await recode([...args, ...rest.map((a) => (a === out ? apart : a))])).code).toBe(0);
    const both = await recode(["report", out, apart]);
    expect(both.code).not.toBe(0);
    expect(both.out).toContain(`llm:scripted:${reviewer} names two scripts, another text in ${apart}`);
    const merged = await recode(["merge", join(work, "researcher-merged"), out, apart, "--partial"]);
    expect(merged.code).not.toBe(0);
    expect(merged.out).toMatch(/the researcher's script is another text .*nothing was merged/);
  });

  it("a merge that fails changes nothing", async () => {
    const a = join(work, "ma");
    const b = join(work, "mb");
    expect((await recode([...base, "--tasks", TASKS[0] as string, "--out", a])).code).toBe(0);
    expect((await recode([...base, "--tasks", TASKS[1] as string, "--turns", "4", "--out", b])).code).toBe(0);
    const dest = join(work, "mfail");
    const m = await recode(["merge", dest, a, b]);
    expect(m.code).toBe(1);
    expect(m.out).toMatch(/maxTurns.*nothing was merged/);
    expect(existsSync(dest)).toBe(false);
    // A folder of another script of the same file name.
    const c = join(work, "mc");
    cpSync(a, c, { recursive: true });
    const config = JSON.parse(readFileSync(join(c, "run.json"), "utf8"));
    writeFileSync(join(c, "run.json"), JSON.stringify({ ...config, scriptSha256: "0".repeat(64) }));
    const m2 = await recode(["merge", dest, a, c]);
    expect(m2.code).toBe(1);
    expect(m2.out).toMatch(/the model's script is another text of the same file name \(SHA-256 000000000000….*nothing was merged/);
    expect(existsSync(dest)).toBe(false);
    // An episode that changed since it was merged (a shard resumed since): named, and where it is.
    expect((await recode(["merge", dest, a, "--partial"])).code).toBe(0);
    const d = join(work, "md");
    cpSync(a, d, { recursive: true });
    const [episode] = findTrajectoryFiles(d);
    writeFileSync(episode as string, `${readFileSync(episode as string, "utf8")}\n`);
    const m3 = await recode(["merge", dest, d]);
    expect(m3.code).toBe(1);
    expect(m3.out).toMatch(
      new RegExp(`is already in ${dest} with other contents than in ${d} \\(was the shard resumed since it was merged\\?\\)`),
    );
  });

  it("says so when every reply of an episode was refused (a model written for another setting)", async () => {
    // The demo script's replies are plain code, for the baseline setting; memory_agent asks for Action: lines.
    const out = join(work, "refused");
    const r = await recode([
      "run",
      "--model",
      "scripted:examples/demo-pass-at-k.script.json",
      "--tasks",
      "pass-at-k",
      "--levels",
      "0",
      "--turns",
      "1",
      "--setting",
      "memory_agent",
      "--out",
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/every reply was refused, e\.g\. the reply has no `Action:` line; check the --setting/);
  });

  it("a task whose packages cannot be loaded is an episode error before any model call, not a failed turn of the agent's", async () => {
    const out = join(work, "no-packages");
    const empty = join(work, "empty-package-source");
    mkdirSync(empty, { recursive: true });
    const file = join(work, "rms-norm.script.json");
    writeFileSync(
      file,
      JSON.stringify(solverScript([{ targetPath: target("rms-norm"), first: canonical("rms-norm"), later: canonical("rms-norm") }])),
    );
    const args = ["--model", `scripted:${file}`, "--tasks", "rms-norm", "--levels", "0", "--turns", "2", "--setting", "memory_agent"];
    const r = await recode(["run", ...args, "--package-source", empty, "--out", out]);
    // Found before any model is asked: the scripted coder's first reply is not spent.
    expect(r.out).toMatch(/the task's packages could not be loaded, so no model was asked: package numpy could not be loaded/);
    expect(r.out).toContain("while loading numpy: ");
    // What to do, in the CLI's options.
    expect(r.out).toContain("Does --package-source hold Pyodide's wheels of these packages");
    expect(r.out).toContain("Or use --backend native");
    expect(r.out).not.toContain(":;");
    const episodes = findTrajectoryFiles(out).map((f) => restoreTrajectory(JSON.parse(readFileSync(f, "utf8"))));
    expect(episodes.map((t) => [t.stoppedReason, t.turns.length])).toEqual([["error", 0]]);
    const report = await recode(["report", out]);
    expect(report.out).toMatch(/1 episode ended in an error/);
  });

  it("shards with other decoding settings are not merged into one run", async () => {
    const a = join(work, "sa");
    const b = join(work, "sb");
    expect((await recode([...base, "--tasks", TASKS[0] as string, "--out", a])).code).toBe(0);
    expect((await recode([...base, "--tasks", TASKS[1] as string, "--sampling", "temperature=0.7", "--out", b])).code).toBe(0);
    const dest = join(work, "sfail");
    const m = await recode(["merge", dest, a, b]);
    expect(m.code).toBe(1);
    expect(m.out).toMatch(/sampling is "coder temperature=0.7" but the merged run has "".*nothing was merged/);
    expect(existsSync(dest)).toBe(false);
  });

  it("fails before any work on bad configuration, saying what to fix", async () => {
    const out = join(work, "bad");
    const cases: [string[], RegExp, NodeJS.ProcessEnv?][] = [
      [["run", "--model", "foo:bar", "--out", out], /unknown model provider.*openai.*ollama/i],
      [["run", "--model", `scripted:${script}`, "--tasks", "no-such-task", "--out", out], /unknown task "no-such-task"/],
      [["run", "--model", `scripted:${script}`, "--levels", "0-7", "--out", out], /--levels/],
      [["run", "--model", "openai:gpt-4o-mini", "--out", out], /OPENAI_API_KEY/, { OPENAI_API_KEY: "" }],
      [["run", "--model", `scripted:${join(work, "missing.json")}`, "--out", out], /no script file/],
      [["run", "--model", `ollama:qwen`, "--base-url", `http://127.0.0.1:${await closedPort()}/v1`, "--out", out], /running|reach/i],
      [["run", "--model", `scripted:${script}`, "--researcher", "oracle", "--out", out], /--researcher/],
      [["run", "--model", `scripted:${script}`, "--out", "/etc/hostname/runs"], /--out: cannot write to \/etc\/hostname\/runs/],
    ];
    for (const [args, msg, env] of cases) {
      const r = await recode(args, env);
      expect(r.code, r.out).toBe(2);
      expect(r.out).toMatch(msg);
    }
    expect(existsSync(out)).toBe(false);
  });
});

/** `recode run` with coder and llm researcher on one local endpoint, 3 turns, min-p-sampling. */
const httpRun = (baseURL: string, levels: string, out: string) => [
  "run",
  "--model",
  "ollama:coder",
  "--base-url",
  baseURL,
  "--researcher",
  "llm:ollama:reviewer",
  "--levels",
  levels,
  "--turns",
  "3",
  "--tasks",
  "min-p-sampling",
  "--out",
  out,
];

/** Coder requests for turn 0 a stub server has answered. */
const turn0Calls = (stub: ChatStub) =>
  stub.chatRequests().filter((q) => (q.body?.messages?.at(-1)?.content ?? "").includes("# Turn 0")).length;

describe("recode run over a task whose test.py changed since it was recorded", () => {
  it("does not start (exit 2), and gives the command that records the task again", async () => {
    const dir = join(work, "changed-tasks");
    cpSync("tasks/pass-at-k", join(dir, "pass-at-k"), { recursive: true });
    const testPy = join(dir, "pass-at-k", "test.py");
    writeFileSync(testPy, readFileSync(testPy, "utf8").replace("(10, 3, 1), (10, 3, 2)", "(10, 4, 1), (10, 3, 2)"));
    const r = await recode([...base, "--dir", dir, "--tasks", "pass-at-k", "--out", join(work, "changed-run")]);
    expect(r.code).toBe(2);
    expect(r.out).toContain(
      `tasks whose expected.json is not a recording of the task as it is now: pass-at-k: recorded from another test.py (test.py changed since the task was recorded). Run recode tasks record pass-at-k --dir ${dir}`,
    );
    expect(existsSync(join(work, "changed-run"))).toBe(false);
  });
});

describe("recode run against an OpenAI-compatible endpoint", () => {
  let stub: ChatStub;
  afterAll(async () => {
    await stub?.close();
  });

  /** Coder and researcher served by one local chat-completions server. */
  function reply(req: RecordedRequest): { content: string } {
    const msgs = req.body?.messages ?? [];
    const system = msgs.find((m) => m.role === "system")?.content ?? "";
    const last = msgs.at(-1)?.content ?? "";
    if (system.includes("You review code")) {
      const item = {
        interface: "min_p_sample",
        category: "T2",
        description: "Temperature is applied at the wrong point.",
        analysis: "The sampling test fails at high temperature. Write instead: probs = softmax(logits / temperature)",
        actionable_feedback: "Apply temperature before the min-p threshold.",
        direct_code_feedback: fence(canonical("min-p-sampling")),
      };
      return { content: JSON.stringify({ items: [item] }) };
    }
    if (last.includes("Result of REPLACE")) return { content: "Reflection: done.\nAction: SUBMIT" };
    if (last.includes("# Turn 0")) return { content: `Reflection: try.\nAction: REPLACE\n${fence(buggy("min-p-sampling"))}` };
    return { content: `Reflection: fix.\nAction: REPLACE\n${fence(canonical("min-p-sampling"))}` };
  }

  /**
   * Start a run against a slow endpoint, send `signal` once its first episode
   * exists, check the stopped run (`stopped`, given the processes that were
   * below it), then run the same command again: it must resume without
   * generating any saved turn 0 again, and finish every episode.
   */
  async function stopAndResume(
    name: string,
    signal: NodeJS.Signals,
    stopped: (first: Result, below: number[]) => Promise<void>,
  ): Promise<void> {
    const slow = await startChatStub({ models: ["coder"], fallback: (req) => ({ ...reply(req), delayMs: 400 }) });
    try {
      const out = join(work, name);
      const args = [
        "run",
        "--model",
        "ollama:coder",
        "--base-url",
        slow.baseURL,
        "--levels",
        "0-4",
        "--turns",
        "3",
        "--tasks",
        "min-p-sampling",
        "--out",
        out,
      ];
      let below: number[] = [];
      const first = await recode(args, {}, (child) => {
        const timer = setInterval(() => {
          if (existsSync(join(out, "episodes")) && child.pid) {
            clearInterval(timer);
            below = descendants(child.pid);
            child.kill(signal);
          }
        }, 50);
      });
      await stopped(first, below);
      const before = turn0Calls(slow);
      const second = await recode(args);
      expect(second.code, second.out).toBe(0);
      // Turn 0 was saved and is not generated again.
      expect(turn0Calls(slow)).toBe(before);
      const files = findTrajectoryFiles(out);
      expect(files).toHaveLength(5);
      for (const f of files) expect(restoreTrajectory(JSON.parse(readFileSync(f, "utf8"))).stoppedReason).toBe("solved");
    } finally {
      await slow.close();
    }
  }

  it("drives the agent and the llm researcher over real HTTP, through a 429 and a malformed reply", async () => {
    stub = await startChatStub({ models: ["coder", "reviewer"], fallback: reply });
    // The first chat call is rate limited; the first review is not JSON (the researcher repairs it).
    stub.enqueue({ status: 429, headers: { "retry-after": "0" }, errorMessage: "slow down" });
    stub.enqueue({
      content: "I think it is mostly fine!",
      when: (r) => (r.body?.messages?.[0]?.content ?? "").includes("You review code"),
    });
    const out = join(work, "http");
    const r = await recode(httpRun(stub.baseURL, "3", out));
    expect(r.code, r.out).toBe(0);
    const [file] = findTrajectoryFiles(out);
    const t = restoreTrajectory(JSON.parse(readFileSync(file as string, "utf8")));
    expect(t.stoppedReason).toBe("solved");
    expect(t.config.researcher).toBe("llm:ollama:reviewer");
    expect(t.turns[0]?.feedback?.items[0]?.interface).toBe("min_p_sample");
    expect(t.turns[0]?.feedbackText).toContain("Apply temperature before");
    expect(t.turns[0]?.feedbackText).not.toContain("def min_p_sample");
    expect(t.turns[0]?.codeOmitted).toBeGreaterThan(0);
    expect(t.turns[0]?.tokens.prompt).toBeGreaterThan(0);
    const statuses = stub.chatRequests().length;
    expect(statuses).toBeGreaterThanOrEqual(6);
  });

  it("a model call that failed and was tried again is said in the output and kept in the trajectory", async () => {
    const srv = await startChatStub({ models: ["coder"], fallback: reply });
    // The first call of the episode (not the start's probe) fails twice, then the server answers.
    const episode = (r: RecordedRequest) => !r.rawBody.includes('"content":"ping"');
    srv.enqueue(
      { status: 500, headers: { "retry-after": "0" }, when: episode },
      { status: 503, headers: { "retry-after": "0" }, when: episode },
    );
    try {
      const out = join(work, "retried");
      const args = ["run", "--model", "ollama:coder", "--base-url", srv.baseURL, "--levels", "0", "--turns", "2"];
      const r = await recode([...args, "--tasks", "min-p-sampling", "--setting", "memory_agent", "--out", out]);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain("coder ollama:coder: HTTP 500; trying again in 0.0 s (retry 1)");
      expect(r.out).toContain("coder ollama:coder: HTTP 503; trying again in 0.0 s (retry 2)");
      const [t] = findTrajectoryFiles(out).map((f) => restoreTrajectory(JSON.parse(readFileSync(f, "utf8"))));
      const replies = (t?.turns[0]?.messages ?? []).filter((m) => m.role === "assistant");
      expect(replies[0]?.retried).toEqual(["HTTP 500", "HTTP 503"]);
      expect(replies.slice(1).every((m) => m.retried === undefined)).toBe(true);
    } finally {
      await srv.close();
    }
  });

  it("a parameter the server refuses is said once as the calls leave it out", async () => {
    const refusing = (req: RecordedRequest) =>
      req.body?.temperature !== undefined
        ? {
            status: 400,
            rawBody: JSON.stringify({
              error: { message: "temperature is not supported", type: "invalid_request_error", param: "temperature" },
            }),
          }
        : reply(req);
    const srv = await startChatStub({ models: ["coder"], fallback: refusing });
    try {
      const out = join(work, "left-out");
      const args = ["run", "--model", "ollama:coder", "--base-url", srv.baseURL, "--levels", "0", "--turns", "2"];
      const r = await recode([...args, "--tasks", "min-p-sampling", "--setting", "memory_agent", "--out", out]);
      expect(r.code, r.out).toBe(0);
      const line = "coder ollama:coder: the server refused temperature (HTTP 400); calls leave it out from now on";
      expect(r.out.split(line)).toHaveLength(2);
    } finally {
      await srv.close();
    }
  });

  it("replies cut at the token limit are said as such, with the limit to raise, not the setting", async () => {
    const cut = (req: RecordedRequest) => ({
      rawBody: JSON.stringify({
        id: "x",
        object: "chat.completion",
        created: 0,
        model: req.body?.model ?? "coder",
        choices: [{ index: 0, message: { role: "assistant", content: "Action: REPLACE\n```python\ndef min_p" }, finish_reason: "length" }],
        usage: { prompt_tokens: 10, completion_tokens: 10 },
      }),
    });
    const srv = await startChatStub({ models: ["coder"], fallback: cut });
    try {
      const out = join(work, "cut-replies");
      const args = ["run", "--model", "ollama:coder", "--base-url", srv.baseURL, "--levels", "0", "--turns", "1"];
      const r = await recode([...args, "--tasks", "min-p-sampling", "--setting", "memory_agent", "--out", out]);
      expect(r.out).toContain("every reply was refused, e.g. the reply was cut at the token limit (truncated)");
      expect(r.out).toContain("raise the token limit (--sampling max_tokens=<n>, or the server's own limit)");
      expect(r.out).not.toContain("check the --setting");
    } finally {
      await srv.close();
    }
  });

  it("a researcher of another provider than the coder's is not sent to the coder's endpoint, nor given its key", async () => {
    const srv = await startChatStub({ models: ["coder"], fallback: reply });
    try {
      const out = join(work, "other-provider");
      const args = ["run", "--model", "ollama:coder", "--base-url", srv.baseURL, "--api-key", "local-key"];
      args.push("--researcher", "llm:openai:o4-mini", "--levels", "1", "--turns", "2", "--tasks", "min-p-sampling", "--out", out);
      const r = await recode(args, { OPENAI_API_KEY: "" });
      expect(r.code).toBe(2);
      expect(r.out).toContain("--researcher: model openai:o4-mini needs an API key: set OPENAI_API_KEY");
      expect(srv.chatRequests()).toHaveLength(0);
    } finally {
      await srv.close();
    }
  });

  it("runs an episode with an OpenAI reasoning model as coder and researcher, though it refuses temperature, top_p and max_tokens", async () => {
    const refusal = JSON.parse(readFileSync("tests/fixtures/cases/08-o-series-temperature.server-response.json", "utf8"));
    const srv = await startChatStub({
      models: ["o4-mini"],
      fallback: (req) => {
        const b = req.body ?? {};
        if ((b.temperature !== undefined && b.temperature !== 1) || (b.top_p !== undefined && b.top_p !== 1)) {
          return { status: 400, rawBody: JSON.stringify(refusal.body) };
        }
        if (b.max_tokens !== undefined) {
          const message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
          return {
            status: 400,
            rawBody: JSON.stringify({
              error: { message, type: "invalid_request_error", param: "max_tokens", code: "unsupported_parameter" },
            }),
          };
        }
        return reply(req);
      },
    });
    try {
      const out = join(work, "reasoning-model");
      const args = ["run", "--model", "openai:o4-mini", "--base-url", srv.baseURL, "--api-key", "sk-test"];
      args.push("--researcher", "llm:openai:o4-mini", "--researcher-api-key", "sk-test", "--levels", "1", "--turns", "3");
      args.push("--setting", "agent", "--tasks", "min-p-sampling", "--out", out);
      const r = await recode(args);
      expect(r.code, r.out).toBe(0);
      const t = restoreTrajectory(JSON.parse(readFileSync(findTrajectoryFiles(out)[0] as string, "utf8")));
      expect(t.stoppedReason).toBe("solved");
      expect(t.turns[0]?.feedback?.items.length).toBeGreaterThan(0);
      // Known reasoning models never get the parameters they refuse.
      const chats = srv.chatRequests();
      expect(chats.length).toBeGreaterThan(2);
      for (const q of chats) expect([q.body?.temperature, q.body?.top_p, q.body?.max_tokens]).toEqual([undefined, undefined, undefined]);
    } finally {
      await srv.close();
    }
  });

  it("decodes each seat with its own settings and records them in the trajectory", async () => {
    const srv = await startChatStub({ models: ["coder", "reviewer"], fallback: reply });
    try {
      const out = join(work, "sampling");
      const args = httpRun(srv.baseURL, "1", out);
      args.push("--sampling", "temperature=0.7,top_p=default,max_tokens=900", "--researcher-sampling", "temperature=default");
      const r = await recode(args);
      expect(r.code, r.out).toBe(0);
      const isReview = (q: RecordedRequest) => (q.body?.messages?.[0]?.content ?? "").includes("You review code");
      const coder = srv.chatRequests().filter((q) => !isReview(q));
      const reviews = srv.chatRequests().filter(isReview);
      expect(coder.length).toBeGreaterThan(0);
      expect(reviews.length).toBeGreaterThan(0);
      for (const q of coder) expect([q.body?.temperature, q.body?.top_p, q.body?.max_tokens]).toEqual([0.7, undefined, 900]);
      for (const q of reviews) expect([q.body?.temperature, q.body?.top_p]).toEqual([undefined, 1]);
      const t = restoreTrajectory(JSON.parse(readFileSync(findTrajectoryFiles(out)[0] as string, "utf8")));
      expect(t.config.sampling).toEqual({ coder: { temperature: 0.7, topP: null, maxTokens: 900 }, researcher: { temperature: null } });
      // A run folder keeps its settings: other ones are refused, with what differs.
      const other = await recode([...httpRun(srv.baseURL, "1", out), "--sampling", "temperature=0.2"]);
      expect(other.code).toBe(2);
      expect(other.out).toContain("sampling");
      const bad = await recode([...httpRun(srv.baseURL, "1", join(work, "sampling-bad")), "--sampling", "temprature=0.2"]);
      expect(bad.code).toBe(2);
      expect(bad.out).toContain('--sampling: unknown setting "temprature"');
    } finally {
      await srv.close();
    }
  });

  it("--protocol reference: OpenAI coder at the provider's temperature, turn 0 per level in baseline, the profile recorded and kept", async () => {
    const srv = await startChatStub({ models: ["coder", "reviewer"], fallback: reply });
    try {
      const out = join(work, "reference");
      const args = httpRun(srv.baseURL, "0,1", out).map((a) => (a === "ollama:coder" ? "openai:coder" : a));
      // (The researcher is of another provider than the coder: it is given its endpoint.)
      args.push("--api-key", "k", "--setting", "baseline", "--researcher-base-url", srv.baseURL, "--protocol", "reference");
      const r = await recode(args);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain("reference protocol");
      const isReview = (q: RecordedRequest) => (q.body?.messages?.[0]?.content ?? "").includes("You review code");
      const coder = srv.chatRequests().filter((q) => !isReview(q));
      // Turn 0 at each of the two levels: at least two turn-0 calls.
      expect(coder.filter((q) => (q.body?.messages?.at(-1)?.content ?? "").startsWith("# Turn 0")).length).toBe(2);
      for (const q of coder) expect(q.body?.temperature).toBeUndefined();
      for (const q of srv.chatRequests().filter(isReview)) expect(q.body?.temperature).toBe(0);
      expect(JSON.parse(readFileSync(join(out, "run.json"), "utf8")).protocol).toBe("reference");
      for (const f of findTrajectoryFiles(out)) {
        const t = restoreTrajectory(JSON.parse(readFileSync(f, "utf8")));
        expect([t.config.protocol, t.sharedTurn0, t.config.sampling?.coder]).toEqual(["reference", false, { temperature: null }]);
      }
      const report = await recode(["report", out]);
      expect(report.out).toContain("| protocol |");
      expect(report.out).toContain("| reference |");
      // The folder holds one profile.
      const other = await recode([...args.slice(0, -2), "--protocol", "playground"]);
      expect(other.code).toBe(2);
      expect(other.out).toContain('--protocol ("reference"; this run: "playground")');
    } finally {
      await srv.close();
    }
  });

  it("keeps the coder's turn 0 when its review fails, records the episodes as errors, and retries only the review", async () => {
    let reviewerBroken = true;
    const srv = await startChatStub({
      models: ["coder", "reviewer"],
      fallback: (req) => {
        const system = req.body?.messages?.find((m) => m.role === "system")?.content ?? "";
        if (system.includes("You review code") && reviewerBroken) return { content: "{items: [oops" };
        return reply(req);
      },
    });
    try {
      const out = join(work, "turn0-review");
      const args = httpRun(srv.baseURL, "1,4", out);
      const first = await recode(args);
      expect(first.code, first.out).toBe(1);
      expect(first.out).toContain("turn 0 failed");
      const files = findTrajectoryFiles(out);
      expect(files).toHaveLength(2);
      for (const f of files) expect(restoreTrajectory(JSON.parse(readFileSync(f, "utf8"))).stoppedReason).toBe("error");
      const rep = await recode(["report", out]);
      expect(rep.out).toContain("ended in an error");
      const coderTurn0 = () => turn0Calls(srv);
      const before = coderTurn0();
      reviewerBroken = false;
      const second = await recode(args);
      expect(second.code, second.out).toBe(0);
      expect(coderTurn0()).toBe(before);
      for (const f of findTrajectoryFiles(out)) expect(restoreTrajectory(JSON.parse(readFileSync(f, "utf8"))).stoppedReason).toBe("solved");
    } finally {
      await srv.close();
    }
  });

  it("killed outright (SIGKILL), it leaves no box running and the next run resumes with every saved turn", async () => {
    await stopAndResume("killed", "SIGKILL", async (first, boxes) => {
      expect(first.code).toBeNull();
      expect(boxes.length).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 500));
      // The Pyodide box (bubblewrap and everything in it) died with the command.
      expect(boxes.filter(alive)).toEqual([]);
    });
  });

  it("stops cleanly on Ctrl-C and resumes where it stopped", async () => {
    await stopAndResume("interrupt", "SIGINT", async (first) => {
      expect(first.code, first.out).toBe(130);
      expect(first.out).toContain(
        "stopping: finished turns are saved; the turn under way is not, and is done again when the run is resumed",
      );
      expect(first.out).toContain("Run the same command again to resume");
    });
  });

  it("stops cleanly on a scheduler's SIGTERM, says so, and resumes where it stopped", async () => {
    await stopAndResume("terminated", "SIGTERM", async (first) => {
      // The shell's code for SIGTERM (128 + 15), and no word of Ctrl-C for a run a scheduler stopped.
      expect(first.code, first.out).toBe(143);
      expect(first.out).toContain("SIGTERM: stopping: finished turns are saved");
      expect(first.out).toContain("(a second SIGTERM or Ctrl-C quits at once)");
      expect(first.out).toContain("Run the same command again to resume");
    });
  });
});
