/**
 * `recode show <run folder or trajectory file>...`: an agent run's episodes as
 * transcripts in the terminal, turn by turn, as the page's transcript shows
 * them: each turn's actions, the code it submitted (the change from the turn
 * before), its test results, and the researcher's feedback exactly as the agent
 * received it for the next turn; with `--conversation`, every message the agent
 * was sent and answered.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { Command } from "commander";
import { diffLines } from "../core/diff-lines";
import { STATUS_LABEL } from "../core/feedback";
import { plural } from "../core/plural";
import { restoreTrajectory, type Trajectory, type TrajectoryTurn } from "../core/trajectory";
import { findTrajectoryFiles } from "./run-folder";
import { UsageError } from "./tasks-record-validate";
import { foldForTerminal, outputColumns } from "./terminal-text";

/** Which episodes to show: each field absent matches any. `level`: 0-4. */
export interface EpisodeFilter {
  task?: string;
  level?: number;
  setting?: string;
  model?: string;
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

/** How the episode ended, as the page's transcript says it. */
function outcome(t: Trajectory): string {
  if (!t.finished) return "unfinished";
  if (t.stoppedReason === "solved") return `solved at turn ${t.turns.length - 1}`;
  if (t.stoppedReason === "max_turns") return "not solved (turn limit)";
  return "stopped by an error";
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
    out.push(`  Code (${plural(turn.code.split("\n").length, "line")}):`, indented(turn.code, "    | "));
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
 * One episode as a transcript: a heading (task, level, model, setting, protocol, researcher, outcome), where it was
 * read from, and each turn (see {@link turnText}). `conversation`: every message of each turn too.
 */
export function episodeTranscript(e: ShownEpisode, conversation = false): string {
  const t = e.trajectory;
  const c = t.config;
  const head = `${t.versions.task.id}, L${c.level}: ${c.model}, ${c.setting}, ${c.protocol ?? "playground"} protocol, researcher ${c.researcher}: ${outcome(t)} (${t.turns.length} of ${plural(c.maxTurns, "turn")})`;
  const parts = [head, `  ${e.source}`];
  if (t.error) parts.push(`  Error: ${t.error}`);
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
    const files = statSync(root).isFile() ? [root] : findTrajectoryFiles(root);
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
    if (filter.task !== undefined && t.versions.task.id !== filter.task) return false;
    if (filter.level !== undefined && t.config.level !== filter.level) return false;
    if (filter.setting !== undefined && t.config.setting !== filter.setting) return false;
    return filter.model === undefined || t.config.model === filter.model;
  });
  return { episodes, all, unreadable };
}

/** The level `--level` names ("2" or "L2"). @throws UsageError for anything else. */
function parseLevel(s: string): number {
  const m = /^[Ll]?([0-4])$/.exec(s.trim());
  if (!m) throw new UsageError(`--level: "${s}" is not a feedback level (0-4, or L0-L4)`);
  return Number(m[1]);
}

/** Register `recode show` on the program. */
export function addShowCommand(program: Command, out: (s: string) => void, setCode: (c: number) => void): void {
  program
    .command("show")
    .description(
      "an agent run's episodes as transcripts: each turn's actions, code change, test results and the feedback the agent received",
    )
    .argument("<paths...>", "run folders, or trajectory JSON files (e.g. exported from the page)")
    .option("--task <id>", "only this task's episodes")
    .option("--level <level>", "only this feedback level (0-4 or L0-L4)")
    .option("--setting <name>", "only this setting (baseline, agent, memory_agent)")
    .option("--model <id>", "only this model's episodes (as the run names it, e.g. ollama:qwen2.5-coder:7b)")
    .option("--conversation", "also every message the agent was sent and answered, and each action's result")
    .action((paths: string[], o: { task?: string; level?: string; setting?: string; model?: string; conversation?: boolean }) => {
      const filter: EpisodeFilter = {
        task: o.task,
        level: o.level === undefined ? undefined : parseLevel(o.level),
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
            : `no episode matches${filter.task ? ` --task ${filter.task}` : ""}${filter.level !== undefined ? ` --level ${filter.level}` : ""}${filter.setting ? ` --setting ${filter.setting}` : ""}${filter.model ? ` --model ${filter.model}` : ""}; there are: ${there.slice(0, 12).join("; ")}${there.length > 12 ? "; ..." : ""}`,
        );
      }
      out(foldForTerminal(episodes.map((e) => episodeTranscript(e, o.conversation)).join("\n"), outputColumns()));
      if (unreadable.length > 0) {
        process.stderr.write(
          `recode: ${plural(unreadable.length, "file")} could not be read and ${unreadable.length === 1 ? "is" : "are"} left out: ${unreadable.join("; ")}\n`,
        );
        setCode(1);
      }
    });
}
