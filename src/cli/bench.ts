/**
 * `recode bench`: Python ready time (Node, and the page when Chromium and a
 * build are there) and warm submission latency per task beside a fresh
 * `python3 -m unittest` process on the same files. Writes a Markdown report.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { solverScript } from "../core/providers/scripted";
import type { Task } from "../core/task";
import { NativeRuntime } from "../python/native-runtime";
import { createNodePyodideRuntime } from "../python/node";
import { runFiles, taskRunRequest } from "../python/runtime";
import { BUILTIN_TASKS, listTaskIds, loadTaskDir } from "./task-fs";

/** Options of {@link runBench}. */
export interface BenchOptions {
  /** Submissions per task (median reported). */
  runs: number;
  /** Report path (Markdown). */
  out: string;
  /** Also measure in headless Chromium (needs /usr/bin/chromium and `vite build`). */
  page: boolean;
  log: (s: string) => void;
  /** Extra report sections (e.g. episode throughput), appended as they are. */
  extraSections?: string[];
}

/** Median of a non-empty list. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Idle time between two measured submissions, in ms: the edit before the next run. */
const EDIT_PAUSE_MS = 50;

const CHECK_PY = fileURLToPath(new URL("../python/recode_check.py", import.meta.url));

/** A temporary folder holding a run's files, recode_check.py and expected.json (the caller removes it). */
function writeRunDir(files: Record<string, string>, expected: string): string {
  const dir = mkdtempSync(join(tmpdir(), "recode-bench-"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  copyFileSync(CHECK_PY, join(dir, "recode_check.py"));
  writeFileSync(join(dir, "expected.json"), expected);
  return dir;
}

function freshProcessMs(files: Record<string, string>, expected: string): number {
  const dir = writeRunDir(files, expected);
  try {
    const t0 = performance.now();
    const r = spawnSync("python3", ["-m", "unittest", "-q", "test"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, RECODE_EXPECTED: join(dir, "expected.json"), PYTHONDONTWRITEBYTECODE: "1" },
    });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`python3 -m unittest failed on the canonical solution: ${r.stderr.slice(-500)}`);
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Python source of `_floor()`: import test.py from `dir`, run its suite
 * `runs + 3` times, and return the last `runs` durations in ms as JSON text
 * (the floors below; the first three runs warm up).
 */
function floorFunction(dir: string, runs: number): string {
  return [
    "def _floor():",
    "    import importlib.util, json, sys, time, unittest",
    `    sys.path.insert(0, '${dir}')`,
    `    spec = importlib.util.spec_from_file_location('test', '${dir}/test.py')`,
    "    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)",
    "    def flat(s):",
    "        for t in s:",
    "            yield from (flat(t) if isinstance(t, unittest.TestSuite) else [t])",
    "    tests = list(flat(unittest.defaultTestLoader.loadTestsFromModule(m)))",
    "    out = []",
    `    for i in range(${runs + 3}):`,
    "        r = unittest.TestResult(); t0 = time.perf_counter(); unittest.TestSuite(tests).run(r); out.append((time.perf_counter() - t0) * 1000)",
    "        assert r.wasSuccessful(), r.failures + r.errors",
    "    return json.dumps(out[3:])",
  ].join("\n");
}

/**
 * The native floor of a task: its test bodies in a warm python3 (the suite run
 * again and again in one process, values compared in Python), median of `runs`
 * suite runs, in ms.
 */
export function nativeFloorMs(files: Record<string, string>, expected: string, runs: number): number {
  const dir = writeRunDir(files, expected);
  try {
    const script = `${floorFunction(".", runs)}\nprint(_floor())`;
    const r = spawnSync("python3", ["-c", script], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, RECODE_EXPECTED: join(dir, "expected.json"), PYTHONDONTWRITEBYTECODE: "1" },
    });
    if (r.status !== 0) throw new Error(`the warm python3 floor failed on the canonical solution: ${r.stderr.slice(-500)}`);
    return median(JSON.parse(r.stdout) as number[]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The Pyodide floor of a task: its test bodies in a warm Pyodide without the
 * harness (the suite run again and again, values compared in Python), median
 * of `runs` suite runs, in ms. What the interpreter costs before any isolation.
 */
export async function pyodideFloorMs(files: Record<string, string>, expected: string, runs: number): Promise<number> {
  const { loadPyodide } = await import("pyodide");
  const py = await loadPyodide({});
  const dir = "/tmp/floor";
  for (const [rel, text] of Object.entries({ ...files, "expected.json": expected, "recode_check.py": readFileSync(CHECK_PY, "utf8") })) {
    const p = `${dir}/${rel}`;
    py.FS.mkdirTree(p.slice(0, p.lastIndexOf("/")));
    py.FS.writeFile(p, text);
  }
  py.runPython(`import os\nos.environ['RECODE_EXPECTED'] = '${dir}/expected.json'\nos.chdir('${dir}')`);
  const script = `${floorFunction(dir, runs)}\n_floor()`;
  return median(JSON.parse(String(py.runPython(script))) as number[]);
}

/** Resident memory of this process (the Node host and its Pyodide worker threads), in MB. */
function rssMb(): number {
  return process.memoryUsage().rss / 1024 ** 2;
}

/** Process memory after a run that allocates about 400 MB, with and without the memory cap that replaces the instance. */
async function measureMemory(task: Task): Promise<{ idle: number; capped: number; uncapped: number }> {
  const hog = `${task.canonical}\n\n_HOG = None\n_orig_filter = min_p_filter\n\ndef min_p_filter(*a, **k):\n    global _HOG\n    _HOG = bytearray(400 * 1024 * 1024)\n    _HOG = None\n    return _orig_filter(*a, **k)\n`;
  const out = { idle: 0, capped: 0, uncapped: 0 };
  for (const [key, cap] of [
    ["capped", 256 * 1024 ** 2],
    ["uncapped", 4 * 1024 ** 3],
  ] as const) {
    // In a worker thread of this process, so that its resident memory counts the instance.
    const rt = createNodePyodideRuntime({ memoryCapBytes: cap, sandbox: "none" });
    await rt.ready();
    await rt.run(taskRunRequest(task, task.canonical));
    if (key === "capped") out.idle = rssMb();
    await rt.run(taskRunRequest(task, hog));
    // The replacement (if any) starts in the background; give it time, then measure.
    await new Promise((r) => setTimeout(r, 4000));
    await rt.run(taskRunRequest(task, task.canonical));
    (globalThis as { gc?: () => void }).gc?.();
    out[key] = rssMb();
    await rt.dispose();
  }
  return out;
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

/** Scripted episodes over the tasks at 1 and 2 workers; per-turn loop overhead beside the test run. */
async function measureEpisodes(
  ids: string[],
): Promise<{ throughput: { workers: number; episodes: number; ms: number }[]; turns: number; testMs: number; overheadMs: number }> {
  const { executeRun, prepareRun } = await import("./run");
  const { findTrajectoryFiles } = await import("./run-folder");
  const { restoreTrajectory } = await import("../core/trajectory");
  const dir = mkdtempSync(join(tmpdir(), "recode-bench-episodes-"));
  try {
    const tasks = ids.map((id) => loadTaskDir(BUILTIN_TASKS, id));
    const rules = solverScript(tasks.map((t) => ({ targetPath: t.meta.target_file_path, first: t.starter, later: t.canonical })));
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify(rules));
    const throughput: { workers: number; episodes: number; ms: number }[] = [];
    const turnTest: number[] = [];
    const turnOverhead: number[] = [];
    for (const workers of [1, 2]) {
      const out = join(dir, `w${workers}`);
      const p = await prepareRun({
        model: `scripted:${script}`,
        researcher: "rules",
        levels: "0-4",
        turns: "10",
        steps: "3",
        setting: "memory_agent",
        tasks: ids,
        workers: String(workers),
        out,
        backend: "pyodide",
        dir: BUILTIN_TASKS,
        probe: false,
      });
      const t0 = performance.now();
      const code = await executeRun(p, () => {}, new AbortController().signal, false);
      const ms = performance.now() - t0;
      if (code !== 0) throw new Error(`bench: scripted episodes ended with code ${code}`);
      const files = findTrajectoryFiles(out);
      throughput.push({ workers, episodes: files.length, ms });
      if (workers === 1) {
        for (const f of files) {
          const tr = restoreTrajectory(JSON.parse(readFileSync(f, "utf8")));
          for (const turn of tr.turns.slice(1)) {
            turnTest.push(turn.timings.testMs);
            turnOverhead.push(turn.timings.agentMs + turn.timings.researcherMs);
          }
        }
      }
    }
    return { throughput, turns: turnTest.length, testMs: median(turnTest), overheadMs: median(turnOverhead) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Measure and write the report. */
export async function runBench(o: BenchOptions): Promise<void> {
  const lines: string[] = [];
  const ids = listTaskIds(BUILTIN_TASKS);
  const tasks = ids.map((id) => loadTaskDir(BUILTIN_TASKS, id)).filter((t) => t.expected !== null);

  o.log("Python ready time in Node (3 fresh Pyodide instances in the box, 3 in a worker thread)...\n");
  const ready: number[] = [];
  const readyThread: number[] = [];
  for (const [home, into] of [
    ["auto", ready],
    ["none", readyThread],
  ] as const) {
    for (let i = 0; i < 3; i++) {
      const rt = createNodePyodideRuntime({ sandbox: home });
      const t0 = performance.now();
      await rt.ready();
      into.push(performance.now() - t0);
      await rt.dispose();
    }
  }

  o.log(`Warm submission latency, ${o.runs} runs per task...\n`);
  const rt = createNodePyodideRuntime();
  await rt.ready();
  const rtThread = createNodePyodideRuntime({ sandbox: "none" });
  await rtThread.ready();
  const native = new NativeRuntime();
  await native.ready();
  const rows: string[] = [];
  const floorRows: string[] = [];
  const ratios: number[] = [];
  let floorMet = 0;
  const freshByTask: Record<string, number> = {};
  for (const task of tasks) {
    const req = taskRunRequest(task, task.canonical);
    await rt.run(req);
    const warm: number[] = [];
    for (let i = 0; i < o.runs; i++) {
      // A pause stands for the edit between two submissions (the interpreter cleans up after a run meanwhile).
      await new Promise((r) => setTimeout(r, EDIT_PAUSE_MS));
      const t0 = performance.now();
      const r = await rt.run(req);
      warm.push(performance.now() - t0);
      if (!r.allPassed) throw new Error(`bench: canonical solution of ${task.id} does not pass; run recode tasks validate`);
    }
    // Back to back, as the agent loop submits: no pause, so the cleanup of one run is on the next one's path.
    const b2b: number[] = [];
    for (let i = 0; i < o.runs; i++) {
      const t0 = performance.now();
      await rt.run(req);
      b2b.push(performance.now() - t0);
    }
    await rtThread.run(req);
    const b2bThread: number[] = [];
    for (let i = 0; i < o.runs; i++) {
      const t0 = performance.now();
      await rtThread.run(req);
      b2bThread.push(performance.now() - t0);
    }
    const pyFloor = await pyodideFloorMs(runFiles(req), task.expected as string, o.runs);
    const boxed: number[] = [];
    for (let i = 0; i < Math.min(o.runs, 10); i++) {
      const t0 = performance.now();
      const r = await native.run(req);
      boxed.push(performance.now() - t0);
      if (!r.allPassed) throw new Error(`bench: canonical solution of ${task.id} does not pass natively`);
    }
    const fresh: number[] = [];
    for (let i = 0; i < Math.min(o.runs, 10); i++) fresh.push(freshProcessMs(runFiles(req), task.expected as string));
    const floor = nativeFloorMs(runFiles(req), task.expected as string, o.runs);
    const w = median(warm);
    const f = median(fresh);
    const bb = median(b2b);
    const target = 3 * floor + 5;
    if (bb <= target) floorMet += 1;
    ratios.push(f / w);
    freshByTask[task.id] = f;
    rows.push(
      `| ${task.id} | ${task.interfaceOf ? Object.keys(task.interfaceOf).length : 0} | ${fmt(w)} | ${fmt(f)} | ${(f / w).toFixed(1)}x | ${fmt(median(boxed))} |`,
    );
    floorRows.push(
      `| ${task.id} | ${fmt(floor)} | ${fmt(pyFloor)} | ${fmt(bb)} | ${fmt(median(b2bThread))} | ${fmt(target)} | ${bb <= target ? "met" : "NOT met"} |`,
    );
    o.log(`  ${task.id}: warm ${fmt(w)} ms, back to back ${fmt(bb)} ms (floor ${fmt(floor)} ms), fresh python3 ${fmt(f)} ms\n`);
  }
  const version = rt.version;
  const nativeVersion = native.version;
  await rtThread.dispose();
  await rt.dispose();

  o.log("Memory after a run that peaked high...\n");
  const minp = tasks.find((t) => t.id === "min-p-sampling");
  const memory = minp ? await measureMemory(minp) : null;

  o.log("Episodes with the scripted model (memory_agent, L0-L4, starting text at turn 0, canonical at turn 1)...\n");
  const loop = await measureEpisodes(tasks.map((t) => t.id));

  /** The page's figures before its Python box, for comparison (the unboxed worker no longer exists to measure). */
  const PAGE_BEFORE_THE_BOX =
    "Python runs in the page's box (a sandboxed frame with an opaque origin; the page hands in Pyodide's files). Before the box, with the worker on the page's origin fetching its own files (measured by this bench on this machine at commit 4d6ad08): ready 6802 ms; warm 43.7 to 83.4 ms per task.";
  let pageSection = "Not measured (run `recode bench` with Chromium installed and after `npm run build`).";
  if (o.page) {
    try {
      const { measurePage } = await import("./bench-page");
      const p = await measurePage(
        tasks.map((t) => t.id),
        Math.min(o.runs, 20),
      );
      pageSection = [
        `Python ready time in headless Chromium (median of ${p.ready.length} page loads): **${fmt(median(p.ready))} ms**.`,
        "",
        PAGE_BEFORE_THE_BOX,
        "",
        `Warm submission in the page: the canonical solution is put in the editor, and 50 ms later Run tests is clicked; measured from the click to the results being shown (rendering of the results and editor markers included), median of ${Math.min(o.runs, 20)}.`,
        "",
        "| task | warm in the page (ms) | fresh python3 (ms) | ratio |",
        "| --- | --- | --- | --- |",
        ...Object.entries(p.warm).map(([id, xs]: [string, number[]]) => {
          const w = median(xs);
          const f = freshByTask[id] ?? Number.NaN;
          return `| ${id} | ${fmt(w)} | ${fmt(f)} | ${(f / w).toFixed(1)}x |`;
        }),
        "",
        (() => {
          const r = Math.min(...Object.entries(p.warm).map(([id, xs]) => (freshByTask[id] ?? Number.NaN) / median(xs)));
          return `Smallest ratio in the page: ${r.toFixed(1)}x (${r >= 10 ? "meets" : "below"} the 10x target; the page also renders the results).`;
        })(),
      ].join("\n");
    } catch (e) {
      pageSection = `Not measured: ${(e as Error).message}`;
    }
  }

  lines.push(
    "# Benchmarks",
    "",
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}; ${cpus().length} cores, Node ${process.version}, ${version}.`,
    "",
    "## Python ready time",
    "",
    `Node, in the bubblewrap box (a separate process; median of ${ready.length} fresh instances): **${fmt(median(ready))} ms** (${ready.map(fmt).join(", ")}). In a worker thread of the host process (\`--sandbox none\`, or where bubblewrap is missing): ${fmt(median(readyThread))} ms (${readyThread.map(fmt).join(", ")}).`,
    "",
    "## Warm submission latency (Node)",
    "",
    `From handing the candidate file to the runtime to having per-test results, canonical solution, median of ${o.runs} runs on one warm Pyodide instance in its box (${EDIT_PAUSE_MS} ms apart, standing for the edit between submissions); beside a fresh \`python3 -m unittest\` process on the same files (median of ${Math.min(o.runs, 10)}). Target: warm latency at least 10x below the fresh process.`,
    "",
    `The last column is one run in the native backend's bubblewrap box (${nativeVersion}): a new process per run, box included.`,
    "",
    "| task | tests | warm Pyodide (ms) | fresh python3 (ms) | ratio | native in its box (ms) |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    ratios.length
      ? `Smallest ratio in Node: ${Math.min(...ratios).toFixed(1)}x; the target is ${Math.min(...ratios) >= 10 ? "met" : "NOT met"}.`
      : "No recorded tasks.",
    "",
    "## Back-to-back runs against the native floor (Node)",
    "",
    `The agent loop submits with no pause, so each run also waits for the cleanup of the one before. Median of ${o.runs} back-to-back runs of the canonical solution on one warm Pyodide instance, in its box and in a worker thread, beside the native floor: the same test bodies in a warm python3 (the suite run again and again in one process, median). The Pyodide floor is the same in a warm Pyodide without the harness: what WebAssembly alone costs. Target: at most 3x the native floor plus 5 ms.`,
    "",
    "| task | native floor (ms) | Pyodide floor (ms) | back to back, box (ms) | back to back, thread (ms) | target (ms) | |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...floorRows,
    "",
    `Target met for ${floorMet} of ${tasks.length} tasks.`,
    "",
    "## Memory per worker",
    "",
    memory
      ? `Resident memory of the bench process (Node host plus one Pyodide worker thread), after a warm run: ${memory.idle.toFixed(0)} MB. After a run whose test allocated 400 MB, then one more run: ${memory.capped.toFixed(0)} MB with a 256 MB cap on the WebAssembly memory (the instance is replaced after the run), ${memory.uncapped.toFixed(0)} MB with a 4 GiB cap (the instance keeps its peak: WebAssembly memory never shrinks). The default cap is 1 GiB (\`memoryCapBytes\`).`
      : "Not measured (min-p-sampling is not recorded).",
    "",
    "## Episode loop (scripted model)",
    "",
    `memory_agent, levels L0-L4, rules researcher, every built-in task (${tasks.length}): turn 0 submits the starting text, turn 1 the canonical solution, so every episode has two turns and one review.`,
    "",
    "| workers | episodes | wall time (s) | episodes per minute |",
    "| --- | --- | --- | --- |",
    ...loop.throughput.map(
      (r) => `| ${r.workers} | ${r.episodes} | ${(r.ms / 1000).toFixed(1)} | ${((60_000 * r.episodes) / r.ms).toFixed(0)} |`,
    ),
    "",
    `Per turn (median over ${loop.turns} turns): test run ${fmt(loop.testMs)} ms; the loop around it (the agent with the scripted model, and the rules researcher with rendering) ${fmt(loop.overheadMs)} ms.`,
    "",
    "## In the page",
    "",
    pageSection,
    "",
    ...(o.extraSections ?? []),
  );
  mkdirSync(dirname(o.out), { recursive: true });
  writeFileSync(o.out, `${lines.join("\n")}\n`);
  o.log(`wrote ${o.out}\n`);
}
