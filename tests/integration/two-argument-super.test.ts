import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PYTHONS_FOUND } from "../helpers/pythons";

// recode_super (the library's super().name given the two-argument form, so that it reads no frame) against the
// compiler's own zero-argument super(): the same classes compute the same, in each Python found (python3, where
// the form is no change, pyenv's 3.12 and later, and Pyodide's 3.14, where the harness gives it).
const SCRIPT = fileURLToPath(new URL("../fixtures/two-argument-super/compare.py", import.meta.url));
const MODULE = fileURLToPath(new URL("../../src/python/recode_super.py", import.meta.url));

const PYTHONS = PYTHONS_FOUND;

describe("super().name in the two-argument form, with the compiler's zero-argument form as the oracle", () => {
  it.each(PYTHONS)("%s: the same results, and every call hands its class and instance over", (python) => {
    const r = spawnSync(python, [SCRIPT], { encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("ok");
  });

  it("Pyodide's Python: the same", async () => {
    const { loadPyodide } = await import("pyodide");
    const py = await loadPyodide();
    py.FS.mkdirTree("/x/src/python");
    py.FS.mkdirTree("/x/tests/fixtures/two-argument-super");
    py.FS.writeFile("/x/src/python/recode_super.py", readFileSync(MODULE, "utf8"));
    const script = "/x/tests/fixtures/two-argument-super/compare.py";
    py.FS.writeFile(script, readFileSync(SCRIPT, "utf8"));
    let out = "";
    py.setStdout({ batched: (s: string) => (out += `${s}\n`) });
    py.runPython(
      `exec(compile(open(${JSON.stringify(script)}).read(), ${JSON.stringify(script)}, "exec"), {"__file__": ${JSON.stringify(script)}, "__name__": "__main__"})`,
    );
    expect(out.trim()).toBe("ok");
  }, 120_000);
});
