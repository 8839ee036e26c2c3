/**
 * Importing official RECODE-H task folders (RECODE-H.md, "Task anatomy") as
 * playground tasks: the parts that need no file system or Python. Reading an
 * `annotation_meta.jsonl` entry, finding the tests of a pytest test.py, and
 * grouping them into interfaces (src/cli/import-recodeh.ts does the rest).
 * Platform-free.
 */
import { z } from "zod";
import { listDefinitions, listStatements, namesUsed } from "./canonical";
import { plural } from "./plural";
import { scan } from "./python-scan";

/** Where the official dataset is published; imported tasks name it as their source. */
export const RECODEH_DATASET_URL = "https://huggingface.co/datasets/mcy98/RECODE-H";

/** The author list of an imported task whose latex.txt names no author (task.json needs one entry). */
export const AUTHORS_NOT_NAMED = "authors not named in latex.txt";

/** One entry of `annotation_meta.jsonl`. */
export interface MetaEntry {
  index: number;
  repo_dir_name: string;
  target_file_path: string;
  if_test: boolean;
  /** The target file's starting text (`null` and `"N/A"` read as empty, as the official environment check reads them). */
  init_content: string;
  test_cases: string[];
}

/** An entry that cannot be imported: the file, the field when one is to blame, and what is wrong. */
export class EntryError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
    readonly field?: string,
  ) {
    super(`${file}${field ? `, field ${field}` : ""}: ${problem}`);
    this.name = "EntryError";
  }
}

const MetaSchema = z.object({
  index: z.number().int().min(0),
  repo_dir_name: z
    .string()
    .min(1)
    .refine((s) => !s.includes("/") && !s.includes("\\") && s !== "." && s !== "..", "a folder name beside the task's files"),
  target_file_path: z.string().min(1),
  if_test: z.boolean(),
  init_content: z.string().nullable().optional(),
  test_cases: z.array(z.string()).default([]),
});

/**
 * Read one line of `annotation_meta.jsonl`.
 * @throws EntryError naming the field (or "not JSON").
 */
export function parseMetaLine(line: string): MetaEntry {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    throw new EntryError("annotation_meta.jsonl", `not valid JSON (${(e as Error).message})`);
  }
  const r = MetaSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const missing =
      issue?.code === "invalid_type" && issue.path.length > 0 && (raw as Record<string, unknown>)[String(issue.path[0])] === undefined;
    throw new EntryError(
      "annotation_meta.jsonl",
      missing ? "is required but missing" : (issue?.message ?? "invalid"),
      issue?.path.join(".") || undefined,
    );
  }
  const init = r.data.init_content;
  let target = r.data.target_file_path.replace(/^(\.\/)+/, "");
  target = target.replace(/\/+/g, "/");
  if (target.startsWith("/") || target.split("/").some((p) => p === ".." || p === ".") || !target.endsWith(".py")) {
    throw new EntryError(
      "annotation_meta.jsonl",
      `"${r.data.target_file_path}" is not a .py file inside the repository`,
      "target_file_path",
    );
  }
  return {
    index: r.data.index,
    repo_dir_name: r.data.repo_dir_name,
    target_file_path: target,
    if_test: r.data.if_test,
    init_content: typeof init === "string" && init !== "N/A" ? init : "",
    test_cases: r.data.test_cases,
  };
}

/** A test pytest collects from a test.py. */
export interface FoundTest {
  /** `Class.method`, or the function's name for a function of the module. */
  id: string;
  /** The function or method name. */
  name: string;
  /** Its source (the `def` block). */
  body: string;
}

