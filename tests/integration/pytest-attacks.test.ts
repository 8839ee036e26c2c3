/**
 * Attacks on the grading of imported RECODE-H tasks (pytest, `isolation: "shared"`), each written to succeed on
 * the runner before its route was closed. What docs/security.md says stays open for these tasks (the candidate
 * shares its interpreter with pytest and the canonical solution, so it can rewrite what pytest reports) is not
 * tested here; what must hold is that a candidate cannot end the session early and be solved, cannot bring the
 * host down, and reads no other task's files.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { isSharedTask, type SharedTask, sharedCanonicalTarget } from "../../src/core/pytest-task";
import { PytestRuntime } from "../../src/python/pytest-runtime";
import { writeRecodeHDataset } from "../helpers/recodeh-dataset";

let dataset = "";
let tasks = "";

beforeAll(async () => {
  dataset = writeRecodeHDataset();
  tasks = mkdtempSync(join(tmpdir(), "recodeh-attack-tasks-"));
  let code = 0;
  const program = buildProgram(
    () => {},
    (c) => {
      code = c;
    },
  );
  await program.parseAsync(["node", "recode", "tasks", "import-recodeh", dataset, "--out", tasks, "--python", "python3"]);
  // (Exit 1: the dataset holds broken entries on purpose; the one used here is imported.)
  expect(code).toBeLessThanOrEqual(1);
}, 300_000);

afterAll(() => {
  for (const d of [dataset, tasks]) if (d) rmSync(d, { recursive: true, force: true });
});

function ema(): SharedTask {
  const t = loadTaskDir(tasks, "recodeh-1");
  if (!isSharedTask(t)) throw new Error("recodeh-1 is not shared");
  return t;
}

/** recodeh-1's tests, in pytest's order: two of `ema`, then one of `debias`. */
const IDS = ["TestEma.test_ema_matches_reference", "TestEma.test_ema_clamps_alpha", "test_debias_matches_reference"];

