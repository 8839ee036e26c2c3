/**
 * `recode tasks import-recodeh` on a small folder in the official RECODE-H
 * layout written by the test (tests/helpers/recodeh-dataset.ts), then the
 * imported tasks validated and graded under pytest with python3 (pytest must
 * be installed for it), as the official harness grades: the JUnit report,
 * solved when errors == failures == skipped == 0.
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main";
import { loadTaskDir } from "../../src/cli/task-fs";
import { isSharedTask, type SharedTask, sharedCanonicalTarget } from "../../src/core/pytest-task";
import { PytestRuntime } from "../../src/python/pytest-runtime";
import { writeRecodeHDataset } from "../helpers/recodeh-dataset";

async function recode(...args: string[]): Promise<{ code: number; out: string }> {
  let code = 0;
  let out = "";
  const program = buildProgram(
    (s) => {
      out += s;
    },
    (c) => {
      code = c;
    },
  );
  await program.parseAsync(["node", "recode", ...args]);
  return { code, out };
}

let dataset = "";
let tasks = "";
let scratch = "";
/** The first import, made once for all tests. */
let imported: { code: number; out: string } = { code: -1, out: "" };

beforeAll(async () => {
  dataset = writeRecodeHDataset();
  tasks = mkdtempSync(join(tmpdir(), "recodeh-tasks-"));
  scratch = mkdtempSync(join(tmpdir(), "recodeh-files-"));
  imported = await recode("tasks", "import-recodeh", dataset, "--out", tasks, "--python", "python3");
}, 300_000);

afterAll(() => {
  for (const d of [dataset, tasks, scratch]) if (d) rmSync(d, { recursive: true, force: true });
});

function shared(id: string): SharedTask {
  const t = loadTaskDir(tasks, id);
  if (!isSharedTask(t)) throw new Error(`${id} is not shared`);
  return t;
}

