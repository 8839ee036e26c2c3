/**
 * How a run goes on after its interpreter dies (runAttempts, src/python/runtime.ts): which time counts against
 * the time limit, and when the tests left are not run. Each attempt is scripted: it feeds the assembler the
 * events a harness would write, and says how it ended.
 */
import { describe, expect, it } from "vitest";
import { testsTimeMs } from "../../src/core/results";
import type { RunRequest } from "../../src/core/runtime-port";
import { RunAssembler } from "../../src/python/assembler";
import { type Attempt, runAttempts } from "../../src/python/runtime";
import { feed, resultEvent } from "../helpers/harness-events";

const IDS = ["T.test_a", "T.test_b", "T.test_c", "T.test_d"];

const REQ: RunRequest = {
  files: {},
  targetPath: "pkg/mod.py",
  candidate: "",
  tests: "",
  mode: "test",
  expected: null,
  packages: [],
  timeLimitMs: 300,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const passed = (id: string) => resultEvent(id, "passed");

const died: Attempt = { incident: null, stop: { kind: "crash", message: "exit(0)" }, died: true };

describe("runAttempts", () => {
  it("the time an attempt waits before its tests start is not the tests' time", async () => {
    const asm = new RunAssembler(REQ);
    const limits: number[] = [];
    const run = await runAttempts("pyodide", REQ, asm, performance.now(), async (limitMs, only) => {
      limits.push(limitMs);
      // A new interpreter, its seal and its packages: longer than the whole time limit, three times over.
      await sleep(120);
      const ids = only ?? IDS;
      feed(asm, [
        { type: "collected", tests: ids },
        { type: "test-start", id: ids[0] },
      ]);
      if (ids.length > 1) return { ...died, waitedMs: 120 };
      const id = ids[0] as string;
      feed(asm, [{ type: "test-outcome", id, status: "passed" }, passed(id), { type: "end", poisoned: null }]);
      return { incident: null, died: false, waitedMs: 120 };
    });
    expect(run.tests.map((t) => [t.id, t.status])).toEqual([
      ["T.test_a", "error"],
      ["T.test_b", "error"],
      ["T.test_c", "error"],
      ["T.test_d", "passed"],
    ]);
    expect(run.incident?.message).toContain("died (3 times)");
    expect(run.incident?.message).not.toContain("time limit");
    for (const limit of limits) expect(limit).toBeGreaterThan(200);
    // The waits are said beside the run's whole time (the page names them: "of which 0.48 s preparing Python").
    expect(run.waitedMs).toBe(480);
    expect(run.durationMs).toBeGreaterThanOrEqual(480);
    // What the time limit counts (and the validation's "within time limit" compares): the rest.
    expect(testsTimeMs(run)).toBeCloseTo(run.durationMs - 480, 6);
    expect(testsTimeMs({ durationMs: 30 })).toBe(30);
  });

  it("time the tests used is counted: when none is left, the tests left are not run", async () => {
    const asm = new RunAssembler(REQ);
    const run = await runAttempts("pyodide", REQ, asm, performance.now(), async (_limitMs, only) => {
      const ids = only ?? IDS;
      feed(asm, [
        { type: "collected", tests: ids },
        { type: "test-start", id: ids[0] },
      ]);
      await sleep(200);
      return { ...died, waitedMs: 0 };
    });
    expect(run.tests.map((t) => [t.id, t.status])).toEqual([
      ["T.test_a", "error"],
      ["T.test_b", "error"],
      ["T.test_c", "not_run"],
      ["T.test_d", "not_run"],
    ]);
    expect(run.incident?.message).toContain("until the time limit was reached");
  });

  it("a new interpreter that dies again before any test runs: the tests left are not run, and no more attempts are made", async () => {
    const asm = new RunAssembler(REQ);
    let attempts = 0;
    const run = await runAttempts("pyodide", { ...REQ, timeLimitMs: 60_000 }, asm, performance.now(), async (_limitMs, only) => {
      attempts++;
      const ids = only ?? IDS;
      feed(asm, [{ type: "collected", tests: ids }]);
      // The first attempt's death is blamed on test_a; the next ones die between tests, blamed on none.
      if (!only) feed(asm, [{ type: "test-start", id: "T.test_a" }]);
      return { ...died, waitedMs: 0 };
    });
    expect(attempts).toBe(2);
    expect(run.tests.map((t) => [t.id, t.status])).toEqual([
      ["T.test_a", "error"],
      ["T.test_b", "not_run"],
      ["T.test_c", "not_run"],
      ["T.test_d", "not_run"],
    ]);
    expect(run.incident?.message).toContain("died again before any of them ran");
    expect(run.tests[1]?.message).toBe("not run: a new interpreter died before any of the tests left ran (the interpreter died 2 times)");
  });

  it("a new interpreter that dies before it collects the tests it was given: they are not run, and no more attempts are made", async () => {
    const asm = new RunAssembler(REQ);
    let attempts = 0;
    const run = await runAttempts("native", { ...REQ, timeLimitMs: 60_000 }, asm, performance.now(), async (_limitMs, only) => {
      attempts++;
      // The first attempt collects and dies in test_a; the next dies as it starts (the candidate knows a retry).
      if (!only)
        feed(asm, [
          { type: "collected", tests: IDS },
          { type: "test-start", id: "T.test_a" },
        ]);
      return { ...died, waitedMs: 0 };
    });
    expect(attempts).toBe(2);
    expect(run.tests.map((t) => [t.id, t.status])).toEqual([
      ["T.test_a", "error"],
      ["T.test_b", "not_run"],
      ["T.test_c", "not_run"],
      ["T.test_d", "not_run"],
    ]);
    expect(run.incident?.message).toContain("died again before any of them ran (the tests left were not run)");
    expect(run.tests[1]?.message).toBe("not run: a new interpreter died before any of the tests left ran (the interpreter died 2 times)");
  });

  it("new interpreters' starts are not counted up to the time limit again: a run whose every test kills its interpreter still ends", async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `T.test_${String(i).padStart(2, "0")}`);
    const req = { ...REQ, timeLimitMs: 400 };
    const asm = new RunAssembler(req);
    const t0 = performance.now();
    const run = await runAttempts("pyodide", req, asm, t0, async (_limitMs, only) => {
      // Each interpreter takes 250 ms to start, and its first test kills it.
      await sleep(250);
      const rest = only ?? ids;
      feed(asm, [
        { type: "collected", tests: rest },
        { type: "test-start", id: rest[0] },
      ]);
      return { ...died, waitedMs: 250 };
    });
    const statuses = run.tests.map((t) => t.status);
    // The first start, then new ones for 400 ms (and the limit's 400 ms, spent on the starts beyond): about five
    // attempts, far fewer than the twelve tests.
    expect(statuses.filter((s) => s === "error").length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => s === "error").length).toBeLessThanOrEqual(6);
    expect(statuses.slice(statuses.indexOf("not_run")).every((s) => s === "not_run")).toBe(true);
    expect(run.incident?.message).toContain("until the time limit was reached");
    expect(run.tests.at(-1)?.message).toMatch(/^not run: the time limit was reached \(after the interpreter died \d times\)$/);
    expect(performance.now() - t0).toBeLessThan(250 + 400 + 400 + 250 + 1000);
  });
});
