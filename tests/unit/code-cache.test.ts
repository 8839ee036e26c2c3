import { describe, expect, it } from "vitest";
import { CodeCache } from "../../src/python/code-cache";

const MAGIC = new Uint8Array([0x2b, 0x0e, 0x0d, 0x0a]);

describe("CodeCache", () => {
  it("writes an unchecked hash-based .pyc header before the code, beside the source in __pycache__", () => {
    const cache = new CodeCache(MAGIC, "cpython-314");
    cache.add("pkg/mod.py", "X = 1\n", new Uint8Array([0xe3, 1, 2]));
    const [[path, pyc]] = cache.pycFiles("/tmp/run", { "pkg/mod.py": "X = 1\n", "test.py": "import pkg\n" }) as [[string, Uint8Array]];
    expect(path).toBe("/tmp/run/pkg/__pycache__/mod.cpython-314.pyc");
    expect([...pyc.slice(0, 4)]).toEqual([...MAGIC]);
    expect(new DataView(pyc.buffer).getUint32(4, true)).toBe(1);
    expect([...pyc.slice(16)]).toEqual([0xe3, 1, 2]);
  });

  it("keys by path and text: another text is missing, the target file is never asked for", () => {
    const cache = new CodeCache(MAGIC, "cpython-314");
    cache.add("a.py", "A = 1\n", new Uint8Array([1]));
    const files = { "a.py": "A = 2\n", "b.py": "B = 1\n", "target.py": "T = 1\n", "data.txt": "x" };
    expect(cache.missing(files, "target.py").map(([rel]) => rel)).toEqual(["a.py", "b.py"]);
    expect(cache.pycFiles("/w", files)).toEqual([]);
  });

  it("starts over when full", () => {
    const cache = new CodeCache(MAGIC, "cpython-314", 2);
    cache.add("a.py", "", new Uint8Array([1]));
    cache.add("b.py", "", new Uint8Array([1]));
    cache.add("c.py", "", new Uint8Array([1]));
    expect(cache.size).toBe(1);
  });

  it("refuses a magic number of the wrong size", () => {
    expect(() => new CodeCache(new Uint8Array(3), "cpython-314")).toThrow(/4 bytes/);
  });
});
