/**
 * A grid split into three shards that run as separate `recode run` processes
 * at the same time, joined with `recode merge`, reports exactly what one
 * unsharded run of the same grid reports.
 *
 * Compared field by field: every row (model, setting, researcher, conditions,
 * level, task count, solved count, n, Recall@n, MRR, pass rate, the per-turn
 * curve, token counts) and every list (unfinished, errored, below n,
 * duplicates, unreadable, missing), plus n, the episode count and the varying
 * conditions. Left out, because they measure time and not results:
 * - `rows[].wallMs` (CSV `wall_ms`): the summed wall time of the episodes;
 * - nothing else: the scripted model and the rules researcher are
 *   deterministic, and token counts are estimated from the prompt texts, which
 *   hold no times.
 * The `source` of an episode named in a list is its file path, which differs
 * between the folders; it is compared relative to its run folder.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fence } from "../../src/core/agent/prompts";
import { cleanEnv, type ProcessResult, recodeCli } from "../helpers/cli-process";
import { knownBug } from "../helpers/known-bugs";

const work = mkdtempSync(join(tmpdir(), "recode-shards-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const file = (id: string, name: string) => readFileSync(`tasks/${id}/${name}`, "utf8");
const targetPath = (id: string) => (JSON.parse(file(id, "task.json")) as { target_file_path: string }).target_file_path;
const starter = (id: string) => file(id, `repo/${targetPath(id)}`);

/**
 * What the scripted coder writes at turns 0, 1, 2 of each task (the last entry
 * again after that): solved at turn 0, 1 or 2, or never (a known bug, or the
 * starting text), so that the grid's rows differ.
 */
const PLAN: Record<string, ("canonical" | "bug" | "starter")[]> = {
  "adam-optimizer": ["bug", "canonical"],
  "bm25-ranking": ["canonical"],
  "expected-calibration-error": ["bug"],
  "generalized-advantage-estimation": ["bug", "bug", "canonical"],
  "min-p-sampling": ["starter"],
  "pass-at-k": ["starter", "bug", "canonical"],
};
const TASKS = Object.keys(PLAN);
const TURNS = 3;

function codeOf(id: string, kind: "canonical" | "bug" | "starter"): string {
  return kind === "canonical" ? file(id, "canonical.py") : kind === "bug" ? knownBug(id).code : starter(id);
}

/** The script file: one rule per task and turn, keyed on the turn header and the task's target path. */
function writeScript(): string {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const rules: { match: string; reply: string }[] = [{ match: "Result of REPLACE", reply: "Reflection: written.\nAction: SUBMIT" }];
  for (const [id, plan] of Object.entries(PLAN)) {
    for (let turn = 0; turn < TURNS; turn++) {
      const kind = plan[Math.min(turn, plan.length - 1)] as "canonical" | "bug" | "starter";
      rules.push({
        match: `/# Turn ${turn}\\b[\\s\\S]*${esc(targetPath(id))}/`,
        reply: `Reflection: turn ${turn}.\nAction: REPLACE\n${fence(codeOf(id, kind))}`,
      });
    }
  }
  const path = join(work, "script.json");
  writeFileSync(path, JSON.stringify({ rules }));
  return path;
}

interface EpisodeRef {
  source: string;
  [k: string]: unknown;
}
interface ReportJson {
  rows: Record<string, unknown>[];
  n: number;
  episodes: number;
  varying: string[];
  unfinished: EpisodeRef[];
  errored: EpisodeRef[];
  belowN: EpisodeRef[];
  duplicates: (EpisodeRef & { kept: string })[];
  unreadable: string[];
  missing: string[];
}

/** Fields that measure time, not results (see the module comment). */
const TIME_FIELDS = ["wallMs"];

