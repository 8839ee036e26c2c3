/**
 * The page's teaching state: a student's turns per task (runs, solved, the
 * feedback levels asked for on the ladder) and the active class file. Owned
 * by PlaygroundServices; storage failures become notices and never lose what
 * is shown.
 */
import type { ClassSettings } from "../core/class-settings";
import type { RunResult } from "../core/results";
import type { StudentWork } from "../core/student-work";
import { addRun, raiseLevel, type TaskProgress } from "../core/study";
import type { FeedbackLevel } from "../core/vocabulary";
import type { Repositories } from "../store/repositories";
import { Observable } from "./observable";

/** Most bytes of a class file fetched from a URL. */
const MAX_CLASS_BYTES = 256 * 1024;

/** A student's turns and the class file, for the page. */
/** A class file that could not be fetched (no network, no such file): its absolute URL and why. */
export class ClassFetchError extends Error {
  constructor(
    /** The class file's absolute URL. */
    readonly source: string,
    /** Why, as the fetch said it (`Failed to fetch`, `the server answered 404 Not Found`). */
    readonly reason: string,
  ) {
    super(`The class file ${source} could not be fetched: ${reason}`);
    this.name = "ClassFetchError";
  }
}

export class Teaching {
  /** Turns per task id (every task with at least one run). */
  readonly progress = new Observable<ReadonlyMap<string, TaskProgress>>(new Map());
  /** The active class file, or null. */
  readonly classSettings = new Observable<ClassSettings | null>(null);
  /** A student's work opened to be read (by a teacher), with the file it came from; null when none is open. */
  readonly openedWork = new Observable<{ work: StudentWork; source: string } | null>(null);
  /** Several students' work files opened together (the class view), with the files that could not be read; or null. */
  readonly openedClassWork = new Observable<{ works: { work: StudentWork; source: string }[]; errors: string[] } | null>(null);

  constructor(
    private readonly repos: Promise<Repositories>,
    private readonly notify: (kind: "error" | "warning", text: string) => void,
    /** Ids of the page's tasks (a class may name only these). */
    private readonly taskIds: () => string[],
    /** Resolves once every task is in the list (the imported ones are read from storage): a class is read after it. */
    private readonly tasksListed: () => Promise<void> = async () => {},
  ) {}

  private loadedOnce: Promise<void> | null = null;

  /**
   * Read the stored turns and class (once; later calls wait for that read). The page calls it when it
   * opens; a class loaded from a link waits for it.
   */
  whenLoaded(): Promise<void> {
    this.loadedOnce ??= this.readStored();
    return this.loadedOnce;
  }

  private async readStored(): Promise<void> {
    const repos = await this.repos;
    try {
      const all = await repos.progress.all();
      this.progress.set(new Map(all.records.map((p) => [p.taskId, p])));
      for (const p of all.problems) this.notify("warning", p);
    } catch (e) {
      this.notify("error", `${(e as Error).message} Your turns on each task are not shown.`);
    }
    try {
      // A class may name imported tasks: they are in the list first, or the class would be set aside as naming unknown tasks.
      await this.tasksListed();
      const got = await repos.classes.get(this.taskIds());
      if (got.problem) this.notify("warning", got.problem);
      if (got.value) this.classSettings.set(got.value);
    } catch (e) {
      this.notify("error", `${(e as Error).message} The class file could not be read.`);
    }
  }

  private put(p: TaskProgress): void {
    const next = new Map(this.progress.get());
    next.set(p.taskId, p);
    this.progress.set(next);
  }

  /** Record a finished run of the tests on `code` (the target file's text) as a new turn (at level 0). */
  addRun(taskId: string, result: RunResult, code: string): void {
    const at = Date.now();
    this.put(addRun(this.progress.get().get(taskId) ?? null, taskId, result, at, code));
    void this.repos
      .then((r) => r.progress.addRun(taskId, result, at, code))
      .catch((e: Error) => this.notify("warning", `${e.message} (the turn is shown but not stored)`));
  }

  /** The highest level asked for on the task's last run (0 when none). */
  reached(taskId: string): FeedbackLevel {
    return this.progress.get().get(taskId)?.turns.at(-1)?.level ?? 0;
  }

  /** Record that the student asked for `level` on the task's last run. */
  raiseLevel(taskId: string, level: FeedbackLevel): void {
    const p = this.progress.get().get(taskId);
    if (!p || p.turns.length === 0) return;
    this.put(raiseLevel(p, level));
    void this.repos
      .then((r) => r.progress.raiseLevel(taskId, level))
      .catch((e: Error) => this.notify("warning", `${e.message} (the level is shown but not stored)`));
  }

  /** The highest level the class allows (4 without a class). */
  get maxLevel(): FeedbackLevel {
    return this.classSettings.get()?.maxLevel ?? 4;
  }

