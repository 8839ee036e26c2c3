import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The array module code under test gets (harness `_array_stand_in`) against the interpreter's own, in python3:
// the same operations give the same results, and the interpreter's item-assignment bug has no way in.
const SCRIPT = fileURLToPath(new URL("../fixtures/array-stand-in/compare.py", import.meta.url));

describe("the array stand-in, with CPython's array as the oracle", () => {
  it("gives what array.array gives, refuses what it refuses, and passes descriptors over a socket", () => {
    const r = spawnSync("python3", [SCRIPT], { encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("ok");
  });
});
