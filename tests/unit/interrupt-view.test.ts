import { describe, expect, it } from "vitest";
import { interruptView } from "../../src/python/interrupt-view";

/** The interpreter's poll of the interrupt buffer, as CPython's Emscripten build writes it, with a host's store
 * coming between its read and its clear. */
function pollWithStoreBetween(buffer: Uint8Array, view: { 0: number } | Uint8Array, stored: number): number {
  const result = view[0] ?? 0;
  Atomics.store(buffer, 0, stored);
  view[0] = 0;
  return result;
}

describe("interruptView", () => {
  it("keeps an interrupt stored between the poll's read and its clear for the next poll", () => {
    const buffer = new Uint8Array(new SharedArrayBuffer(1));
    const view = interruptView(buffer);
    expect(pollWithStoreBetween(buffer, view, 2)).toBe(0);
    expect(buffer[0]).toBe(2);
    expect(view[0]).toBe(2);
    view[0] = 0;
    expect(view[0]).toBe(0);
  });

  it("clears an interrupt the poll read, once", () => {
    const buffer = new Uint8Array(new SharedArrayBuffer(1));
    const view = interruptView(buffer);
    Atomics.store(buffer, 0, 2);
    expect(view[0]).toBe(2);
    view[0] = 0;
    expect(buffer[0]).toBe(0);
    expect(view[0]).toBe(0);
  });

  it("the raw array loses that interrupt (why the view exists)", () => {
    const buffer = new Uint8Array(new SharedArrayBuffer(1));
    expect(pollWithStoreBetween(buffer, buffer, 2)).toBe(0);
    expect(buffer[0]).toBe(0);
  });
});
