/**
 * `recode report` and `recode merge`: the paper-style results table (rows
 * model x setting x researcher, columns L0-L4 with Recall@n, MRR and
 * test-case pass rate), the per-turn Recall@k curves, and joining shard
 * folders. The figures and notes come from src/core/report.ts, the code the
 * page's results page uses too; this file only reads run folders and prints.
 */

import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { plural } from "../core/plural";
import { DEFAULT_PROTOCOL } from "../core/protocol";
import { buildReport, type Report, type ReportInput } from "../core/report";
import { CONDITION_HEADINGS, conditionText, groupRows, reportCsv, reportNotes } from "../core/report-text";
import { seatSamplingText } from "../core/sampling";
import { restoreTrajectory } from "../core/trajectory";
import { FEEDBACK_LEVELS } from "../core/vocabulary";
import { findTrajectoryFiles, listJsonFiles, type RunConfig, RunFolder } from "./run-folder";
import { taskListText } from "./terminal-text";

/** Loaded results of one or more run folders: the shared {@link Report} plus what only run folders know. */
export interface ReportData extends Report {
  /** Episodes a run.json asks for that have no trajectory file yet (`<model> <setting> L<level> <task>`). */
  missing: string[];
}

/**
 * Read every trajectory under the folders (or in the JSON files: one
 * trajectory, or a list of them as the page exports) and compute the report
 * with {@link buildReport}, the same code the page's results page uses.
 * @param nWanted n of Recall@n; absent: the shared default (docs/metrics.md).
 * @throws Error when nothing readable is found (names the folders and what could not be read).
 */
export function loadReport(dirs: string[], nWanted?: number): ReportData {
  const unreadable: string[] = [];
  const missing: string[] = [];
  const inputs: ReportInput[] = [];
  const readJson = (file: string): unknown | undefined => {
    try {
      return JSON.parse(readFileSync(file, "utf8")) as unknown;
    } catch (e) {
      unreadable.push(`${file}: ${(e as Error).message}`);
      return undefined;
    }
  };
  /** A scripted model's name -> the script text (SHA-256) and folder that first named it. */
  const scripts = new Map<string, { sha: string; dir: string }>();
  for (const dir of dirs) {
    const path = resolve(dir);
    if (existsSync(path) && statSync(path).isFile()) {
      const v = readJson(path);
      if (Array.isArray(v)) inputs.push(...v.map((t, i) => ({ source: `${path}[${i}]`, trajectory: t })));
      else if (v !== undefined) inputs.push({ source: path, trajectory: v });
      continue;
    }
    const folder = new RunFolder(path);
    let config: RunConfig | null = null;
    try {
      config = folder.readConfig();
    } catch (e) {
      unreadable.push(`${folder.configPath}: ${(e as Error).message}`);
    }
    // Trajectories name a scripted model by its file name, a scripted researcher by its script's path: two texts of
    // one name would be counted as one model's episodes (one researcher's reviews).
    const seats = config
      ? [
          { key: config.model, sha: config.scriptSha256, whose: "episodes would be counted as one model's" },
          {
            key: `researcher ${config.researcher}`,
            sha: config.researcherScriptSha256,
            whose: "reviews would be counted as one researcher's",
          },
        ]
      : [];
    for (const { key, sha, whose } of seats) {
      if (!sha) continue;
      const first = scripts.get(key);
      if (first && first.sha !== sha) {
        throw new Error(
          `${key.replace(/^researcher /, "")} names two scripts, another text in ${dir} (SHA-256 ${sha.slice(0, 12)}…) than in ${first.dir} (${first.sha.slice(0, 12)}…): their ${whose}; report the folders apart, or give the scripts other file names`,
        );
      }
      if (!first) scripts.set(key, { sha, dir });
    }
    if (config) {
      // A folder merged from some of a grid's shards (--partial) holds part of the grid: the rest is not run here.
      const notHere = (config.gridTasks ?? []).filter((t) => !config.tasks.includes(t));
      for (const task of [...config.tasks, ...notHere]) {
        for (const level of config.levels) {
          if (!existsSync(folder.episodePath(config.model, config.setting, level, task)))
            missing.push(`${config.model} ${config.setting} L${level} ${task}`);
        }
      }
    }
    for (const file of findTrajectoryFiles(path)) {
      const v = readJson(file);
      if (v !== undefined) inputs.push({ source: file, trajectory: v });
    }
  }
  const report = buildReport(inputs, nWanted);
  unreadable.push(...report.unreadable);
  if (report.episodes === 0) {
    throw new Error(
      `no readable trajectories under ${dirs.join(", ")} (expected <dir>/episodes/...)${unreadable.length ? `; unreadable: ${unreadable.join("; ")}` : ""}`,
    );
  }
  return { ...report, unreadable, missing };
}

const pct = (x: number) => (100 * x).toFixed(1);

