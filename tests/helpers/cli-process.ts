/**
 * Running the `recode` command (and the shell scripts around it) as child
 * processes, for tests that need real processes side by side.
 */
import { spawn } from "node:child_process";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { solverScript } from "../../src/core/providers/scripted";

/** How a child process ended, with its output and when it ran. */
export interface ProcessResult {
  /** Exit code; null when a signal ended it. */
  code: number | null;
  /** stdout and stderr, interleaved as they arrived. */
  out: string;
  /** `performance.now()` when it was started and when it ended. */
  startedAt: number;
  endedAt: number;
}

/**
 * The environment of this process without the variables that configure the
 * scale scripts or stand for a cluster (`RECODE_*`, `SLURM_*`,
 * `JOB_COMPLETION_INDEX`), plus `extra`.
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(RECODE_|SLURM_)/.test(k) && k !== "JOB_COMPLETION_INDEX") env[k] = v;
  }
  return { ...env, ...extra };
}

/** Run `command args` in the checkout and collect its output. Never rejects. */
export function runProcess(command: string, args: string[], env: NodeJS.ProcessEnv = cleanEnv()): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const startedAt = performance.now();
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("error", (e) => {
      out += `${e.message}\n`;
    });
    child.on("close", (code) => resolve({ code, out, startedAt, endedAt: performance.now() }));
  });
}

/** Run `bin/recode.mjs args` with this Node. */
export function recodeCli(args: string[], env?: NodeJS.ProcessEnv): Promise<ProcessResult> {
  return runProcess(process.execPath, ["bin/recode.mjs", ...args], env);
}

/**
 * The text of a scripted-model file (JSON) whose coder writes each task's
 * starting text at turn 0 and its canonical solution from turn 1 on (see
 * `solverScript`): every episode is solved at turn 1.
 */
export function solverScriptText(taskIds: string[]): string {
  const tasks = taskIds.map((id) => loadTaskDir(BUILTIN_TASKS, id));
  return JSON.stringify(solverScript(tasks.map((t) => ({ targetPath: t.meta.target_file_path, first: t.starter, later: t.canonical }))));
}
