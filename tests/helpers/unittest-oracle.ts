/**
 * The CPython oracle for the test runner: what `python3 -m unittest discover -v -p test.py`
 * says about a folder holding `target.py` and `test.py`, test for test.
 *
 * The folder is copied to a temporary directory; a tiny python3 script lists the test ids
 * (`unittest.defaultTestLoader.loadTestsFromModule`, ids `Class.method` with the short class
 * name) so that tests that never ran are still known; then unittest runs there with standard
 * input from /dev/null and its verbose stream (stderr) is parsed.
 *
 * Mapping rules (the runner's contract):
 *
 * 1. Statuses: `passed` (`ok`), `failed` (`FAIL`), `error` (`ERROR`), `skipped` (`skipped '...'`),
 *    `xfail` (`expected failure`), `xpass` (`unexpected success`).
 * 2. A test's status is the worst of every line unittest printed for it and for its subTests,
 *    in the order error > failed > xpass > skipped > xfail > passed. This is what CPython does:
 *    - a test with a failing subTest is `failed`, or `error` when a subTest raised (FAIL and ERROR
 *      lines are printed per subTest, and CPython prints no `ok` for the test);
 *    - a test whose subTest was skipped and none failed or raised is `skipped` (the subTest is
 *      counted as a skip and CPython prints no `ok` for the test);
 *    - passing subTests print nothing; a test whose subTests all pass is `passed` (`ok`);
 *    - under `@expectedFailure` a failing or raising subTest makes the test `xfail` (CPython prints
 *      no subTest line, only `expected failure`); a test without failure there is `xpass`;
 *      `skipTest()` inside an expectedFailure test is `skipped`;
 *    - one test can get two lines: a body failure and then an error from `tearDown` or
 *      `addCleanup` give FAIL then ERROR (the test is `error`); a passing body whose `tearDown`
 *      or cleanup raises prints only ERROR.
 * 3. A setUpClass / setUpModule that raises: every test of that class / module that did not get a
 *    result is `error`. One that raises `unittest.SkipTest`: those tests are `skipped`. When both
 *    were reported (a class or module cleanup that raises after a failed or skipped setUpClass /
 *    setUpModule is reported by CPython as another `setUpClass` / `setUpModule` ERROR), the
 *    worst wins: `error`.
 * 4. A tearDownClass / tearDownModule / class cleanup (`addClassCleanup`) / module cleanup
 *    (`addModuleCleanup`) that raises (CPython reports the cleanups as `tearDownClass (...)` /
 *    `tearDownModule (...)` errors): every test of that class / module that was `passed` or `xfail`
 *    becomes `error` (CPython's wasSuccessful() is False then); `failed`, `error`, `skipped` and
 *    `xpass` stay. One that raises `unittest.SkipTest` (CPython reports it as a skip of its own):
 *    those tests become `skipped` (a skip is not solved) where not `error`.
 *    Class-level skip decorators mean CPython runs neither setUpClass nor tearDownClass.
 * 5. A test module that fails to import (ImportError, SyntaxError, any exception in `target.py` or
 *    `test.py` at import, shown as `test (unittest.loader._FailedTest.test) ... ERROR`) is
 *    `collectionError: true` with no tests. A test module that raises `unittest.SkipTest` at
 *    import is no collection error: CPython reports one skipped test,
 *    `test (unittest.loader.ModuleSkipped.test)`, kept here as `ModuleSkipped.test: skipped`.
 * 6. `solved(outcome)`: no collection error, at least one test, and every test `passed` or `xfail`
 *    (CPython's wasSuccessful(), plus: skipped is not solved).
 *
 * Parsing notes: a fixture line (`setUpClass (test.B) ... ERROR`) printed right after an
 * `expected failure` / `unexpected success` line comes out bare (`ERROR`, `skipped 'why'`)
 * because CPython's TextTestResult does not mark the line as ended after those two words.
 * Bare ERROR / FAIL lines are named from the error list CPython prints at the end (the n-th ERROR
 * line is the n-th `ERROR:` entry); a bare skip is taken as the setUpClass of the first listed
 * test after the last reported one that never got a result. Tests with a docstring print
 * their description on two lines. A run that ends without a `Ran N tests` line (a BaseException
 * such as SystemExit out of setUpClass ends the whole process) or leaves a listed test without
 * any verdict throws instead of guessing.
 *
 * CLI: `npx tsx tests/helpers/unittest-oracle.ts --write [folder...]` regenerates
 * `outcome.json` in every folder of tests/fixtures/unittest-features (or in the named ones);
 * without `--write` it prints the outcomes.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** One test's verdict. */
