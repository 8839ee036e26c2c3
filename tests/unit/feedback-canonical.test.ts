import { describe, expect, it } from "vitest";
import { definitionAt, extractDefinitions, findDefinition, listImports, referencesName, replaceDefinition } from "../../src/core/canonical";

const SOURCE = `"""Module docstring that mentions
def not_a_function(x):
    and class NotAClass: inside a string."""

import math
from pkg.util import (clip,
                      normalize as norm)
from . import sibling

CONSTANT = "def fake(): pass"

# About scale.
# Second comment line.
@decorator
@other(arg=1)
def scale(xs,
          factor=2.0,
          *, clip_to=None):
    '''Scale.

def inside_docstring():
    pass
'''
    def inner(x):
        return x * factor

    # a column-0 comment inside the body follows:
# still inside scale
    return [inner(x) for x in xs]  # trailing comment


# stray comment between definitions

class Model:
    """A model."""

    def fit(self, x):
        return \\
            x

    def predict(self, x):
        return x


async def fetch(url):
    return url
def one_liner(): return 1
if __name__ == "__main__":
    def not_top_level():
        pass
`;

describe("extractDefinitions", () => {
  const defs = extractDefinitions(SOURCE);

  it("finds exactly the top-level def and class blocks", () => {
    expect(Object.keys(defs)).toEqual(["scale", "Model", "fetch", "one_liner"]);
  });

  it("keeps decorators, the comments directly above, multi-line signatures, nested defs and docstrings", () => {
    const s = defs.scale as string;
    expect(s.startsWith("# About scale.\n# Second comment line.\n@decorator\n@other(arg=1)\ndef scale(xs,")).toBe(true);
    expect(s).toContain("def inside_docstring():");
    expect(s).toContain("    def inner(x):");
    expect(s).toContain("# still inside scale");
    expect(s.endsWith("    return [inner(x) for x in xs]  # trailing comment")).toBe(true);
    expect(s).not.toContain("stray comment");
  });

  it("keeps class bodies whole, with blank lines and backslash continuations", () => {
    const m = defs.Model as string;
    expect(m.startsWith('class Model:\n    """A model."""')).toBe(true);
    expect(m).toContain("        return \\\n            x");
    expect(m.endsWith("    def predict(self, x):\n        return x")).toBe(true);
  });

  it("reads async defs and one-line defs, and ignores defs inside strings and if-blocks", () => {
    expect(defs.fetch).toBe("async def fetch(url):\n    return url");
    expect(defs.one_liner).toBe("def one_liner(): return 1");
    expect(defs.not_a_function).toBeUndefined();
    expect(defs.fake).toBeUndefined();
    expect(defs.not_top_level).toBeUndefined();
  });

  it("lets the later of two definitions win, and handles CRLF and empty input", () => {
    expect(extractDefinitions("def f():\n    return 1\n\ndef f():\n    return 2\n").f).toBe("def f():\n    return 2");
    expect(extractDefinitions("def g():\r\n    return 1\r\n").g).toBe("def g():\n    return 1");
    expect(extractDefinitions("")).toEqual({});
  });

  it("is not fooled by brackets and quotes inside strings", () => {
    const src = 'def a():\n    s = "(unclosed [ { \'"\n    return s\n\ndef b():\n    return 2\n';
    expect(Object.keys(extractDefinitions(src))).toEqual(["a", "b"]);
    expect(extractDefinitions(src).a).toBe('def a():\n    s = "(unclosed [ { \'"\n    return s');
  });
});

describe("definition helpers", () => {
  it("definitionAt gives the enclosing top-level definition of a line", () => {
    const line = SOURCE.split("\n").findIndex((l) => l.includes("return x * factor")) + 1;
    expect(definitionAt(SOURCE, line)).toBe("scale");
    expect(definitionAt(SOURCE, 5)).toBeNull();
  });

  it("findDefinition gives line numbers", () => {
    const d = findDefinition(SOURCE, "fetch");
    expect(d?.kind).toBe("def");
    expect(SOURCE.split("\n")[(d?.defLine ?? 0) - 1]).toBe("async def fetch(url):");
  });

  it("replaceDefinition swaps one block and keeps the rest", () => {
    const src = "import math\n\n# old comment\ndef f(x):\n    return x\n\n\ndef g():\n    return f(1)\n";
    const out = replaceDefinition(src, "f", "def f(x):\n    return 2 * x\n");
    expect(out).toBe("import math\n\ndef f(x):\n    return 2 * x\n\n\ndef g():\n    return f(1)\n");
    expect(() => replaceDefinition(src, "h", "def h(): pass")).toThrow(/no top-level def or class named "h" \(found: f, g\)/);
  });

  it("listImports reads from-imports with parentheses and aliases, and plain imports", () => {
    expect(listImports(SOURCE)).toEqual([
      { module: "math", name: null, local: "math" },
      { module: "pkg.util", name: "clip", local: "clip" },
      { module: "pkg.util", name: "normalize", local: "norm" },
      { module: ".", name: "sibling", local: "sibling" },
    ]);
  });

  it("referencesName ignores comments and strings", () => {
    expect(referencesName("x = clip(y)", "clip")).toBe(true);
    expect(referencesName("x = util.clip(y)", "clip")).toBe(true);
    expect(referencesName("# clip here\nx = 'clip'", "clip")).toBe(false);
    expect(referencesName("x = clipped(y)", "clip")).toBe(false);
  });
});
