import { describe, expect, it } from "vitest";
import { applyCorrection, codeOfCorrection, topLevelNames } from "../../src/ui/feedback/apply";

const FILE = `import math


def helper(x):
    return x


@decorator
def target(a, b):
    """Doc."""
    return a - b


def other():
    pass
`;

describe("applying an L4 code correction", () => {
  it("takes the code out of a fenced block", () => {
    expect(codeOfCorrection("Fix:\n```python\ndef f():\n    return 1\n```\n")).toBe("def f():\n    return 1");
    expect(codeOfCorrection("def g(): pass")).toBe("def g(): pass");
  });

  it("replaces the one definition the correction holds, decorators included, and keeps the rest", () => {
    const out = applyCorrection(FILE, "```python\ndef target(a, b):\n    return a + b\n```");
    expect(out).toContain("def target(a, b):\n    return a + b\n\n\ndef other():");
    expect(out).not.toContain("@decorator");
    expect(out).toContain("def helper(x):");
    expect(topLevelNames(out)).toEqual(["helper", "target", "other"]);
  });

  it("appends a definition the file lacks and replaces the file for a whole-file correction", () => {
    expect(applyCorrection("x = 1\n", "def new():\n    pass")).toBe("x = 1\n\n\ndef new():\n    pass\n");
    // A whole file opens with its module docstring.
    const whole = '"""The module."""\n\nimport math\n\ndef a():\n    pass\n\ndef b():\n    pass';
    expect(applyCorrection(FILE, `\`\`\`python\n${whole}\n\`\`\``)).toBe(`${whole}\n`);
  });

  it("merges a self-contained correction: imports added, helpers put in, the rest of the file kept", () => {
    const correction =
      "```python\nimport math\nfrom pkg.util import clip\n\n\ndef _half(x):\n    return x / 2\n\n\ndef target(a, b):\n    return clip(_half(a) + math.floor(b))\n```";
    const out = applyCorrection(FILE, correction);
    expect(out).toBe(
      "import math\nfrom pkg.util import clip\n\n\ndef helper(x):\n    return x\n\n\ndef _half(x):\n    return x / 2\n\n\ndef target(a, b):\n    return clip(_half(a) + math.floor(b))\n\n\ndef other():\n    pass\n",
    );
  });
});
