import { describe, expect, it } from "vitest";
import { MemorySnapshot, type SnapshotFs, type SnapshotModule } from "../../src/python/memory-snapshot";

/** A module with 64 KiB of memory (heap top at 1 KiB), a real function table and an empty reference table. */
function fakeModule(): SnapshotModule {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const heap32 = new Uint32Array(memory.buffer);
  heap32[0] = 1024; // the sbrk pointer lives at address 0 and says the heap ends at 1024
  return {
    memory,
    HEAPU8: new Uint8Array(memory.buffer),
    _emscripten_get_sbrk_ptr: () => 0,
    __hiwire_get: () => {
      throw new Error("past the end");
    },
    wasmTable: new WebAssembly.Table({ element: "anyfunc", initial: 4 }),
  };
}

/** A file system with nothing open and no scratch folder. */
function fakeFs(): SnapshotFs {
  return {
    streams: [],
    ignorePermissions: false,
    nextInode: 40,
    cwd: () => "/",
    chdir: () => {},
    close: () => {},
    readdir: () => [],
    lookupPath: () => {
      throw new Error("no such file");
    },
    isDir: () => false,
    rmdir: () => {},
    unlink: () => {},
  };
}

describe("MemorySnapshot", () => {
  it("sees a function table that grew, even when the table object says otherwise", () => {
    const mod = fakeModule();
    const snap = new MemorySnapshot(mod, fakeFs(), []);
    snap.take();
    mod.wasmTable.grow(1);
    // Code that reached JavaScript hides the growth behind an own property of the table.
    Object.defineProperty(mod.wasmTable, "length", { get: () => 4, configurable: true });
    expect(mod.wasmTable.length).toBe(4);
    expect(snap.restore()).toContain("the function table grew");
  });

  it("clears what a run left past the snapshot's heap top, and what lay past the top when it was taken", () => {
    const mod = fakeModule();
    const heap32 = new Uint32Array(mod.memory.buffer);
    mod.HEAPU8[3000] = 9;
    const snap = new MemorySnapshot(mod, fakeFs(), []);
    snap.take();
    expect(mod.HEAPU8[3000]).toBe(0);
    // The run's heap grows to 8 KiB, and it writes there.
    heap32[0] = 8192;
    mod.HEAPU8[2000] = 7;
    mod.HEAPU8[8000] = 7;
    expect(snap.restore()).toBe("");
    expect(heap32[0]).toBe(1024);
    expect(mod.HEAPU8[2000]).toBe(0);
    expect(mod.HEAPU8[8000]).toBe(0);
  });

  it("writes the memory back through the memory itself, whatever the module's views were replaced by", () => {
    const mod = fakeModule();
    const snap = new MemorySnapshot(mod, fakeFs(), []);
    mod.HEAPU8[200] = 5;
    snap.take();
    mod.HEAPU8[200] = 6;
    const real = mod.HEAPU8;
    // Code that reached JavaScript swaps the views for ones whose writes go nowhere.
    Object.defineProperty(mod, "HEAPU8", { get: () => ({ length: real.length, set: () => {} }), configurable: true });
    Object.defineProperty(mod, "_emscripten_get_sbrk_ptr", { value: () => 4096 });
    expect(snap.restore()).toBe("");
    expect(real[200]).toBe(5);
  });

  it("writes the memory back and gives new files the inode numbers they had", () => {
    const mod = fakeModule();
    const fs = fakeFs();
    const snap = new MemorySnapshot(mod, fs, []);
    mod.HEAPU8[100] = 7;
    snap.take();
    mod.HEAPU8[100] = 9;
    fs.nextInode = 1300;
    expect(snap.restore()).toBe("");
    expect(mod.HEAPU8[100]).toBe(7);
    expect(fs.nextInode).toBe(40);
  });
});
