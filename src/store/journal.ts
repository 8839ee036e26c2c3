/**
 * A synchronous journal of unsaved drafts in `localStorage`. IndexedDB writes
 * are asynchronous and a reload or crash can cut them off; the journal is
 * written on every edit (synchronously) and cleared once the draft is in
 * IndexedDB, so the newest text survives either way.
 */

/** The part of the Web Storage API the journal uses. */
export interface SyncStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** One journal entry: the text and when it was typed (ms since the epoch). */
export interface JournalEntry {
  code: string;
  /** Content hash of the task the text was written for. */
  taskHash: string;
  at: number;
}

const PREFIX = "recode:unsaved-draft:";

/** Journal of unsaved drafts. Every method swallows storage errors (quota, disabled storage): the journal is a safety net. */
export class DraftJournal {
  constructor(private readonly storage: SyncStorage | null) {}

  /** Note the newest text of a task. */
  write(taskId: string, entry: JournalEntry): void {
    try {
      this.storage?.setItem(PREFIX + taskId, JSON.stringify(entry));
    } catch {
      /* full or unavailable: IndexedDB still gets the draft */
    }
  }

  /** The unsaved text of a task, or null. */
  read(taskId: string): JournalEntry | null {
    try {
      const raw = this.storage?.getItem(PREFIX + taskId);
      if (!raw) return null;
      const v = JSON.parse(raw) as Partial<JournalEntry>;
      return typeof v.code === "string" && typeof v.at === "number" ? { code: v.code, taskHash: String(v.taskHash ?? ""), at: v.at } : null;
    } catch {
      return null;
    }
  }

  /** Forget a task's entry once IndexedDB holds `at` or newer text. */
  clear(taskId: string, upTo = Number.POSITIVE_INFINITY): void {
    try {
      const cur = this.read(taskId);
      if (cur && cur.at <= upTo) this.storage?.removeItem(PREFIX + taskId);
    } catch {
      /* ignore */
    }
  }
}

/** The page's localStorage, or null where it cannot be used. */
export function browserStorage(): SyncStorage | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}

/**
 * Small per-task notes kept in `localStorage` (e.g. feedback a teacher is
 * writing by hand), so a reload does not lose them. Storage errors are
 * swallowed: the notes stay in memory.
 */
export class TaskNotes<T> {
  constructor(
    private readonly storage: SyncStorage | null,
    private readonly kind: string,
  ) {}

  get(taskId: string): T | null {
    try {
      const raw = this.storage?.getItem(`recode:${this.kind}:${taskId}`);
      return raw ? (JSON.parse(raw) as T) : null;
    } catch {
      return null;
    }
  }

  set(taskId: string, value: T | null): void {
    try {
      if (value === null) this.storage?.removeItem(`recode:${this.kind}:${taskId}`);
      else this.storage?.setItem(`recode:${this.kind}:${taskId}`, JSON.stringify(value));
    } catch {
      /* kept in memory only */
    }
  }
}
