import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadReport, reportCsv, reportMarkdown } from "../../src/cli/report";
import { RunFolder } from "../../src/cli/run-folder";
import { buildReport, defaultN, episodeConditions, type Report, type ReportInput } from "../../src/core/report";
import { reportNotes } from "../../src/core/report-text";
import { restoreTrajectory, type Trajectory } from "../../src/core/trajectory";
import { type TrajectoryRecord, trajectoryKey } from "../../src/store/trajectory-records";
import { storedReport } from "../../src/ui/agent/stored-report";

// Turn 0: collection error; turn 1: 1 of 3 passed (one skipped); turn 2: 3 of 3 (solved).
const BASE = restoreTrajectory(readFileSync(new URL("../fixtures/trajectories/v4-current.json", import.meta.url), "utf8"));
const PYODIDE = "3.14.2 (pyodide 0.29.0)";
const NATIVE = "3.12.3 (native python3, bubblewrap)";

interface Shape {
  task: string;
  backend?: "pyodide" | "native";
  /** How many of the fixture's turns to keep. */
  turns?: number;
  maxTurns?: number;
  stopped?: Trajectory["stoppedReason"];
  error?: string;
}

/** A valid trajectory of the fixture's model, setting (memory_agent) and level (L4) on `task`. */
function episode(s: Shape): Trajectory {
  const t = structuredClone(BASE);
  const backend = s.backend ?? "pyodide";
  t.versions.task.id = s.task;
  t.versions.python = backend === "pyodide" ? PYODIDE : NATIVE;
  t.turns = t.turns.slice(0, s.turns ?? t.turns.length).map((turn) => ({ ...turn, run: { ...turn.run, backend } }));
  t.config.maxTurns = s.maxTurns ?? 10;
  t.stoppedReason = s.stopped === undefined ? "solved" : s.stopped;
  t.finished = t.stoppedReason !== null;
  t.error = s.error ?? null;
  return restoreTrajectory(t);
}

// The same set for both paths: two backends of one episode, an episode with no turns (turn 0 failed),
// an unfinished one, one that ended in an error after two turns, a shorter turn limit, and a copy.
const SOLVED = episode({ task: "min-p-sampling" });
const SET: { folder: string; t: Trajectory }[] = [
  { folder: "pyodide-run", t: SOLVED },
  { folder: "pyodide-run", t: episode({ task: "bm25", turns: 0, stopped: "error", error: "turn 0 failed: endpoint unreachable" }) },
  { folder: "pyodide-run", t: episode({ task: "pass-at-k", turns: 1, stopped: null }) },
  { folder: "pyodide-run", t: episode({ task: "ece", turns: 2, stopped: "error", error: "model: HTTP 500" }) },
  { folder: "pyodide-run", t: episode({ task: "gae", turns: 2, maxTurns: 2, stopped: "max_turns" }) },
  { folder: "native-run", t: episode({ task: "min-p-sampling", backend: "native" }) },
  { folder: "copy-run", t: SOLVED },
];