export type OracleStatus = "passed" | "failed" | "error" | "skipped" | "xfail" | "xpass";

/** One subTest line CPython printed (passing subTests print nothing). */
export interface OracleSubTest {
  /** The subTest part of the description: `(i=2)`, `[msg] (i=2)`, `[msg]`, `(<subtest>)`. */
  params: string;
  status: "failed" | "error" | "skipped";
}

export interface OracleOutcome {
  /** `Class.method` -> status. */
  tests: Record<string, OracleStatus>;
  collectionError: boolean;
  /** `Class.method` -> its subTest lines in the order printed; only tests that printed any. */
  subTests: Record<string, OracleSubTest[]>;
}

/** The fixture suite. */
export const FEATURES_DIR = resolve(import.meta.dirname, "../fixtures/unittest-features");

const RANK: Record<OracleStatus, number> = { passed: 0, xfail: 1, skipped: 2, xpass: 3, failed: 4, error: 5 };

function worst(a: OracleStatus | undefined, b: OracleStatus): OracleStatus {
  return a === undefined || RANK[b] > RANK[a] ? b : a;
}

/** A test CPython's loader knows: its id and where its class lives. */
interface Listed {
  id: string;
  /** `module.Qualname`, as unittest prints it. */
  classPath: string;
  module: string;
}

interface Listing {
  tests: Listed[];
  importError: string | null;
  moduleSkipped: string | null;
}

const LIST_SCRIPT = `
import json, sys, unittest
out = {"tests": [], "importError": None, "moduleSkipped": None}
try:
    import test as mod
except unittest.SkipTest as e:
    out["moduleSkipped"] = str(e)
except BaseException as e:
    out["importError"] = type(e).__name__ + ": " + str(e)
else:
    def flat(suite):
        for t in suite:
            if isinstance(t, unittest.TestSuite):
                yield from flat(t)
            else:
                yield t
    for t in flat(unittest.defaultTestLoader.loadTestsFromModule(mod)):
        cls = type(t)
        name = getattr(t, "_testMethodName", "?")
        out["tests"].append({"id": cls.__name__ + "." + name,
                             "classPath": cls.__module__ + "." + cls.__qualname__,
                             "module": cls.__module__})
with open(sys.argv[1], "w") as fh:
    json.dump(out, fh)
`;