/** Markdown: the results table, the notes, the per-turn curves and the cost. */
export function reportMarkdown(d: ReportData): string {
  const groups = groupRows(d.rows);
  // Condition columns only where the episodes differ (e.g. two backends).
  const condHead = d.varying.map((f) => `${CONDITION_HEADINGS[f]} | `).join("");
  const condRule = d.varying.map(() => "--- | ").join("");
  const condCells = (c: Parameters<typeof conditionText>[0]) => d.varying.map((f) => `${conditionText(c, f)} | `).join("");
  const out: string[] = [];
  out.push(`## Results (Recall@${d.n} / MRR / test-case pass rate, %)`, "");
  out.push(
    `| model | setting | researcher | ${condHead}tasks | L0 | L1 | L2 | L3 | L4 |`,
    `| --- | --- | --- | ${condRule}--- | --- | --- | --- | --- | --- |`,
  );
  for (const g of groups) {
    const cells = FEEDBACK_LEVELS.map((l) => {
      const r = g.rows.find((x) => x.level === l);
      // A level with fewer tasks than the line (an interrupted run) says over how many it was computed.
      return r
        ? `${pct(r.recallAtN)} / ${pct(r.mrr)} / ${pct(r.passRate)}${r.taskCount < g.taskCount ? ` (${plural(r.taskCount, "task")})` : ""}`
        : "-";
    });
    out.push(`| ${g.model} | ${g.setting} | ${g.researcher} | ${condCells(g.conditions)}${g.taskCount} | ${cells.join(" | ")} |`);
  }
  for (const note of reportNotes(d)) out.push("", note.text, ...(note.items.length ? ["", ...note.items.map((i) => `- ${i}`)] : []));
  if (d.missing.length) {
    out.push(
      "",
      `${plural(d.missing.length, "episode")} of the run configuration ${d.missing.length === 1 ? "has" : "have"} no trajectory yet (not run): ${d.missing.slice(0, 5).join("; ")}${d.missing.length > 5 ? "; ..." : ""}`,
    );
  }
  out.push("", `## Per-turn Recall@k (%, k = 1..${d.n})`, "");
  out.push(`| model | setting | ${condHead}level | ${Array.from({ length: d.n }, (_, i) => `@${i + 1}`).join(" | ")} |`);
  out.push(`| --- | --- | ${condRule}--- | ${Array.from({ length: d.n }, () => "---").join(" | ")} |`);
  for (const r of d.rows) out.push(`| ${r.model} | ${r.setting} | ${condCells(r)}L${r.level} | ${r.curve.map(pct).join(" | ")} |`);
  out.push(
    "",
    "## Cost",
    "",
    `| model | setting | ${condHead}level | prompt tokens | completion tokens | calls without token counts | wall time (s) |`,
    `| --- | --- | ${condRule}--- | --- | --- | --- | --- |`,
  );
  for (const r of d.rows) {
    // A server that sent no counts makes the sums a lower bound: say so in the cells.
    const atLeast = r.tokens.unreported ? "≥ " : "";
    out.push(
      `| ${r.model} | ${r.setting} | ${condCells(r)}L${r.level} | ${atLeast}${r.tokens.prompt} | ${atLeast}${r.tokens.completion} | ${r.tokens.unreported ?? 0} | ${(r.wallMs / 1000).toFixed(1)} |`,
    );
  }
  return `${out.join("\n")}\n`;
}

/** CSV: the core's (src/core/report-text.ts), which the page's Results writes too. */
export { reportCsv };

/** JSON: the whole {@link ReportData} (rows with their conditions, n, and every list). */
export function reportJson(d: ReportData): string {
  return `${JSON.stringify(d, null, 1)}\n`;
}

/**
 * Join shard folders into one run folder. The shards must share model,
 * researcher, setting, turns and steps; the same episode in two shards must be
 * the same file (else an error names it).
 */
