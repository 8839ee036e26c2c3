/**
 * `recode bench`: Python ready time (Node, and the page when Chromium and a
 * build are there) and warm submission latency per task beside a fresh
 * `python3 -m unittest` process on the same files. Writes a Markdown report.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fence } from "../core/agent/prompts";
import { plural } from "../core/plural";
import type { Task } from "../core/task";
import { MemorySnapshot, type SnapshotFs, type SnapshotModule } from "../python/memory-snapshot";
import { NativeRuntime } from "../python/native-runtime";
import type { NativeSandbox } from "../python/native-sandbox";
import { createNodePyodideRuntime } from "../python/node";
import { resolvePyodideBox } from "../python/node-box";
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
  /** "page": measure only the page-load figures and replace their section in the report at `out`. */
  only?: "page";
  /** Port of the preview server of the in-page measurements. */
  port?: number;
}

/** The page-load section (first and repeat visit), or why it was not measured. */
async function pageLoad(o: BenchOptions): Promise<string> {
  const { startPreview } = await import("./bench-page");
  const { measurePageLoad, pageLoadSection } = await import("./bench-load");
  const root = fileURLToPath(new URL("../..", import.meta.url));
  if (!existsSync(join(root, "dist/index.html"))) return "## Page load\n\nNot measured: no build in dist/ (run npm run build first).";
  o.log("Page load in headless Chromium (3 cold visits, each with a repeat visit)...\n");
  const port = o.port ?? 4183;
  const server = await startPreview(port);
  try {
    const m = await measurePageLoad(`http://localhost:${port}/`, join(root, "dist"));
    return pageLoadSection(m, `by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}`);
  } catch (e) {
    return `## Page load\n\nNot measured: ${(e as Error).message}`;
  } finally {
    server.kill();
  }
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
    // Registered under its name, as an import would, so that unittest finds its setUpModule.
    "    m = importlib.util.module_from_spec(spec); sys.modules['test'] = m; spec.loader.exec_module(m)",
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
 * The Pyodide floors of a task, in a warm Pyodide without the harness (values
 * compared in Python), medians of `runs` runs, in ms: `suite`, its test bodies
 * (the suite run again and again: what the interpreter costs before any
 * isolation); `bare`, a whole run with no harness (`bareFunction`: test.py and
 * the target imported afresh, then the suite), which no harness can go below;
 * `restore`, one write of the interpreter's memory back over itself after
 * those runs (the copy every isolated run ends with, see memory-snapshot.ts;
 * the harness's own modules make the real one some 10% larger), and
 * `restoreBytes`, how much memory that is.
 */
export async function pyodideFloorMs(
  files: Record<string, string>,
  expected: string,
  runs: number,
): Promise<{ suite: number; bare: number; restore: number; restoreBytes: number }> {
  const { loadPyodide } = await import("pyodide");
  const py = await loadPyodide({});
  const dir = "/tmp/floor";
  for (const [rel, text] of Object.entries({ ...files, "expected.json": expected, "recode_check.py": readFileSync(CHECK_PY, "utf8") })) {
    const p = `${dir}/${rel}`;
    py.FS.mkdirTree(p.slice(0, p.lastIndexOf("/")));
    py.FS.writeFile(p, text);
  }
  py.runPython(`import os\nos.environ['RECODE_EXPECTED'] = '${dir}/expected.json'\nos.chdir('${dir}')`);
  const suite = median(JSON.parse(String(py.runPython(`${floorFunction(dir, runs)}\n_floor()`))) as number[]);
  const bare = median(JSON.parse(String(py.runPython(`${bareFunction(dir, runs)}\n_bare()`))) as number[]);
  const mod = (py as unknown as { _module: SnapshotModule })._module;
  const snapshot = new MemorySnapshot(mod, py.FS as unknown as SnapshotFs, []);
  snapshot.take();
  const restores: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    snapshot.restore();
    restores.push(performance.now() - t0);
  }
  // (The heap's top, as the snapshot copies up to it.)
  const restoreBytes = new Uint32Array(mod.memory.buffer)[mod._emscripten_get_sbrk_ptr() >>> 2] ?? 0;
  return { suite, bare, restore: median(restores), restoreBytes };
}

/**
 * Python source of `_bare()`: what a run needs with no harness at all, in a
 * warm interpreter: import test.py and the files it imports from `dir` afresh
 * (compiled, no bytecode written or kept, as each submission brings a new
 * target file), then load and run its suite; `runs + 3` times, the last `runs`
 * durations in ms as JSON text. The check helper stays imported, as the
 * harness keeps it.
 */
function bareFunction(dir: string, runs: number): string {
  return [
    "def _bare():",
    "    import importlib.util, json, sys, time, unittest",
    "    sys.dont_write_bytecode = True",
    `    sys.path.insert(0, '${dir}')`,
    "    import recode_check",
    "    before = set(sys.modules)",
    "    out = []",
    `    for i in range(${runs + 3}):`,
    "        for name in [n for n in sys.modules if n not in before]:",
    "            del sys.modules[name]",
    "        t0 = time.perf_counter()",
    `        spec = importlib.util.spec_from_file_location('test', '${dir}/test.py')`,
    "        m = importlib.util.module_from_spec(spec); sys.modules['test'] = m; spec.loader.exec_module(m)",
    "        r = unittest.TestResult(); unittest.defaultTestLoader.loadTestsFromModule(m).run(r)",
    "        out.append((time.perf_counter() - t0) * 1000)",
    "        assert r.wasSuccessful(), r.failures + r.errors",
    "    return json.dumps(out[3:])",
  ].join("\n");
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

/** Tasks in the episode-loop workload (copies of the built-in tasks in turn). */
const LOOP_TASKS = 48;
/** Failing (reviewed) turns before the solving one, per episode of the episode-loop workload. */
const LOOP_FAILING_TURNS = 3;
/** Steady episodes per minute at 2 workers over 1 worker that the episode loop should reach on 2 cores. */
const LOOP_SPEEDUP_TARGET = 1.8;

/** Options of {@link measureEpisodeLoop}. */
export interface EpisodeLoopOptions {
  /** Built-in tasks the workload is made of (each must have expected.json). */
  taskIds: string[];
  /**
   * Tasks in the workload: copies of `taskIds` in turn (ids `<id>-<copy>`), so
   * that there is enough work for start-up not to dominate, in pieces small
   * enough to share evenly between the workers.
   */
  size: number;
  /** Turns, from turn 0, at which the scripted coder submits the starting text (fails, and is reviewed) before the canonical solution. */
  failingTurns: number;
  /** Worker counts to measure, in order. */
  workers: number[];
  /** Where Pyodide runs (as `recode run --sandbox`). */
  sandbox?: NativeSandbox;
  log?: (s: string) => void;
}

/**
 * CPU used while a run is past its start-up, in cores (CPU seconds per second
 * of wall time), as the kernel counts it per thread.
 */
export interface RunCpu {
  /** Length of the window measured, ms: from the end of start-up (plus a second) to the last sample. */
  windowMs: number;
  /** The host process's main thread: the episode loop, the coder, the researcher, saving, talking to the boxes. */
  hostThread: number;
  /** Each worker's Pyodide thread (in its box, or a worker thread of the host process). */
  pyodide: number[];
  /** Everything else: the boxes' relay threads, V8's helper threads (garbage collection, compilation), I/O threads. */
  other: number;
  /** All of it. */
  total: number;
}

/** One measured run of the episode loop. */
export interface EpisodeLoopRun {
  workers: number;
  episodes: number;
  /** Wall time of the whole run, ms. */
  wallMs: number;
  /** Wall time until `workers` fresh Python instances started together are ready, ms (measured on its own). */
  startupMs: number;
  /** Episodes per minute once Python is ready: episodes / (wall time - start-up). */
  steadyPerMin: number;
  /** Episodes per minute over the whole run, start-up included. */
  overallPerMin: number;
  cpu: RunCpu | null;
}

/** What {@link measureEpisodeLoop} found. */
export interface EpisodeLoopResult {
  runs: EpisodeLoopRun[];
  /** Turns per episode (failing turns, then the solving one). */
  turnsPerEpisode: number;
  /** Medians over the turns of the first run (ms): test run, coder, researcher review (failing turns only). */
  turns: number;
  testMs: number;
  agentMs: number;
  reviewMs: number;
}

/** Linux reports CPU times in /proc in ticks of 1/100 s (USER_HZ). */
const CLK_TCK = 100;

/** CPU time (user + system) of a process or thread from its /proc stat line, in ms; null when it is gone. */
function statCpuMs(path: string): number | null {
  try {
    const stat = readFileSync(path, "utf8");
    // Fields after the command name (which may hold spaces), from field 3 on: utime is field 14, stime 15.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return null;
  }
}

/** The child processes of `pid` (of every thread). */
function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/** A process and every process below it. */
function processTree(pid: number): number[] {
  return [pid, ...childPids(pid).flatMap(processTree)];
}

/** One reading of {@link CpuSampler}: when (performance.now()), and the CPU ms so far of each thread (`<pid>/<tid>`). */
interface CpuSample {
  t: number;
  threads: Map<string, number>;
}

/**
 * Samples, every 200 ms while a run goes on, the CPU time of every thread of
 * this process and of the process trees it starts meanwhile (the Pyodide
 * boxes), grouped by tree. Linux only (/proc); elsewhere it measures nothing.
 */
class CpuSampler {
  private readonly before = new Set(childPids(process.pid));
  private readonly samples: CpuSample[] = [];
  /** Thread key -> "host" or the box tree's root pid. */
  private readonly groups = new Map<string, string>();
  private readonly timer: ReturnType<typeof setInterval> | null;

  constructor() {
    this.timer = statCpuMs(`/proc/${process.pid}/stat`) === null ? null : setInterval(() => this.sample(), 200);
  }

  private readThreads(pid: number, group: string, into: Map<string, number>): void {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      return;
    }
    for (const tid of tids) {
      const ms = statCpuMs(`/proc/${pid}/task/${tid}/stat`);
      if (ms === null) continue;
      into.set(`${pid}/${tid}`, ms);
      this.groups.set(`${pid}/${tid}`, group);
    }
  }

  private sample(): void {
    const threads = new Map<string, number>();
    this.readThreads(process.pid, "host", threads);
    for (const root of childPids(process.pid)) {
      if (this.before.has(root)) continue;
      for (const pid of processTree(root)) this.readThreads(pid, String(root), threads);
    }
    this.samples.push({ t: performance.now(), threads });
  }

  /**
   * Stop, and give the CPU used from `from` (a performance.now() time) on;
   * null without /proc or enough samples.
   * @param workers Pyodide instances in the run (where they are worker threads of this process, its busiest threads but the main one).
   */
  stop(from: number, workers: number): RunCpu | null {
    if (!this.timer) return null;
    clearInterval(this.timer);
    this.sample();
    const first = this.samples.findIndex((s) => s.t >= from);
    const last = this.samples.at(-1);
    if (first < 0 || !last || last.t - (this.samples[first] as CpuSample).t < 1000) return null;
    const span = last.t - (this.samples[first] as CpuSample).t;
    // Per thread: from its first reading in the window to its last (a box's threads end with the run).
    const used = new Map<string, number>();
    const start = new Map<string, number>();
    for (const s of this.samples.slice(first)) {
      for (const [key, ms] of s.threads) {
        if (!start.has(key)) start.set(key, ms);
        used.set(key, (ms - (start.get(key) as number)) / span);
      }
    }
    const main = `${process.pid}/${process.pid}`;
    const byGroup = new Map<string, number[]>();
    for (const [key, cores] of used) {
      if (key === main) continue;
      const g = this.groups.get(key) as string;
      byGroup.set(g, [...(byGroup.get(g) ?? []), cores]);
    }
    const boxes = [...byGroup].filter(([g]) => g !== "host");
    const pyodide =
      boxes.length > 0 ? boxes.map(([, xs]) => Math.max(...xs)) : (byGroup.get("host") ?? []).sort((x, y) => y - x).slice(0, workers);
    const total = [...used.values()].reduce((x, y) => x + y, 0);
    const hostThread = used.get(main) ?? 0;
    const pyodideSum = pyodide.reduce((x, y) => x + y, 0);
    return { windowMs: span, hostThread, pyodide, other: total - hostThread - pyodideSum, total };
  }
}

/** Wall time for `n` fresh Python instances, started together, to be ready, in ms. */
async function startupMs(n: number, sandbox: NativeSandbox): Promise<number> {
  const rts = Array.from({ length: n }, () => createNodePyodideRuntime({ sandbox }));
  const t0 = performance.now();
  try {
    await Promise.all(rts.map((rt) => rt.ready()));
    return performance.now() - t0;
  } finally {
    await Promise.all(rts.map((rt) => rt.dispose()));
  }
}

/**
 * Scripted episodes through `recode run`'s own code (prepareRun, executeRun),
 * at each worker count: memory_agent, L0-L4, the rules researcher, `size`
 * tasks (copies of `taskIds` in turn); the coder submits the starting text
 * for `failingTurns` turns (each fails and is reviewed), then the canonical
 * solution. Start-up (Python instances getting ready) is measured on its own
 * and taken out of the steady rate; the CPU each thread used after start-up
 * is sampled from /proc (Linux).
 */
export async function measureEpisodeLoop(o: EpisodeLoopOptions): Promise<EpisodeLoopResult> {
  const { executeRun, prepareRun } = await import("./run");
  const { findTrajectoryFiles } = await import("./run-folder");
  const { restoreTrajectory } = await import("../core/trajectory");
  const sandbox = o.sandbox ?? "auto";
  const dir = mkdtempSync(join(tmpdir(), "recode-bench-episodes-"));
  try {
    const taskDir = join(dir, "tasks");
    const ids: string[] = [];
    const rules: { match: string; reply: string }[] = [{ match: "Result of REPLACE", reply: "Reflection: written.\nAction: SUBMIT" }];
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    const turnsPattern = (from: number, to: number) => `(?:${Array.from({ length: to - from + 1 }, (_, i) => from + i).join("|")})`;
    for (const [i, id] of o.taskIds.entries()) {
      const task = loadTaskDir(BUILTIN_TASKS, id);
      const path = esc(task.meta.target_file_path);
      const replace = (why: string, code: string) => `Reflection: ${why}\nAction: REPLACE\n${fence(code)}`;
      rules.push({
        match: `/# Turn ${turnsPattern(0, o.failingTurns - 1)}\\b[\\s\\S]*${path}/`,
        reply: replace("a first version.", task.starter),
      });
      rules.push({ match: `/# Turn \\d+\\b[\\s\\S]*${path}/`, reply: replace("follow the feedback.", task.canonical) });
      for (let c = 0; c * o.taskIds.length + i < o.size; c++) {
        const copy = `${id}-${c}`;
        cpSync(join(BUILTIN_TASKS, id), join(taskDir, copy), { recursive: true });
        const meta = JSON.parse(readFileSync(join(taskDir, copy, "task.json"), "utf8")) as { id: string };
        writeFileSync(join(taskDir, copy, "task.json"), JSON.stringify({ ...meta, id: copy }, null, 2));
        ids.push(copy);
      }
    }
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify({ rules }));
    const turnsPerEpisode = o.failingTurns + 1;
    const runs: EpisodeLoopRun[] = [];
    const test: number[] = [];
    const agent: number[] = [];
    const review: number[] = [];
    for (const workers of o.workers) {
      o.log?.(`  ${plural(workers, "worker")}: start-up...\n`);
      const start = await startupMs(workers, sandbox);
      const out = join(dir, `w${workers}`);
      const p = await prepareRun({
        model: `scripted:${script}`,
        researcher: "rules",
        levels: "0-4",
        turns: String(turnsPerEpisode + 1),
        steps: "3",
        setting: "memory_agent",
        tasks: ids,
        workers: String(workers),
        out,
        backend: "pyodide",
        sandbox,
        dir: taskDir,
        probe: false,
      });
      o.log?.(`  ${plural(workers, "worker")}: ${ids.length * 5} episodes...\n`);
      const sampler = new CpuSampler();
      const t0 = performance.now();
      const code = await executeRun(p, () => {}, new AbortController().signal, false);
      const wallMs = performance.now() - t0;
      // Past start-up, with a second's margin: Python's start compiles WebAssembly on several threads.
      const cpu = sampler.stop(t0 + start + 1000, workers);
      if (code !== 0) throw new Error(`bench: scripted episodes ended with code ${code}`);
      const files = findTrajectoryFiles(out);
      for (const f of files) {
        const tr = restoreTrajectory(JSON.parse(readFileSync(f, "utf8")));
        if (tr.stoppedReason !== "solved" || tr.turns.length !== turnsPerEpisode)
          throw new Error(`bench: ${f} ended ${tr.stoppedReason} after ${tr.turns.length} turns, not solved after ${turnsPerEpisode}`);
        if (runs.length > 0) continue;
        for (const [i, turn] of tr.turns.entries()) {
          test.push(turn.timings.testMs);
          if (i > 0) agent.push(turn.timings.agentMs);
          if (i > 0 && i < o.failingTurns) review.push(turn.timings.researcherMs);
        }
      }
      const steady = wallMs - start;
      runs.push({
        workers,
        episodes: files.length,
        wallMs,
        startupMs: start,
        steadyPerMin: (60_000 * files.length) / steady,
        overallPerMin: (60_000 * files.length) / wallMs,
        cpu,
      });
      rmSync(out, { recursive: true, force: true });
    }
    return {
      runs,
      turnsPerEpisode,
      turns: test.length,
      testMs: median(test),
      agentMs: agent.length ? median(agent) : 0,
      reviewMs: review.length ? median(review) : 0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Measure and write the report. */
export async function runBench(o: BenchOptions): Promise<void> {
  if (o.only === "page") {
    const { withPageLoadSection } = await import("./bench-load");
    const section = await pageLoad(o);
    const before = existsSync(o.out) ? readFileSync(o.out, "utf8") : "# Benchmarks\n";
    mkdirSync(dirname(o.out), { recursive: true });
    writeFileSync(o.out, withPageLoadSection(before, section));
    o.log(`${section}\n\nwrote the page-load section of ${o.out}\n`);
    return;
  }
  const lines: string[] = [];
  // Measured: recorded tasks that need no package (the bench has no package source). The rest is named in the report.
  const tasks: Task[] = [];
  const left: string[] = [];
  for (const id of listTaskIds(BUILTIN_TASKS)) {
    try {
      const t = loadTaskDir(BUILTIN_TASKS, id);
      if (t.expected === null) left.push(`${id} (not recorded)`);
      else if (t.meta.packages.length > 0) left.push(`${id} (needs ${t.meta.packages.join(", ")})`);
      else tasks.push(t);
    } catch (e) {
      left.push(`${id} (${(e as Error).message.split("\n")[0]})`);
    }
  }

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
  /** Tasks whose target is below a whole run with no harness in Pyodide (`bareFunction`). */
  let bareAbove = 0;
  /** Tasks whose target is below the no-harness run plus one restore of the memory. */
  let restoreAbove = 0;
  const restoreMs: number[] = [];
  const restoreMb: number[] = [];
  /** Per task: back to back in the box, less the no-harness run (ms). */
  const harnessCost: number[] = [];
  const freshByTask: Record<string, number> = {};
  /** Measure one task and add its rows. Throws when its canonical solution does not pass, or a floor cannot run. */
  const measureTask = async (task: Task): Promise<void> => {
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
    if (pyFloor.bare > target) bareAbove += 1;
    if (pyFloor.bare + pyFloor.restore > target) restoreAbove += 1;
    restoreMs.push(pyFloor.restore);
    restoreMb.push(pyFloor.restoreBytes / 1024 ** 2);
    harnessCost.push(bb - pyFloor.bare);
    ratios.push(f / w);
    freshByTask[task.id] = f;
    rows.push(
      `| ${task.id} | ${task.interfaceOf ? Object.keys(task.interfaceOf).length : 0} | ${fmt(w)} | ${fmt(f)} | ${(f / w).toFixed(1)}x | ${fmt(median(boxed))} |`,
    );
    floorRows.push(
      `| ${task.id} | ${fmt(floor)} | ${fmt(pyFloor.suite)} | ${fmt(pyFloor.bare)} | ${fmt(bb)} | ${fmt(median(b2bThread))} | ${fmt(target)} | ${bb <= target ? "met" : "NOT met"} |`,
    );
    o.log(`  ${task.id}: warm ${fmt(w)} ms, back to back ${fmt(bb)} ms (floor ${fmt(floor)} ms), fresh python3 ${fmt(f)} ms\n`);
  };
  // A task that cannot be measured is left out (and named), not the end of the bench.
  const measured: Task[] = [];
  const version = rt.version;
  try {
    for (const task of tasks) {
      try {
        await measureTask(task);
        measured.push(task);
      } catch (e) {
        const why = (e as Error).message.trim().split("\n").at(-1)?.slice(0, 200) ?? "";
        left.push(`${task.id} (${why})`);
        o.log(`  ${task.id}: left out: ${why}\n`);
      }
    }
  } finally {
    await rtThread.dispose();
    await rt.dispose();
    await native.dispose();
  }
  tasks.splice(0, tasks.length, ...measured);
  const nativeVersion = native.version;

  o.log("Memory after a run that peaked high...\n");
  const minp = tasks.find((t) => t.id === "min-p-sampling");
  const memory = minp ? await measureMemory(minp) : null;

  const loopTasks = tasks.map((t) => t.id);
  o.log(
    `Episode loop: ${LOOP_TASKS} tasks (copies of ${loopTasks.length}), memory_agent, L0-L4, the starting text for ${LOOP_FAILING_TURNS} turns, then the canonical solution...\n`,
  );
  const loadBefore = loadavg()[0] as number;
  const loop = await measureEpisodeLoop({
    taskIds: loopTasks,
    size: LOOP_TASKS,
    failingTurns: LOOP_FAILING_TURNS,
    workers: [1, 2],
    log: o.log,
  });
  const loadAfter = loadavg()[0] as number;
  const [one, two] = loop.runs as [EpisodeLoopRun, EpisodeLoopRun];
  const speedup = two.steadyPerMin / one.steadyPerMin;
  const speedupMet = speedup >= LOOP_SPEEDUP_TARGET;
  // One worker's pace is its Pyodide thread's; the rest of its CPU (host thread, helpers) runs beside it. With
  // more workers than that fits on the cores, all of it competes: n cores give at most n x (Pyodide share).
  const pyShare = one.cpu ? one.cpu.pyodide.reduce((a, b) => a + b, 0) / one.cpu.total : Number.NaN;
  const ceiling = cpus().length * pyShare;
  o.log(
    `  steady: ${one.steadyPerMin.toFixed(0)} episodes/min at 1 worker, ${two.steadyPerMin.toFixed(0)} at ${two.workers}: ${speedup.toFixed(2)}x; target ${LOOP_SPEEDUP_TARGET}x ${speedupMet ? "met" : "NOT met"} (its Pyodide thread is ${(100 * pyShare).toFixed(0)}% of its CPU: at most ${ceiling.toFixed(2)}x on ${cpus().length} cores)\n`,
  );

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

  const loadSection = o.page
    ? await pageLoad(o)
    : "## Page load\n\nNot measured (run `recode bench` with Chromium installed and after `npm run build`).";

  lines.push(
    "# Benchmarks",
    "",
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}; ${cpus().length} cores, Node ${process.version}, ${version}.`,
    "",
    `Tasks: the ${tasks.length} built-in tasks that are recorded, need no package beyond the standard library, and could be measured.${left.length ? ` Left out: ${left.join("; ")}.` : ""}`,
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
    `The agent loop submits with no pause, so each run also waits for the cleanup of the one before. Median of ${o.runs} back-to-back runs of the canonical solution on one warm Pyodide instance, in its box and in a worker thread, beside the native floor: the same test bodies in a warm python3 (the suite run again and again in one process, median). The Pyodide floor is the same in a warm Pyodide without the harness: what WebAssembly alone costs. "No harness" is a whole run in a warm Pyodide with no harness at all: test.py and the files it imports loaded afresh (compiled, as each submission brings a new target file), then the suite; no isolation, no guard, no events, no restore. Target: at most 3x the native floor plus 5 ms.`,
    "",
    "| task | native floor (ms) | Pyodide floor (ms) | no harness (ms) | back to back, box (ms) | back to back, thread (ms) | target (ms) | |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...floorRows,
    "",
    `Target met for ${floorMet} of ${tasks.length} tasks.${harnessCost.length ? ` What the harness adds to a run (back to back in the box, less the no-harness run): median ${fmt(median(harnessCost))} ms, from ${fmt(Math.min(...harnessCost))} to ${fmt(Math.max(...harnessCost))} ms.` : ""}${bareAbove ? ` For ${bareAbove} of the tasks the target is below the no-harness run itself.` : ""}`,
    "",
    restoreMs.length
      ? `Every run ends with the interpreter's memory written back as it was before the run (memory-snapshot.ts: what any code under test changed anywhere in the interpreter is undone at once). That copy alone, of the memory of a warm Pyodide without the harness (median ${fmt(median(restoreMb))} MB; the harness's modules add some 10%), takes a median ${fmt(median(restoreMs))} ms here. For ${restoreAbove} of the ${restoreMs.length} tasks the target is below the no-harness run plus that copy: there, no harness that restores the interpreter after every run can meet it.`
      : "",
    "",
    "## Memory per worker",
    "",
    memory
      ? `Resident memory of the bench process (Node host plus one Pyodide worker thread), after a warm run: ${memory.idle.toFixed(0)} MB. After a run whose test allocated 400 MB, then one more run: ${memory.capped.toFixed(0)} MB with a 256 MB cap on the WebAssembly memory (the instance is replaced after the run), ${memory.uncapped.toFixed(0)} MB with a 4 GiB cap (the instance keeps its peak: WebAssembly memory never shrinks). The default cap is 1 GiB (\`memoryCapBytes\`).`
      : "Not measured (min-p-sampling is not recorded).",
    "",
    "## Episode loop (scripted model)",
    "",
    `\`recode run\`'s own code (prepareRun, executeRun) with a scripted coder and the rules researcher: memory_agent, levels L0-L4, ${LOOP_TASKS} tasks, copies in turn of the ${loopTasks.length} tasks above (${loop.runs[0]?.episodes ?? 0} episodes). The coder submits the starting text at turns 0 to ${LOOP_FAILING_TURNS - 1} (each fails and is reviewed) and the canonical solution at turn ${LOOP_FAILING_TURNS}, so every episode has ${loop.turnsPerEpisode} turns. Pyodide runs as \`recode run\` runs it here: ${resolvePyodideBox("auto", true) === "bwrap" ? "one bubblewrap box (a separate process) per worker" : "one worker thread of the host process per worker"}. Start-up (as many fresh Python instances as workers, started together, becoming ready) is measured on its own and taken out of the steady rate; the overall rate keeps it.`,
    "",
    `Target: at ${two.workers} workers, at least ${LOOP_SPEEDUP_TARGET}x the steady episodes per minute of 1 worker (on ${cpus().length} cores). **${speedup.toFixed(2)}x: ${speedupMet ? "met" : "NOT met"}.** Load average (1 min) when the loop started: ${loadBefore.toFixed(2)}; when it ended: ${loadAfter.toFixed(2)} (anything well above the bench's own workers means other work shared the cores).`,
    "",
    "| workers | episodes | wall time (s) | start-up (s) | episodes per minute, steady | overall |",
    "| --- | --- | --- | --- | --- | --- |",
    ...loop.runs.map(
      (r) =>
        `| ${r.workers} | ${r.episodes} | ${(r.wallMs / 1000).toFixed(1)} | ${(r.startupMs / 1000).toFixed(1)} | ${r.steadyPerMin.toFixed(0)} | ${r.overallPerMin.toFixed(0)} |`,
    ),
    "",
    loop.runs.every((r) => r.cpu)
      ? [
          "CPU after start-up, in cores (CPU seconds per second of wall time), per thread as the kernel counts it: each worker's Pyodide thread, the host process's main thread (the episode loop, coder, researcher, saving, talking to Pyodide), and everything else (the boxes' relay threads, V8's garbage-collection and compiler threads, I/O threads).",
          "",
          "| workers | Pyodide threads | host main thread | everything else | total |",
          "| --- | --- | --- | --- | --- |",
          ...loop.runs.map((r) => {
            const c = r.cpu as RunCpu;
            return `| ${r.workers} | ${c.pyodide.map((x) => x.toFixed(2)).join(" + ")} | ${c.hostThread.toFixed(2)} | ${c.other.toFixed(2)} | ${c.total.toFixed(2)} |`;
          }),
          "",
          `Estimate: with one worker, its Pyodide thread sets the pace (it runs the tests, then restores the interpreter while the host handles the results) and uses ${(100 * pyShare).toFixed(0)}% of the run's CPU; the host thread and the helper threads use the rest beside it. With two workers on ${cpus().length} cores all of it competes for the cores, so two workers reach at most about ${cpus().length} x ${pyShare.toFixed(2)} = **${ceiling.toFixed(2)}x** the rate of one worker whose Pyodide thread is never idle${ceiling < LOOP_SPEEDUP_TARGET ? `; ${LOOP_SPEEDUP_TARGET}x needs the CPU outside the Pyodide threads at most ${(100 * (cpus().length / LOOP_SPEEDUP_TARGET - 1)).toFixed(0)}% of theirs (here ${(100 * (1 / pyShare - 1)).toFixed(0)}%)` : ""}. The shares are CPU time, which other work on the machine hardly changes; the rates are wall time, which it does: here one worker's Pyodide thread was busy ${(100 * (one.cpu?.pyodide[0] ?? 0)).toFixed(0)}% of the time, and the less it is, the more the measured ratio can pass the estimate.`,
        ].join("\n")
      : "CPU per process: not measured (needs Linux's /proc).",
    "",
    `Per turn (medians over the ${loop.turns} turns of the 1-worker run): test run ${fmt(loop.testMs)} ms; the scripted coder ${fmt(loop.agentMs)} ms; the rules researcher's review of a failing turn ${fmt(loop.reviewMs)} ms.`,
    "",
    "## In the page",
    "",
    pageSection,
    "",
    loadSection,
    "",
    ...(o.extraSections ?? []),
  );
  mkdirSync(dirname(o.out), { recursive: true });
  writeFileSync(o.out, `${lines.join("\n")}\n`);
  o.log(`wrote ${o.out}\n`);
}