describe("recode tasks import-recodeh", () => {
  it("imports the official layout, lists if_test false, reports broken entries and imports the others", async () => {
    const { code, out } = imported;
    expect(code).toBe(1);
    expect(out).toContain("imported recodeh-1 (annotation_1): packages pytest");
    expect(out).toContain("imported recodeh-2 (annotation_2): packages pytest, numpy");
    expect(out).toContain("imported recodeh-3 (annotation_3): packages pytest");
    // task.json lists what the tests need beside pytest, whether test.py imports pytest (recodeh-1) or not.
    expect(shared("recodeh-1").meta.packages).toEqual([]);
    expect(shared("recodeh-3").meta.packages).toEqual([]);
    expect(out).toContain("skipped index 4: if_test is false");
    expect(out).toContain("BROKEN index 5: annotations/annotation_5/canonical.py: file is missing");
    expect(out).toMatch(/BROKEN index 7: annotation_meta\.jsonl, line 5, field if_test: /);
    // A task whose imports the Python lacks is imported and listed with what it lacks.
    expect(out).toContain("imported recodeh-6");
    expect(out).toMatch(/cannot run with python3 \(Python [\d.]+\) yet: it lacks recode_absent_module \(test\.sh uses conda env test_6\)/);
    expect(out).toContain("left out 1 repository file: data/weights.bin (binary)");
    // test_cases names parametrised cases (`test_f[a-b]`) of tests test.py defines: no note about them.
    expect(out).not.toContain("test_cases names");
    expect(out).not.toContain("test_cases does not list");
    expect(out).toMatch(/4 tasks imported into .*, 1 not tested \(if_test false\), 2 broken, 0 kept; 1 need modules/);

    const ema = shared("recodeh-1");
    expect(ema.meta.isolation).toBe("shared");
    expect(ema.meta.pytest).toEqual({ test_dir: "stats", canonical_dir: "stats", cwd: "stats", pythonpath: ["."], timeout_s: 3 });
    expect(ema.meta.interfaces.map((i) => [i.name, i.tests])).toEqual([
      ["ema", ["TestEma.test_ema_matches_reference", "TestEma.test_ema_clamps_alpha"]],
      ["debias", ["test_debias_matches_reference"]],
    ]);
    // Its latex.txt names no author: the list says so, beside the benchmark it comes from.
    expect(ema.meta.paper?.authors).toEqual(["authors not named in latex.txt"]);
    expect(ema.starter).toBe("");
    expect(ema.meta.start).toBe("empty");
    expect(Object.keys(ema.repo).sort()).toEqual(["README.md", "stats/ema.py", "stats/util.py"]);

    const softmax = shared("recodeh-2");
    expect(softmax.meta.packages).toEqual(["numpy"]);
    expect(softmax.meta.pytest).toEqual({ test_dir: "tests", canonical_dir: "tests", cwd: "tests", pythonpath: ["."] });
    expect(softmax.meta.paper).toMatchObject({ title: "Tempered Softmax for Everyone", authors: ["Ada Lovelace", "Charles Babbage"] });
    expect(softmax.paper).toContain("\\documentclass{article}");
    expect(softmax.repo["data/weights.bin"]).toBeUndefined();

    const metrics = shared("recodeh-3");
    expect(metrics.starter).toContain("def _mean(xs):");
    expect(metrics.starter).toContain("raise NotImplementedError");
    // (Its one interface, rmse, is a signature whose body raises: a stub.)
    expect(metrics.meta.interfaces.map((i) => i.name)).toEqual(["rmse"]);
    expect(metrics.meta.start).toBe("stubs");
    expect(metrics.meta.pytest).toMatchObject({ test_dir: ".", cwd: "." });

    // Importing again leaves the folders alone unless --force.
    const again = await recode("tasks", "import-recodeh", dataset, "--out", tasks);
    expect(again.out).toContain("kept recodeh-1: the folder exists");
  }, 300_000);

  it("reads annotation_meta.jsonl that starts with a byte order mark, notes a target file the repository lacks, and refuses a file with no entry", async () => {
    const copy = mkdtempSync(join(tmpdir(), "recodeh-bom-"));
    const out = mkdtempSync(join(tmpdir(), "recodeh-bom-out-"));
    try {
      cpSync(dataset, copy, { recursive: true });
      const meta = join(copy, "annotation_meta.jsonl");
      // (And a target file the repository does not have, which the import makes and says so.)
      // (And an init_content of imports and a docstring alone: an empty start, as the built-in tasks' are.)
      const text = readFileSync(meta, "utf8")
        .replace('"target_file_path":"nn/softmax.py"', '"target_file_path":"nn/other.py"')
        .replace(/^(\{"index":3,.*"init_content":)"(?:[^"\\]|\\.)*"/m, '$1"\\"\\"\\"Metrics.\\"\\"\\"\\nimport math\\n"');
      expect(text).toContain("nn/other.py");
      expect(text).toContain('"init_content":"\\"\\"\\"Metrics.');
      writeFileSync(meta, `\uFEFF${text}`);
      // (And a test.sh that activates no conda environment, which the official runner refuses: imported, and said.)
      const sh = join(copy, "annotations/annotation_2/test.sh");
      writeFileSync(sh, readFileSync(sh, "utf8").replace(/^conda activate .*$/m, ""));
      const r = await recode("tasks", "import-recodeh", copy, "--out", out, "--python", "python3");
      expect(r.out).toContain("imported recodeh-1 (annotation_1)");
      expect(r.out).toMatch(
        /imported recodeh-2 \(annotation_2\)[^\n]*\n(?: {2}[^\n]*\n)*? {2}note: test\.sh activates no conda environment/,
      );
      expect(r.out.match(/activates no conda environment/g)).toHaveLength(1);
      expect(r.out).not.toMatch(/BROKEN [^\n]*line 1\b/);
      expect(r.out).toContain("target_file_path nn/other.py is not in the repository: it is made, starting empty (check the path)");
      expect(r.out).not.toContain("target_file_path stats/ema.py is not in the repository");
      expect(loadTaskDir(out, "recodeh-3").meta.start).toBe("empty");
      // A reference that does not compile with the Python that would run it: broken, with its file and line.
      writeFileSync(join(copy, "annotations/annotation_1/canonical.py"), "def ema(xs, alpha):\n    return [x for x in xs\n");
      const broken = await recode("tasks", "import-recodeh", copy, "--out", out, "--python", "python3", "--force");
      expect(broken.out).toMatch(
        /BROKEN index 1: annotations\/annotation_1\/canonical\.py, line 2: does not compile with python3 \(Python [\d.]+\): SyntaxError: /,
      );
      expect(broken.out).not.toContain("imported recodeh-1 ");
      expect(broken.out).toContain("imported recodeh-2 ");
      // Listed in the order of annotation_meta.jsonl, whichever step found the fault.
      const order = [...text.matchAll(/"index":\s*(\d+)/g)].map((m) => Number(m[1]));
      const listed = [...broken.out.matchAll(/^BROKEN index (\d+)/gm)].map((m) => Number(m[1]));
      expect(listed).toEqual(order.filter((i) => listed.includes(i)));
      expect(listed).toHaveLength(3);
      expect(broken.code).toBe(1);
      writeFileSync(meta, "\n\n");
      await expect(recode("tasks", "import-recodeh", copy, "--out", out)).rejects.toThrow(/annotation_meta\.jsonl holds no entries/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);

  it("follows no link in a downloaded dataset, waits on no pipe, and a bad file name costs only its own entry", async () => {
    const copy = mkdtempSync(join(tmpdir(), "recodeh-hostile-"));
    const out = mkdtempSync(join(tmpdir(), "recodeh-hostile-out-"));
    const host = mkdtempSync(join(tmpdir(), "recodeh-host-"));
    try {
      cpSync(dataset, copy, { recursive: true });
      // Files of the importer's that a dataset's links point at.
      writeFileSync(join(host, "notes.txt"), "SECRET-OF-THE-HOST\n");
      mkdirSync(join(host, "keys"));
      writeFileSync(join(host, "keys", "id_rsa"), "PRIVATE-KEY-OF-THE-HOST\n");
      const a = (i: number, rel = "") => join(copy, "annotations", `annotation_${i}`, rel);
      // 1: a task file that is a link to a host file; 2: a repository folder that is a link to a host folder.
      rmSync(a(1, "instruction.txt"));
      symlinkSync(join(host, "notes.txt"), a(1, "instruction.txt"));
      rmSync(a(2, "softmax-repo"), { recursive: true });
      symlinkSync(join(host, "keys"), a(2, "softmax-repo"));
      // 3: a repository file whose name is not UTF-8 and holds escape codes (it once ended the whole import).
      writeFileSync(
        Buffer.concat([Buffer.from(`${a(3, "metrics-repo")}/\u001b]0;PWNED\u0007`), Buffer.from([0xff]), Buffer.from(".txt")]),
        "x\n",
      );
      // 3 also: a name made to read as a line of the report, and a name with a backslash (another file's path once
      // written with "/").
      writeFileSync(join(a(3, "metrics-repo"), "w.bin\nimported recodeh-9 (annotation_9): packages pytest\nx.bin"), "\u0000");
      writeFileSync(join(a(3, "metrics-repo"), "metrics\\evil.py"), "x = 1\n");
      // 6: an entry's folder that is a link to a folder outside the dataset.
      cpSync(a(6), join(host, "annotation_6"), { recursive: true });
      rmSync(a(6), { recursive: true });
      symlinkSync(join(host, "annotation_6"), a(6));
      const r = await recode("tasks", "import-recodeh", copy, "--out", out, "--python", "python3");
      expect(r.out).toContain("BROKEN index 1: annotations/annotation_1/instruction.txt: it is a symbolic link");
      expect(r.out).toContain(
        "BROKEN index 2: annotations/annotation_2/softmax-repo: the repository folder is a symbolic link (not followed: it could lead out of the dataset)",
      );
      expect(r.out).toContain(
        "BROKEN index 6: annotations/annotation_6: is a symbolic link (not followed: it could lead out of the dataset)",
      );
      expect(r.out).toContain("imported recodeh-3 (annotation_3)");
      expect(r.out).toMatch(/left out 3 repository files: .*\.txt \(its name is not UTF-8 text\)/);
      expect(r.out).toContain("metrics\\evil.py (its name holds a backslash)");
      // Each item of the report is one line, whatever a name holds.
      expect(r.out).not.toMatch(/^imported recodeh-9/m);
      expect(r.out).toContain("w.bin\\nimported recodeh-9 (annotation_9): packages pytest\\nx.bin (binary)");
      // Nothing of the host's reached the task folders, and no half-written folder is left.
      const written = readdirSync(out, { recursive: true, encoding: "utf8" });
      expect(written.filter((f) => f.includes(".importing"))).toEqual([]);
      for (const f of written) {
        const p = join(out, f);
        if (lstatSync(p).isFile()) expect(readFileSync(p, "utf8")).not.toMatch(/SECRET-OF-THE-HOST|PRIVATE-KEY-OF-THE-HOST/);
      }
      // A repository that unpacks to far more than a task may hold (3,000 links to one 2 MB file): that entry is
      // broken after a bounded read, and the others are imported.
      const bomb = a(1, "ema-repo/big");
      mkdirSync(bomb);
      writeFileSync(join(bomb, "a0.txt"), "a".repeat(2 * 1024 * 1024));
      for (let k = 1; k < 3000; k++) linkSync(join(bomb, "a0.txt"), join(bomb, `a${k}.txt`));
      rmSync(a(1, "instruction.txt"));
      writeFileSync(a(1, "instruction.txt"), "Write the EMA.\n");
      const bombed = await recode("tasks", "import-recodeh", copy, "--out", out, "--python", "python3", "--force");
      expect(bombed.out).toContain(
        "BROKEN index 1: annotations/annotation_1: the repository holds more than 32 MB of files; a task folder may hold 8 MB",
      );
      expect(bombed.out).toContain("imported recodeh-3 (annotation_3)");
      // A metadata file that is a pipe is refused at once, not waited on.
      rmSync(join(copy, "annotation_meta.jsonl"));
      spawnSync("mkfifo", [join(copy, "annotation_meta.jsonl")]);
      await expect(recode("tasks", "import-recodeh", copy, "--out", out, "--python", "python3")).rejects.toThrow(
        /annotation_meta\.jsonl cannot be read: it is not a regular file \(a pipe, a socket or a device\)/,
      );
    } finally {
      for (const d of [copy, out, host]) rmSync(d, { recursive: true, force: true });
    }
  }, 300_000);

  it("documents the imported tasks with their tests, not as recorded ones", async () => {
    const doc = join(scratch, "tasks.md");
    const r = await recode("tasks", "doc", "recodeh-1", "--dir", tasks, "--out", doc, "--no-mutation");
    expect(r.out).toContain('recodeh-1: not measured (isolation "shared"');
    const md = readFileSync(doc, "utf8");
    expect(md).toContain("3 test functions (run under pytest, which runs a parametrised one once per case).");
    // Written outside docs/, its link to the gates' document still leads there.
    const link = /\[tasks-gates\.md\]\(([^)]+)\)/.exec(md)?.[1] ?? "";
    expect(existsSync(join(scratch, link))).toBe(true);
    expect(md).toMatch(/\| \[recodeh-1\][^\n]*\| 2 \| 3 \|/);
    // Listed as needing pytest, which runs its tests (not "stdlib only"), and numpy's beside it.
    const list = await recode("tasks", "list", "--dir", tasks);
    expect(list.out).toMatch(/^recodeh-1 .*\n .*· pytest\n/m);
    expect(list.out).toMatch(/^recodeh-2 .*\n +Ada Lovelace and Charles Babbage, .*· pytest, numpy\n/m);
  }, 300_000);

  it("validates the imported tasks with --python python3", async () => {
    const { code, out } = await recode("tasks", "validate", "recodeh-1", "recodeh-2", "recodeh-3", "--dir", tasks, "--python", "python3");
    expect(out).toContain("pytest, ");
    // Only shared-format tasks: no empty header of the built-in format's table above theirs.
    expect(out).not.toMatch(/^task \/ check/m);
    expect(out).toContain("the coverage and mutation gates do not apply to them");
    for (const check of [
      "math renders",
      "packages available",
      "canonical passes",
      "starter fails",
      "deterministic x3",
      "interfaces tested",
      "within time limit",
    ]) {
      expect(out).toMatch(new RegExp(`  ${check} +ok\\n`));
    }
    expect(out).toContain("all 3 tasks valid");
    expect(code).toBe(0);

    const lacking = await recode("tasks", "validate", "recodeh-6", "--dir", tasks, "--python", "python3");
    expect(lacking.code).toBe(1);
    expect(lacking.out).toMatch(/packages available +FAIL\n +python3 cannot import recode_absent_module/);
    expect(lacking.out).toMatch(/canonical passes +-\n +not run: python3 lacks recode_absent_module/);
  }, 900_000);

  it("grades a file from the JUnit report: failures, per-test timeouts (test.sh's --timeout) and a solved run", async () => {
    const rt = new PytestRuntime({ python: "python3" });
    const ema = shared("recodeh-1");
    const wrong = "def ema(xs, alpha):\n    return [0.0 for _ in xs]\n\ndef debias(values, alpha):\n    return values\n";
    const r = await rt.run(ema, wrong);
    expect(r.allPassed).toBe(false);
    expect(r.counts).toMatchObject({ total: 3, failed: 3 });
    expect(r.tests.find((t) => t.id === "TestEma.test_ema_matches_reference")).toMatchObject({ status: "failed", interface: "ema" });
    expect(r.tests[0]?.message).toMatch(/assert/);

    const slow =
      "import time\nfrom util import clamp\n\ndef ema(xs, alpha):\n    time.sleep(30)\n\ndef debias(values, alpha):\n    return [v / (1 - (1 - alpha) ** (t + 1)) for t, v in enumerate(values)]\n";
    const s = await rt.run(ema, slow);
    expect(s.tests.filter((t) => t.status === "timeout").map((t) => t.id)).toEqual([
      "TestEma.test_ema_matches_reference",
      "TestEma.test_ema_clamps_alpha",
    ]);
    expect(s.tests.find((t) => t.id === "test_debias_matches_reference")?.status).toBe("passed");
    expect(s.incident).toBeNull();
    expect(s.allPassed).toBe(false);

    const broken = await rt.run(ema, "def ema(:\n");
    expect(broken.collectionError?.message).toMatch(/SyntaxError/);
    expect(broken.allPassed).toBe(false);

    // recode test: exit 0 when solved, 1 when not.
    const good = join(scratch, "ema.py");
    writeFileSync(good, sharedCanonicalTarget(ema));
    const bad = join(scratch, "ema_bad.py");
    writeFileSync(bad, wrong);
    const solved = await recode("test", join(tasks, "recodeh-1"), good, "--python", "python3", "--json");
    expect(JSON.parse(solved.out)).toMatchObject({ solved: true, counts: { total: 3, passed: 3 } });
    expect(solved.code).toBe(0);
    const failed = await recode("test", "recodeh-1", bad, "--dir", tasks, "--python", "python3");
    expect(failed.code).toBe(1);
    // (A task from a folder of the user's is named with that folder.)
    expect(failed.out).toMatch(/^recodeh-1 \(\/.+\/recodeh-1\), native, Python \d+\.\d+\.\d+ \(pytest, /m);
    // A candidate that does not compile is the candidate's fault (exit 1); what the task itself lacks is not a
    // verdict on the candidate (exit 2): a canonical.py that does not compile, a package the Python lacks.
    const syntax = join(scratch, "ema_syntax.py");
    writeFileSync(syntax, "def ema(:\n");
    const syntaxRun = await recode("test", "recodeh-1", syntax, "--dir", tasks, "--python", "python3", "--json");
    expect(syntaxRun.code).toBe(1);
    expect(JSON.parse(syntaxRun.out).collectionErrorAt).toEqual({ file: "stats/ema.py", line: 1 });
    // The tests task.json names are listed as not run (a gradebook reads 0 of 3), and the error reads as Python's,
    // without pytest's "E" markers.
    expect(JSON.parse(syntaxRun.out).counts).toMatchObject({ total: 3, not_run: 3, passed: 0 });
    expect(JSON.parse(syntaxRun.out).collectionError).toMatch(/^SyntaxError: /m);
    expect(JSON.parse(syntaxRun.out).collectionError).not.toMatch(/^E /m);
    const brokenTasks = mkdtempSync(join(tmpdir(), "recodeh-broken-"));
    try {
      cpSync(join(tasks, "recodeh-1"), join(brokenTasks, "recodeh-1"), { recursive: true });
      writeFileSync(join(brokenTasks, "recodeh-1", "canonical.py"), "def ema(xs, alpha)\n    return xs\n");
      const instruction = join(brokenTasks, "recodeh-1", "instruction.md");
      writeFileSync(instruction, `${readFileSync(instruction, "utf8")}\n$\\fracc{1}{2}$\n\n$x^1^2$\n`);
      expect((await recode("test", "recodeh-1", good, "--dir", brokenTasks, "--python", "python3")).code).toBe(2);
      // Validated: the file and line are named, and what cannot be judged without a reference is not run.
      const v = await recode("tasks", "validate", "recodeh-1", "--dir", brokenTasks, "--python", "python3");
      expect(v.code).toBe(1);
      expect(v.out).toMatch(/canonical passes +FAIL\n +collection error in stats\/canonical\.py, line 1: SyntaxError/);
      expect(v.out).toMatch(/deterministic x3 +-\n +not run: the reference solution does not load/);
      // Every formula that does not render is listed, one per line.
      expect(v.out).toMatch(
        /math renders +FAIL\n +2 problems:\n +instruction\.md, line \d+: .*\\fracc.*\n +instruction\.md, line \d+: .*x\^1\^2/,
      );
      cpSync(join(tasks, "recodeh-1"), join(brokenTasks, "recodeh-1"), { recursive: true });
      const testPy = join(brokenTasks, "recodeh-1", "test.py");
      writeFileSync(testPy, `import no_such_module_zz\n${readFileSync(testPy, "utf8")}`);
      const lacking = await recode("test", "recodeh-1", good, "--dir", brokenTasks, "--python", "python3", "--json");
      expect(JSON.parse(lacking.out)).toMatchObject({ solved: false, incident: { kind: "packages" } });
      expect(lacking.code).toBe(2);
    } finally {
      rmSync(brokenTasks, { recursive: true, force: true });
    }
  }, 600_000);

  it("keeps every test's result when a failure's message runs to megabytes (the JUnit report stays whole)", async () => {
    const rt = new PytestRuntime({ python: "python3" });
    const ema = shared("recodeh-1");
    const huge =
      'def ema(xs, alpha):\n    raise AssertionError("x" * (30 * 1024 * 1024))\n\ndef debias(values, alpha):\n    return values\n';
    const r = await rt.run(ema, huge);
    expect(r.collectionError).toBeNull();
    expect(r.tests.map((t) => [t.id, t.status])).toEqual([
      ["TestEma.test_ema_matches_reference", "failed"],
      ["TestEma.test_ema_clamps_alpha", "failed"],
      ["test_debias_matches_reference", "failed"],
    ]);
    const first = r.tests[0];
    expect(first?.message).toMatch(/^AssertionError: x+$/);
    expect(first?.line).toBe(2);
    expect(first?.traceback).toMatch(/\[\.\.\. \d+ characters cut \.\.\.\]/);
    expect(first?.traceback.length).toBeLessThan(20_000);

    // At import: the collection error names the candidate's line, and its message is short.
    const atImport = await rt.run(ema, 'raise ValueError("z" * (30 * 1024 * 1024))\n');
    expect(atImport.collectionError).toMatchObject({ file: "stats/ema.py", line: 1 });
    expect(atImport.collectionError?.message).toMatch(/^ValueError: z+/);
    expect(atImport.collectionError?.message.length).toBeLessThanOrEqual(2000);
  }, 600_000);
});
