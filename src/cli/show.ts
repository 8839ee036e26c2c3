/**
 * `recode show <run folder or trajectory file>...`: an agent run's episodes as
 * transcripts in the terminal, turn by turn, as the page's transcript shows
 * them: each turn's actions, the code it submitted (the change from the turn
 * before), its test results, and the researcher's feedback exactly as the agent
 * received it for the next turn; with `--conversation`, every message the agent
 * was sent and answered.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, resolve, sep } from "node:path";
import type { Command } from "commander";
import { resolveOptions, taskSystemPrompt } from "../core/agent";
import { diffLines } from "../core/diff-lines";
import { STATUS_LABEL } from "../core/feedback";
import { lineCount } from "../core/line-count";
import { plural } from "../core/plural";
import { type Task, taskContentHash } from "../core/task";
import { episodeOutcome, restoreTrajectory, type Trajectory, type TrajectoryTurn } from "../core/trajectory";
import { AGENT_SETTINGS } from "../core/vocabulary";
import { parseLevels } from "./run";
import { findTrajectoryFiles, listJsonFiles } from "./run-folder";
import { BUILTIN_TASKS, loadTaskDir, taskGlob } from "./task-fs";
import { UsageError } from "./tasks-record-validate";
import { foldForTerminal, outputColumns, printable } from "./terminal-text";

/**
 * Which episodes to show: each field absent matches any. `tasks`: ids or globs (`min-*`); `levels`: 0-4; `model`: as
 * the run names it, or as `recode run --model` was given (a scripted model by its file's path).
 */
export interface EpisodeFilter {
  tasks?: string[];
  levels?: readonly number[];
  setting?: string;
  model?: string;
}

/** Whether task `id` is one of `patterns` (ids, or globs with `*`). */
function taskMatches(id: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => taskGlob(p).test(id));
}

/** A model as runs name it: a scripted model by its file's name (`recode run --model scripted:examples/x.json` runs `scripted:x.json`). */
function modelName(model: string): string {
  return model.startsWith("scripted:") ? `scripted:${basename(model.slice("scripted:".length))}` : model;
}

/** A readable episode and where it was read from. */
export interface ShownEpisode {
  source: string;
  trajectory: Trajectory;
}

/** Longest test message shown in a turn's test results, in characters (its first line only). */
const MESSAGE_CHARS = 200;

/** `text` with every line indented by `by` (an empty text gives nothing). */
function indented(text: string, by: string): string {
  return text
    .replace(/\s+$/, "")
    .split("\n")
    .map((l) => (l ? `${by}${l}` : by.trimEnd()))
    .join("\n");
}

/** A turn's verdict: a collection error, all tests passed, or how many passed. */
function verdict(turn: TrajectoryTurn): string {
  const k = turn.run.counts;
  if (turn.run.collectionError) return "collection error, no test ran";
  return turn.run.allPassed ? "all tests passed" : `${k.passed + k.xfail} of ${k.total} tests passed`;
}

/** One turn as text. `previous`: the turn before (its code is what the change starts from). */
function turnText(turn: TrajectoryTurn, previous: TrajectoryTurn | null, conversation: boolean): string {
  const out: string[] = [`Turn ${turn.index}: ${verdict(turn)}`];
  const tokens = turn.tokens.prompt + turn.tokens.completion;
  const unreported = turn.tokens.unreported ? ` (${plural(turn.tokens.unreported, "call")} without counts)` : "";
  out.push(
    `  ${turn.actions.map((a) => a.type).join(" -> ") || "no actions"} · ${tokens} tokens${unreported} · agent ${Math.round(turn.timings.agentMs)} ms${turn.timings.retryWaitMs ? ` (and ${Math.round(turn.timings.retryWaitMs)} ms waiting to retry model calls)` : ""}, tests ${Math.round(turn.timings.testMs)} ms, researcher ${Math.round(turn.timings.researcherMs)} ms`,
  );
  if (conversation) {
    for (const m of turn.messages) {
      const who = m.role === "assistant" ? "Agent" : m.role === "user" ? "To the agent" : "System prompt";
      if (m.reasoning) out.push(`  Agent's reasoning (kept apart, never read for actions or code):`, indented(m.reasoning, "    "));
      out.push(`  ${who}:`, indented(m.content, "    ") || "    (empty)");
    }
    for (const a of turn.actions) {
      out.push(
        `  Action ${a.type}${a.type === "REPLACE" ? " (the new file text: the code below)" : a.argument ? `: ${a.argument.split("\n")[0]?.slice(0, 120)}` : ""}`,
      );
      if (a.result) out.push(indented(a.result, "    "));
    }
  } else if (turn.messages.length > 0) {
    out.push(`  (${plural(turn.messages.length, "message")} with the agent: --conversation shows them)`);
  }
  const diff = previous ? diffLines(previous.code, turn.code) : null;
  if (diff === null) {
    out.push(`  Code (${plural(lineCount(turn.code), "line")}):`, indented(turn.code, "    | "));
  } else if (diff.length === 0) {
    out.push(`  Code: the same as turn ${previous?.index}.`);
  } else {
    const added = diff.filter((l) => l.kind === "+").length;
    const removed = diff.filter((l) => l.kind === "-").length;
    out.push(`  Code: the change from turn ${previous?.index} (${added} added, ${removed} removed):`);
    out.push(...diff.map((l) => (l.kind === "@" ? `    @@ ${l.text}` : `    ${l.kind} ${l.text}`).trimEnd()));
  }
  const e = turn.run.collectionError;
  if (e)
    out.push(
      `  Collection error${e.file ? ` in ${e.file}${e.line !== null ? `, line ${e.line}` : ""}` : ""}: ${e.message.split("\n").at(-1)}`,
    );
  for (const t of turn.run.tests) {
    if (t.status === "passed" || t.status === "xfail") continue;
    const message = t.message.split("\n")[0]?.slice(0, MESSAGE_CHARS) ?? "";
    out.push(`  ${STATUS_LABEL[t.status].padEnd(7)} ${t.id}${message ? ` — ${message}` : ""}`);
  }
  if (turn.reviewError) out.push(`  The researcher could not review this turn: ${turn.reviewError}`);
  if (turn.feedbackText) {
    const omitted = turn.codeOmitted ? ` (${plural(turn.codeOmitted, "piece", "pieces")} of code left out at this level)` : "";
    out.push(`  Feedback the agent received for the next turn${omitted}:`, indented(turn.feedbackText, "    > "));
  }
  return out.join("\n");
}

