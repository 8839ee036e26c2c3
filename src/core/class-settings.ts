/**
 * A class's settings as the page uses them (read from a class file by
 * class-file.ts, which the page loads only when a class file is read).
 */
import type { FeedbackLevel } from "./vocabulary";

/** The researchers a class file may fix (those of the Feedback tab). */
export const CLASS_RESEARCHERS = ["rules", "llm", "human"] as const;

/** A class file that was read, with where it came from. */
export interface ClassSettings {
  name: string;
  /** Task ids of the class, or null for every task. */
  tasks: string[] | null;
  maxLevel: FeedbackLevel;
  hideApply: boolean;
  researcher: (typeof CLASS_RESEARCHERS)[number] | null;
  /** The URL or file name it was loaded from. */
  source: string;
  /** The file's text, as loaded (kept so that it can be read again on the next visit). */
  text: string;
}

/** One line that says what a class changes, for the page's banner. */
export function describeClass(c: ClassSettings): string {
  const parts = [c.tasks ? `${c.tasks.length} task${c.tasks.length === 1 ? "" : "s"}` : "all tasks", `feedback up to L${c.maxLevel}`];
  if (c.hideApply) parts.push("apply hidden");
  if (c.researcher) parts.push(`${c.researcher} researcher`);
  return parts.join(" · ");
}
