/**
 * The L4 direct code of an interface (self-contained excerpt of canonical.py)
 * and how it is applied to a target file (definitions replaced, imports added,
 * the rest kept).
 */
import { describe, expect, it } from "vitest";
import { applyDirectCode, isWholeFile } from "../../src/core/apply-code";
import { definitionAt, listStatements } from "../../src/core/canonical";
import { directCodeOf } from "../../src/core/direct-code";
import { parameters } from "../../src/core/python-signature";

const CANONICAL = `"""Module."""

from __future__ import annotations

import math
import os.path as osp

from pkg.util import clip, normalize as norm

# The floor of every score.
FLOOR = 1e-3
UNUSED = 2


def _check(xs):
    if not xs:
        raise ValueError("empty")


def _scaled(xs, k):
    _check(xs)
    return [clip(x * k) for x in xs]


def score(xs, k=2.0):
    """Interface one."""
    return max(FLOOR, math.fsum(_scaled(xs, k)))


def ranked(xs):
    """Interface two: calls score, another interface."""
    return sorted(norm(xs), key=lambda x: score([x]))
`;

describe("directCodeOf", () => {
  it("carries the imports, constants and helpers the definition uses, transitively, and no other interface", () => {
    const dc = directCodeOf(CANONICAL, "score", ["score", "ranked"]);
    expect(dc?.helpers).toEqual(["FLOOR", "_check", "_scaled"]);
    expect(dc?.code).toBe(
      [
        "from __future__ import annotations",
        "",
        "import math",
        "",
        "from pkg.util import clip",
        "",
        "",
        "# The floor of every score.",
        "FLOOR = 1e-3",
        "",
        "",
        "def _check(xs):",
        "    if not xs:",
        '        raise ValueError("empty")',
        "",
        "",
        "def _scaled(xs, k):",
        "    _check(xs)",
        "    return [clip(x * k) for x in xs]",
        "",
        "",
        "def score(xs, k=2.0):",
        '    """Interface one."""',
        "    return max(FLOOR, math.fsum(_scaled(xs, k)))",
      ].join("\n"),
    );
    const other = directCodeOf(CANONICAL, "ranked", ["score", "ranked"]);
    expect(other?.helpers).toEqual([]);
    expect(
      other?.code.startsWith("from __future__ import annotations\n\nfrom pkg.util import normalize as norm\n\n\ndef ranked(xs):"),
    ).toBe(true);
    expect(directCodeOf(CANONICAL, "nothing", [])).toBeNull();
  });
});

describe("applyDirectCode", () => {
  const CANDIDATE = `"""Mine."""

import math


def clip(x):
    return x


def score(xs, k=1.0):
    return sum(xs)


def ranked(xs):
    return xs
`;

  it("replaces the definition, puts helpers and constants before it, adds imports, and removes an own copy of an imported helper", () => {
    const dc = directCodeOf(CANONICAL, "score", ["score", "ranked"]);
    const out = applyDirectCode(CANDIDATE, dc?.code ?? "");
    expect(out).toBe(
      [
        '"""Mine."""',
        "",
        "from __future__ import annotations",
        "",
        "import math",
        "from pkg.util import clip",
        "",
        "",
        "# The floor of every score.",
        "FLOOR = 1e-3",
        "",
        "",
        "def _check(xs):",
        "    if not xs:",
        '        raise ValueError("empty")',
        "",
        "",
        "def _scaled(xs, k):",
        "    _check(xs)",
        "    return [clip(x * k) for x in xs]",
        "",
        "",
        "def score(xs, k=2.0):",
        '    """Interface one."""',
        "    return max(FLOOR, math.fsum(_scaled(xs, k)))",
        "",
        "",
        "def ranked(xs):",
        "    return xs",
        "",
      ].join("\n"),
    );
    // Applying it again changes nothing.
    expect(applyDirectCode(out, dc?.code ?? "")).toBe(out);
  });

  it("appends to a file without the definition, fills an empty file, and replaces the file with a whole file", () => {
    expect(applyDirectCode("x = 1\n", "import math\n\n\ndef f():\n    return math.pi")).toBe(
      "import math\n\nx = 1\n\n\ndef f():\n    return math.pi\n",
    );
    expect(applyDirectCode("", "def f():\n    pass")).toBe("def f():\n    pass\n");
    expect(applyDirectCode("def f():\n    pass\n", "")).toBe("def f():\n    pass\n");
    expect(isWholeFile('"""Doc."""\ndef f(): pass')).toBe(true);
    expect(isWholeFile("import math\ndef f(): pass")).toBe(false);
    expect(applyDirectCode(CANDIDATE, '"""New."""\n\n\ndef f():\n    pass')).toBe('"""New."""\n\n\ndef f():\n    pass\n');
  });

  it("replaces a definition whose bracket never closes without swallowing the definitions after it", () => {
    const broken = "def score(xs, k=2.0):\n    return max(1, (xs\n\n\ndef ranked(xs):\n    return xs\n";
    expect(definitionAt(broken, 5)).toBe("ranked");
    const out = applyDirectCode(broken, "def score(xs, k=2.0):\n    return max(1, xs)");
    expect(out).toBe("def score(xs, k=2.0):\n    return max(1, xs)\n\n\ndef ranked(xs):\n    return xs\n");
  });
});

describe("reading statements and parameters", () => {
  it("kinds, names and lines of top-level statements", () => {
    const kinds = listStatements(CANONICAL).map((s) => [s.kind, s.names.join(",")]);
    expect(kinds).toEqual([
      ["docstring", ""],
      ["import", "annotations"],
      ["import", "math"],
      ["import", "osp"],
      ["import", "clip,norm"],
      ["assign", "FLOOR"],
      ["assign", "UNUSED"],
      ["def", "_check"],
      ["def", "_scaled"],
      ["def", "score"],
      ["def", "ranked"],
    ]);
  });

  it("parameters with defaults, annotations and separators", () => {
    expect(parameters("def f(a, b: int = 3, *args, c='x,y', **kw) -> None:\n    pass")).toEqual([
      { name: "a", default: null },
      { name: "b", default: "3" },
      { name: "*args", default: null },
      { name: "c", default: "'x,y'" },
      { name: "**kw", default: null },
    ]);
    expect(parameters("x = 1")).toBeNull();
  });
});