/**
 * The system prompt the episode's agent was sent at every turn, which trajectories do not store: rebuilt from the
 * task's folder in `dir` when that folder is the task as it ran (the same content hash), else a line that says why not.
 */
function systemPrompt(t: Trajectory, dir: string): string {
  const id = t.versions.task.id;
  let task: Task | null = null;
  try {
    task = loadTaskDir(dir, id);
  } catch {
    // not here
  }
  if (!task || taskContentHash(task) !== t.versions.task.contentHash) {
    return `  (The system prompt, the same at every turn, is not stored in the trajectory, and ${task ? `the task folder ${join(dir, id)} is not the task as it ran (another content hash)` : `${dir} holds no task folder ${id}`}: --dir names the folder of the task folders it ran with.)`;
  }
  const c = t.config;
  const prompt =
    c.setting === "baseline"
      ? taskSystemPrompt(task, "baseline")
      : taskSystemPrompt(task, c.setting, c.maxSteps, resolveOptions({ profile: c.protocol, maxSteps: c.maxSteps }).retrieveTopK);
  return `  System prompt (the same at every turn; not stored in the trajectory, rebuilt from ${join(dir, id)}):\n${indented(prompt, "    ")}`;
}

/**
 * One episode as a transcript: a heading (task, level, model, setting, protocol, researcher, outcome), where it was
 * read from, and each turn (see {@link turnText}). `conversation`: every message of each turn too, after the system
 * prompt rebuilt from the task folders in `dir` (default: the built-in tasks).
 */
export function episodeTranscript(e: ShownEpisode, conversation = false, dir = BUILTIN_TASKS): string {
  const t = e.trajectory;
  const c = t.config;
  const head = `${t.versions.task.id}, L${c.level}: ${c.model}, ${c.setting}, ${c.protocol ?? "playground"} protocol, researcher ${c.researcher}: ${episodeOutcome(t)} (${t.turns.length} of ${plural(c.maxTurns, "turn")})`;
  const parts = [head, `  ${e.source}`];
  if (t.error) parts.push(`  Error: ${t.error}`);
  if (conversation) parts.push("", systemPrompt(t, dir));
  t.turns.forEach((turn, i) => {
    parts.push("", turnText(turn, i > 0 ? (t.turns[i - 1] ?? null) : null, conversation));
  });
  return `${parts.join("\n")}\n`;
}

/**
 * The episodes under `paths` (run folders, or trajectory files as `recode report` takes them) that match `filter`,
 * sorted by task, model, setting and level; `unreadable`: files that could not be read, with why.
 * @throws UsageError when a path does not exist.
 */
