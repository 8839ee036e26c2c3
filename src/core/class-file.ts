/**
 * A class file: a teacher's settings for the page, as one JSON file loaded from
 * a URL (`?class=<url>`) or picked in Settings. It picks the tasks a class
 * works on, caps the feedback level students may ask for, can hide "Apply"
 * on L4 code, and fixes the researcher. The format is in docs/teaching.md.
 *
 * A class file is a setting, not a lock: a student who clears the site's data
 * leaves it. To keep canonical solutions out of students' hands, serve a
 * student build (docs/teaching.md, "Student build").
 */
import { z } from "zod";
import { CLASS_RESEARCHERS, type ClassSettings } from "./class-settings";
import { fieldIssues } from "./schema-issues";
import { jsonLine } from "./task";
import { FeedbackLevelSchema } from "./vocabulary";

export { type ClassSettings, describeClass } from "./class-settings";

/** Zod schema of a class file (format `recode-class`, version 1). Unknown fields are errors. */
export const ClassFileSchema = z
  .object({
    format: z.literal("recode-class"),
    version: z.literal(1),
    /** Shown in the page while the class is active. */
    name: z.string().trim().min(1).max(120),
    /** Task ids, in the order the list shows them; absent: every task of the page. */
    tasks: z.array(z.string().min(1)).min(1).optional(),
    /** Highest feedback level students may ask for (0-4; default 4). */
    maxLevel: FeedbackLevelSchema.optional(),
    /** Hide "Apply" and "Apply all" on L4 code (default false). */
    hideApply: z.boolean().optional(),
    /** The researcher of the Feedback tab, fixed for the class; absent: the student picks. */
    researcher: z.enum(CLASS_RESEARCHERS).optional(),
  })
  .strict();

/** A class file as written. */
export type ClassFile = z.infer<typeof ClassFileSchema>;

/** A class file that cannot be used; the message names the source, the field and the line. */
export class ClassFileError extends Error {
  constructor(
    readonly source: string,
    readonly problem: string,
    readonly line?: number,
  ) {
    super(`class file ${source}${line !== undefined ? `, line ${line}` : ""}: ${problem}`);
    this.name = "ClassFileError";
  }
}

/**
 * Read a class file's text.
 * @param source the URL or file name, for messages
 * @param knownTasks the ids of the page's tasks: a class that names another is refused (all unknown ids are listed)
 * @throws ClassFileError for text that is not JSON, a field that is missing, unknown or of the wrong type, or unknown task ids
 */
export function parseClassFile(text: string, source: string, knownTasks: readonly string[]): ClassSettings {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (e) {
    if (/^\s*</.test(body)) {
      throw new ClassFileError(source, "the address gave a web page, not a JSON file: is the class file at that address?");
    }
    // JSON allows no comma before a closing brace or bracket: the commonest slip, said as such.
    const trailing = /,(\s*)[}\]]/.exec(body);
    if (trailing) {
      const line = body.slice(0, trailing.index).split("\n").length;
      throw new ClassFileError(source, "a comma before a closing } or ]: JSON allows none after the last item", line);
    }
    throw new ClassFileError(source, `not valid JSON (${(e as Error).message})`);
  }
  const level = (raw as { maxLevel?: unknown } | null)?.maxLevel;
  if (typeof level === "string") {
    throw new ClassFileError(
      source,
      `field maxLevel is the text ${JSON.stringify(level)}: write the number without quotes (0 to 4)`,
      jsonLine(body, ["maxLevel"]),
    );
  }
  const res = ClassFileSchema.safeParse(raw);
  if (!res.success) {
    const [issue, ...more] = fieldIssues(ClassFileSchema, raw, res.error.issues, "a class file");
    if (!issue) throw new ClassFileError(source, "not a class file");
    const said = (i: typeof issue) =>
      `field ${i.field} ${i.message.startsWith("is not a field of") ? `${i.message} (fields: format, version, name, tasks, maxLevel, hideApply, researcher)` : i.message}`;
    // Every fault at once, each at its line: the author mends them in one go.
    const also = more.map((i) => {
      const line = jsonLine(body, i.path);
      return `${said(i)}${line !== undefined ? ` (line ${line})` : ""}`;
    });
    throw new ClassFileError(source, `${said(issue)}${also.length > 0 ? `; also ${also.join("; ")}` : ""}`, jsonLine(body, issue.path));
  }
  const file = res.data;
  if (file.tasks) {
    const known = new Set(knownTasks);
    const unknown = file.tasks.map((id, i) => [id, i] as const).filter(([id]) => !known.has(id));
    const first = unknown[0];
    if (first) {
      throw new ClassFileError(
        source,
        `field tasks names ${unknown.length === 1 ? "a task" : "tasks"} this page does not have: ${unknown.map(([id]) => JSON.stringify(id)).join(", ")} (a task of a task pack is known once the pack is imported: Settings → Task packs, then load the class file again)`,
        jsonLine(body, ["tasks", first[1]]),
      );
    }
  }
  return {
    name: file.name,
    tasks: file.tasks ? [...new Set(file.tasks)] : null,
    maxLevel: file.maxLevel ?? 4,
    hideApply: file.hideApply ?? false,
    researcher: file.researcher ?? null,
    source,
    text,
  };
}
