/**
 * `recode report` and `recode merge`: the paper-style results table (rows
 * model x setting, columns L0-L4 with Recall@n, MRR and test-case pass rate),
 * the per-turn Recall@k curves, and joining shard folders.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { aggregate, type EpisodeSummary, type MetricsRow, validateEpisodeSummary } from "../core/metrics";
import { episodeSummary, restoreTrajectory } from "../core/trajectory";
import { findTrajectoryFiles, listJsonFiles, type RunConfig, RunFolder } from "./run-folder";

/** Loaded results of one or more run folders. */
export interface ReportData {
  rows: MetricsRow[];
  /** Files that could not be read (left out of the metrics), with the reason. */
  unreadable: string[];
  /** Episodes a run.json asks for that have no trajectory file yet (`<model> <setting> L<level> <task>`). */
  missing: string[];
  /** Episodes that have not finished (interrupted runs), listed by file. */
  unfinished: string[];
  /** Episodes that ended in an error. */
  errored: string[];
  n: number;
}

/** Read every trajectory under the folders and compute the metrics (RECODE-H "Metrics"). Throws naming a broken file. */
export function loadReport(dirs: string[], nWanted?: number): ReportData {
  const summaries: EpisodeSummary[] = [];
  const unfinished: string[] = [];
  const errored: string[] = [];
  const unreadable: string[] = [];
  const missing: string[] = [];
  const seen = new Map<string, string>();
  let maxTurns = 0;
  // A path may also be a JSON file: one trajectory, or a list of them (the page's export).
  const sources: { file: string; value: () => unknown[] }[] = [];
  for (const dir of dirs) {
    const path = resolve(dir);
    if (existsSync(path) && statSync(path).isFile()) {
      sources.push({
        file: path,
        value: () => {
          const v = JSON.parse(readFileSync(path, "utf8")) as unknown;
          return Array.isArray(v) ? v : [v];
        },
      });
      continue;
    }
    const folder = new RunFolder(path);
    let config: RunConfig | null = null;
    try {
      config = folder.readConfig();
    } catch (e) {
      unreadable.push(`${folder.configPath}: ${(e as Error).message}`);
    }
    if (config) {
      for (const task of config.tasks) {
        for (const level of config.levels) {
          if (!existsSync(folder.episodePath(config.model, config.setting, level, task)))
            missing.push(`${config.model} ${config.setting} L${level} ${task}`);
        }
      }
    }
    for (const file of findTrajectoryFiles(path)) sources.push({ file, value: () => [JSON.parse(readFileSync(file, "utf8"))] });
  }
  for (const src of sources) {
    let values: unknown[];
    try {
      values = src.value();
    } catch (e) {
      unreadable.push(`${src.file}: ${(e as Error).message}`);
      continue;
    }
    for (const [i, value] of values.entries()) {
      const file = values.length > 1 ? `${src.file}[${i}]` : src.file;
      let t: ReturnType<typeof restoreTrajectory>;
      try {
        t = restoreTrajectory(value);
      } catch (e) {
        unreadable.push(`${file}: ${(e as Error).message}`);
        continue;
      }
      maxTurns = Math.max(maxTurns, t.config.maxTurns);
      const summary = episodeSummary(t);
      try {
        validateEpisodeSummary(summary, "episode");
      } catch (e) {
        unreadable.push(`${file}: ${(e as Error).message}`);
        continue;
      }
      const key = [summary.model, summary.setting, summary.level, summary.researcher, summary.taskId].join("\u0000");
      const first = seen.get(key);
      if (first) {
        unreadable.push(`${file}: the same episode as ${first} (left out; name each run folder once)`);
        continue;
      }
      seen.set(key, file);
      if (!t.finished) unfinished.push(file);
      if (t.stoppedReason === "error") errored.push(file);
      summaries.push(summary);
    }
  }
  // Default n: RECODE-H's 10, or the runs' turn limit when that is smaller.
  const n = nWanted ?? Math.min(10, maxTurns || 10);
  if (summaries.length === 0) {
    throw new Error(
      `no readable trajectories under ${dirs.join(", ")} (expected <dir>/episodes/...)${unreadable.length ? `; unreadable: ${unreadable.join("; ")}` : ""}`,
    );
  }
  return { rows: aggregate(summaries, n), unfinished, errored, unreadable, missing, n };
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
    const tasks = Math.max(...rows.map((r) => r.taskCount));
    const cells = [0, 1, 2, 3, 4].map((l) => {
      const r = rows.find((x) => x.level === l);
      // A level with fewer tasks than the row (an interrupted run) says over how many it was computed.
      return r ? `${pct(r.recallAtN)} / ${pct(r.mrr)} / ${pct(r.passRate)}${r.taskCount < tasks ? ` (${r.taskCount} tasks)` : ""}` : "-";
    });
    out.push(`| ${k} | ${tasks} | ${cells.join(" | ")} |`);
  }
  if (d.unfinished.length)
    out.push(
      "",
      `${d.unfinished.length} episode(s) have not finished (run the same recode run again to resume); they count with the turns they have.`,
    );
  if (d.errored.length) out.push("", `${d.errored.length} episode(s) ended in an error (counted as not solved); run again to retry them.`);
  if (d.missing.length) {
    out.push(
      "",
      `${d.missing.length} episode(s) of the run configuration have no trajectory yet (not run, or turn 0 failed): ${d.missing.slice(0, 5).join("; ")}${d.missing.length > 5 ? "; ..." : ""}`,
    );
  }
  if (d.unreadable.length)
    out.push("", `${d.unreadable.length} file(s) could not be read and are left out:`, ...d.unreadable.map((u) => `- ${u}`));
  out.push("", `## Per-turn Recall@k (%, k = 1..${d.n})`, "");
  out.push(`| model | setting | level | ${Array.from({ length: d.n }, (_, i) => `@${i + 1}`).join(" | ")} |`);
  out.push(`| --- | --- | --- | ${Array.from({ length: d.n }, () => "---").join(" | ")} |`);
  for (const r of d.rows) out.push(`| ${r.model} | ${r.setting} | L${r.level} | ${r.curve.map(pct).join(" | ")} |`);
  out.push(
    "",
    "## Cost",
    "",
    "| model | setting | level | prompt tokens | completion tokens | calls without token counts | wall time (s) |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const r of d.rows) {
    // A server that sent no counts makes the sums a lower bound: say so in the cells.
    const atLeast = r.tokens.unreported ? "≥ " : "";
    out.push(
      `| ${r.model} | ${r.setting} | L${r.level} | ${atLeast}${r.tokens.prompt} | ${atLeast}${r.tokens.completion} | ${r.tokens.unreported ?? 0} | ${(r.wallMs / 1000).toFixed(1)} |`,
    );
  }
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
    "unreported_calls",
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
        r.tokens.unreported ?? 0,
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
  const copies: { from: string; to: string; episode: boolean }[] = [];
  const planned = new Map<string, string>();
  // Check everything first: a merge that fails leaves the target as it was.
  for (const dir of shards) {
    const src = new RunFolder(resolve(dir));
    const c = src.readConfig();
    if (!c) throw new Error(`${dir}: no run.json (is it a recode run folder?)`);
    if (config) {
      for (const k of ["model", "researcher", "setting", "maxTurns", "maxSteps", "backend"] as const) {
        if (JSON.stringify(config[k]) !== JSON.stringify(c[k])) {
          throw new Error(
            `${dir}: ${k} is ${JSON.stringify(c[k])} but the merged run has ${JSON.stringify(config[k])}; nothing was merged`,
          );
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
      const episode = rel.startsWith("episodes") && !rel.endsWith(".memory.json");
      const text = readFileSync(file, "utf8");
      if (episode) {
        try {
          restoreTrajectory(JSON.parse(text));
        } catch (e) {
          throw new Error(`${file}: ${(e as Error).message}; nothing was merged`);
        }
      }
      const dest = join(target.root, rel);
      const seen = planned.get(rel) ?? (existsSync(dest) ? readFileSync(dest, "utf8") : undefined);
      if (seen !== undefined) {
        if (seen !== text) throw new Error(`${rel} is in more than one run with different contents (${dir}); nothing was merged`);
        continue;
      }
      planned.set(rel, text);
      copies.push({ from: file, to: dest, episode });
    }
  }
  if (!config) throw new Error("nothing to merge: name at least one shard folder");
  for (const c of copies) {
    mkdirSync(dirname(c.to), { recursive: true });
    copyFileSync(c.from, c.to);
  }
  target.writeConfig(config);
  return { episodes: copies.filter((c) => c.episode).length, config };
}
