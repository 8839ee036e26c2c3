/**
 * Task format: schema, validation and loading from a map of files.
 * The format mirrors the official RECODE-H annotation folders (RECODE-H.md,
 * "Task anatomy"); it is documented in docs/task-format.md.
 */

import { z } from "zod";
import { JsonSyntaxError, nodeAt, scanJson } from "./json-locate";
import { fieldIssues } from "./schema-issues";
import { suggestTestId, testIdsIn } from "./test-ids";
import { runFileStarImportProblem, runFileStarImports } from "./test-star-imports";

/**
 * Whether `p` is a relative path that stays inside its folder: `/`-separated,
 * no leading `/`, no `.`, `..` or empty segment, no backslash, no NUL. A task's
 * files are written under the run folder by these names, so one that left it
 * would write elsewhere in the interpreter (or on the host).
 */
export function isInsidePath(p: string): boolean {
  return p !== "" && !p.startsWith("/") && !/[\\\0]/.test(p) && !p.split("/").some((part) => part === ".." || part === "." || part === "");
}

/**
 * Files every task folder must have (besides `repo/<target_file_path>`). `paper.tex` is optional: a course
 * task that implements no paper's method has none (and no `paper` in task.json); see {@link Task.paper}.
 */
export const TASK_FILES = ["task.json", "instruction.md", "canonical.py", "test.py"] as const;

