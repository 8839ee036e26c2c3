/**
 * `recode tasks import-recodeh <dataset> [--out <tasks>] [--python <path>]`:
 * official RECODE-H task folders as playground tasks (docs/task-format.md,
 * "Importing official RECODE-H tasks").
 *
 * Reads `<dataset>/annotation_meta.jsonl` and, per entry, the folder
 * `annotation_<index>/` (under `<dataset>/annotations/`, or beside the file):
 * instruction.txt, latex.txt, the repository folder, canonical.py, test.py
 * and test.sh (read as the official runner reads it, core/recodeh-test-sh.ts).
 * Writes one task folder per entry, `recodeh-<index>`, with `isolation:
 * "shared"` and the `pytest` layout of its test.sh. Entries with `if_test`
 * false are listed and skipped; a broken entry is reported (which entry,
 * which file or field) and skipped, and the others are still imported. The
 * Python named by `--python` tells the standard library from packages and
 * which packages it lacks; tasks it cannot run are imported and listed with
 * what they lack.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { Command } from "commander";
import { paperInfo } from "../core/latex-html";
import { plural } from "../core/plural";
import { importedModules, isSharedTask, type SharedTask } from "../core/pytest-task";
import {
  AUTHORS_NOT_NAMED,
  EntryError,
  type FoundTest,
  importedInterfaces,
  type MetaEntry,
  parseMetaLine,
  pytestTests,
  RECODEH_DATASET_URL,
  testCaseNotes,
} from "../core/recodeh-import";
import { parseTestSh, TestShError, type TestShSpec } from "../core/recodeh-test-sh";
import { loadTaskFromFiles, type Task, TaskFormatError } from "../core/task";
import { NATIVE_SANDBOXES, type NativeSandbox } from "../python/native-sandbox";
import { PytestRuntime } from "../python/pytest-runtime";
import { startProblem } from "../python/validate";
import { CommandInputError } from "./command-error";
import { readRegularFile, UnreadFileError } from "./safe-read";
import { MAX_TASK_BYTES, MAX_TASK_FILE_BYTES, readTaskFiles } from "./task-fs";

/** Options of {@link importRecodeH}. */
export interface ImportOptions {
  /** Folder the task folders are written to. */
  out: string;
  /** Python that will run the tasks (asked which modules it has). Default "python3". */
  python?: string;
  /** Box of the Python that is asked (native-sandbox.ts). Default "auto". */
  sandbox?: NativeSandbox;
  /** task.json `time_limit_s` (the official runner's limit for one run: 600 s). */
  timeLimitS?: number;
  /** Replace task folders that exist. */
  force?: boolean;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** An imported task. */
export interface ImportedTask {
  id: string;
  index: number;
  /** Packages beyond the standard library the tests import, pytest aside (task.json `packages`). */
  packages: string[];
  /** Modules the named Python cannot import (pytest included): the task cannot run with it until they are installed. */
  missing: string[];
  /** Repository files left out (not UTF-8 text, over the size limits, links), as paths in the repository. */
  leftOut: string[];
  /** Things that differ from the metadata but do not stop the import (e.g. a listed test test.py does not define). */
  notes: string[];
  /** The conda environment test.sh activates, when it names one. */
  condaEnv: string | null;
}

/** An entry that was not imported, and why: `entry` names it (`index 7`, or `line 3` when the line has no index). */
export interface SkippedEntry {
  entry: string;
  /** File (relative to the dataset folder) and, when one is to blame, field or line. */
  file: string;
  field?: string;
  reason: string;
}

/** What an import did. */
export interface ImportReport {
  imported: ImportedTask[];
  /** Entries with `if_test` false. */
  notTested: { index: number; entry: string }[];
  /** Entries that could not be imported. */
  broken: SkippedEntry[];
  /** Task folders that exist and were left alone (no --force). */
  existing: string[];
  /** The Python asked, with its version. */
  python: string;
}

/** Most files and folders of one repository walked: an official repository holds some hundreds. */
const MAX_REPO_ENTRIES = 20_000;

/** Most bytes of one repository's files read (those over the task folder's limit are then left out, see readRepo). */
const MAX_REPO_READ_BYTES = 4 * MAX_TASK_BYTES;

/** Largest annotation_meta.jsonl read, in bytes (its entries hold each task's init_content). */
const MAX_META_BYTES = 64 * 1024 * 1024;

const SKIP_DIRS = new Set([".git", "__pycache__", ".pytest_cache", ".ipynb_checkpoints", "node_modules", ".mypy_cache", "pytest_report"]);
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The text of a task file, or an EntryError naming it: a regular file of at most a task file's size, not a link (a
 * downloaded dataset's link could lead to any file of the importer's, or to /proc), not a pipe or device.
 */
