/**
 * A student's work as one file: per task the draft of the target file and
 * the turns (runs, solved, feedback levels asked for). A student exports it
 * from the page; a teacher opens it in the page to read it (docs/teaching.md).
 * The turns are what the student's page recorded: a file can be edited, so
 * the page checks a claim by running the tests on the text again.
 */
import { z } from "zod";
import { type TaskProgress, TaskProgressSchema } from "./study";

/** Zod schema of a student-work file (format `recode-student-work`, version 1). */
export const StudentWorkSchema = z
  .object({
    format: z.literal("recode-student-work"),
    version: z.literal(1),
    /** When it was exported, ISO 8601. */
    exportedAt: z.string(),
    /** The class the student was in, by name, or null. */
    className: z.string().nullable(),
    /** The name the student gave (Settings → Your work), or null. */
    student: z.string().max(200).nullable().default(null),
    tasks: z.array(
      z
        .object({
          taskId: z.string().min(1),
          /** The target file's text as the student left it, or null when the student never changed it. */
          draft: z.string().nullable(),
          progress: TaskProgressSchema.nullable(),
        })
        .strict(),
    ),
  })
  .strict();

/** A student-work file. */
export type StudentWork = z.output<typeof StudentWorkSchema>;

/** The work of one task in a {@link StudentWork}. */
export type TaskWork = StudentWork["tasks"][number];

/** Build a student-work file from the drafts and turns kept in the page; tasks with neither are left out; sorted by task id. */
export function studentWork(
  drafts: ReadonlyMap<string, string>,
  progress: ReadonlyMap<string, TaskProgress>,
  className: string | null,
  now: Date = new Date(),
  student: string | null = null,
): StudentWork {
  const ids = [...new Set([...drafts.keys(), ...progress.keys()])].sort();
  return {
    format: "recode-student-work",
    version: 1,
    exportedAt: now.toISOString(),
    className,
    student,
    tasks: ids.map((taskId) => ({ taskId, draft: drafts.get(taskId) ?? null, progress: progress.get(taskId) ?? null })),
  };
}

/**
 * Read a student-work file.
 * @param source the file name, for messages
 * @throws Error naming the file and the field (`tasks[2].progress.turns[0].level: ...`) when it is not one
 */
export function parseStudentWork(text: string, source: string): StudentWork {
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    throw new Error(`${source}: not valid JSON (${(e as Error).message})`);
  }
  const res = StudentWorkSchema.safeParse(raw);
  if (!res.success) {
    const issue = res.error.issues[0];
    const field = (issue?.path ?? [])
      .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
      .join("")
      .replace(/^\./, "");
    throw new Error(`${source}: not a student-work file: ${field || "(top level)"}: ${issue?.message ?? "invalid"}`);
  }
  for (const [i, t] of res.data.tasks.entries()) {
    if (t.progress && t.progress.taskId !== t.taskId)
      throw new Error(`${source}: not a student-work file: tasks[${i}].progress.taskId is "${t.progress.taskId}", not "${t.taskId}"`);
  }
  return res.data;
}
