/**
 * ReCodeAgent (RECODE-H, "Interaction protocol"): each step the model writes a reflection and one
 * action (READ, BROWSE, RETRIEVE, REPLACE, SUBMIT); at most `maxSteps` actions a turn, then the
 * target file is submitted automatically; a malformed reply gets a correction and uses a step.
 * Settings `agent` (no memory across turns) and `memory_agent` (the conversation carries over and is
 * summarised past a threshold).
 */
import { addTokens, type ChatMessage, type ChatModel, callTokens, type TokenCounts } from "../model";
import type { Task } from "../task";
import { compactMemory } from "./memory";
import { type ParsedStep, parseStep } from "./parse";
import { clip, correctionMessage, fence, observationMessage, repoFileList, TRUNCATED, taskSystemPrompt, turnMessage } from "./prompts";
import { retrieverFor } from "./retrieve";
import type { Agent, AgentAction, AgentMemoryState, AgentTurnInput, AgentTurnOutput } from "./types";
import { checkMemoryState, checkTurnInput, type ResolvedAgentOptions } from "./validate";

function lines(code: string): number {
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
interface StepOutcome {
  action: AgentAction;
  observation: string | null;
  code?: string;
}

/** Tool-using coder for the `agent` and `memory_agent` settings. */
export class ReCodeAgent implements Agent {
  private memory: ChatMessage[] = [];
  private taskId: string | null = null;
  private lastTurn = -1;

  constructor(
    readonly setting: "agent" | "memory_agent",
    private readonly model: ChatModel,
    private readonly opts: ResolvedAgentOptions,
  ) {}

  reset(): void {
    this.memory = [];
    this.taskId = null;
    this.lastTurn = -1;
  }

  snapshot(): AgentMemoryState {
    return { taskId: this.taskId, lastTurn: this.lastTurn, messages: this.memory.map((m) => ({ ...m })) };
  }

  restore(state: AgentMemoryState): void {
    checkMemoryState(state);
    this.memory = state.messages.map((m) => ({ ...m }));
    this.taskId = state.taskId;
    this.lastTurn = state.lastTurn;
  }

  async runTurn(input: AgentTurnInput): Promise<AgentTurnOutput> {
    checkTurnInput(input);
    const started = performance.now();
    const { task, turn, feedback, signal } = input;
    const remember = this.setting === "memory_agent";
    if (remember && turn === 0) this.reset();
    if (remember && this.taskId !== null && this.taskId !== task.id) {
      throw new RangeError(
        `memory_agent holds the memory of task "${this.taskId}" but turn ${turn} is for task "${task.id}"; call reset() or start at turn 0`,
      );
    }
    const { maxSteps } = this.opts;
    let conv: ChatMessage[] =
      remember && this.memory.length > 0 ? [...this.memory] : [{ role: "system", content: taskSystemPrompt(task, this.setting, maxSteps) }];
    const out: ChatMessage[] = [];
    const actions: AgentAction[] = [];
    let tokens: TokenCounts = { prompt: 0, completion: 0 };
    let modelCalls = 0;
    let code = input.currentCode;
    const push = (m: ChatMessage) => {
      conv.push(m);
      out.push(m);
    };
    push({ role: "user", content: turnMessage(task, this.setting, turn, code, feedback) });

    let submitted = false;
    for (let step = 1; step <= maxSteps && !submitted; step++) {
      signal?.throwIfAborted();
      if (remember) {
        const c = await compactMemory(this.model, conv, { threshold: this.opts.memoryThreshold, keepRecent: this.opts.keepRecent, signal });
        if (c.summary) {
          conv = c.messages;
          out.push(c.summary);
          tokens = addTokens(tokens, callTokens(c.usage));
          modelCalls += c.modelCalls;
        }
      }
      const res = await this.model.chat({ messages: [...conv], temperature: 0, topP: 1, signal });
      modelCalls++;
      tokens = addTokens(tokens, callTokens(res.usage));
      conv.push({ role: "assistant", content: res.content });
      out.push({ role: "assistant", content: res.content, ...(res.reasoning ? { reasoning: res.reasoning } : {}) });
      const stepsLeft = maxSteps - step;
      // A reply cut at the token limit may hold half a file: nothing in it is applied, and the agent is told.
      const parsed = res.truncated ? null : parseStep(res.content);
      const outcome: StepOutcome =
        parsed === null
          ? {
              action: { type: "INVALID", argument: "", result: `${TRUNCATED}; nothing in it was applied` },
              observation: correctionMessage(`${TRUNCATED}, so nothing in it was applied; reply again, shorter`, stepsLeft),
            }
          : parsed.ok
            ? this.act(task, parsed, code, stepsLeft)
            : {
                action: { type: "INVALID", argument: parsed.line, result: parsed.problem },
                observation: correctionMessage(parsed.problem, stepsLeft),
              };
      actions.push(outcome.action);
      if (outcome.code !== undefined) code = outcome.code;
      if (outcome.observation === null) submitted = true;
      else if (stepsLeft > 0) push({ role: "user", content: outcome.observation });
    }
    if (!submitted) {
      actions.push({
        type: "AUTO_SUBMIT",
        argument: "",
        result: `step limit (${maxSteps}) reached; the target file was submitted automatically`,
      });
    }
    if (remember) {
      this.memory = conv;
      this.taskId = task.id;
      this.lastTurn = turn;
    }
    return { code, messages: out, actions, tokens, modelCalls, latencyMs: performance.now() - started };
  }

  /** Run one well-formed action against the task and the current target file. */
  private act(task: Task, step: ParsedStep, code: string, stepsLeft: number): StepOutcome {
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
        const hits = retriever.search(step.argument, 3);
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
}