describe("imported tasks under attack", () => {
  it("a candidate that ends pytest's session (KeyboardInterrupt, pytest.exit with code 0, SIGINT to itself) is not solved: the test it stopped is an error, the rest not run", async () => {
    const rt = new PytestRuntime({ python: "python3" });
    const task = ema();
    const honestEma = sharedCanonicalTarget(task).split("\ndef debias")[0] as string;
    const stoppers = {
      KeyboardInterrupt: "raise KeyboardInterrupt",
      "pytest.exit": 'import pytest\n    pytest.exit("done", returncode=0)',
      SIGINT: "import os, signal, time\n    os.kill(os.getpid(), signal.SIGINT)\n    time.sleep(1)",
    };
    for (const [how, stop] of Object.entries(stoppers)) {
      // `ema` right, `debias` not written: it ends the session instead.
      const r = await rt.run(task, `${honestEma}\n\ndef debias(values, alpha):\n    ${stop}\n`);
      expect(r.allPassed, how).toBe(false);
      expect(
        r.tests.map((t) => [t.id, t.status]),
        how,
      ).toEqual([
        [IDS[0], "passed"],
        [IDS[1], "passed"],
        [IDS[2], "error"],
      ]);
      expect(r.tests[2]?.message, how).toMatch(/^pytest ended its session .*before this test finished: code under test stopped it/);
    }
    // Stopped in the first test: that one an error, the two after it not run.
    const first = await rt.run(task, "def ema(xs, alpha):\n    raise KeyboardInterrupt\n\ndef debias(values, alpha):\n    return values\n");
    expect(first.allPassed).toBe(false);
    expect(first.tests.map((t) => [t.id, t.status])).toEqual([
      [IDS[0], "error"],
      [IDS[1], "not_run"],
      [IDS[2], "not_run"],
    ]);
    expect(first.counts.total).toBe(3);
  }, 300_000);

  it("a JUnit report rewritten to be huge (an entity expanded a thousandfold, or 30 MB of text) ends its run, not the grading of the files after it", async () => {
    const task = ema();
    const work = mkdtempSync(join(tmpdir(), "recodeh-attack-files-"));
    try {
      // After pytest has written its report, the candidate writes its own at the same path.
      const rewrite = (xml: string) =>
        `import atexit, sys\n\ndef _rewrite():\n    path = [a for a in sys.argv if a.startswith("--junitxml=")][0].split("=", 1)[1]\n    with open(path, "w", encoding="utf-8") as f:\n        f.write(${xml})\n\natexit.register(_rewrite)\n\ndef ema(xs, alpha):\n    return []\n\ndef debias(values, alpha):\n    return []\n`;
      const entity = `'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e "' + "\\U0001F600" * 20000 + '">]><testsuites><testsuite tests="1200">' + "".join('<testcase classname="test" name="t%d"><system-out>&e;</system-out><system-err>&e;</system-err></testcase>' % i for i in range(1200)) + "</testsuite></testsuites>"`;
      const bulk = `'<?xml version="1.0"?><testsuites><testsuite tests="250">' + "".join('<testcase classname="test" name="t%d"><system-out>' % i + "\\u20ac" * 20000 + "</system-out><system-err>" + "\\u20ac" * 20000 + "</system-err></testcase>" for i in range(250)) + "</testsuite></testsuites>"`;
      const files = { "entity.py": rewrite(entity), "bulk.py": rewrite(bulk), "right.py": sharedCanonicalTarget(task) };
      for (const [name, text] of Object.entries(files)) writeFileSync(join(work, name), text);
      const recode = fileURLToPath(new URL("../../bin/recode.mjs", import.meta.url));
      const r = spawnSync(
        process.execPath,
        [recode, "test", join(tasks, "recodeh-1"), ...Object.keys(files).map((f) => join(work, f)), "--python", "python3", "--json"],
        { encoding: "utf8", timeout: 240_000, maxBuffer: 256 * 1024 * 1024 },
      );
      expect(r.stderr).not.toMatch(/RangeError|Invalid string length/);
      const lines = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { candidate: string; solved: boolean; collectionError: string | null; counts: { total: number } });
      expect(lines.map((l) => [l.candidate.split("/").pop(), l.solved])).toEqual([
        ["entity.py", false],
        ["bulk.py", false],
        ["right.py", true],
      ]);
      expect(lines[0]?.collectionError).toMatch(/JUnit report could not be read \(it declares a document type or entities/);
      // The bulk report is read, its text bounded; the task's own tests are not in it, so they are errors and not run.
      expect(lines[1]?.counts.total).toBeGreaterThanOrEqual(3);
      expect(r.status).toBe(1);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 300_000);

  it("the candidate reads no other task's canonical solution or recorded values from tasks kept inside the Python's environment", () => {
    const dir = mkdtempSync(join(tmpdir(), "recodeh-venv-tasks-"));
    const recode = fileURLToPath(new URL("../../bin/recode.mjs", import.meta.url));
    try {
      const env = join(dir, "env");
      // (The system's site packages: pytest is there.)
      const made = spawnSync("python3", ["-m", "venv", "--without-pip", "--system-site-packages", env], { encoding: "utf8" });
      expect(made.status, made.stderr).toBe(0);
      const kept = join(env, "tasks");
      mkdirSync(kept);
      cpSync(join(tasks, "recodeh-1"), join(kept, "recodeh-1"), { recursive: true });
      cpSync(join(BUILTIN_TASKS, "pass-at-k"), join(kept, "pass-at-k"), { recursive: true });
      const reads = [
        join(kept, "pass-at-k", "canonical.py"),
        join(kept, "pass-at-k", "expected.json"),
        join(kept, "recodeh-1", "canonical.py"),
      ]
        .map((p) => JSON.stringify(p))
        .join(", ");
      const file = join(dir, "peek.py");
      writeFileSync(
        file,
        `${sharedCanonicalTarget(ema())}\nfor _p in [${reads}]:\n    try:\n        open(_p).read()\n    except OSError:\n        continue\n    raise RuntimeError("LEAK " + _p)\n`,
      );
      const r = spawnSync(process.execPath, [recode, "test", join(kept, "recodeh-1"), file, "--python", join(env, "bin", "python")], {
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(r.stdout + r.stderr).not.toContain("LEAK");
      expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
      // The same of validate: the task's own canonical solution reads nothing beside it either.
      const canonical = join(kept, "recodeh-1", "canonical.py");
      writeFileSync(
        canonical,
        `${readFileSync(canonical, "utf8")}\ntry:\n    open(${JSON.stringify(join(kept, "pass-at-k", "expected.json"))}).read()\n    raise RuntimeError("LEAK")\nexcept OSError:\n    pass\n`,
      );
      const val = spawnSync(
        process.execPath,
        [recode, "tasks", "validate", "recodeh-1", "--dir", kept, "--python", join(env, "bin", "python")],
        {
          encoding: "utf8",
          timeout: 180_000,
        },
      );
      expect(val.stdout + val.stderr).not.toContain("LEAK");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 400_000);
});
