/**
 * `recode report` and `recode merge`: the paper-style results table (rows
 * model x setting, columns L0-L4 with Recall@n, MRR and test-case pass rate),
 * the per-turn Recall@k curves, and joining shard folders.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { aggregate, type EpisodeSummary, type MetricsRow } from "../core/metrics";
import { episodeSummary, restoreTrajectory } from "../core/trajectory";
import { findTrajectoryFiles, listJsonFiles, type RunConfig, RunFolder } from "./run-folder";

/** Loaded results of one or more run folders. */
export interface ReportData {
  rows: MetricsRow[];
  /** Episodes that have not finished (interrupted runs), listed by file. */
  unfinished: string[];
  /** Episodes that ended in an error. */
  errored: string[];
  n: number;
}

/** Read every trajectory under the folders and compute the metrics (RECODE-H "Metrics"). Throws naming a broken file. */
export function loadReport(dirs: string[], n: number): ReportData {
  const summaries: EpisodeSummary[] = [];
  const unfinished: string[] = [];
  const errored: string[] = [];
  for (const dir of dirs) {
    for (const file of findTrajectoryFiles(resolve(dir))) {
      let t: ReturnType<typeof restoreTrajectory>;
      try {
        t = restoreTrajectory(JSON.parse(readFileSync(file, "utf8")));
      } catch (e) {
        throw new Error(`${file}: ${(e as Error).message}`);
      }
      if (!t.finished) unfinished.push(file);
      if (t.stoppedReason === "error") errored.push(file);
      summaries.push(episodeSummary(t));
    }
  }
  if (summaries.length === 0) throw new Error(`no trajectories under ${dirs.join(", ")} (expected <dir>/episodes/...)`);
  return { rows: aggregate(summaries, n), unfinished, errored, n };
}

const pct = (x: number) => (100 * x).toFixed(1);

/** Markdown: the results table and the per-turn curves. */
export function reportMarkdown(d: ReportData): string {
  const groups = new Map<string, MetricsRow[]>();
  for (const r of d.rows) {
    const k = `${r.model} | ${r.setting} | ${r.researcher}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const out: string[] = [];
  out.push(`## Results (Recall@${d.n} / MRR / test-case pass rate, %)`, "");
  out.push("| model | setting | researcher | tasks | L0 | L1 | L2 | L3 | L4 |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const [k, rows] of groups) {
    const cells = [0, 1, 2, 3, 4].map((l) => {
      const r = rows.find((x) => x.level === l);
      return r ? `${pct(r.recallAtN)} / ${pct(r.mrr)} / ${pct(r.passRate)}` : "-";
    });
    const tasks = Math.max(...rows.map((r) => r.taskCount));
    out.push(`| ${k} | ${tasks} | ${cells.join(" | ")} |`);
  }
  out.push("", `## Per-turn Recall@k (%, k = 1..${d.n})`, "");
  out.push(`| model | setting | level | ${Array.from({ length: d.n }, (_, i) => `@${i + 1}`).join(" | ")} |`);
  out.push(`| --- | --- | --- | ${Array.from({ length: d.n }, () => "---").join(" | ")} |`);
  for (const r of d.rows) out.push(`| ${r.model} | ${r.setting} | L${r.level} | ${r.curve.map(pct).join(" | ")} |`);
  out.push(
    "",
    "## Cost",
    "",
    "| model | setting | level | prompt tokens | completion tokens | wall time (s) |",
    "| --- | --- | --- | --- | --- | --- |",
  );
  for (const r of d.rows)
    out.push(`| ${r.model} | ${r.setting} | L${r.level} | ${r.tokens.prompt} | ${r.tokens.completion} | ${(r.wallMs / 1000).toFixed(1)} |`);
  if (d.unfinished.length)
    out.push(
      "",
      `${d.unfinished.length} episode(s) have not finished (run the same recode run again to resume); they count with the turns they have.`,
    );
  if (d.errored.length) out.push("", `${d.errored.length} episode(s) ended in an error; run again to retry them.`);
  return `${out.join("\n")}\n`;
}

/** CSV: one line per model x setting x researcher x level, curve columns at the end. */
export function reportCsv(d: ReportData): string {
  const head = [
    "model",
    "setting",
    "researcher",
    "level",
    "tasks",
    "solved",
    "recall_at_n",
    "mrr",
    "pass_rate",
    "prompt_tokens",
    "completion_tokens",
    "wall_ms",
  ];
  const lines = [[...head, ...Array.from({ length: d.n }, (_, i) => `recall_at_${i + 1}`)].join(",")];
  const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  for (const r of d.rows) {
    lines.push(
      [
        q(r.model),
        r.setting,
        q(r.researcher),
        r.level,
        r.taskCount,
        r.solvedCount,
        r.recallAtN,
        r.mrr,
        r.passRate,
        r.tokens.prompt,
        r.tokens.completion,
        Math.round(r.wallMs),
        ...r.curve,
      ].join(","),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** JSON: the metrics rows plus unfinished and errored episode files. */
export function reportJson(d: ReportData): string {
  return `${JSON.stringify(d, null, 1)}\n`;
}

/**
 * Join shard folders into one run folder. The shards must share model,
 * researcher, setting, turns and steps; the same episode in two shards must be
 * the same file (else an error names it).
 */
export function mergeRuns(out: string, shards: string[]): { episodes: number; config: RunConfig } {
  const target = new RunFolder(resolve(out));
  let config: RunConfig | null = target.readConfig();
  let episodes = 0;
  for (const dir of shards) {
    const src = new RunFolder(resolve(dir));
    const c = src.readConfig();
    if (!c) throw new Error(`${dir}: no run.json (is it a recode run folder?)`);
    if (config) {
      for (const k of ["model", "researcher", "setting", "maxTurns", "maxSteps", "backend"] as const) {
        if (JSON.stringify(config[k]) !== JSON.stringify(c[k])) {
          throw new Error(`${dir}: ${k} is ${JSON.stringify(c[k])} but the merged run has ${JSON.stringify(config[k])}`);
        }
      }
      config = {
        ...config,
        levels: [...new Set([...config.levels, ...c.levels])].sort(),
        tasks: [...new Set([...config.tasks, ...c.tasks])].sort(),
        shard: null,
      };
    } else config = { ...c, shard: null };
    for (const file of [...listJsonFiles(join(src.root, "episodes")), ...listJsonFiles(join(src.root, "turn0"))]) {
      const rel = relative(src.root, file);
      const dest = join(target.root, rel);
      if (existsSync(dest)) {
        if (readFileSync(dest, "utf8") !== readFileSync(file, "utf8"))
          throw new Error(`${rel} is in more than one shard with different contents (${dir})`);
        continue;
      }
      mkdirSync(dirname(dest), { recursive: true });
      copyFileSync(file, dest);
      if (rel.startsWith("episodes") && !rel.endsWith(".memory.json")) episodes += 1;
    }
  }
  if (!config) throw new Error("nothing to merge: name at least one shard folder");
  target.writeConfig(config);
  return { episodes, config };
}
