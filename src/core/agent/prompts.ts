/**
 * Prompts of the coder seat. The task prompt gives the instruction, the paper text, the repository
 * file list and the target path (RECODE-H.md, "Interaction protocol"); each turn's message gives the
 * current target file and the feedback on the last submission.
 */
import type { Task } from "../task";
import type { AgentSetting } from "./types";

function lineCount(text: string): number {
  if (text === "") return 0;
  return text.replace(/\n$/, "").split("\n").length;
}

/** The repository file list: one `- path (N lines)` line per file, sorted; the target file is marked. */
export function repoFileList(task: Task, prefix = ""): string {
  const target = task.meta.target_file_path;
  const paths = Object.keys(task.repo)
    .filter((p) => p.startsWith(prefix))
    .sort();
  return paths
    .map((p) => `- ${p} (${lineCount(task.repo[p] as string)} lines)${p === target ? "  <- target file (you write this one)" : ""}`)
    .join("\n");
}

function taskSection(task: Task): string {
  const paper = task.meta.paper;
  // (A course task may have no paper, and no paper.tex: the instruction is then the whole specification.)
  return [
    "# Task",
    `Title: ${task.meta.title}`,
    ...(paper
      ? [`Paper: ${paper.title} (${paper.venue.includes(String(paper.year)) ? paper.venue : `${paper.venue}, ${paper.year}`})`]
      : []),
    "",
    "## Instruction",
    task.instruction.trim(),
    "",
    ...(task.paper.trim() ? ["## Method from the paper (LaTeX)", task.paper.trim(), ""] : []),
    "## Repository files (paths relative to the repository root)",
    repoFileList(task),
    "",
    "## Target file",
    `${task.meta.target_file_path} — write the complete implementation here. Unit tests import it; use the repository's existing helpers where they fit.`,
  ].join("\n");
}

function toolRules(maxSteps: number, topK: number): string {
  return [
    "You are the coder on a research-code task. A researcher wants the method from a paper implemented as a Python file inside an existing repository.",
    "After each submission, unit tests run on your target file; you then see the test log and, depending on the feedback level, the researcher's comments.",
    "",
    "Work in steps. Every reply has exactly this shape:",
    "Reflection: <what you know so far, what is wrong, what you will do next>",
    "Action: <one action>",
    "",
    "The actions:",
    "Action: READ <path>        show a repository file (READ of the target file shows your current code)",
    "Action: BROWSE             list the repository files",
    `Action: RETRIEVE <query>   show the ${topK} repository functions or classes that best match the query, with their source`,
    "Action: REPLACE            set the whole target file to the ```python fenced block that you write on the lines after this action",
    "Action: SUBMIT             end this turn; the target file is tested",
    "",
    "Rules: one action per reply. REPLACE changes the file but does not submit it; the block must hold the complete file, not a fragment.",
    `A turn has at most ${maxSteps} action${maxSteps === 1 ? "" : "s"}; after the last one the target file is submitted automatically, so make sure a REPLACE comes in time.`,
    "A reply without a valid action is rejected and still uses a step.",
  ].join("\n");
}

function baselineRules(): string {
  return [
    "You are the coder on a research-code task. A researcher wants the method from a paper implemented as a Python file inside an existing repository.",
    "After each submission, unit tests run on your target file; you then see the test log and, depending on the feedback level, the researcher's comments.",
    "",
    "Answer every message with the complete new content of the target file in one ```python fenced block.",
    "You may think briefly before the block. Only the last python block of your reply is used, and it replaces the whole file.",
  ].join("\n");
}

/**
 * The task (system) message: the setting's working rules, then the task (instruction, paper,
 * repository file list, target path). It is the first message of every model call of a turn and is
 * never summarised away. `retrieveTopK`: how many hits RETRIEVE shows (the protocol profile's, protocol.ts).
 */
export function taskSystemPrompt(task: Task, setting: AgentSetting, maxSteps = 3, retrieveTopK = 3): string {
  const rules = setting === "baseline" ? baselineRules() : toolRules(maxSteps, retrieveTopK);
  return `${rules}\n\n${taskSection(task)}`;
}

