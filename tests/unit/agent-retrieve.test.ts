import { describe, expect, it } from "vitest";
import { extractDefinitions, parseStep, RepoRetriever } from "../../src/core/agent";

const HELPERS = `"""Helpers."""
import math

EPS = 1e-9


@functools.lru_cache(
    maxsize=None,
)
def entropy(probs):
    """Shannon entropy of a probability vector, in nats."""
    return -sum(p * math.log(p) for p in probs if p > 0)


def kl_divergence(p, q):
    '''Kullback-Leibler divergence KL(p || q) between two distributions.'''
    return sum(a * math.log(a / q_) for a, q_ in zip(p, q) if a > 0)


def load_table(
    path,
    sep=",",
):
    text = """
def not_a_function():
    pass
"""
    return [line.split(sep) for line in open(path)]


class RunningMean:
    """Mean of a stream of numbers, updated one value at a time."""

    def update(self, x):
        self.n += 1
`;

const SCHEDULES = `def cosine_schedule(step, total):
    """Learning-rate multiplier that follows half a cosine from 1 to 0."""
    import math
    return 0.5 * (1 + math.cos(math.pi * step / total))


async def fetch_batch(loader):
    """Get the next batch of examples from a data loader."""
    return await loader.next()
`;

describe("extractDefinitions", () => {
  const defs = extractDefinitions("lib/helpers.py", HELPERS);

  it("finds the top-level functions and classes with decorators, docstrings and line numbers", () => {
    expect(defs.map((d) => [d.name, d.kind, d.line])).toEqual([
      ["entropy", "function", 7],
      ["kl_divergence", "function", 15],
      ["load_table", "function", 20],
      ["RunningMean", "class", 31],
    ]);
    const entropy = defs[0];
    expect(entropy?.source.startsWith("@functools.lru_cache(")).toBe(true);
    expect(entropy?.docstring).toBe("Shannon entropy of a probability vector, in nats.");
    expect(entropy?.signature).toBe("def entropy(probs):");
    expect(defs[1]?.docstring).toContain("Kullback-Leibler");
  });

  it("keeps multi-line signatures and column-0 text inside strings in one block", () => {
    const load = defs[2];
    expect(load?.signature).toBe('def load_table(\n    path,\n    sep=",",\n):');
    expect(load?.source).toContain("def not_a_function():");
    expect(load?.source.trimEnd().endsWith("return [line.split(sep) for line in open(path)]")).toBe(true);
    expect(load?.docstring).toBe("");
    expect(defs[3]?.source).toContain("def update(self, x):");
  });

  it("handles async functions", () => {
    expect(extractDefinitions("s.py", SCHEDULES).map((d) => d.name)).toEqual(["cosine_schedule", "fetch_batch"]);
  });
});

describe("RepoRetriever", () => {
  const repo = {
    "lib/helpers.py": HELPERS,
    "train/schedules.py": SCHEDULES,
    "model/target.py": "def entropy_target():\n    pass\n",
    "README.md": "def fake(): pass\n",
  };
  const r = new RepoRetriever(repo, "model/target.py");

  it("indexes every .py file except the target", () => {
    expect(r.definitions.map((d) => d.id)).toEqual([
      "lib/helpers.py::entropy",
      "lib/helpers.py::kl_divergence",
      "lib/helpers.py::load_table",
      "lib/helpers.py::RunningMean",
      "train/schedules.py::cosine_schedule",
      "train/schedules.py::fetch_batch",
    ]);
  });

  it("ranks the relevant helper first for a query", () => {
    expect(r.search("divergence between two distributions")[0]?.definition.name).toBe("kl_divergence");
    expect(r.search("entropy of probabilities")[0]?.definition.name).toBe("entropy");
    expect(r.search("cosine learning rate schedule")[0]?.definition.name).toBe("cosine_schedule");
    expect(r.search("running mean of a stream")[0]?.definition.name).toBe("RunningMean");
    expect(r.search("KLDivergence")[0]?.definition.name).toBe("kl_divergence");
  });

  it("returns at most the limit, and nothing for a query without matches", () => {
    expect(r.search("math", 3).length).toBeLessThanOrEqual(3);
    expect(r.search("zebra giraffe")).toEqual([]);
    expect(r.search("the of a")).toEqual([]);
    expect(() => r.search("x", 0)).toThrow(/limit/);
  });
});

describe("parseStep", () => {
  it("reads the reflection, action and argument", () => {
    expect(parseStep("Reflection: need the helper\nit is in utils\nAction: READ utils/x.py")).toMatchObject({
      ok: true,
      action: "READ",
      argument: "utils/x.py",
      reflection: "need the helper\nit is in utils",
    });
  });

  it("tolerates markdown bold, backticks and lower-case names", () => {
    expect(parseStep("**Reflection:** r\n**Action:** `retrieve softmax temperature`")).toMatchObject({
      ok: true,
      action: "RETRIEVE",
      argument: "softmax temperature",
    });
  });

  it("takes the block after REPLACE, or the reply's only block", () => {
    expect(parseStep("Action: REPLACE\n```py\na = 1\n```")).toMatchObject({ ok: true, code: "a = 1\n" });
    expect(parseStep("Reflection:\n```python\nb = 2\n```\nAction: REPLACE")).toMatchObject({ ok: true, code: "b = 2\n" });
    expect(parseStep("Action: REPLACE\n```python\nunclosed = 1\n")).toMatchObject({ ok: false });
  });

  it("reports what is wrong", () => {
    expect(parseStep("")).toMatchObject({ ok: false, problem: expect.stringContaining("no `Action:` line") });
    expect(parseStep("Action: READ")).toMatchObject({ ok: false, problem: expect.stringContaining("READ needs a file path") });
    expect(parseStep("Action: RETRIEVE")).toMatchObject({ ok: false, problem: expect.stringContaining("RETRIEVE needs a query") });
    expect(parseStep("Action:")).toMatchObject({ ok: false, problem: expect.stringContaining("unknown action nothing") });
  });
});
