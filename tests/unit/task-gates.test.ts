/** The task gates' pure parts and the mutation operators (python3's ast, in a subprocess: nothing is executed). */
import { describe, expect, it } from "vitest";
import { PackagesUnavailable, type TaskFacts, tasksMarkdown } from "../../src/cli/task-gates/doc";
import { coverageOutcome, lineRanges, mutationOutcome, percentText, survivorLine, TaskGates } from "../../src/cli/task-gates/gates";
import { generateMutants, MUTATION_OPERATORS, type Mutant, type MutationReport, selectMutants } from "../../src/cli/task-gates/mutation";
import type { Task } from "../../src/core/task";
import type { CoverageReport } from "../../src/python/coverage-runner";
import type { PythonRuntime } from "../../src/python/runtime";

/** The mutated lines of `source` made by `operator`, as "line: text". */
function made(source: string, operator: Mutant["operator"]): string[] {
  return generateMutants(source)
    .filter((m) => m.operator === operator)
    .map((m) => `${m.line}: ${m.mutated.trim()}`);
}

describe("mutation operators", () => {
  it("arithmetic: swaps + and -, * and /, and the other operators, in expressions and augmented assignments", () => {
    const src = "def f(a, b):\n    x = a + b * 2\n    x -= a // b\n    return x ** 2 % 3\n";
    const got = made(src, "arithmetic");
    expect(got).toEqual(
      expect.arrayContaining([
        "2: x = a - b * 2",
        "2: x = a + b / 2",
        "3: x += a // b",
        "3: x -= a / b",
        "4: return x * 2 % 3",
        "4: return x ** 2 // 3",
      ]),
    );
    expect(got).toHaveLength(6);
  });

  it("comparison: < and <=, > and >=, == and !=, is and is not, in and not in, each operator of a chain", () => {
    const src = "def f(a, b, xs):\n    if 0 <= a < b:\n        return a == b\n    return a is not None and b not in xs\n";
    expect(made(src, "comparison")).toEqual([
      "2: if 0 < a < b:",
      "2: if 0 <= a <= b:",
      "3: return a != b",
      "4: return a is None and b not in xs",
      "4: return a is not None and b in xs",
    ]);
  });

  it("constant: an integer n becomes n + 1 and n - 1; booleans and plain default values stay", () => {
    const src = "def f(xs, k=3, on=True):\n    return xs[1] if on else k\n";
    expect(made(src, "constant")).toEqual(["2: return xs[0] if on else k", "2: return xs[2] if on else k"]);
  });

  it("statement: a simple statement inside a function becomes pass; docstrings and module-level code stay", () => {
    const src =
      'LIMIT = 3\n\n\ndef f(x):\n    """Doc."""\n    y = x + 1\n    if y > LIMIT:\n        raise ValueError("big")\n    return y\n';
    const got = generateMutants(src).filter((m) => m.operator === "statement");
    expect(got.map((m) => `${m.line}: ${m.description}`)).toEqual([
      "6: dropped `y = x + 1`",
      '8: dropped `raise ValueError("big")`',
      "9: dropped `return y`",
    ]);
    expect(got[1]?.source).toContain("    if y > LIMIT:\n        pass\n    return y\n");
  });

  it("arguments: neighbouring positional arguments swapped, unless their texts are equal", () => {
    const src = "def f(a, b, c):\n    return g(a, b, c) + h(a, a)\n";
    expect(made(src, "arguments")).toEqual(["2: return g(b, a, c) + h(a, a)", "2: return g(a, c, b) + h(a, a)"]);
  });

  it("default: numbers, booleans and strings change; None stays", () => {
    const src = 'def f(x, n=3, r=0.5, zero=0.0, neg=-2, flag=True, s="a", e="", z=None):\n    return x\n';
    expect(
      generateMutants(src)
        .filter((m) => m.operator === "default")
        .map((m) => m.description),
    ).toEqual([
      "default 3 -> 4",
      "default 0.5 -> 1.0",
      "default 0.0 -> 1.0",
      "default -2 -> -1",
      "default True -> False",
      "default \"a\" -> ''",
      "default \"\" -> 'x'",
    ]);
  });

  it("never touches annotations, f-strings or docstrings, and changes one place of the text only", () => {
    const src = 'def f(x: "int" = 1) -> list[int]:\n    """Add 2."""\n    s = f"{x + 1}"  # é + 2\n    return [x + 2, s]\n';
    const all = generateMutants(src);
    expect(all.some((m) => m.line === 1 && m.operator !== "default")).toBe(false);
    expect(all.some((m) => m.line === 2)).toBe(false);
    expect(all.filter((m) => m.line === 3).map((m) => m.operator)).toEqual(["statement"]);
    const plus = all.find((m) => m.operator === "arithmetic" && m.line === 4);
    expect(plus?.mutated).toBe("    return [x - 2, s]");
    // Everything but the mutated line is the original text, comments included.
    expect(plus?.source.split("\n").filter((l, i) => l !== src.split("\n")[i])).toEqual(["    return [x - 2, s]"]);
  });

  it("finds the operator between operands spread over lines with brackets and comments", () => {
    const src = "def f(a, b):\n    return (a  # the first\n            ) * (\n        b)\n";
    expect(made(src, "arithmetic")).toEqual(["3: ) / ("]);
  });

  it("reports a source that does not parse", () => {
    expect(() => generateMutants("def f(:\n")).toThrow(/could not make the mutants/);
  });
});