const testId = z
  .string()
  .regex(
    /^(?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*$/,
    "a test id is Class.method, e.g. TestMinP.test_basic (in a pytest task also a test function's name, e.g. test_basic)",
  );

/** A folder inside repo/: `pkg/sub`, or `.` for repo/ itself. */
const repoDir = z
  .string()
  .min(1)
  .refine(
    (p) => p === "." || (!p.startsWith("/") && !p.split("/").some((part) => part === ".." || part === "." || part === "")),
    "a folder inside repo/, like pkg/sub, or . for repo/ itself (no ./, .. or //)",
  );

/**
 * How a task with `isolation: "shared"` runs its tests: under pytest, laid
 * out as the official RECODE-H test.sh lays them out (docs/task-format.md,
 * "Shared isolation"). Folders are relative to repo/.
 */
export const PytestRunSchema = z
  .object({
    /** Where test.py is placed (test.sh's `cp` of test.py). */
    test_dir: repoDir,
    /** Where canonical.py is placed, importable by the tests as `canonical` (test.sh's `cp` of canonical.py). */
    canonical_dir: repoDir,
    /** Folder pytest runs in (test.sh's `cd`). */
    cwd: repoDir,
    /** Folders on PYTHONPATH, in order (test.sh's `PYTHONPATH=`, else the repository root). */
    pythonpath: z.array(repoDir).min(1),
    /** Per-test time limit in seconds (test.sh's `pytest --timeout N`). */
    timeout_s: z.number().int().positive().optional(),
  })
  .strict();

/** Parsed task.json `pytest`. */
export type PytestRun = z.infer<typeof PytestRunSchema>;

const guidanceText = z.string().min(1, "an L3 text in words");

/** Task difficulties (task.json `difficulty`). */
export const TASK_DIFFICULTIES = ["easy", "medium", "hard"] as const;

/** What the target file holds at the start (task.json `start`). */
export const TASK_STARTS = ["empty", "partial", "stubs"] as const;

/**
 * One unstated constant or library detail that some checks depend on
 * (RECODE-H.md, "Feedback hierarchy": T3 knowledge and context). The rules
 * researcher traces a wrong value to it, and labels the item T3, when every
 * failing test of the interface is a wrong value in one of `checks` (with the
 * ratio `ratio`, when given).
 */
export const KnowledgeSchema = z
  .object({
    /** Check keys (of expected.json) whose values depend on the detail; each made by a test of this interface. */
    checks: z.array(z.string().min(1)).min(1, "name at least one check"),
    /**
     * The factor got / expected that missing the detail gives at the first
     * differing element (e.g. the square root of (n - 1) / n for values
     * normalised by a sample instead of a population standard deviation);
     * when given, a wrong value is traced to the detail only when its factor
     * agrees within a relative 1e-6.
     */
    ratio: z.number().positive().finite().optional(),
    /** What the detail is, in words (no code): quoted in the analysis of a T3 item. */
    detail: z.string().min(1, "say what the detail is"),
  })
  .strict();

/** One knowledge entry of an interface (see {@link KnowledgeSchema}). */
export type Knowledge = z.infer<typeof KnowledgeSchema>;

/** Schema of task.json. */
export const TaskMetaSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lower-case letters, digits and dashes"),
    title: z.string().min(1),
    /** The paper whose method the task implements; absent for a course task that implements none. */
    paper: z
      .object({
        title: z.string().min(1),
        authors: z.array(z.string().min(1)).min(1),
        venue: z.string().min(1),
        year: z.number().int().min(1900).max(2100),
        url: z
          .string()
          .url()
          .refine((u) => /^https?:\/\//i.test(u), "an http(s) address"),
      })
      .strict()
      .optional(),
    domain: z.string().min(1),
    tags: z.array(z.string()).default([]),
    /** Python packages the task needs besides the standard library (e.g. "numpy"). */
    packages: z.array(z.string().min(1)).default([]),
    /** Path of the file to write, relative to repo/. */
    target_file_path: z
      .string()
      .min(1)
      .refine(isInsidePath, "a relative path inside repo/, like pkg/module.py (no ./, .. or //)")
      .refine((p) => p.endsWith(".py"), "a .py file"),
    interfaces: z
      .array(
        z
          .object({
            name: z.string().min(1),
            tests: z.array(testId).min(1, "every interface needs at least one test"),
            /** Authored hint for this interface: what to get right, in words, no code. The L3 text when no more specific one applies. */
            guidance: z.string().min(1),
            /**
             * L3 texts by the category of the mistake (RECODE-H.md, "Feedback
             * hierarchy": T0 structure, T1 correctness, T2 alignment, T3
             * knowledge, T4 repository integration), in words, no code.
             */
            guidance_by_category: z
              .object({ T0: guidanceText, T1: guidanceText, T2: guidanceText, T3: guidanceText, T4: guidanceText })
              .partial()
              .strict()
              .optional(),
            /** L3 texts for a wrong value in one check (key of expected.json), in words, no code; used for T2 and T3 items. */
            guidance_by_check: z.record(z.string().min(1, "a check key"), guidanceText).optional(),
            /** L3 texts for an exception of one type (e.g. `ZeroDivisionError`) raised while testing the interface, in words, no code. */
            guidance_by_exception: z
              .record(z.string().regex(/^[A-Za-z_]\w*$/), guidanceText, { error: "keys are exception types such as ZeroDivisionError" })
              .optional(),
            /** Checks whose values depend on an unstated constant or library detail (T3, knowledge and context). */
            knowledge: z.array(KnowledgeSchema).min(1).optional(),
          })
          .strict(),
      )
      .min(1)
      .superRefine((itfs, ctx) => {
        const seen = new Map<string, number>();
        itfs.forEach((itf, i) => {
          itf.tests.forEach((t, j) => {
            const first = seen.get(t);
            if (first !== undefined) {
              ctx.addIssue({
                code: "custom",
                path: [i, "tests", j],
                message: `test ${t} is already listed under interfaces[${first}]; a test belongs to one interface`,
              });
            } else seen.set(t, i);
          });
        });
        const names = itfs.map((i) => i.name);
        names.forEach((n, i) => {
          if (names.indexOf(n) !== i) ctx.addIssue({ code: "custom", path: [i, "name"], message: `interface ${n} is listed twice` });
        });
      }),
    /** Wall-clock limit for one run of all tests, in seconds. */
    time_limit_s: z.number().positive().max(600),
    license: z.string().min(1),
    /** How hard the task is for a coder that has read the paper: `easy`, `medium` or `hard`. */
    difficulty: z.enum(TASK_DIFFICULTIES).optional(),
    /**
     * What the target file holds at the start (RECODE-H: mostly empty): `empty`
     * (nothing), `partial` (some interfaces written, the others missing) or
     * `stubs` (every interface as a signature without a body).
     */
    start: z.enum(TASK_STARTS).optional(),
    /**
     * The public implementation the canonical solution was compared with:
     * where it is, and how (inputs, tolerance, result).
     */
    reference: z
      .object({
        /** Repository URL, e.g. https://github.com/owner/name. */
        repository: z.string().url(),
        /** File (and function) in it. */
        file: z.string().min(1),
        /** How they were compared: inputs, tolerance and the result. */
        how: z.string().min(1),
      })
      .strict()
      .optional(),
    /** Licence of anything derived from another work (the reference implementation, figures, text), when it differs from `license`. */
    derived_license: z.string().min(1).optional(),
    /**
     * `recorded` (default): tests compare against expected.json and candidate
     * code never shares an interpreter with canonical.py. `shared`: imported
     * official tasks whose tests import the canonical module.
     */
    isolation: z.enum(["recorded", "shared"]).default("recorded"),
    /** How the tests of a `shared` task run (pytest); required with, and only with, `isolation: "shared"`. */
    pytest: PytestRunSchema.optional(),
  })
  .strict()
  .superRefine((meta, ctx) => {
    if (meta.isolation === "shared" && !meta.pytest) {
      ctx.addIssue({
        code: "custom",
        path: ["pytest"],
        message: 'a task with isolation "shared" says how pytest runs its tests (field pytest)',
      });
    }
    if (meta.isolation !== "shared" && meta.pytest) {
      ctx.addIssue({ code: "custom", path: ["isolation"], message: 'field pytest is for tasks with isolation "shared"' });
    }
  });

