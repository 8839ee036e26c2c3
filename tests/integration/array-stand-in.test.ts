import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PYTHONS_FOUND } from "../helpers/pythons";

// The array module code under test gets (harness `_array_stand_in`) against the interpreter's own, in python3:
// the same operations give the same results, and the interpreter's item-assignment bug has no way in. Run by
// each Python found (python3, and pyenv's 3.12 and later where installed: from 3.12 the stand-in gives its items
// as its buffer, which needs the interpreter's __buffer__).
const SCRIPT = fileURLToPath(new URL("../fixtures/array-stand-in/compare.py", import.meta.url));

const PYTHONS = PYTHONS_FOUND;

describe("the array stand-in, with CPython's array as the oracle", () => {
  it.each(PYTHONS)("%s: gives what array.array gives, refuses what it refuses, and passes descriptors over a socket", (python) => {
    const r = spawnSync(python, [SCRIPT], { encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("ok");
  });
});