function fakeMutant(operator: Mutant["operator"], line: number): Mutant {
  return { operator, line, col: 0, description: "x", original: "a", mutated: "b", source: `# ${operator} ${line}` };
}

describe("selectMutants", () => {
  const all = [
    ...Array.from({ length: 50 }, (_, i) => fakeMutant("statement", i + 1)),
    ...Array.from({ length: 4 }, (_, i) => fakeMutant("comparison", i * 10 + 1)),
    ...Array.from({ length: 30 }, (_, i) => fakeMutant("arithmetic", i + 1)),
  ];

  it("keeps everything under the cap", () => {
    expect(selectMutants(all.slice(0, 10), 60)).toHaveLength(10);
  });

  it("shares the cap out among operators, spreads each share over the file, and is deterministic", () => {
    const chosen = selectMutants(all, 20);
    expect(chosen).toHaveLength(20);
    const count = (op: string) => chosen.filter((m) => m.operator === op).length;
    // comparison has 4 (< its share of 6): the rest goes to the others.
    expect(count("comparison")).toBe(4);
    expect(count("statement") + count("arithmetic")).toBe(16);
    expect(Math.abs(count("statement") - count("arithmetic"))).toBeLessThanOrEqual(1);
    const lines = chosen.filter((m) => m.operator === "statement").map((m) => m.line);
    expect(Math.min(...lines)).toBeLessThan(10);
    expect(Math.max(...lines)).toBeGreaterThan(40);
    expect(selectMutants([...all].reverse(), 20).map((m) => m.source)).toEqual(chosen.map((m) => m.source));
    expect(chosen.map((m) => m.line)).toEqual([...chosen.map((m) => m.line)].sort((a, b) => a - b));
  });

  it("lists every operator", () => {
    expect([...MUTATION_OPERATORS].sort()).toEqual(["arguments", "arithmetic", "comparison", "constant", "default", "statement"]);
  });
});