/** Parsed task.json. */
export type TaskMeta = z.infer<typeof TaskMetaSchema>;

/** task.json's `paper`: title, authors, venue, year (an integer, 1900-2100) and an http(s) URL. */
export type TaskPaper = NonNullable<TaskMeta["paper"]>;

/** A paper's venue with its year, as the task list and the task's header show it: the year added unless the venue names it. */
export function venueAndYear(paper: Pick<TaskPaper, "venue" | "year">): string {
  return paper.venue.includes(String(paper.year)) ? paper.venue : `${paper.venue} ${paper.year}`;
}

/** One entry of task.json `interfaces`: name, tests, guidance texts and knowledge entries. */
export type TaskInterface = TaskMeta["interfaces"][number];

/** A loaded task: metadata plus the text of every file. */
export interface Task {
  /** Folder name; equals meta.id. */
  id: string;
  meta: TaskMeta;
  /** instruction.md (Markdown with $math$). */
  instruction: string;
  /** paper.tex (the method, LaTeX); empty for a task with no paper.tex (a course task). */
  paper: string;
  /** Repository files, keyed by path relative to repo/. Includes the target file's starting text. */
  repo: Record<string, string>;
  /** Starting text of the target file (repo[target_file_path]). */
  starter: string;
  /** Reference solution; never shown to a coder or run beside candidate code. */
  canonical: string;
  /** test.py source (stdlib unittest). */
  tests: string;
  /** expected.json text, or null when not yet recorded. */
  expected: string | null;
  /** Map test id -> interface name, from task.json. */
  interfaceOf: Record<string, string>;
}

/** A task folder that does not follow the format. Names task, file, field and line where known. */
export class TaskFormatError extends Error {
  constructor(
    readonly task: string,
    readonly file: string,
    readonly problem: string,
    readonly field?: string,
    readonly line?: number,
  ) {
    const where = [file, line !== undefined ? `line ${line}` : null, field ? `field ${field}` : null].filter(Boolean).join(", ");
    super(`task ${task}: ${where}: ${problem}`);
    this.name = "TaskFormatError";
  }
}

function lineOf(text: string, pos: number): number {
  return text.slice(0, pos).split("\n").length;
}

/** JSON text without a leading byte order mark (editors on some systems add one). */
function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function parseJson(task: string, file: string, raw: string): unknown {
  const text = stripBom(raw);
  try {
    return JSON.parse(text);
  } catch (e) {
    // Where: the first place the text is not JSON.
    try {
      scanJson(text);
    } catch (where) {
      if (where instanceof JsonSyntaxError) {
        const line = lineOf(text, where.offset);
        const column = where.offset - text.lastIndexOf("\n", where.offset - 1);
        // A comma left out at a line's end is found on the next line: say which line lacks it.
        const before = lineOf(text, text.slice(0, where.offset).trimEnd().length);
        const hint = where.message.startsWith("',' or") && before < line ? `; is a comma missing at the end of line ${before}?` : "";
        throw new TaskFormatError(task, file, `not valid JSON at column ${column} (${where.message}${hint})`, undefined, line);
      }
    }
    throw new TaskFormatError(task, file, `not valid JSON (${(e as Error).message})`);
  }
}

/**
 * Line of the value at `path` in JSON `text`; for a missing field, the line of
 * the nearest enclosing value that exists. Undefined when the text does not parse.
 */
