/**
 * The offline demo of the Agent tab: a scripted model from `examples/` takes
 * the coder's seat on the tasks it has a script for, so that the agent loop
 * can be shown with no endpoint and no model weights. A student build leaves
 * the scripts out (they hold working solutions).
 */
import { EMPTY_MODEL_CONFIG, type ModelConfig } from "../../store/records";
import { STUDENT_BUILD } from "../build-info";

/** Task id -> the demo script's file name and a loader of its text (loaded when the demo runs). */
const SCRIPTS: Record<string, { name: string; load: () => Promise<string> }> = {
  "pass-at-k": {
    name: "demo-pass-at-k.script.json",
    load: async () => (await import("../../../examples/demo-pass-at-k.script.json?raw")).default,
  },
};

/** Whether the open task has an offline demo in this build. */
export function hasDemo(taskId: string): boolean {
  return !STUDENT_BUILD && taskId in SCRIPTS;
}

/**
 * The coder seat of the demo for a task: the scripted model with the task's demo script.
 * @throws Error when the task has no demo in this build
 */
export async function demoCoder(taskId: string): Promise<ModelConfig> {
  const s = SCRIPTS[taskId];
  if (!s || STUDENT_BUILD) throw new Error(`task ${taskId} has no offline demo in this build`);
  const text = await s.load();
  if (!text.trim()) throw new Error(`task ${taskId} has no offline demo in this build`);
  return { ...EMPTY_MODEL_CONFIG, kind: "scripted", scriptName: s.name, scriptText: text };
}