export function mergeRuns(
  out: string,
  shards: string[],
  opts: { partial?: boolean } = {},
): { episodes: number; config: RunConfig; missing: string[] } {
  const target = new RunFolder(resolve(out));
  let config: RunConfig | null = target.readConfig();
  // The folder merged into: a new one, or one merged before; never a shard's own folder (the arguments in the wrong order).
  if (config?.shard) {
    throw new Error(
      `${out} is the run folder of shard ${config.shard}, not a merged run: name the folder to merge into first (recode merge <merged> <shard folders...>); nothing was merged`,
    );
  }
  if (!config && existsSync(target.root) && readdirSync(target.root).length > 0) {
    throw new Error(`${out} is not empty and holds no run: merge into a new folder, or one merged before; nothing was merged`);
  }
  const copies: { from: string; to: string; episode: boolean }[] = [];
  /** What the merge will write: path in the run folder -> its text and the shard folder it comes from. */
  const planned = new Map<string, { text: string; dir: string }>();
  // The grid the shards split (their tasks before --shard took each part): one for all, where the folders say it.
  let grid: { tasks: string[]; from: string } | null = config?.gridTasks ? { tasks: config.gridTasks, from: out } : null;
  // The shards (`i/n`) held: the target's, if it was merged before, and each folder's.
  const held = new Set<string>(config?.shards ?? (config?.shard ? [config.shard] : []));
  const seenDirs = new Map<string, string>();
  // Check everything first: a merge that fails leaves the target as it was.
  for (const dir of shards) {
    const real = resolve(dir);
    const twice = seenDirs.get(real);
    if (twice !== undefined) throw new Error(`${dir}: given twice (as ${twice}); nothing was merged`);
    seenDirs.set(real, dir);
    const src = new RunFolder(real);
    const c = src.readConfig();
    if (!c) throw new Error(`${dir}: no run.json (is it a recode run folder?)`);
    if (c.gridTasks) {
      if (grid && JSON.stringify(grid.tasks) !== JSON.stringify(c.gridTasks)) {
        throw new Error(
          `${dir} is a shard of another task list (${taskListText(c.gridTasks)}) than ${grid.from} (${taskListText(grid.tasks)}): the shards of one grid are run with the same --tasks; nothing was merged`,
        );
      }
      grid ??= { tasks: c.gridTasks, from: dir };
    }
    for (const s of c.shards ?? (c.shard ? [c.shard] : [])) held.add(s);
    if (config) {
      // As the report tells runs apart (its conditions): a field that differs would make two runs one.
      for (const k of ["model", "researcher", "setting", "maxTurns", "maxSteps", "backend", "protocol", "sampling"] as const) {
        const norm = (x: RunConfig) =>
          JSON.stringify(k === "protocol" ? (x.protocol ?? DEFAULT_PROTOCOL) : k === "sampling" ? seatSamplingText(x.sampling) : x[k]);
        if (norm(config) !== norm(c)) {
          throw new Error(`${dir}: ${k} is ${norm(c)} but the merged run has ${norm(config)}; nothing was merged`);
        }
      }
      // Two scripts of one file name are two models (a folder written before the digest was kept says nothing).
      if (config.scriptSha256 && c.scriptSha256 && config.scriptSha256 !== c.scriptSha256) {
        throw new Error(
          `${dir}: the model's script is another text of the same file name (SHA-256 ${c.scriptSha256.slice(0, 12)}…, the merged run has ${config.scriptSha256.slice(0, 12)}…); nothing was merged`,
        );
      }
      if (config.researcherScriptSha256 && c.researcherScriptSha256 && config.researcherScriptSha256 !== c.researcherScriptSha256) {
        throw new Error(
          `${dir}: the researcher's script is another text (SHA-256 ${c.researcherScriptSha256.slice(0, 12)}…, the merged run has ${config.researcherScriptSha256.slice(0, 12)}…); nothing was merged`,
        );
      }
      config = {
        ...config,
        ...(c.scriptSha256 && !config.scriptSha256 ? { scriptSha256: c.scriptSha256 } : {}),
        ...(c.researcherScriptSha256 && !config.researcherScriptSha256 ? { researcherScriptSha256: c.researcherScriptSha256 } : {}),
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
      const seen = planned.get(rel) ?? (existsSync(dest) ? { text: readFileSync(dest, "utf8"), dir: "" } : undefined);
      if (seen !== undefined) {
        if (seen.text === text) continue;
        throw new Error(
          seen.dir
            ? `${rel} is in ${seen.dir} and in ${dir} with different contents (one episode in two shards: shards of different runs?); nothing was merged`
            : `${rel} is already in ${out} with other contents than in ${dir} (was the shard resumed since it was merged?): merge every shard into a new folder; nothing was merged`,
        );
      }
      planned.set(rel, { text, dir });
      copies.push({ from: file, to: dest, episode });
    }
  }
  if (!config) throw new Error("nothing to merge: name at least one shard folder");
  // A shard left out shrinks the grid, and its report, with nothing to say so: every shard of the split, or --partial.
  const counts = new Set([...held].map((s) => s.split("/")[1]));
  if (counts.size > 1) throw new Error(`the folders are shards of different splits (${[...held].sort().join(", ")}); nothing was merged`);
  const n = Number([...counts][0] ?? 0);
  const missing = Array.from({ length: n }, (_, i) => `${i}/${n}`).filter((s) => !held.has(s));
  if (missing.length > 0 && !opts.partial)
    throw new Error(
      `shard ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} missing (the folders hold ${[...held].sort().join(", ")}): give every shard's folder, or --partial to merge these alone (the merged run then holds their tasks alone); nothing was merged`,
    );
  if (held.size > 0) config = { ...config, shards: [...held].sort() };
  if (grid) config = { ...config, gridTasks: grid.tasks };
  for (const c of copies) {
    mkdirSync(dirname(c.to), { recursive: true });
    copyFileSync(c.from, c.to);
  }
  target.writeConfig(config);
  return { episodes: copies.filter((c) => c.episode).length, config, missing };
}
