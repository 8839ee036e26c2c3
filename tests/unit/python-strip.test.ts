/**
 * The harness's sources as the page's first script carries them (scripts/bundle-text-plugin.ts): without
 * comment lines and docstrings, and the same code. Python's own parser is the judge: the syntax tree of the
 * stripped text equals the original's with every string statement made empty.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { stripPythonComments, stripPythonDocstrings } from "../../scripts/bundle-text-plugin";
import { HARNESS_FILES } from "../../src/python/harness-files";

const SAME_TREE = `
import ast, json, sys
def tree(text):
    t = ast.parse(text)
    for node in ast.walk(t):
        for field in ("body", "orelse", "finalbody", "handlers"):
            stmts = getattr(node, field, None)
            for stmt in stmts if isinstance(stmts, list) else []:
                if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                    stmt.value.value = ""
    return ast.dump(t)
pair = json.load(sys.stdin)
print(json.dumps(tree(pair[0]) == tree(pair[1])))
`;

describe("the harness's Python in the page's first script", () => {
  it.each(Object.values(HARNESS_FILES))("%s: comments and docstrings gone, the same code", (file) => {
    const source = readFileSync(new URL(`../../src/python/${file}`, import.meta.url), "utf8");
    const stripped = stripPythonDocstrings(stripPythonComments(source));
    expect(stripped.length).toBeLessThan(source.length * 0.8);
    const r = spawnSync("python3", ["-c", SAME_TREE], { input: JSON.stringify([source, stripped]), encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toBe(true);
  });

  it("keeps a string that is a value, not a statement", () => {
    const text = 'x = {\n    "a":\n    """kept"""\n}\ndef f():\n    """gone"""\n    return 1\n';
    const out = stripPythonDocstrings(text);
    expect(out).toContain('"""kept"""');
    expect(out).not.toContain("gone");
  });
});