  /**
   * Read a class file's text for this page's tasks, without making it the active class.
   * @throws ClassFileError when the text is not a valid class file for this page's tasks
   */
  async readClass(text: string, source: string): Promise<ClassSettings> {
    const { parseClassFile } = await import("../core/class-file");
    await this.tasksListed();
    return parseClassFile(text, source, this.taskIds());
  }

  /** Make a class the active one (kept in the browser; a storage failure leaves it active until reload). */
  async applyClass(c: ClassSettings): Promise<void> {
    await this.whenLoaded();
    this.classSettings.set(c);
    try {
      await (await this.repos).classes.save(c);
    } catch (e) {
      this.notify("warning", `${(e as Error).message} The class applies until the page is reloaded.`);
    }
  }

  /**
   * Make a class file's text the active class.
   * @throws ClassFileError when the text is not a valid class file for this page's tasks
   */
  async loadClass(text: string, source: string): Promise<ClassSettings> {
    const c = await this.readClass(text, source);
    await this.applyClass(c);
    return c;
  }

  /**
   * Fetch a class file (relative URLs resolve against the page), reading at most 256 KB of it.
   * @returns its text and its absolute URL
   * @throws ClassFetchError naming the URL when it cannot be fetched; Error when it is larger
   */
  async fetchClass(url: string): Promise<{ text: string; source: string }> {
    const abs = new URL(url, globalThis.location?.href).href;
    const tooBig = new Error(`The class file ${abs} is larger than ${MAX_CLASS_BYTES / 1024} KB.`);
    try {
      const res = await fetch(abs, { cache: "no-cache" });
      if (!res.ok) throw new Error(`the server answered ${res.status} ${res.statusText}`.trim());
      return { text: await readCapped(res, MAX_CLASS_BYTES, tooBig), source: abs };
    } catch (e) {
      if (e === tooBig) throw e;
      throw new ClassFetchError(abs, (e as Error).message);
    }
  }

  /**
   * Fetch a class file from `url` and make it the active class.
   * @throws Error naming the URL when it cannot be fetched, or ClassFileError when it is not a valid class file
   */
  async loadClassFromUrl(url: string): Promise<ClassSettings> {
    const { text, source } = await this.fetchClass(url);
    return this.loadClass(text, source);
  }

  /**
   * This browser's work as a student-work file's text: every draft and every task's turns.
   * @throws StorageError when the drafts cannot be read
   */
  async exportWork(student: string | null = null): Promise<string> {
    const drafts = await (await this.repos).drafts.all();
    const { studentWork } = await import("../core/student-work");
    const work = studentWork(
      new Map([...drafts].map(([id, d]) => [id, d.code])),
      this.progress.get(),
      this.classSettings.get()?.name ?? null,
      new Date(),
      student?.trim() || null,
    );
    return `${JSON.stringify(work, null, 1)}\n`;
  }

  /**
   * Open a student-work file to read it (nothing of this browser's own work changes).
   * @throws Error naming the file and the field when it is not a student-work file
   */
  async openWork(text: string, source: string): Promise<void> {
    const { parseStudentWork } = await import("../core/student-work");
    this.openedWork.set({ work: parseStudentWork(text, source), source });
  }

  /**
   * Open several students' work files together, for the class view: each file that reads is shown, each that
   * does not is named with its field (nothing of this browser's own work changes).
   * @throws Error when no file could be read (the first file's problem).
   */
  async openClassWork(files: readonly { text: string; name: string }[]): Promise<void> {
    const { parseStudentWork } = await import("../core/student-work");
    const works: { work: StudentWork; source: string }[] = [];
    const errors: string[] = [];
    for (const f of files) {
      try {
        works.push({ work: parseStudentWork(f.text, f.name), source: f.name });
      } catch (e) {
        errors.push((e as Error).message);
      }
    }
    if (works.length === 0) throw new Error(errors[0] ?? "no file was chosen");
    this.openedClassWork.set({ works, errors });
  }

  /** Leave the class: every task and level are offered again. */
  async leaveClass(): Promise<void> {
    this.classSettings.set(null);
    try {
      await (await this.repos).classes.remove();
    } catch (e) {
      this.notify("warning", (e as Error).message);
    }
  }
}

/** A response's text, read no further than `max` bytes (a larger body rejects with `tooBig` without being held whole). */
async function readCapped(res: Response, max: number, tooBig: Error): Promise<string> {
  if (Number(res.headers.get("content-length") ?? 0) > max) {
    await res.body?.cancel();
    throw tooBig;
  }
  const reader = res.body?.getReader();
  if (!reader) return "";
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooBig;
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.byteLength;
  }
  return new TextDecoder().decode(all);
}