/** A code block for a prompt, with a fence longer than any backtick run inside the code. */
export function fence(code: string, lang = "python"): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${code.replace(/\n$/, "")}\n${f}`;
}

/**
 * The user message that opens a turn: the turn number, the feedback on the last submission (or the
 * note that there is none at turn 0), and the current target file. `label` introduces the feedback
 * (the reference profile's baseline gets the feedback alone: "Feedback:").
 */
export function turnMessage(
  task: Task,
  setting: AgentSetting,
  turn: number,
  currentCode: string,
  feedback: string | null,
  label = "Test log and feedback:",
): string {
  const parts = [`# Turn ${turn}`];
  if (turn === 0) parts.push("This is the first turn: there is no feedback yet.");
  else if (feedback === null || feedback.trim() === "")
    parts.push("Your last submission failed its tests. No test log or feedback is available.");
  else parts.push(`Your last submission failed its tests. ${label}`, feedback.trim());
  const path = task.meta.target_file_path;
  parts.push("", `## Current target file \`${path}\``, currentCode.trim() === "" ? "(empty)" : fence(currentCode));
  parts.push(
    "",
    setting === "baseline"
      ? "Reply with the complete corrected target file in one ```python block."
      : "Reply with a reflection and one action.",
  );
  return parts.join("\n");
}

/** How a reply cut at the model's token limit is named in actions and corrections. */
export const TRUNCATED = "the reply was cut at the token limit (truncated)";

/** Said at the start of a turn when the last turn ended on a reply cut at the token limit. */
export const CUT_REPLY_NOTE =
  "Note: Your last reply was cut at the token limit (truncated), so nothing of it was used; the target file below is as it was. Keep your reply shorter.";

/**
 * Whether a turn ended on a reply cut at the token limit that the agent was not told of within the turn
 * (the baseline's one reply, or an agent's last step): its last action, the automatic submission aside.
 */
export function endedOnCutReply(actions: readonly { type: string; result: string }[]): boolean {
  const last = actions.filter((a) => a.type !== "AUTO_SUBMIT").at(-1);
  return last?.type === "INVALID" && last.result.includes(TRUNCATED);
}

/** Correction sent back after a reply that could not be used. */
export function correctionMessage(problem: string, stepsLeft: number): string {
  return [
    `Your reply could not be used: ${problem}.`,
    "Write a reflection and exactly one action, e.g.",
    "Reflection: <your reasoning>",
    "Action: READ <path>",
    `Steps left in this turn: ${stepsLeft}.`,
  ].join("\n");
}

/** Observation sent back after a tool action. */
export function observationMessage(action: string, body: string, stepsLeft: number): string {
  // The action is echoed, not its whole argument (a query can be huge).
  const label = action.length > 200 ? `${action.slice(0, 200)}...` : action;
  return `Result of ${label}:\n${body}\n\nSteps left in this turn: ${stepsLeft}.`;
}

/** Longest tool observation sent to the model, in characters; longer ones are cut with a note. */
export const MAX_OBSERVATION_CHARS = 16_000;

/** `text` cut to MAX_OBSERVATION_CHARS with a note saying how much was left out. */
export function clip(text: string): string {
  if (text.length <= MAX_OBSERVATION_CHARS) return text;
  return `${text.slice(0, MAX_OBSERVATION_CHARS)}\n... (cut: ${text.length - MAX_OBSERVATION_CHARS} more characters)`;
}

/** System prompt of the memory summary call. */
export const SUMMARY_SYSTEM_PROMPT = [
  "You condense the working history of a coder on a research-code task so that it can continue with less context.",
  "Write a compact summary in plain prose and short lists: what was tried in each turn, which tests failed and why,",
  "the researcher's feedback and whether it was applied, facts learned about the repository (files, helper names,",
  "signatures), and what remains to fix. Keep exact names, numbers and error messages. Do not write the whole code again.",
].join(" ");

/** First line of the message that replaces summarised history in a memory_agent's conversation. */
export const MEMORY_SUMMARY_PREFIX = "Summary of the earlier conversation (older messages were condensed):";