export function jsonLine(raw: string, path: PropertyKey[]): number | undefined {
  const text = stripBom(raw);
  let root: ReturnType<typeof scanJson>;
  try {
    root = scanJson(text);
  } catch {
    return undefined;
  }
  const segs = path.filter((p): p is string | number => typeof p === "string" || typeof p === "number");
  for (let n = segs.length; n >= 0; n--) {
    const node = nodeAt(root, segs.slice(0, n));
    // Point at the key of a property rather than at its value.
    if (node) return lineOf(text, node.keyOffset ?? node.offset);
  }
  return undefined;
}

/** Validate task.json text. Throws TaskFormatError naming the field and line. */
export function parseTaskMeta(task: string, text: string): TaskMeta {
  return taskMetaOf(task, parseJson(task, "task.json", text), text);
}

/** Validate task.json as parsed (`raw`) from `text`. Throws TaskFormatError naming the field and line. */
function taskMetaOf(task: string, raw: unknown, text: string): TaskMeta {
  const res = TaskMetaSchema.safeParse(raw);
  if (!res.success) {
    const issues = fieldIssues(TaskMetaSchema, raw, res.error.issues, "task.json");
    const [first, ...rest] = issues;
    if (!first) throw new TaskFormatError(task, "task.json", "invalid");
    // Every problem at once, so that fixing one does not just reveal the next.
    const also = rest.length
      ? ` (also: ${rest
          .slice(0, 5)
          .map((i) => `field ${i.field}${jsonLine(text, i.path) !== undefined ? ` (line ${jsonLine(text, i.path)})` : ""} ${i.message}`)
          .join("; ")}${rest.length > 5 ? `; and ${rest.length - 5} more` : ""})`
      : "";
    throw new TaskFormatError(task, "task.json", `${first.message}${also}`, first.field, jsonLine(text, first.path));
  }
  return res.data;
}

/**
 * Whether test.py's text defines the test `id` ("Class.test_name", or a pytest task's module-level "test_name"):
 * a `class Class` and a `def test_name(` in it (read from the text, not run).
 */
export function definesTest(tests: string, id: string): boolean {
  const [cls, method] = id.includes(".") ? (id.split(".") as [string, string]) : [null, id];
  return (cls === null || new RegExp(`class\\s+${cls}\\b`).test(tests)) && new RegExp(`def\\s+${method}\\s*\\(`).test(tests);
}

/**
 * Build a Task from its files. `files` maps paths relative to the task folder
 * (e.g. `task.json`, `repo/pkg/mod.py`) to their text.
 * Throws TaskFormatError for a missing file, a bad task.json, a target file not
 * in repo/, a folder name that differs from the id, a test named in task.json
 * that test.py does not define, a star import of a file of the run in test.py
 * (`from <target module> import *`, see test-star-imports.ts), or an
 * unreadable expected.json.
 */