export function loadEpisodes(
  paths: string[],
  filter: EpisodeFilter,
): { episodes: ShownEpisode[]; all: ShownEpisode[]; unreadable: string[] } {
  const all: ShownEpisode[] = [];
  const unreadable: string[] = [];
  for (const p of paths) {
    if (!existsSync(p)) throw new UsageError(`no such folder or file: ${p}`);
    const root = resolve(p);
    // A run folder, a folder of runs, or a folder inside a run's episodes/ (one model's, setting's or level's).
    const inside = root.split(sep).includes("episodes");
    const files = statSync(root).isFile()
      ? [root]
      : inside
        ? listJsonFiles(root).filter((f) => !f.endsWith(".memory.json"))
        : findTrajectoryFiles(root);
    for (const file of files) {
      try {
        const value = JSON.parse(readFileSync(file, "utf8")) as unknown;
        const list = Array.isArray(value) ? value : [value];
        list.forEach((v, i) => {
          // (Named from the current folder when it is inside it, else by its whole path.)
          const rel = relative(process.cwd(), file);
          const source = `${rel && !rel.startsWith("..") ? rel : file}${Array.isArray(value) ? `[${i}]` : ""}`;
          try {
            all.push({ source, trajectory: restoreTrajectory(v) });
          } catch (err) {
            unreadable.push(`${source}: ${(err as Error).message}`);
          }
        });
      } catch (err) {
        unreadable.push(`${file}: ${(err as Error).message}`);
      }
    }
  }
  const key = (e: ShownEpisode) => {
    const t = e.trajectory;
    return [t.versions.task.id, t.config.model, t.config.setting, String(t.config.level)];
  };
  all.sort((a, b) => key(a).join("\0").localeCompare(key(b).join("\0")));
  const episodes = all.filter(({ trajectory: t }) => {
    if (filter.tasks !== undefined && !taskMatches(t.versions.task.id, filter.tasks)) return false;
    if (filter.levels !== undefined && !filter.levels.includes(t.config.level)) return false;
    if (filter.setting !== undefined && t.config.setting !== filter.setting) return false;
    return filter.model === undefined || t.config.model === filter.model || t.config.model === modelName(filter.model);
  });
  return { episodes, all, unreadable };
}

/** The levels `--level` names: `2`, `L2`, `0,2`, `1-3`. @throws UsageError for anything else. */
function parseLevelList(s: string): number[] {
  try {
    return parseLevels(s.replace(/\bL(?=\d)/gi, ""));
  } catch {
    throw new UsageError(`--level: "${s}" is not a feedback level or a list of them (0-4 or L0-L4; 0,2 or 1-3)`);
  }
}

/** Register `recode show` on the program. */
export function addShowCommand(program: Command, out: (s: string) => void, setCode: (c: number) => void): void {
  program
    .command("show")
    .description(
      "an agent run's episodes as transcripts: each turn's actions, code change, test results and the feedback the agent received",
    )
    .argument("<paths...>", "run folders, or trajectory JSON files (e.g. exported from the page)")
    .option("--task <ids>", "only these tasks' episodes (ids or globs such as min-*, comma-separated)")
    .option("--level <levels>", "only these feedback levels (2, L2, 0,2 or 1-3)")
    .option("--setting <name>", `only this setting (${AGENT_SETTINGS.join(", ")})`)
    .option("--model <id>", "only this model's episodes (as given to recode run --model, e.g. ollama:qwen2.5-coder:7b)")
    .option("--conversation", "also every message the agent was sent and answered, and each action's result")
    .option("--dir <folder>", "the folder of the task folders the run used (for the system prompt of --conversation)", BUILTIN_TASKS)
    .action(
      (paths: string[], o: { task?: string; level?: string; setting?: string; model?: string; conversation?: boolean; dir: string }) => {
        if (o.setting !== undefined && !(AGENT_SETTINGS as readonly string[]).includes(o.setting)) {
          throw new UsageError(`--setting: "${o.setting}" is not a setting (${AGENT_SETTINGS.join(", ")})`);
        }
        const filter: EpisodeFilter = {
          tasks: o.task?.split(",").filter(Boolean),
          levels: o.level === undefined ? undefined : parseLevelList(o.level),
          setting: o.setting,
          model: o.model,
        };
        const { episodes, all, unreadable } = loadEpisodes(paths, filter);
        if (episodes.length === 0) {
          const there = [
            ...new Set(all.map(({ trajectory: t }) => `${t.versions.task.id} L${t.config.level} (${t.config.model}, ${t.config.setting})`)),
          ];
          throw new UsageError(
            all.length === 0
              ? `no readable episode under ${paths.join(", ")} (expected <run folder>/episodes/...)${unreadable.length ? `; unreadable: ${unreadable.join("; ")}` : ""}`
              : `no episode matches${o.task ? ` --task ${o.task}` : ""}${o.level !== undefined ? ` --level ${o.level}` : ""}${o.setting ? ` --setting ${o.setting}` : ""}${o.model ? ` --model ${o.model}` : ""}; there are: ${there.slice(0, 12).join("; ")}${there.length > 12 ? "; ..." : ""}`,
          );
        }
        out(foldForTerminal(episodes.map((e) => episodeTranscript(e, o.conversation, o.dir)).join("\n"), outputColumns()));
        if (unreadable.length > 0) {
          process.stderr.write(
            printable(
              `recode: ${plural(unreadable.length, "file")} could not be read and ${unreadable.length === 1 ? "is" : "are"} left out: ${unreadable.join("; ")}\n`,
            ),
          );
          setCode(1);
        }
      },
    );
}
