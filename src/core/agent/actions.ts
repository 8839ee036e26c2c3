/**
 * The ReCodeAgent's tools (RECODE-H, "Interaction protocol"): READ a
 * repository file, BROWSE the file list, RETRIEVE repository functions by a
 * query, REPLACE the whole target file, SUBMIT. Shared by the playground's and
 * the reference profile's agents.
 */
import type { Task } from "../task";
import type { ParsedStep, StepError } from "./parse";
import { clip, correctionMessage, fence, observationMessage, repoFileList, TRUNCATED } from "./prompts";
import { retrieverFor } from "./retrieve";
import type { AgentAction } from "./types";

/** Lines of a file's text (0 for ""). */
export function lines(code: string): number {
  return code === "" ? 0 : code.replace(/\n$/, "").split("\n").length;
}

/** A repo path as a model may write it (`./a.py`, `repo/a.py`, `/a.py`) reduced to a key of task.repo. */
export function normalisePath(path: string): string {
  return path
    .trim()
    .replace(/^\.\//, "")
    .replace(/^\/+/, "")
    .replace(/^repo\//, "");
}

/**
 * Resolve the path of a READ: exact (after {@link normalisePath}), else the only repo file with that
 * base name. Returns null when there is no such file or the base name is ambiguous.
 */
export function resolveRepoPath(task: Task, path: string): string | null {
  const p = normalisePath(path);
  if (p === task.meta.target_file_path || Object.hasOwn(task.repo, p)) return p;
  if (p.includes("/")) return null;
  const same = Object.keys(task.repo).filter((k) => k.split("/").at(-1) === p);
  return same.length === 1 ? (same[0] as string) : null;
}

/** Outcome of one tool action: the record, and the observation for the model (null to end the turn). */
export interface StepOutcome {
  action: AgentAction;
  observation: string | null;
  code?: string;
}

/**
 * Run one well-formed action against the task and the current target file.
 * `topK`: how many hits RETRIEVE returns. Returns the action's record, the
 * observation for the model (null for SUBMIT: the turn ends) and, for
 * REPLACE, the new target file.
 */
export function runAction(task: Task, step: ParsedStep, code: string, stepsLeft: number, topK = 3): StepOutcome {
  const target = task.meta.target_file_path;
  const invalid = (problem: string): StepOutcome => ({
    action: { type: "INVALID", argument: step.line, result: problem },
    observation: correctionMessage(problem, stepsLeft),
  });
  switch (step.action) {
    case "SUBMIT":
      return { action: { type: "SUBMIT", argument: "", result: `submitted the target file (${lines(code)} lines)` }, observation: null };
    case "READ": {
      const path = resolveRepoPath(task, step.argument);
      if (path === null) return invalid(`READ: there is no repository file "${step.argument}"; BROWSE lists the files`);
      const text = path === target ? code : (task.repo[path] as string);
      const note = path === target ? " (the target file: your current code)" : "";
      const body = text === "" ? "(empty file)" : fence(clip(text), path.endsWith(".py") ? "python" : "");
      return {
        action: { type: "READ", argument: path, result: `read ${path}${path === target ? " (target)" : ""} (${lines(text)} lines)` },
        observation: observationMessage(`READ ${path}${note}`, body, stepsLeft),
      };
    }
    case "BROWSE": {
      const prefix = normalisePath(step.argument);
      let list = repoFileList(task, prefix);
      let head = prefix === "" ? "Repository files:" : `Repository files under "${prefix}":`;
      if (list === "") {
        head = `No repository file starts with "${prefix}". All repository files:`;
        list = repoFileList(task);
      }
      const count = list.split("\n").length;
      return {
        action: { type: "BROWSE", argument: prefix, result: `listed ${count} file${count === 1 ? "" : "s"}` },
        observation: observationMessage("BROWSE", clip(`${head}\n${list}`), stepsLeft),
      };
    }
    case "RETRIEVE": {
      const retriever = retrieverFor(task);
      const hits = retriever.search(step.argument, topK);
      if (hits.length === 0) {
        const names = retriever.definitions.map((d) => `${d.path}::${d.name}`);
        const body =
          names.length === 0
            ? "The repository has no Python functions or classes outside the target file."
            : `Nothing matched. Functions and classes in the repository:\n${names.map((n) => `- ${n}`).join("\n")}`;
        return {
          action: { type: "RETRIEVE", argument: step.argument, result: "no match" },
          observation: observationMessage(`RETRIEVE ${step.argument}`, clip(body), stepsLeft),
        };
      }
      const body = hits
        .map(({ definition: d }, i) => `## ${i + 1}. ${d.kind} ${d.name} in ${d.path} (line ${d.line})\n${fence(d.source)}`)
        .join("\n\n");
      return {
        action: {
          type: "RETRIEVE",
          argument: step.argument,
          result: `top ${hits.length}: ${hits.map((h) => `${h.definition.path}::${h.definition.name}`).join(", ")}`,
        },
        observation: observationMessage(`RETRIEVE ${step.argument}`, clip(body), stepsLeft),
      };
    }
    case "REPLACE": {
      if (step.argument !== "" && resolveRepoPath(task, step.argument) !== target) {
        return invalid(`REPLACE writes only the target file ${target}, not "${step.argument}"`);
      }
      const next = step.code ?? "";
      return {
        action: { type: "REPLACE", argument: next, result: `target file set (${lines(next)} lines)` },
        observation: observationMessage(
          "REPLACE",
          `The target file ${target} now holds ${lines(next)} lines. It is not tested until you SUBMIT (or the steps run out).`,
          stepsLeft,
        ),
        code: next,
      };
    }
  }
}

/**
 * The outcome of one model reply: `parsed` is the parsed step, or null when
 * the reply was cut at the token limit (nothing in it is applied, and the
 * model is told). A malformed step gets a correction; a well-formed one runs
 * ({@link runAction}).
 */
export function stepOutcome(task: Task, parsed: ParsedStep | StepError | null, code: string, stepsLeft: number, topK: number): StepOutcome {
  if (parsed === null) {
    return {
      action: { type: "INVALID", argument: "", result: `${TRUNCATED}; nothing in it was applied` },
      observation: correctionMessage(`${TRUNCATED}, so nothing in it was applied; reply again, shorter`, stepsLeft),
    };
  }
  if (parsed.ok) return runAction(task, parsed, code, stepsLeft, topK);
  return {
    action: { type: "INVALID", argument: parsed.line, result: parsed.problem },
    observation: correctionMessage(parsed.problem, stepsLeft),
  };
}

/** The record of a turn that ran out of steps: the target file was submitted automatically. */
export function autoSubmitAction(maxSteps: number): AgentAction {
  return { type: "AUTO_SUBMIT", argument: "", result: `step limit (${maxSteps}) reached; the target file was submitted automatically` };
}
