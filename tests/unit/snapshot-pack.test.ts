import { describe, expect, it } from "vitest";
import { packSnapshot, unpackSnapshot } from "../../src/python/snapshot-pack";

/** Memory of `pages` 4 KiB pages (plus `tail` bytes) where the pages in `full` hold bytes and the rest are zero. */
function memory(pages: number, full: number[], tail = 0): Uint8Array {
  const m = new Uint8Array(pages * 4096 + tail);
  for (const p of full) for (let i = 0; i < 4096 && p * 4096 + i < m.length; i++) m[p * 4096 + i] = (p * 31 + i) % 251 || 1;
  return m;
}

describe("start snapshots without their empty pages", () => {
  it("keeps only the pages that hold anything, and gives back the same bytes", () => {
    const m = memory(64, [0, 1, 7, 40, 63]);
    const packed = packSnapshot(m);
    expect(packed.length).toBeLessThan(6 * 4096);
    expect(unpackSnapshot(packed)).toEqual(m);
  });

  it("a page with a single byte set is kept, a length that is no whole number of pages too", () => {
    const m = memory(10, [], 100);
    m[5 * 4096 + 4095] = 9;
    m[10 * 4096 + 99] = 7;
    const back = unpackSnapshot(packSnapshot(m));
    expect(back.length).toBe(m.length);
    expect(back).toEqual(m);
  });

  it("a view into a larger buffer, at an offset that is not 8-aligned, packs the view alone", () => {
    const big = new Uint8Array(8 * 4096 + 3);
    big.fill(5, 3 + 4096, 3 + 2 * 4096);
    const view = big.subarray(3);
    expect(unpackSnapshot(packSnapshot(view))).toEqual(view);
  });

  it("bytes kept before packing are given back as they are", () => {
    const raw = memory(4, [1, 2]);
    expect(unpackSnapshot(raw)).toBe(raw);
    expect(unpackSnapshot(new Uint8Array(3))).toHaveLength(3);
  });

  it("a packed snapshot cut short, or with bytes left over, is refused", () => {
    const packed = packSnapshot(memory(16, [2, 3, 9]));
    expect(() => unpackSnapshot(packed.subarray(0, packed.length - 1))).toThrow(/cut short/);
    expect(() => unpackSnapshot(packed.subarray(0, 13))).toThrow(/cut short/);
    const longer = new Uint8Array(packed.length + 1);
    longer.set(packed);
    expect(() => unpackSnapshot(longer)).toThrow(/left over/);
  });
});