const work = mkdtempSync(join(tmpdir(), "recode-report-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The CLI path: trajectory files in run folders, read by loadReport. */
function viaCli(n?: number): Report {
  for (const { folder, t } of SET) {
    const path = new RunFolder(join(work, folder)).episodePath(t.config.model, t.config.setting, t.config.level, t.versions.task.id);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(t));
  }
  const broken = new RunFolder(join(work, "pyodide-run")).episodePath("x", "memory_agent", 0, "broken");
  mkdirSync(dirname(broken), { recursive: true });
  writeFileSync(broken, JSON.stringify({ schemaVersion: 4, turns: "no" }));
  return loadReport(
    ["pyodide-run", "native-run", "copy-run"].map((f) => join(work, f)),
    n,
  );
}

/** The page path: the stored records, read by the function the Results tab calls. */
function viaPage(n?: number): Report {
  const records: TrajectoryRecord[] = SET.map(({ folder, t }) => ({
    version: 1,
    key: `${trajectoryKey(t)} ${folder}`,
    trajectory: t,
    memory: null,
    source: "import",
    fileName: `${folder}/${t.versions.task.id}.json`,
    savedAt: 0,
  }));
  return storedReport({ records, problems: ["trajectories x: field trajectory: broken. It was set aside."] }, n);
}

const episodes = (list: { episode: string }[]) => list.map((e) => e.episode).sort();

describe("one report for the page and recode report", () => {
  const cli = viaCli();
  const page = viaPage();

  it("gives the same rows, n and lists for the same trajectories", () => {
    expect(page.rows).toEqual(cli.rows);
    expect(page.n).toBe(cli.n);
    expect(page.episodes).toBe(cli.episodes);
    expect(page.varying).toEqual(cli.varying);
    for (const list of ["unfinished", "errored", "belowN", "duplicates"] as const)
      expect(episodes(page[list])).toEqual(episodes(cli[list]));
    expect(page.unreadable).toHaveLength(1);
    expect(cli.unreadable).toHaveLength(1);
    expect(reportNotes(page).map((x) => x.text)).toEqual(reportNotes(cli).map((x) => x.text));
    // The same with a chosen n.
    expect(viaPage(2).rows).toEqual(viaCli(2).rows);
  });

  it("counts every episode with the turns it has, and splits the backends into two rows", () => {
    expect(cli.n).toBe(10);
    expect(cli.episodes).toBe(6);
    // The protocol profile is always shown; the backend because the backends differ.
    expect(cli.varying).toEqual(["protocol", "backend"]);
    const pick = (r: Report["rows"][number]) => [r.backend, r.level, r.taskCount, r.solvedCount, r.recallAtN, r.mrr, r.passRate];
    // pyodide: min-p solved at turn 2, bm25 (no turn), pass-at-k (collection error), ece and gae (1/3 best) unsolved.
    expect(cli.rows.map(pick)).toEqual([
      ["native", 4, 1, 1, 1, 1 / 3, 1],
      ["pyodide", 4, 5, 1, 0.2, 1 / 15, (1 + 0 + 0 + 1 / 3 + 1 / 3) / 5],
    ]);
    expect(cli.errored.map((e) => [e.episode, e.turns, e.error])).toEqual([
      ["openai:gpt-4o-mini memory_agent L4 bm25 [pyodide]", 0, "turn 0 failed: endpoint unreachable"],
      ["openai:gpt-4o-mini memory_agent L4 ece [pyodide]", 2, "model: HTTP 500"],
    ]);
    expect(episodes(cli.unfinished)).toEqual(["openai:gpt-4o-mini memory_agent L4 pass-at-k [pyodide]"]);
    expect(episodes(cli.belowN)).toEqual(["openai:gpt-4o-mini memory_agent L4 gae [pyodide]"]);
    // Each row says how many of its episodes ended in an error or have not finished (CSV: errored, unfinished).
    expect(cli.rows.map((r) => [r.backend, r.errored, r.unfinished])).toEqual([
      ["native", 0, 0],
      ["pyodide", 2, 1],
    ]);
    const [head = "", , pyodideRow = ""] = reportCsv(cli).split("\n");
    const col = (name: string) => pyodideRow.split(",")[head.split(",").indexOf(name)];
    expect([col("errored"), col("unfinished")]).toEqual(["2", "1"]);
    expect(cli.duplicates).toHaveLength(1);
    expect(cli.duplicates[0]?.source).toContain("copy-run");
    expect(cli.duplicates[0]?.kept).toContain("pyodide-run");
    expect(reportNotes(cli).find((x) => x.kind === "errored")?.text).toMatch(/2 episodes ended in an error \(1 without any turn/);
    // One episode is "it", several "they"; a turn limit below n counts only the episodes not solved.
    const text = (kind: string) => reportNotes(cli).find((x) => x.kind === kind)?.text;
    expect(text("errored")).toContain("they count as not solved after their last turn. Run them again to retry them.");
    expect(text("unfinished")).toBe("1 episode has not finished; it counts with the turns it has. Run it again to resume.");
    expect(text("belowN")).toBe("1 episode has a turn limit below n = 10; unless solved, it counts as not solved after the last turn.");
  });

  it("prints the backend column only because the backends differ", () => {
    const md = reportMarkdown({ ...viaCli(), missing: [] });
    expect(md).toContain("| model | setting | researcher | protocol | backend | tasks | L0 |");
    expect(md).toMatch(/\| native \| 1 \| - \| - \| - \| - \| 100\.0 \/ 33\.3 \/ 100\.0 \|/);
    expect(md).toMatch(/\| pyodide \| 5 \| - \| - \| - \| - \| 20\.0 \/ 6\.7 \/ 33\.3 \|/);
    expect(md).toContain("ended in an error");
    expect(reportCsv(viaCli()).split("\n")[0]).toMatch(/^model,setting,researcher,protocol,backend,max_steps,sampling,level,/);
    // The page's Results writes the same CSV for the same trajectories.
    expect(reportCsv(viaPage())).toBe(reportCsv(viaCli()));
    const one = buildReport([{ source: "a", trajectory: SOLVED }]);
    expect(one.varying).toEqual(["protocol"]);
    expect(reportMarkdown({ ...one, missing: [] })).toContain("| model | setting | researcher | protocol | tasks | L0 |");
    // Two profiles of one episode are two rows, each named.
    const ref = structuredClone(SOLVED) as { config: Record<string, unknown> };
    ref.config.protocol = "reference";
    const both = buildReport([
      { source: "a", trajectory: SOLVED },
      { source: "b", trajectory: ref },
    ]);
    expect(both.rows.map((r) => r.protocol)).toEqual(["playground", "reference"]);
    expect(both.duplicates).toEqual([]);
  });

  it("writes a model name with a comma or a quote quoted, and one a spreadsheet would read as a formula as text", () => {
    const named = (model: string) => {
      const t = structuredClone(SOLVED) as { config: Record<string, unknown> };
      t.config.model = model;
      return { source: model, trajectory: t as unknown as Trajectory };
    };
    const csv = reportCsv(buildReport([named('openai:a,"b"'), named("=HYPERLINK(1)")]));
    expect(csv).toContain("\n'=HYPERLINK(1),memory_agent,");
    expect(csv).toContain('\n"openai:a,""b""",memory_agent,');
  });
});

describe("buildReport rules", () => {
  const input = (t: Trajectory, source = t.versions.task.id): ReportInput => ({ source, trajectory: t });

  it("default n: 10, or the largest turn limit when smaller", () => {
    expect(defaultN([])).toBe(10);
    expect(defaultN([3, 5])).toBe(5);
    expect(defaultN([3, 20])).toBe(10);
    const short = [episode({ task: "a", turns: 2, maxTurns: 2, stopped: "max_turns" }), episode({ task: "b", maxTurns: 3 })];
    const r = buildReport(short.map((t) => input(t)));
    expect(r.n).toBe(3);
    expect(r.rows[0]?.curve).toEqual([0, 0, 0.5]);
    expect(episodes(r.belowN)).toEqual(["openai:gpt-4o-mini memory_agent L4 a [pyodide]"]);
    expect(
      buildReport(
        short.map((t) => input(t)),
        1,
      ).n,
    ).toBe(1);
    expect(() => buildReport([], 0)).toThrow(/whole number >= 1/);
    expect(() => buildReport([], 1.5)).toThrow(/whole number >= 1/);
  });

  it("takes the backend from the turns' runs, else from versions.python", () => {
    expect(episodeConditions(episode({ task: "a", backend: "native" })).backend).toBe("native");
    const noTurns = episode({ task: "a", backend: "native", turns: 0, stopped: "error", error: "x" });
    expect(episodeConditions(noTurns).backend).toBe("native");
    expect(episodeConditions({ ...noTurns, versions: { ...noTurns.versions, python: "unknown" } }).backend).toBe("unknown");
  });

  it("tells decoding settings and actions per turn apart, and lists what cannot be read", () => {
    const warm = episode({ task: "min-p-sampling" });
    warm.config.sampling = { coder: { temperature: 0.2 }, researcher: {} };
    const steps = episode({ task: "min-p-sampling" });
    steps.config.maxSteps = 5;
    expect(episodeConditions(warm)).toEqual({ protocol: "playground", backend: "pyodide", maxSteps: 3, sampling: "coder temperature=0.2" });
    const r = buildReport([input(SOLVED), input(warm), input(steps), { source: "bad.json", trajectory: { schemaVersion: 9 } }]);
    expect(r.rows).toHaveLength(3);
    expect(r.varying).toEqual(["protocol", "maxSteps", "sampling"]);
    expect(r.duplicates).toEqual([]);
    expect(r.unreadable).toEqual([expect.stringMatching(/^bad\.json: trajectory: schemaVersion: unknown version 9/)]);
  });
});