export function loadTaskFromFiles(folder: string, files: Record<string, string>): Task {
  // Every problem at once (the first names where; the others follow it), so that fixing one does not just reveal the
  // next: missing files, task.json's schema, and then what can still be checked of task.json as it is.
  const problems: { file: string; problem: string; field?: string; line?: number }[] = [];
  for (const f of TASK_FILES) if (files[f] === undefined) problems.push({ file: f, problem: "file is missing" });
  const metaText = files["task.json"];
  let meta: TaskMeta | null = null;
  // What task.json holds, read loosely where its schema fails (only the fields checked below).
  let loose: { id?: unknown; target_file_path?: unknown; isolation?: unknown; interfaces?: unknown } = {};
  if (metaText !== undefined) {
    // (Text that is no JSON says so alone: nothing of it can be checked.)
    const raw = parseJson(folder, "task.json", metaText);
    if (raw && typeof raw === "object" && !Array.isArray(raw)) loose = raw as typeof loose;
    try {
      meta = taskMetaOf(folder, raw, metaText);
    } catch (e) {
      if (!(e instanceof TaskFormatError)) throw e;
      problems.push({ file: "task.json", problem: e.problem, field: e.field, line: e.line });
    }
  }
  const text = metaText ?? "";
  if (typeof loose.id === "string" && loose.id !== folder) {
    problems.push({
      file: "task.json",
      problem: `id "${loose.id}" differs from the folder name "${folder}"`,
      field: "id",
      line: jsonLine(text, ["id"]),
    });
  }
  const repo: Record<string, string> = {};
  for (const [path, body] of Object.entries(files)) {
    if (!path.startsWith("repo/")) continue;
    if (!isInsidePath(path.slice(5))) {
      problems.push({ file: path, problem: "a repository file's path must stay inside repo/ (no ./, .., //, \\ or a leading /)" });
      continue;
    }
    repo[path.slice(5)] = body;
  }
  const targetPath = typeof loose.target_file_path === "string" ? loose.target_file_path : null;
  const starter = targetPath === null ? undefined : repo[targetPath];
  if (targetPath !== null && starter === undefined) {
    problems.push({
      file: "task.json",
      problem: `target_file_path names repo/${targetPath}, which does not exist (it holds the starting text; it may be empty)`,
      field: "target_file_path",
      line: jsonLine(text, ["target_file_path"]),
    });
  }
  const tests = files["test.py"];
  const interfaceOf: Record<string, string> = {};
  const known = tests === undefined ? [] : testIdsIn(tests);
  const isolation = loose.isolation ?? "recorded";
  const interfaces = Array.isArray(loose.interfaces) ? (loose.interfaces as unknown[]) : [];
  interfaces.forEach((itf, i) => {
    const { name, tests: ids } = (itf && typeof itf === "object" ? itf : {}) as { name?: unknown; tests?: unknown };
    if (!Array.isArray(ids)) return;
    for (const [j, id] of ids.entries()) {
      if (typeof id !== "string" || tests === undefined) continue;
      const meant = () => suggestTestId(id, known);
      if (isolation === "recorded" && !id.includes(".")) {
        const guess = meant();
        problems.push({
          file: "task.json",
          problem: `test ${id} names no class: a test id is Class.method, ${guess ? `here ${guess}` : "e.g. TestMinP.test_basic"}`,
          field: `interfaces[${i}].tests[${j}]`,
          line: jsonLine(text, ["interfaces", i, "tests", j]),
        });
      } else if (!definesTest(tests, id)) {
        const guess = meant();
        problems.push({
          file: "task.json",
          problem: `test ${id} is not defined in test.py${guess ? ` (did you mean ${guess}?)` : ""}`,
          field: `interfaces[${i}].tests[${j}]`,
          line: jsonLine(text, ["interfaces", i, "tests", j]),
        });
      }
      if (typeof name === "string") interfaceOf[id] = name;
    }
  });
  if (tests !== undefined && isolation === "recorded") {
    // The names test.py would take are the candidate's; the canonical solution's stand for them here.
    const sources = targetPath !== null && files["canonical.py"] !== undefined ? { ...repo, [targetPath]: files["canonical.py"] } : repo;
    for (const s of runFileStarImports(tests, sources))
      problems.push({ file: "test.py", problem: runFileStarImportProblem(s), line: s.line });
  }
  const [first, ...rest] = problems;
  if (first) {
    const place = (p: (typeof problems)[number]) =>
      [p.file, p.line !== undefined ? `line ${p.line}` : null, p.field ? `field ${p.field}` : null].filter(Boolean).join(", ");
    const also = rest.length ? ` (also: ${rest.map((p) => `${place(p)}: ${p.problem}`).join("; ")})` : "";
    throw new TaskFormatError(folder, first.file, `${first.problem}${also}`, first.field, first.line);
  }
  // (No problem was found: every file is there, and task.json met its schema.)
  if (meta === null || tests === undefined || starter === undefined) throw new TaskFormatError(folder, "task.json", "invalid");
  const expected = files["expected.json"] ?? null;
  if (expected !== null) parseJson(folder, "expected.json", expected);
  return {
    id: folder,
    meta,
    instruction: files["instruction.md"] as string,
    paper: files["paper.tex"] ?? "",
    repo,
    // (Never undefined here: a missing target file is among the problems thrown above.)
    starter: starter ?? "",
    canonical: files["canonical.py"] as string,
    tests,
    expected,
    interfaceOf,
  };
}

/** FNV-1a 64-bit hash of the task's files, as 16 hex digits (content version of a task). */
export function taskContentHash(task: Task): string {
  const known = hashes.get(task);
  if (known !== undefined) return known;
  const hash = computeContentHash(task);
  hashes.set(task, hash);
  return hash;
}

/** Content hashes by task object (a loaded task is not changed in place; copies are new objects). */
const hashes = new WeakMap<Task, string>();

function computeContentHash(task: Task): string {
  const parts = [task.meta.id, JSON.stringify(task.meta), task.instruction, task.paper, task.canonical, task.tests, task.expected ?? ""];
  for (const k of Object.keys(task.repo).sort()) parts.push(k, task.repo[k] as string);
  let h = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      h ^= BigInt(part.charCodeAt(i));
      h = (h * prime) & 0xffffffffffffffffn;
    }
    h ^= 0xffn;
    h = (h * prime) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}