/** The report of run folder `root` with what measures time taken out and sources made relative to `root`. */
function comparable(report: ReportJson, root: string): ReportJson {
  const rel = (r: EpisodeRef) => ({ ...r, source: relative(root, r.source) });
  return {
    ...report,
    rows: report.rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !TIME_FIELDS.includes(k)))),
    unfinished: report.unfinished.map(rel),
    errored: report.errored.map(rel),
    belowN: report.belowN.map(rel),
    duplicates: report.duplicates.map((d) => ({ ...rel(d), kept: relative(root, d.kept) })),
  };
}

/** The CSV report without its wall_ms column. */
function csvWithoutTimes(csv: string): string[][] {
  const rows = csv
    .trim()
    .split("\n")
    .map((l) => l.split(","));
  const at = rows[0]?.indexOf("wall_ms") ?? -1;
  expect(at).toBeGreaterThan(0);
  return rows.map((r) => r.filter((_, i) => i !== at));
}

async function report(dir: string, format: "json" | "csv"): Promise<string> {
  const r = await recodeCli(["report", dir, "--format", format]);
  expect(r.code, r.out).toBe(0);
  return r.out;
}

describe("recode run --shard, three processes at the same time", () => {
  it("merged, reports what one unsharded run of the same grid reports", async () => {
    const script = writeScript();
    const grid = ["run", "--model", `scripted:${script}`, "--researcher", "rules", "--setting", "memory_agent"];
    grid.push("--levels", "0-4", "--turns", String(TURNS), "--tasks", ...TASKS);
    const env = cleanEnv();
    const shardDirs = [0, 1, 2].map((i) => join(work, `shard-${i}`));
    const whole = join(work, "whole");

    // The three shards and the unsharded run, all started at once (the unsharded one with two workers).
    const [runs, single] = await Promise.all([
      Promise.all(shardDirs.map((out, i) => recodeCli([...grid, "--shard", `${i}/3`, "--out", out], env))),
      recodeCli([...grid, "--workers", "2", "--out", whole], env),
    ]);
    for (const r of [...runs, single] as ProcessResult[]) expect(r.code, r.out).toBe(0);
    // The shards ran at the same time: each started before any ended.
    expect(Math.max(...runs.map((r) => r.startedAt))).toBeLessThan(Math.min(...runs.map((r) => r.endedAt)));
    // Each took its own two tasks, 10 episodes.
    for (const r of runs) expect(r.out).toContain("done: 10 episodes");
    expect(single.out).toContain("done: 30 episodes");

    const merged = join(work, "merged");
    const m = await recodeCli(["merge", merged, ...shardDirs], env);
    expect(m.code, m.out).toBe(0);
    expect(m.out).toContain("merged 30 episode files from 3 folders");

    const a = JSON.parse(await report(merged, "json")) as ReportJson;
    const b = JSON.parse(await report(whole, "json")) as ReportJson;
    // The grid is not trivial: rows differ in what they measure.
    expect(a.rows).toHaveLength(5);
    expect(a.episodes).toBe(30);
    const row = a.rows[0] as { taskCount: number; solvedCount: number; curve: number[]; mrr: number; passRate: number };
    expect([row.taskCount, row.solvedCount]).toEqual([6, 4]);
    expect(new Set(row.curve).size).toBe(3);
    expect(row.passRate).toBeGreaterThan(0);
    expect(row.passRate).toBeLessThan(1);
    expect(a.n).toBe(TURNS);

    const ca = comparable(a, merged);
    const cb = comparable(b, whole);
    expect(ca.rows).toHaveLength(cb.rows.length);
    ca.rows.forEach((r, i) => {
      // Field by field, so that a difference names the field.
      for (const k of new Set([...Object.keys(r), ...Object.keys(cb.rows[i] ?? {})])) {
        expect(r[k], `rows[${i}].${k}`).toEqual(cb.rows[i]?.[k]);
      }
    });
    expect(ca).toEqual(cb);
    expect(csvWithoutTimes(await report(merged, "csv"))).toEqual(csvWithoutTimes(await report(whole, "csv")));
  }, 300_000);
});