const TEST_DEF = /^(?:async\s+)?def\s+(test\w*)\s*\(/;

/**
 * The tests pytest collects from a test.py with its default rules: functions
 * of the module whose name starts with `test`, and methods starting with
 * `test` of classes named `Test...` without an `__init__`, or of
 * `unittest.TestCase` subclasses (any name). Nested classes are not searched.
 */
export function pytestTests(source: string): FoundTest[] {
  const out: FoundTest[] = [];
  for (const st of listStatements(source)) {
    const head = st.text.split("\n")[st.headLine - st.startLine] ?? "";
    if (st.kind === "def") {
      const m = TEST_DEF.exec(head);
      if (m) out.push({ id: m[1] as string, name: m[1] as string, body: st.text });
      continue;
    }
    if (st.kind !== "class") continue;
    const cls = st.names[0] as string;
    const isCase = /\bTestCase\b/.test(head);
    const body = st.text
      .split("\n")
      .slice(st.headLine - st.startLine + 1)
      .join("\n");
    const { lines, info } = scan(body);
    const indents = info
      .filter((li, k) => !li.cont && !li.blank && !li.comment && (lines[k] as string).trim() !== "")
      .map((li) => li.indent);
    const level = indents.length ? Math.min(...indents) : 0;
    const methods: { name: string; start: number }[] = [];
    let hasInit = false;
    lines.forEach((line, k) => {
      const li = info[k];
      if (!li || li.cont || li.blank || li.comment || li.indent !== level) return;
      const t = line.trim();
      if (/^(?:async\s+)?def\s+__init__\s*\(/.test(t)) hasInit = true;
      const m = TEST_DEF.exec(t);
      if (m) methods.push({ name: m[1] as string, start: k });
    });
    if (!isCase && (!cls.startsWith("Test") || hasInit)) continue;
    const tops = lines
      .map((_line, k) => ({ k, li: info[k] }))
      .filter(({ k, li }) => li && !li.cont && !li.blank && !li.comment && li.indent <= level && (lines[k] as string).trim() !== "")
      .map(({ k }) => k);
    for (const m of methods) {
      const next = tops.find((k) => k > m.start && !/^\s*@/.test(lines[k] as string)) ?? lines.length;
      out.push({ id: `${cls}.${m.name}`, name: m.name, body: lines.slice(m.start, next).join("\n") });
    }
  }
  return out;
}

/** One interface of an imported task (task.json `interfaces[]`). */
export interface ImportedInterface {
  name: string;
  tests: string[];
  guidance: string;
}

/**
 * Interfaces for an imported task, from the definitions of canonical.py and
 * the tests: each test belongs to the top-level function or class of
 * canonical.py that its name contains (the longest such name), else to the
 * one its code uses most (first defined wins a tie), else to an interface
 * named after the target module. Definitions the starting text already gives
 * (`starter`, the entry's `init_content`) are the candidate's only when no
 * other one fits: a test that calls a given helper on what the candidate
 * wrote belongs to what the candidate wrote. Interfaces keep canonical.py's
 * order; the guidance says in words what the tests compare.
 */
export function importedInterfaces(tests: readonly FoundTest[], canonical: string, targetPath: string, starter = ""): ImportedInterface[] {
  const defs = [...new Set(listDefinitions(canonical).map((d) => d.name))];
  const given = new Set(starter.trim() ? listDefinitions(starter).map((d) => d.name) : []);
  const toWrite = defs.filter((d) => !given.has(d));
  const moduleName = (targetPath.split("/").pop() as string).replace(/\.py$/, "");
  const byName = new Map<string, string[]>();
  const ownerAmong = (t: FoundTest, candidates: string[]): string | undefined => {
    const lower = t.name.toLowerCase();
    const inName = candidates.filter((d) => d.length > 2 && lower.includes(d.toLowerCase())).sort((a, b) => b.length - a.length)[0];
    if (inName) return inName;
    const used = namesUsed(t.body);
    let best = 0;
    let owner: string | undefined;
    for (const d of candidates) {
      const count = used.has(d) ? (t.body.match(new RegExp(`(?<![\\w])${d}(?!\\w)`, "g")) ?? []).length : 0;
      if (count > best) {
        best = count;
        owner = d;
      }
    }
    return owner;
  };
  for (const t of tests) {
    const owner = ownerAmong(t, toWrite) ?? ownerAmong(t, defs);
    const key = owner ?? moduleName;
    byName.set(key, [...(byName.get(key) ?? []), t.id]);
  }
  const order = [...defs.filter((d) => byName.has(d)), ...(byName.has(moduleName) && !defs.includes(moduleName) ? [moduleName] : [])];
  return order.map((name) => ({
    name,
    tests: byName.get(name) as string[],
    guidance:
      name === moduleName && !defs.includes(name)
        ? `Write ${targetPath} as the instruction and the paper describe; these tests compare it with the reference implementation on fixed inputs.`
        : `Write ${name} as the instruction and the paper describe; its tests compare it with the reference implementation on fixed inputs.`,
  }));
}

/**
 * Notes on an entry's `test_cases` (annotation_meta.jsonl) against the tests
 * test.py defines (`found`, from {@link pytestTests}): the names it lists that
 * test.py does not define, and the tests it leaves out (none when it lists
 * nothing). `test_cases` holds JUnit test names, the method's name alone; a
 * parametrised test is listed once per case (`test_f[a-b]`); the ids recode
 * prints (`Class.test_f`) and pytest's node ids (`test.py::Class::test_f`)
 * are taken too. Returns at most two lines, each naming up to five tests.
 */
export function testCaseNotes(found: readonly FoundTest[], testCases: readonly string[]): string[] {
  const notes: string[] = [];
  const names = new Set(found.flatMap((t) => [t.name, t.id]));
  const baseName = (t: string) =>
    t
      .replace(/\[.*\]$/s, "")
      .replace(/^[^:]*\.py::/, "")
      .replace(/::/g, ".");
  const unknown = testCases.filter((t) => !names.has(baseName(t)));
  if (unknown.length)
    notes.push(`test_cases names ${plural(unknown.length, "test")} test.py does not define: ${unknown.slice(0, 5).join(", ")}`);
  const listed = new Set(testCases.map(baseName));
  const extra = found.filter((t) => !listed.has(t.name) && !listed.has(t.id)).map((t) => t.id);
  if (testCases.length && extra.length)
    notes.push(`test.py defines ${plural(extra.length, "test")} test_cases does not list: ${extra.slice(0, 5).join(", ")}`);
  return notes;
}