const ENV = { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8", PYTHONHASHSEED: "0" };

function copyFolder(folder: string): string {
  const dir = mkdtempSync(join(tmpdir(), "unittest-oracle-"));
  cpSync(folder, dir, { recursive: true, filter: (src) => basename(src) !== "__pycache__" });
  return dir;
}

function listTests(folder: string, python: string, env: Record<string, string> = {}): Listing {
  const dir = copyFolder(folder);
  const outFile = join(dir, "..", `${basename(dir)}.listing.json`);
  try {
    const r = spawnSync(python, ["-c", LIST_SCRIPT, outFile], {
      cwd: dir,
      env: { ...ENV, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      timeout: 60_000,
    });
    if (r.error) throw r.error;
    let text: string;
    try {
      text = readFileSync(outFile, "utf8");
    } catch {
      throw new Error(`${folder}: listing the tests failed (exit ${r.status}): ${r.stderr}`);
    }
    return JSON.parse(text) as Listing;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(outFile, { force: true });
  }
}

type Verdict = "ok" | "FAIL" | "ERROR" | "skipped" | "expected failure" | "unexpected success";

const STATUS_OF: Record<Verdict, OracleStatus> = {
  ok: "passed",
  FAIL: "failed",
  ERROR: "error",
  skipped: "skipped",
  "expected failure": "xfail",
  "unexpected success": "xpass",
};

const VERDICT = `ok|FAIL|ERROR|skipped (?:'.*'|".*")|expected failure|unexpected success`;
const LINE_WITH_DOTS = new RegExp(String.raw`^(.*?) \.\.\. ?(${VERDICT})?$`);
const BARE = new RegExp(`^(${VERDICT})$`);
const DOTS_NOISE = /^(.*?) \.\.\. (.*)$/;

function verdictOf(text: string): Verdict {
  return (text.startsWith("skipped") ? "skipped" : text) as Verdict;
}

/** What a description names. */
type Subject =
  | { kind: "test"; method: string; paren: string; sub: string | null }
  | { kind: "fixture"; fixture: "setUpClass" | "tearDownClass" | "setUpModule" | "tearDownModule"; scope: string };

const FIXTURE_DESC = /^(setUpClass|tearDownClass|setUpModule|tearDownModule) \((\S+)\)$/;
const TEST_DESC = /^(\w+) \(([\w.]+)\)(?: (.+))?$/;

function parseDescription(text: string): Subject | null {
  const desc = text.replace(/^ {2}/, "");
  const f = FIXTURE_DESC.exec(desc);
  if (f) {
    return { kind: "fixture", fixture: f[1] as "setUpClass" | "tearDownClass" | "setUpModule" | "tearDownModule", scope: f[2] as string };
  }
  const t = TEST_DESC.exec(desc);
  if (t) return { kind: "test", method: t[1] as string, paren: t[2] as string, sub: t[3] ?? null };
  return null;
}

/** One status line of the verbose stream; `subject` is null for a bare fixture skip. */
interface Event {
  subject: Subject | null;
  verdict: Verdict;
  /** Index of the last test event before this one (-1: none). */
  after: number;
}

function parseSummaryHeadings(lines: string[], flavour: "ERROR" | "FAIL"): string[] {
  const sep = "=".repeat(70);
  const out: string[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (lines[i] !== sep) continue;
    const next = lines[i + 1] as string;
    if (next.startsWith(`${flavour}: `)) out.push(next.slice(flavour.length + 2));
  }
  return out;
}

function parseStream(stderr: string, where: string): Event[] {
  const lines = stderr.split(/\r?\n/);
  const sep1 = "=".repeat(70);
  const sep2 = "-".repeat(70);
  const end = lines.findIndex((l) => l === sep1 || l === sep2);
  const progress = end === -1 ? lines : lines.slice(0, end);
  const summary = end === -1 ? [] : lines.slice(end);
  const events: Event[] = [];
  let pending: Subject | null = null; // a description printed with " ... " and no verdict yet
  let head: Subject | null = null; // a description line without " ... " (the docstring follows)
  let lastTest = -1;
  const push = (subject: Subject | null, verdict: Verdict): void => {
    events.push({ subject, verdict, after: lastTest });
    if (subject?.kind === "test") lastTest = events.length - 1;
  };
  for (const line of progress) {
    const stashed = head;
    head = null;
    const m = LINE_WITH_DOTS.exec(line);
    if (m) {
      const subject = stashed ?? parseDescription(m[1] as string);
      if (subject) {
        if (m[2] === undefined) {
          pending = subject.kind === "test" && subject.sub !== null ? null : subject;
        } else {
          push(subject, verdictOf(m[2]));
          pending = null;
        }
        continue;
      }
    }
    const bare = BARE.exec(line);
    if (bare) {
      push(pending, verdictOf(bare[1] as string));
      pending = null;
      continue;
    }
    const noise = DOTS_NOISE.exec(line);
    const noisy = noise ? (stashed ?? parseDescription(noise[1] as string)) : null;
    if (noisy) {
      pending = noisy; // the test wrote to stderr after unittest printed its description
      continue;
    }
    const desc = parseDescription(line);
    if (desc) head = desc;
  }
  // Name bare ERROR / FAIL lines from CPython's error and failure lists.
  for (const flavour of ["ERROR", "FAIL"] as const) {
    const headings = parseSummaryHeadings(summary, flavour);
    const mine = events.filter((e) => e.verdict === flavour);
    if (mine.length !== headings.length) {
      throw new Error(`${where}: ${mine.length} ${flavour} lines but ${headings.length} ${flavour} entries in unittest's summary`);
    }
    mine.forEach((e, i) => {
      const named = parseDescription(headings[i] as string);
      if (!named) throw new Error(`${where}: cannot read the summary entry "${flavour}: ${headings[i]}"`);
      if (e.subject === null) e.subject = named;
      else if (JSON.stringify(e.subject) !== JSON.stringify(named)) {
        throw new Error(`${where}: ${flavour} line ${JSON.stringify(e.subject)} does not match summary entry "${headings[i]}"`);
      }
    });
  }
  return events;
}

function splitTest(subject: { method: string; paren: string }): { classPath: string; method: string } {
  const suffix = `.${subject.method}`;
  // 3.11+: "test_x (module.Class.test_x)"; up to 3.10: "test_x (module.Class)".
  const classPath = subject.paren.endsWith(suffix) ? subject.paren.slice(0, -suffix.length) : subject.paren;
  return { classPath, method: subject.method };
}

function lastPart(path: string): string {
  return path.slice(path.lastIndexOf(".") + 1);
}

/**
 * Run CPython's unittest on `folder` (holding target.py and test.py) and read its verdicts. `env`: more
 * environment for Python (`PYTHONPATH`, `RECODE_EXPECTED` for recode_check's own comparison).
 */
export function oracleOutcome(folder: string, python = "python3", env: Record<string, string> = {}): OracleOutcome {
  const where = resolve(folder);
  const listing = listTests(folder, python, env);
  const dir = copyFolder(folder);
  let stderr: string;
  try {
    const r = spawnSync(python, ["-m", "unittest", "discover", "-v", "-p", "test.py"], {
      cwd: dir,
      env: { ...ENV, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      timeout: 120_000,
      maxBuffer: 256 * 1024 * 1024,
    });
    if (r.error) throw r.error;
    stderr = r.stderr;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!/^Ran \d+ tests? in /m.test(stderr)) {
    throw new Error(`${where}: unittest ended without its summary (the run was cut short):\n${stderr.slice(-2000)}`);
  }
  const events = parseStream(stderr, where);

  const byKey = new Map<string, Listed>(); // "classPath.method" -> listed test
  const order: Listed[] = [...listing.tests];
  for (const t of listing.tests) byKey.set(`${t.classPath}.${t.id.slice(t.id.lastIndexOf(".") + 1)}`, t);

  let collectionError = false;
  const own = new Map<string, OracleStatus>();
  const subTests: Record<string, OracleSubTest[]> = {};
  const setUp: { scope: "class" | "module"; path: string; status: OracleStatus }[] = [];
  const tearDown: { scope: "class" | "module"; path: string; status: "error" | "skipped" }[] = [];
  const eventTest: (Listed | null)[] = [];

  for (const e of events) {
    const status = STATUS_OF[e.verdict];
    eventTest.push(null);
    const s = e.subject;
    if (s === null) continue; // bare fixture skip: resolved below
    if (s.kind === "fixture") {
      const scope = s.fixture.endsWith("Class") ? "class" : "module";
      if (s.fixture.startsWith("setUp")) setUp.push({ scope, path: s.scope, status });
      else if (status === "error" || status === "skipped") tearDown.push({ scope, path: s.scope, status });
      continue;
    }
    const { classPath, method } = splitTest(s);
    if (classPath === "unittest.loader._FailedTest") {
      collectionError = true;
      continue;
    }
    let t = byKey.get(`${classPath}.${method}`);
    if (!t) {
      const module = classPath.slice(0, Math.max(0, classPath.lastIndexOf(".")));
      t = { id: `${lastPart(classPath)}.${method}`, classPath, module };
      byKey.set(`${classPath}.${method}`, t);
      order.push(t);
    }
    eventTest[eventTest.length - 1] = t;
    own.set(t.id, worst(own.get(t.id), status));
    if (s.sub !== null && status !== "passed") {
      const list = subTests[t.id] ?? [];
      list.push({ params: s.sub, status: status as OracleSubTest["status"] });
      subTests[t.id] = list;
    }
  }
  if (listing.importError !== null && !collectionError) {
    throw new Error(`${where}: the listing could not import test.py (${listing.importError}) but unittest reported no import error`);
  }

  // Rule 3: a setUpClass / setUpModule that raised (or skipped) covers the tests without a result.
  const fromSetUp = new Map<string, OracleStatus>();
  const cover = (t: Listed, status: OracleStatus): void => {
    if (!own.has(t.id)) fromSetUp.set(t.id, worst(fromSetUp.get(t.id), status));
  };
  for (const f of setUp) {
    for (const t of order) if ((f.scope === "class" ? t.classPath : t.module) === f.path) cover(t, f.status);
  }
  events.forEach((e) => {
    if (e.subject !== null) return;
    // A bare skip (after an "expected failure" / "unexpected success" line): the setUpClass of the
    // first listed test after the last reported one that never got a result.
    const before = e.after >= 0 ? eventTest[e.after] : null;
    const start = before ? order.indexOf(before) + 1 : 0;
    const first = order.slice(start).find((t) => !own.has(t.id));
    if (!first) {
      // No test is left without a result: a teardown's skip, taken for the tearDownClass of the last reported
      // test's class (a tearDownModule's skip printed bare cannot be told from it).
      if (before) tearDown.push({ scope: "class", path: before.classPath, status: "skipped" });
      return;
    }
    for (const t of order) if (t.classPath === first.classPath) cover(t, "skipped");
  });

  const tests: Record<string, OracleStatus> = {};
  for (const t of order) {
    const status = own.get(t.id) ?? fromSetUp.get(t.id);
    if (status === undefined) throw new Error(`${where}: CPython gave no verdict for ${t.id}`);
    tests[t.id] = status;
  }
  // Rule 4: a teardown or cleanup that raised (or skipped) turns the class's / module's passed and xfail tests into
  // errors (skips).
  for (const f of tearDown) {
    for (const t of order) {
      if ((f.scope === "class" ? t.classPath : t.module) !== f.path) continue;
      if (tests[t.id] === "passed" || tests[t.id] === "xfail") tests[t.id] = f.status;
    }
  }
  return { tests: sortKeys(tests), collectionError, subTests: sortKeys(subTests) };
}

function sortKeys<T>(rec: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(rec).sort()) out[k] = rec[k] as T;
  return out;
}

/** CPython's wasSuccessful(), plus: a skipped test is not solved, and no tests is not solved. */
export function solved(outcome: OracleOutcome): boolean {
  const statuses = Object.values(outcome.tests);
  return !outcome.collectionError && statuses.length > 0 && statuses.every((s) => s === "passed" || s === "xfail");
}

/** Every fixture folder (a directory holding test.py), sorted. */
export function featureFolders(): string[] {
  return readdirSync(FEATURES_DIR)
    .filter((name) => statSync(join(FEATURES_DIR, name)).isDirectory())
    .sort();
}

/** `outcome.json` as written by `--write`. */
export function outcomeJson(outcome: OracleOutcome): string {
  return `${JSON.stringify(outcome, null, 2)}\n`;
}

function main(argv: string[]): void {
  const write = argv.includes("--write");
  const named = argv.filter((a) => !a.startsWith("--"));
  const folders = named.length > 0 ? named.map((n) => basename(n)) : featureFolders();
  for (const name of folders) {
    const outcome = oracleOutcome(join(FEATURES_DIR, name));
    if (write) {
      writeFileSync(join(FEATURES_DIR, name, "outcome.json"), outcomeJson(outcome));
      console.log(`wrote ${name}/outcome.json`);
    } else {
      console.log(`${name}: ${JSON.stringify(outcome)}`);
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2));
}