function readText(annotation: string, dir: string, name: string): string {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(join(dir, name), MAX_TASK_FILE_BYTES);
  } catch (e) {
    if (!(e instanceof UnreadFileError)) throw e;
    throw new EntryError(`${annotation}/${name}`, e.reason === "no such file" ? "file is missing" : e.reason);
  }
  try {
    return utf8.decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    throw new EntryError(`${annotation}/${name}`, "not valid UTF-8 text");
  }
}

/** Whether `p` is a folder itself, not a link to one (lstat: a dataset's link could lead to any folder of the importer's). */
function isOwnFolder(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The repository's files as text, within the task size limits: files that
 * are not UTF-8 text (or hold NUL bytes), larger than a task file may be,
 * whose names are not UTF-8 or hold a backslash, links, pipes, devices and
 * generated folders are left out; when the rest is over the folder limit,
 * files other than Python sources go first, largest first.
 * @throws EntryError when the Python sources alone are over the limit, or the
 *   repository holds more than {@link MAX_REPO_ENTRIES} files and folders or
 *   more than {@link MAX_REPO_READ_BYTES} bytes of files to read.
 */
function readRepo(
  annotation: string,
  root: string,
  budget: number,
): { files: Record<string, string>; leftOut: string[]; why: Map<string, string> } {
  const files: Record<string, string> = {};
  /** Repository path -> why it was left out. */
  const why = new Map<string, string>();
  const leave = (rel: string, reason: string) => why.set(rel, reason);
  // What is read is bounded whatever the dataset holds (a small archive can unpack to thousands of large files,
  // or hard links to one): the entries walked, and the bytes read, which the budget then trims.
  let entries = 0;
  let read = 0;
  const tooMuch = (what: string) =>
    new EntryError(`${annotation}`, `the repository holds ${what}; a task folder may hold ${MAX_TASK_BYTES / 1048576} MB`);
  const walk = (d: string) => {
    for (const raw of readdirSync(d, { encoding: "buffer" }).sort(Buffer.compare)) {
      if (++entries > MAX_REPO_ENTRIES) throw tooMuch(`more than ${MAX_REPO_ENTRIES} files and folders`);
      const name = raw.toString("utf8");
      const p = join(d, name);
      const rel = relative(root, p);
      // (A name that is not UTF-8 is read with U+FFFD in its place: no file has that name.)
      if (!Buffer.from(name, "utf8").equals(raw)) {
        leave(rel, "its name is not UTF-8 text");
        continue;
      }
      // (A task's paths are written with "/": a backslash in a name would make it another file's path.)
      if (name.includes("\\")) {
        leave(rel, "its name holds a backslash");
        continue;
      }
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(p);
      } catch (e) {
        leave(rel, `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        continue;
      }
      if (st.isDirectory()) {
        if (SKIP_DIRS.has(name)) continue;
        walk(p);
        continue;
      }
      if (!st.isFile() || name.endsWith(".pyc")) {
        if (st.isSymbolicLink()) leave(rel, "a symbolic link");
        continue;
      }
      if (st.size > MAX_TASK_FILE_BYTES) {
        leave(rel, `larger than ${MAX_TASK_FILE_BYTES / 1048576} MB`);
        continue;
      }
      let bytes: Buffer;
      try {
        bytes = readRegularFile(p, MAX_TASK_FILE_BYTES);
      } catch (e) {
        if (!(e instanceof UnreadFileError)) throw e;
        leave(rel, e.reason);
        continue;
      }
      read += bytes.length;
      if (read > MAX_REPO_READ_BYTES) throw tooMuch(`more than ${MAX_REPO_READ_BYTES / 1048576} MB of files`);
      if (bytes.includes(0)) {
        leave(rel, "binary");
        continue;
      }
      try {
        files[rel] = utf8.decode(bytes);
      } catch {
        leave(rel, "not UTF-8 text");
      }
    }
  };
  walk(root);
  const size = (t: string) => Buffer.byteLength(t);
  let total = Object.values(files).reduce((n, t) => n + size(t), 0);
  if (total > budget) {
    const others = Object.keys(files)
      .filter((f) => !f.endsWith(".py"))
      .sort((a, b) => size(files[b] as string) - size(files[a] as string));
    for (const f of others) {
      if (total <= budget) break;
      total -= size(files[f] as string);
      delete files[f];
      leave(f, "over the task's size budget");
    }
    if (total > budget) {
      throw new EntryError(
        `${annotation}`,
        `the repository's Python files alone are ${(total / 1048576).toFixed(1)} MB; a task folder may hold ${MAX_TASK_BYTES / 1048576} MB`,
      );
    }
  }
  return { files, leftOut: [...why.keys()].sort(), why };
}

/**
 * Where an entry's folder is: `annotations/annotation_<i>` or `annotation_<i>` beside the metadata; null when
 * neither is there.
 * @throws EntryError when the one there is a symbolic link (not followed: it could lead out of the dataset).
 */
function annotationDir(dataset: string, index: number): { dir: string; rel: string } | null {
  for (const rel of [`annotations/annotation_${index}`, `annotation_${index}`]) {
    const dir = join(dataset, rel);
    // (The folder itself, as its files and its repository folder: a link could lead out of the dataset.)
    for (const p of rel.startsWith("annotations/") ? [join(dataset, "annotations"), dir] : [dir]) {
      if (isLink(p)) throw new EntryError(relative(dataset, p), "is a symbolic link (not followed: it could lead out of the dataset)");
    }
    if (isOwnFolder(dir)) return { dir, rel };
  }
  return null;
}

/** Whether `p` is a symbolic link (false when there is nothing there). */
function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

interface Prepared {
  entry: MetaEntry;
  id: string;
  files: Record<string, string>;
  meta: Record<string, unknown>;
  spec: TestShSpec;
  leftOut: string[];
  notes: string[];
}

/** Everything of one entry except the packages (which need Python). @throws EntryError. */
function prepare(dataset: string, entry: MetaEntry, timeLimitS: number): Prepared {
  const found = annotationDir(dataset, entry.index);
  if (!found) throw new EntryError(`annotations/annotation_${entry.index}`, "folder is missing");
  const { dir, rel } = found;
  const instruction = readText(rel, dir, "instruction.txt");
  const latex = readText(rel, dir, "latex.txt");
  const canonical = readText(rel, dir, "canonical.py");
  const tests = readText(rel, dir, "test.py");
  let spec: TestShSpec;
  try {
    spec = parseTestSh(readText(rel, dir, "test.sh"));
  } catch (e) {
    if (e instanceof TestShError) throw new EntryError(`${rel}/test.sh`, e.message);
    throw e;
  }
  if (spec.targetDir !== entry.repo_dir_name) {
    throw new EntryError(
      `${rel}/test.sh`,
      `TARGET_DIR names "${spec.targetDir}" but annotation_meta.jsonl's repo_dir_name is "${entry.repo_dir_name}"`,
    );
  }
  const repoRoot = join(dir, entry.repo_dir_name);
  if (!isOwnFolder(repoRoot)) {
    throw new EntryError(
      `${rel}/${entry.repo_dir_name}`,
      isLink(repoRoot)
        ? "the repository folder is a symbolic link (not followed: it could lead out of the dataset)"
        : "repository folder is missing",
    );
  }
  const own = [instruction, latex, canonical, tests, entry.init_content].reduce((n, t) => n + Buffer.byteLength(t), 0) + 16_384;
  for (const [name, text] of [
    ["instruction.txt", instruction],
    ["latex.txt", latex],
    ["canonical.py", canonical],
    ["test.py", tests],
  ] as const) {
    if (Buffer.byteLength(text) > MAX_TASK_FILE_BYTES)
      throw new EntryError(`${rel}/${name}`, `larger than ${MAX_TASK_FILE_BYTES / 1048576} MB`);
  }
  const repo = readRepo(rel, repoRoot, MAX_TASK_BYTES - own);
  const found_tests: FoundTest[] = pytestTests(tests);
  if (found_tests.length === 0)
    throw new EntryError(`${rel}/test.py`, "defines no test the way pytest collects tests (test_* functions, Test* classes)");
  const notes: string[] = [];
  notes.push(...testCaseNotes(found_tests, entry.test_cases));
  if (spec.condaEnv === null)
    notes.push(
      "test.sh activates no conda environment (no `conda activate <env>` line): the official runner refuses such a test.sh; here the tests run with the Python --python names",
    );
  if (repo.leftOut.length)
    notes.push(
      `left out ${plural(repo.leftOut.length, "repository file")}: ${repo.leftOut
        .slice(0, 5)
        .map((f) => `${f} (${repo.why.get(f)})`)
        .join(", ")}${repo.leftOut.length > 5 ? ", ..." : ""}`,
    );
  const id = `recodeh-${entry.index}`;
  const info = paperInfo(latex);
  const meta: Record<string, unknown> = {
    id,
    title: `${entry.repo_dir_name}: ${entry.target_file_path}`,
    paper: {
      title: info.title ?? `${entry.repo_dir_name} (RECODE-H task ${entry.index})`,
      authors: info.authors.length ? info.authors : [AUTHORS_NOT_NAMED],
      venue: "RECODE-H benchmark",
      year: 2025,
      url: RECODEH_DATASET_URL,
    },
    domain: "research code (RECODE-H)",
    tags: ["recode-h", "imported", `annotation-${entry.index}`],
    packages: [],
    target_file_path: entry.target_file_path,
    interfaces: importedInterfaces(found_tests, canonical, entry.target_file_path, entry.init_content),
    time_limit_s: timeLimitS,
    license: "as the RECODE-H dataset (mcy98/RECODE-H); the repository keeps its own licence",
    ...(entry.init_content.trim() === "" ? { start: "empty" } : {}),
    isolation: "shared",
    pytest: {
      test_dir: spec.testDir,
      canonical_dir: spec.canonicalDir,
      cwd: spec.cwd,
      pythonpath: spec.pythonpath,
      ...(spec.timeoutS !== null ? { timeout_s: spec.timeoutS } : {}),
    },
  };
  const files: Record<string, string> = {
    "instruction.md": instruction,
    "paper.tex": latex,
    "canonical.py": canonical,
    "test.py": tests,
  };
  for (const [p, text] of Object.entries(repo.files)) files[`repo/${p}`] = text;
  // The target file starts as init_content, as the official harness resets it.
  if (repo.files[entry.target_file_path] === undefined) {
    notes.push(
      `target_file_path ${entry.target_file_path} is not in the repository: it is made, starting ${entry.init_content.trim() ? "as init_content" : "empty"} (check the path)`,
    );
  }
  files[`repo/${entry.target_file_path}`] = entry.init_content;
  return { entry, id, files, meta, spec, leftOut: repo.leftOut, notes };
}

/** Write a task folder (through a temporary folder beside it, so that a failed write leaves nothing half done). */
function writeTask(out: string, id: string, files: Record<string, string>): void {
  const tmp = join(out, `.${id}.importing`);
  rmSync(tmp, { recursive: true, force: true });
  try {
    for (const [rel, text] of Object.entries(files)) {
      const p = join(tmp, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
    }
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  rmSync(join(out, id), { recursive: true, force: true });
  renameSync(tmp, join(out, id));
}

/**
 * Import the official layout in `dataset` into `opts.out`. Broken entries
 * and entries with `if_test` false are in the report, never thrown.
 * @throws CommandInputError when the dataset folder or its
 * annotation_meta.jsonl is missing, or the Python cannot be asked (it does
 * not run, or the sandbox policy cannot be met).
 */
export async function importRecodeH(dataset: string, opts: ImportOptions): Promise<ImportReport> {
  const log = opts.log ?? (() => {});
  const metaPath = join(dataset, "annotation_meta.jsonl");
  if (!existsSync(dataset) || !statSync(dataset).isDirectory()) throw new CommandInputError(`${dataset} is not a folder`);
  // Read first (a regular file, no link followed, no read that waits), before any Python is asked.
  let metaBytes: Buffer;
  try {
    metaBytes = readRegularFile(metaPath, MAX_META_BYTES);
  } catch (e) {
    if (!(e instanceof UnreadFileError)) throw e;
    if (e.reason === "no such file")
      throw new CommandInputError(`${dataset} has no annotation_meta.jsonl (the official dataset folder holds it)`);
    throw new CommandInputError(`${metaPath} cannot be read: ${e.reason}`);
  }
  const rt = new PytestRuntime({ python: opts.python, sandbox: opts.sandbox });
  try {
    await rt.ready();
  } catch (e) {
    throw new CommandInputError((e as Error).message);
  }
  const report: ImportReport = {
    imported: [],
    notTested: [],
    broken: [],
    existing: [],
    python: `${rt.python} (Python ${rt.version.split(" ")[0]})`,
  };
  const seen = new Map<number, number>();
  const prepared: Prepared[] = [];
  // Broken entries with the line of annotation_meta.jsonl each came from: listed in that order, whichever
  // step found the fault (a line that does not parse, or a canonical.py that does not compile, found later).
  const broken: { line: number; entry: SkippedEntry }[] = [];
  const broke = (line: number, entry: SkippedEntry) => broken.push({ line, entry });
  // (A byte order mark before the first entry is not part of it, as in task.json.)
  const metaText = metaBytes.toString("utf8").replace(/^\uFEFF/, "");
  if (metaText.trim() === "") throw new CommandInputError(`${metaPath} holds no entries (one JSON object per line)`);
  metaText.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    let entry: MetaEntry;
    try {
      entry = parseMetaLine(line);
    } catch (e) {
      const err = e as EntryError;
      const index = /"index"\s*:\s*(\d+)/.exec(line)?.[1];
      broke(i + 1, {
        entry: index ? `index ${index}` : `line ${i + 1}`,
        file: `${err.file}, line ${i + 1}`,
        field: err.field,
        reason: err.problem,
      });
      return;
    }
    const first = seen.get(entry.index);
    if (first !== undefined) {
      broke(i + 1, {
        entry: `index ${entry.index}`,
        file: `annotation_meta.jsonl, line ${i + 1}`,
        field: "index",
        reason: `index ${entry.index} is already on line ${first}`,
      });
      return;
    }
    seen.set(entry.index, i + 1);
    if (!entry.if_test) {
      report.notTested.push({ index: entry.index, entry: `index ${entry.index}` });
      return;
    }
    try {
      prepared.push(prepare(dataset, entry, opts.timeLimitS ?? 600));
    } catch (e) {
      // Whatever went wrong with one entry (a file system error included) is that entry's, and the others go on.
      if (e instanceof EntryError) broke(i + 1, { entry: `index ${entry.index}`, file: e.file, field: e.field, reason: e.problem });
      else broke(i + 1, { entry: `index ${entry.index}`, file: `annotations/annotation_${entry.index}`, reason: (e as Error).message });
    }
  });
  mkdirSync(opts.out, { recursive: true });
  for (const p of prepared) {
    if (existsSync(join(opts.out, p.id)) && !opts.force) {
      report.existing.push(p.id);
      continue;
    }
    let task: SharedTask;
    try {
      const files = { ...p.files, "task.json": `${JSON.stringify(p.meta, null, 2)}\n` };
      const t: Task = loadTaskFromFiles(p.id, files);
      if (!isSharedTask(t)) throw new TaskFormatError(p.id, "task.json", "not a shared task");
      task = t;
      // The reference and the tests must compile with the Python that will run them.
      const bad = await rt.compileErrors({ "canonical.py": task.canonical, "test.py": task.tests });
      for (const [name, err] of bad) {
        broke(seen.get(p.entry.index) ?? 0, {
          entry: `index ${p.entry.index}`,
          file: `annotations/annotation_${p.entry.index}/${name}${err.line !== null ? `, line ${err.line}` : ""}`,
          reason: `does not compile with ${report.python}: ${err.message}`,
        });
      }
      if (bad.size > 0) continue;
      const modules = importedModules(task);
      const info = await rt.probe(["pytest", ...modules]);
      // (Not pytest, which every imported task needs whether test.py imports it or not: it runs the tests.)
      const packages = modules.filter((m) => m !== "pytest" && !info.get(m)?.stdlib);
      const missing = ["pytest", ...modules].filter((m, k, all) => all.indexOf(m) === k && !info.get(m)?.found);
      (p.meta as { packages: string[] }).packages = packages;
      // A starting text that is not empty: "empty" when it defines nothing (imports, a docstring: as the built-in
      // tasks' empty starts), else "partial" or "stubs", whichever it is (validate checks it so); none when it is
      // some other text (the interfaces it defines written out).
      if (p.meta.start === undefined) {
        const kind = (["empty", "partial", "stubs"] as const).find(
          (k) => startProblem({ ...task, meta: { ...task.meta, start: k } }) === null,
        );
        if (kind) p.meta.start = kind;
      }
      files["task.json"] = `${JSON.stringify(p.meta, null, 2)}\n`;
      writeTask(opts.out, p.id, files);
      // What was written must read back as a task (size limits, encoding, schema).
      loadTaskFromFiles(p.id, readTaskFiles(join(opts.out, p.id)));
      report.imported.push({
        id: p.id,
        index: p.entry.index,
        packages,
        missing,
        leftOut: p.leftOut,
        notes: p.notes,
        condaEnv: p.spec.condaEnv,
      });
      log(`imported ${p.id}`);
    } catch (e) {
      rmSync(join(opts.out, p.id), { recursive: true, force: true });
      rmSync(join(opts.out, `.${p.id}.importing`), { recursive: true, force: true });
      const where = e instanceof TaskFormatError ? e.file : `annotations/annotation_${p.entry.index}`;
      broke(seen.get(p.entry.index) ?? 0, {
        entry: `index ${p.entry.index}`,
        file: where,
        field: e instanceof TaskFormatError ? e.field : undefined,
        reason: (e as Error).message,
      });
    }
  }
  report.broken = broken.sort((a, b) => a.line - b.line).map((b) => b.entry);
  return report;
}

/**
 * The report as lines for the terminal: one line per item, whatever the dataset's names hold (a newline in a
 * file's name is written `\\n`: a name made to read as a line of the report, "imported recodeh-9", stays inside its
 * own line).
 */
export function importReportText(r: ImportReport, out: string): string {
  const said: string[] = [];
  const lines = { push: (...items: string[]) => said.push(...items.map((l) => l.replace(/\r/g, "\\r").replace(/\n/g, "\\n"))) };
  for (const t of r.imported) {
    lines.push(
      `imported ${t.id} (annotation_${t.index}): packages ${["pytest", ...t.packages].join(", ")}${t.condaEnv ? `; test.sh's conda env ${t.condaEnv}` : ""}`,
    );
    if (t.missing.length)
      lines.push(
        `  cannot run with ${r.python} yet: it lacks ${t.missing.join(", ")}${t.condaEnv ? ` (test.sh uses conda env ${t.condaEnv})` : ""}`,
      );
    for (const n of t.notes) lines.push(`  note: ${n}`);
  }
  for (const id of r.existing) lines.push(`kept ${id}: the folder exists in ${out} (--force replaces it)`);
  for (const n of r.notTested) lines.push(`skipped ${n.entry}: if_test is false`);
  for (const b of r.broken) lines.push(`BROKEN ${b.entry}: ${b.file}${b.field ? `, field ${b.field}` : ""}: ${b.reason}`);
  const lacking = r.imported.filter((t) => t.missing.length > 0);
  lines.push(
    "",
    `${plural(r.imported.length, "task")} imported into ${out}, ${r.notTested.length} not tested (if_test false), ${r.broken.length} broken, ${r.existing.length} kept` +
      (lacking.length
        ? `; ${lacking.length} need modules ${r.python} lacks: ${lacking.map((t) => `${t.id} (${t.missing.join(", ")})`).join("; ")}`
        : ""),
  );
  return `${said.join("\n")}\n`;
}

/** Register `recode tasks import-recodeh` on the `tasks` command. Exit code 0, 1 when an entry is broken, 2 for bad usage. */
export function addImportCommand(tasks: Command, out: (s: string) => void, setCode: (c: number) => void): void {
  tasks
    .command("import-recodeh")
    .description('import official RECODE-H task folders (annotation_meta.jsonl + annotation_<id>/) as tasks with isolation "shared"')
    .argument("<dataset>", "the official dataset folder (holds annotation_meta.jsonl)")
    .requiredOption("--out <folder>", "task folder to write to (e.g. recodeh-tasks; list them with `tasks list --dir <folder>`)")
    .option("--python <path>", "the Python that will run the tests (e.g. the conda env of the official set-up)", "python3")
    .option("--sandbox <policy>", "box of that Python while it is asked about its modules: auto | bwrap | none", "auto")
    .option("--time-limit <seconds>", "time_limit_s of the tasks: wall clock of one run of all tests (at most 600)", "600")
    .option("--force", "replace task folders that exist")
    .action(async (dataset: string, o: { out: string; python: string; sandbox: string; timeLimit: string; force?: boolean }) => {
      if (!NATIVE_SANDBOXES.includes(o.sandbox as NativeSandbox))
        throw new CommandInputError(`--sandbox: "${o.sandbox}" is not one of ${NATIVE_SANDBOXES.join(", ")}`);
      const limit = Number(o.timeLimit);
      if (!(limit > 0 && limit <= 600))
        throw new CommandInputError(`--time-limit: "${o.timeLimit}" must be a number of seconds in (0, 600]`);
      const r = await importRecodeH(dataset, {
        out: o.out,
        python: o.python,
        sandbox: o.sandbox as NativeSandbox,
        timeLimitS: limit,
        force: o.force === true,
      });
      out(importReportText(r, o.out));
      if (r.broken.length > 0) setCode(1);
    });
}
