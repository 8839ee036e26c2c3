/**
 * Harness events as the backends feed them to the host's assembler (src/python/assembler.ts), one JSON line each:
 * for tests that script a run's event stream.
 */
import type { RunAssembler } from "../../src/python/assembler";

/** A `test-result` event for `id` with `status` (any value: the assembler must refuse what it does not know). */
export const resultEvent = (id: string, status: unknown, extra: Record<string, unknown> = {}) => ({
  type: "test-result",
  id,
  status,
  durationMs: 1,
  message: "",
  traceback: "",
  line: null,
  stdout: "",
  stderr: "",
  subtests: [],
  ...extra,
});

/** Feed `events` to `asm`, one JSON line each. */
export function feed(asm: RunAssembler, events: object[]): void {
  for (const ev of events) asm.pushLine(JSON.stringify(ev));
}
