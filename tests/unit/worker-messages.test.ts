import { describe, expect, it } from "vitest";
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
      { type: "event", runId: 3, event: '{"kind":"end"}' },
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
      { type: "event", runId: 3, event: { kind: "end" } },
      { type: "event", runId: 3, event: "{}", results: { passed: 12 } },
      { type: "ready", version: "3.14", fromSnapshot: false, expected: {} },
      { type: "ready", version: "3.14" },
      { type: "snapshot", bytes: [1, 2, 3] },
      { type: "failed", runId: 3, message: "x", fatal: "yes" },
    ];
    for (const msg of bad) expect(parseFromWorker(msg), JSON.stringify(msg)).toBeNull();
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
