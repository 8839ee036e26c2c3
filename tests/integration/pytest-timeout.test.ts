/**
 * A pytest run that the run's time limit interrupts (src/python/pytest-runtime.ts, pytest_entry.py): every
 * test it did not finish is reported by its own id, each case of a parametrised test included
 * (recode_pytest_collected.py writes what pytest collected before any test runs, and each test as it
 * begins): the one running then as a timeout, the others as not run. Real python3 and pytest.
 */
import { describe, expect, it } from "vitest";
import { isSharedTask } from "../../src/core/pytest-task";
import { loadTaskFromFiles } from "../../src/core/task";
import { PytestRuntime } from "../../src/python/pytest-runtime";

const TEST_PY = `import time
import pytest
from mod import f


def test_f():
    assert f() == 1


@pytest.mark.parametrize("n", [1, 2, 3])
def test_scale(n):
    if n == 2:
        time.sleep(60)
    assert f() * n == n


class TestG:
    def test_g(self):
        assert f() == 1
`;

function task() {
  const t = loadTaskFromFiles("recodeh-90", {
    "task.json": JSON.stringify({
      id: "recodeh-90",
      title: "R: pkg/mod.py",
      paper: { title: "P", authors: ["A"], venue: "RECODE-H benchmark", year: 2025, url: "https://example.org" },
      domain: "d",
      packages: [],
      target_file_path: "pkg/mod.py",
      interfaces: [{ name: "f", tests: ["test_f", "test_scale", "TestG.test_g"], guidance: "g" }],
      time_limit_s: 4,
      license: "MIT",
      isolation: "shared",
      pytest: { test_dir: "pkg", canonical_dir: "pkg", cwd: "pkg", pythonpath: ["."] },
    }),
    "instruction.md": "i",
    "paper.tex": "p",
    "canonical.py": "def f():\n    return 1\n",
    "test.py": TEST_PY,
    "repo/pkg/mod.py": "def f():\n    pass\n",
  });
  if (!isSharedTask(t)) throw new Error("not shared");
  return t;
}

describe("a pytest run out of time", () => {
  it("reports each collected test it did not finish by its own id, the cases of a parametrised test apart: the running one a timeout, the rest not run", async () => {
    const rt = new PytestRuntime({ python: "python3" });
    const r = await rt.run(task(), "def f():\n    return 1\n");
    expect(r.incident?.kind).toBe("timeout");
    expect(r.allPassed).toBe(false);
    expect(r.tests.map((t) => [t.id, t.status, t.interface])).toEqual([
      ["test_f", "passed", "f"],
      ["test_scale[1]", "passed", "f"],
      ["test_scale[2]", "timeout", "f"],
      ["test_scale[3]", "not_run", "f"],
      ["TestG.test_g", "not_run", "f"],
    ]);
    // The test that was running is the timeout; those after it were not run, as the unittest runner says.
    expect(r.tests[2]?.message).toBe("the run's time limit ran out before this test finished");
    expect(r.tests[3]?.message).toBe("not run: the run's time limit ran out before this test started");
  }, 120_000);
});