describe("gate outcomes", () => {
  it("never rounds a percentage up to a whole number it misses", () => {
    expect(percentText(79.96)).toBe("79.9");
    expect(percentText(88.888)).toBe("88.9");
    expect(percentText(80)).toBe("80.0");
    expect(lineRanges([3, 4, 5, 9, 11, 12])).toBe("3-5, 9, 11-12");
  });

  const coverage = (executed: number[], missing: number[]): CoverageReport => ({
    backend: "native",
    method: "sys.settrace",
    python: "3.11.7",
    executable: [...executed, ...missing].sort((a, b) => a - b),
    executed,
    missing,
    percent: (100 * executed.length) / (executed.length + missing.length),
    tests: 2,
    problems: [],
    durationMs: 10,
  });

  it("coverage: the percentage and the lines not covered", () => {
    const bad = coverageOutcome(coverage([1, 2, 3], [4, 5]));
    expect(bad).toMatchObject({ name: "coverage >= 80%", ok: false });
    expect(bad.detail).toBe("60.0% (3/5 lines, sys.settrace, Python 3.11.7); not covered: canonical.py lines 4-5");
    expect(coverageOutcome(coverage([1, 2, 3, 4], [5])).ok).toBe(true);
    expect(coverageOutcome(new Error("python3 stopped")).detail).toBe("python3 stopped");
  });

  it("mutation: the score and every survivor with file, line and mutated line", () => {
    const mk = (line: number, killed: boolean) => ({
      mutant: { ...fakeMutant("comparison", line), description: "< -> <=", mutated: "  if a <= b:" },
      killed,
      by: killed ? "T.t failed" : "",
      durationMs: 5,
    });
    const r: MutationReport = {
      generated: 12,
      outcomes: [mk(3, true), mk(4, true), mk(5, true), mk(6, true), mk(7, false)],
      killed: 4,
      score: 80,
      timeLimitMs: 2000,
      backend: "native",
      durationMs: 1000,
    };
    const o = mutationOutcome(r);
    expect(o.ok).toBe(true);
    expect(o.detail).toContain("80.0% (4/5 mutants killed, 12 made, native");
    expect(o.detail).toContain("\n  survived: canonical.py:7 [comparison < -> <=] if a <= b:");
    // A default's description names its operator already: not twice.
    expect(survivorLine({ mutant: { line: 3, operator: "default", description: "default 2 -> 3", mutated: "def f(x=3):" } })).toBe(
      "canonical.py:3 [default 2 -> 3] def f(x=3):",
    );
    // Past the first 20, the detail says how many more, and where every one is written.
    const many = mutationOutcome({ ...r, outcomes: Array.from({ length: 25 }, (_, i) => mk(i + 1, false)), killed: 0, score: 0 });
    expect(many.detail.match(/survived:/g)).toHaveLength(20);
    expect(many.detail).toContain("... and 5 more (recode tasks doc <task> --out <file> writes every survivor)");
    // Survivors come with one word on those no test can kill; none, none.
    expect(o.detail).toMatch(
      /\n {2}\(a survivor that gives the canonical solution's results on every input, an equivalent mutant, cannot be killed/,
    );
    expect(mutationOutcome({ ...r, outcomes: [mk(3, true)], killed: 1, score: 100 }).detail).not.toContain("equivalent");
  });
});

describe("docs/tasks.md", () => {
  it("has a section for every task, the summary table and the operators", () => {
    const task = (id: string) =>
      ({
        id,
        meta: {
          title: `Title of ${id}`,
          paper: { title: "P", authors: ["A"], venue: "V", year: 2020, url: "https://example.org" },
          domain: "d",
          packages: [],
          target_file_path: "m.py",
          interfaces: [{ name: "f", tests: ["T.test_a"], guidance: "g" }],
          time_limit_s: 10,
          difficulty: "easy",
          start: "stubs",
        },
      }) as unknown as Task;
    const facts: TaskFacts[] = [
      { id: "one", task: task("one"), coverage: { native: new Error("no python3") }, runMs: { native: 12.4 }, tests: ["T.test_a"] },
      { id: "two", task: null, error: "task.json is broken", coverage: {}, runMs: {}, tests: [] },
      {
        id: "three",
        task: task("three"),
        coverage: { native: new Error("x") },
        runMs: { pyodide: new PackagesUnavailable("package numpy cannot be loaded"), native: 5 },
        tests: ["T.test_a"],
      },
    ];
    const md = tasksMarkdown(facts, { native: "3.11.7" });
    // A backend that cannot load the task's packages says so instead of an error or a 0% coverage.
    expect(md).toMatch(/\| \[three\]\(#three-title-of-three\) .*\| - \| error \| - \| no packages \| 5 ms \|/);
    expect(md).toContain("| pyodide | not measured: package numpy cannot be loaded | - | - |");
    expect(md).toContain("| native, Python 3.11.7 | 12 ms |");
    expect(md).toContain("## one: Title of one");
    expect(md).toContain("## two");
    expect(md).toContain("task.json is broken");
    expect(md).toContain("| `f` | `T.test_a` |");
    for (const op of MUTATION_OPERATORS) expect(md).toContain(`| ${op} |`);
  });
});

describe("the gates without a passing canonical solution", () => {
  it("say which check above to read: the canonical solution's failure, or the checks that kept it from running", async () => {
    const gates = new TaskGates();
    const task = {} as Task;
    const runtime = {} as PythonRuntime;
    const failed = await gates.checks(task, runtime, [{ name: "canonical passes", ok: false, detail: "1 failed" }], true);
    expect(failed.map((c) => [c.name, c.ok, c.detail])).toEqual([
      ["coverage >= 80%", false, 'needs a canonical solution that passes every test (see "canonical passes" above)'],
      ["mutation score >= 80%", false, 'needs a canonical solution that passes every test (see "canonical passes" above)'],
    ]);
    // No expected.json, say: the canonical solution was not run, and no "canonical passes" row is shown.
    const unchecked = await gates.checks(task, runtime, [{ name: "recorded", ok: false, detail: "no expected.json" }], false);
    expect(unchecked.map((c) => c.detail)).toEqual([
      "needs a canonical solution that passes every test, which could not be checked (see the failed checks above)",
    ]);
  });
});
