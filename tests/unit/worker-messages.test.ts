import { describe, expect, it } from "vitest";
import { FORGED_LINE } from "../../src/python/forged-line";
import { sentAtOnce } from "../../src/python/worker-core";
import { parseFileRequest, parseFromWorker } from "../../src/python/worker-messages";

describe("messages from a Pyodide worker", () => {
  it("passes each well-formed message through unchanged", () => {
    const good = [
      { type: "ready", version: "3.14.2 (pyodide 314.0.7)", fromSnapshot: true },
      { type: "snapshot", bytes: new Uint8Array([1, 2, 3]) },
      { type: "init-error", message: "Pyodide could not start" },
      { type: "accepted", runId: 3 },
      { type: "tainted", runId: 3, message: "tainted: ..." },
      { type: "started", runId: 3 },
      { type: "events", runId: 3, events: ['{"type": "test-start", "id": "T.test_a"}', '{"type": "end"}'] },
      { type: "done", runId: 3, memoryBytes: 1 << 24, tainted: "" },
      { type: "packages-error", runId: 3, message: "package numpy could not be loaded" },
      { type: "failed", runId: 3, message: "boom", fatal: false },
      { type: "closing" },
    ];
    for (const msg of good) expect(parseFromWorker(msg)).toEqual(msg);
  });

  it("drops anything else: unknown kinds, missing or extra fields, wrong types", () => {
    const bad: unknown[] = [
      null,
      "done",
      42,
      { type: "verdict", passed: true },
      { type: "done", runId: 3, memoryBytes: 0 },
      { type: "done", runId: "3", memoryBytes: 0, tainted: "" },
      { type: "done", runId: -1, memoryBytes: 0, tainted: "" },
      { type: "done", runId: 1.5, memoryBytes: 0, tainted: "" },
      { type: "event", runId: 3, event: '{"type": "end"}' },
      { type: "events", runId: 3, events: [{ type: "end" }] },
      { type: "events", runId: 3, events: '{"type": "end"}' },
      { type: "events", runId: 3, events: ["{}"], results: { passed: 12 } },
      { type: "ready", version: "3.14", fromSnapshot: false, expected: {} },
      { type: "ready", version: "3.14" },
      { type: "snapshot", bytes: [1, 2, 3] },
      { type: "failed", runId: 3, message: "x", fatal: "yes" },
    ];
    for (const msg of bad) expect(parseFromWorker(msg), JSON.stringify(msg)).toBeNull();
  });

  it("says which event lines go out at once and which may wait for the next one", () => {
    expect(sentAtOnce('{"type": "test-start", "id": "T.test_a"}')).toBe(true);
    expect(sentAtOnce('{"type": "output", "stream": "stdout", "text": "x"}')).toBe(true);
    expect(sentAtOnce('{"type": "fixture-start", "name": "setUpClass of T", "tests": []}')).toBe(true);
    expect(sentAtOnce('{"type": "end", "poisoned": null}')).toBe(true);
    expect(sentAtOnce(FORGED_LINE)).toBe(true);
    expect(sentAtOnce('{"type": "test-outcome", "id": "T.test_a", "status": "passed"}')).toBe(false);
    expect(sentAtOnce('{"type": "check", "key": "k"}')).toBe(false);
    expect(sentAtOnce('{"type": "test-result", "id": "T.test_a"}')).toBe(false);
    expect(sentAtOnce('{"type": "fixture", "name": "setUpClass"}')).toBe(false);
  });

  it("tells a file request from a worker message", () => {
    expect(parseFileRequest({ type: "need-file", url: "https://x/pyodide.asm.wasm" })).toEqual({
      type: "need-file",
      url: "https://x/pyodide.asm.wasm",
    });
    expect(parseFileRequest({ type: "need-file", url: 7 })).toBeNull();
    expect(parseFromWorker({ type: "need-file", url: "https://x/a" })).toBeNull();
  });
});
