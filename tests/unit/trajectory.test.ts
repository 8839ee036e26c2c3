import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { aggregate } from "../../src/core/metrics";
import {
  episodeSummary,
  restoreTrajectory,
  TRAJECTORY_SCHEMA_VERSION,
  TrajectoryError,
  validateTrajectory,
} from "../../src/core/trajectory";

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/trajectories/${name}`, import.meta.url), "utf8");
const v1Text = fixture("v1-solved-turn1.json");
const v4Text = fixture("v4-current.json");
const v3Text = fixture("v3-without-not-run.json");
const v2OldText = fixture("v2-counts-without-xfail.json");
const clone = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

function restoreError(value: unknown): string {
  try {
    restoreTrajectory(value);
  } catch (err) {
    expect(err).toBeInstanceOf(TrajectoryError);
    return (err as Error).message;
  }
  throw new Error("expected restoreTrajectory to fail");
}

describe("restoreTrajectory: current version", () => {
  it("reads the current fixture unchanged, from text or value", () => {
    expect(TRAJECTORY_SCHEMA_VERSION).toBe(4);
    const t = restoreTrajectory(v4Text);
    expect(t).toEqual(JSON.parse(v4Text));
    expect(restoreTrajectory(JSON.parse(v4Text))).toEqual(t);
    expect(t.sharedTurn0).toBe(true);
    expect(t.turns[1]?.actions.map((a) => a.type)).toEqual(["READ", "BOGUS", "REPLACE"]);
  });

  it("summarises the episode for metrics: collection error, partial, solved at turn 2", () => {
    const s = episodeSummary(restoreTrajectory(v4Text));
    expect(s).toEqual({
      model: "openai:gpt-4o-mini",
      setting: "memory_agent",
      level: 4,
      researcher: "llm:openai:gpt-4o-mini",
      taskId: "min-p-sampling",
      turns: [
        { passed: 0, total: 0, collectionError: true, allPassed: false },
        { passed: 1, total: 3, collectionError: false, allPassed: false },
        { passed: 3, total: 3, collectionError: false, allPassed: true },
      ],
      tokens: { prompt: 4200, completion: 270 },
      wallMs: 20050,
    });
    const [row] = aggregate([s]);
    expect(row).toMatchObject({ recallAtN: 1, passRate: 1, solvedCount: 1 });
    expect(row?.mrr).toBeCloseTo(1 / 3, 12);
  });
});

describe("restoreTrajectory: upgrade from version 3", () => {
  it("adds a zero not_run count, and nothing else", () => {
    const t = restoreTrajectory(v3Text);
    expect(t.schemaVersion).toBe(4);
    expect(t.turns.every((x) => x.run.counts.not_run === 0)).toBe(true);
    expect(t).toEqual(restoreTrajectory(v4Text));
  });

  it("reads a version 4 run with a test the run never reached as not solved", () => {
    const t = clone(v4Text) as { turns: { run: { tests: { status: string }[]; counts: Record<string, number> } }[] };
    const run = (t.turns[1] as (typeof t.turns)[number]).run;
    (run.tests[2] as { status: string }).status = "not_run";
    run.counts.skipped = 0;
    run.counts.not_run = 1;
    const back = restoreTrajectory(t);
    expect(back.turns[1]?.run.counts).toMatchObject({ not_run: 1, skipped: 0 });
    expect(episodeSummary(back).turns[1]).toEqual({ passed: 1, total: 3, collectionError: false, allPassed: false });
    // The counts must agree with the statuses.
    run.counts.not_run = 0;
    expect(restoreError(t)).toMatch(/counts\.not_run: 0 but 1 tests have status not_run/);
  });
});

describe("restoreTrajectory: upgrade from version 2", () => {
  it("adds zero xfail/xpass counts and empty subtests, and nothing else", () => {
    const t = restoreTrajectory(v2OldText);
    expect(t.schemaVersion).toBe(4);
    expect(t.turns[1]?.run.counts).toMatchObject({ xfail: 0, xpass: 0 });
    expect(t.turns[1]?.run.tests.every((x) => Array.isArray(x.subtests) && x.subtests.length === 0)).toBe(true);
    expect(t).toEqual(restoreTrajectory(v4Text));
  });
});

describe("restoreTrajectory: upgrade from version 1", () => {
  it("moves configuration, fills versions, zero tokens and defaults", () => {
    const t = restoreTrajectory(v1Text);
    const v1 = JSON.parse(v1Text);
    expect(t.schemaVersion).toBe(4);
    expect(t.createdAt).toBe("2026-03-02T10:15:00.000Z");
    expect(t.config).toEqual({
      model: "ollama:qwen2.5-coder:7b",
      researcher: "rules",
      level: 2,
      setting: "memory_agent",
      maxTurns: 10,
      maxSteps: 3,
    });
    expect(t.versions).toEqual({ app: "unknown", python: "unknown", task: { id: "min-p-sampling", contentHash: null }, gitCommit: null });
    expect(t.sharedTurn0).toBe(false);
    expect(t.error).toBeNull();
    expect(t.turns.map((x) => x.index)).toEqual([0, 1]);
    // The run as recorded, with the fields later versions added.
    expect(t.turns[0]?.run).toMatchObject({ ...v1.turns[0].result, tests: expect.any(Array) });
    expect(t.turns[0]?.run.counts).toEqual({ ...v1.turns[0].result.counts, xfail: 0, xpass: 0, not_run: 0 });
    expect(t.turns[0]?.feedback).toEqual(v1.turns[0].feedback);
    expect(t.turns[0]?.messages).toEqual(v1.turns[0].messages);
    expect(t.turns[1]?.tokens).toEqual({ prompt: 0, completion: 0 });
    expect(t.turns[1]?.researcherTokens).toEqual({ prompt: 0, completion: 0 });
    // The upgraded record is a valid current record and survives a round trip.
    expect(validateTrajectory(t)).toEqual(t);
    expect(restoreTrajectory(JSON.stringify(t))).toEqual(t);
  });

  it("summarises with the skipped test counted as not passed", () => {
    expect(episodeSummary(restoreTrajectory(v1Text))).toEqual({
      model: "ollama:qwen2.5-coder:7b",
      setting: "memory_agent",
      level: 2,
      researcher: "rules",
      taskId: "min-p-sampling",
      turns: [
        { passed: 1, total: 3, collectionError: false, allPassed: false },
        { passed: 3, total: 3, collectionError: false, allPassed: true },
      ],
      tokens: { prompt: 0, completion: 0 },
      wallMs: 15120,
    });
  });

  it("marks an errored version 1 episode with a placeholder error text", () => {
    const v1 = clone(v1Text);
    v1.stoppedReason = "error";
    expect(restoreTrajectory(v1).error).toMatch(/unknown/);
  });
});

describe("restoreTrajectory: bad records", () => {
  it("rejects unknown, missing and newer versions", () => {
    expect(restoreError({ ...clone(v4Text), schemaVersion: 5 })).toBe(
      "trajectory: schemaVersion: unknown version 5; this build reads versions 1, 2, 3, 4 (the record comes from a newer build: update the app)",
    );
    expect(restoreError({ ...clone(v4Text), schemaVersion: "4" })).toMatch(/schemaVersion: unknown version "4"/);
    const { schemaVersion: _, ...noVersion } = clone(v4Text);
    expect(restoreError(noVersion)).toBe("trajectory: schemaVersion: missing; this build reads versions 1, 2, 3, 4");
  });

  it("rejects text that is not JSON, and non-objects", () => {
    expect(restoreError("{")).toMatch(/^trajectory: not valid JSON/);
    expect(restoreError([])).toBe("trajectory: expected a JSON object, got an array");
    expect(restoreError(null)).toBe("trajectory: expected a JSON object, got null");
  });

  it("names the invalid field of a current record", () => {
    const t = clone(v4Text) as { turns: { run: { counts: { passed: unknown } }; index: number }[]; config: Record<string, unknown> };
    (t.turns[1] as { run: { counts: { passed: unknown } } }).run.counts.passed = "one";
    expect(restoreError(t)).toMatch(/^trajectory: invalid version 4 record: turns\[1\]\.run\.counts\.passed: .*expected number/);

    const u = clone(v4Text) as { config: Record<string, unknown> };
    u.config.level = 5;
    expect(restoreError(u)).toMatch(/config\.level/);

    const w = clone(v4Text) as { turns: { index: number }[] };
    (w.turns[2] as { index: number }).index = 7;
    expect(restoreError(w)).toMatch(/turns\[2\]\.index: expected 2 \(the turn's position\), got 7/);

    const x = clone(v4Text) as { turns: unknown[] };
    x.turns.pop();
    expect(restoreError(x)).toMatch(/stoppedReason: is solved but the last turn did not pass every test/);

    const y = clone(v4Text);
    y.finished = false;
    expect(restoreError(y)).toMatch(/stoppedReason: an unfinished episode has stoppedReason null/);

    expect(restoreError({ ...clone(v4Text), extra: 1 })).toMatch(/\(top level\): Unrecognized key/);
  });

  it("names the invalid field of a version 1 record", () => {
    const v1 = clone(v1Text) as { turns: Record<string, unknown>[] };
    delete (v1.turns[0] as Record<string, unknown>).result;
    expect(restoreError(v1)).toMatch(/^trajectory: invalid version 1 record: turns\[0\]\.result: /);
  });

  it("validateTrajectory rejects an old record as the current version", () => {
    expect(() => validateTrajectory(JSON.parse(v1Text))).toThrow(/invalid version 4 record: schemaVersion/);
  });
});
