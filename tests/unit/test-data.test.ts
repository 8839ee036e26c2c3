/**
 * Which of test.py's lists, dicts and sets its text only reads (recode_testdata.read_only_data): those the
 * guard holds to their items for the whole run, and to their literal once test.py is made. A value the text
 * changes, or hands to a function that is not a built-in that reads it or an assertion, is left out.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/python", import.meta.url));

const READ = `
import json, sys
sys.path.insert(0, sys.argv[1])
from recode_testtext import TestFacts
facts = TestFacts.of(sys.stdin.read().encode(), "test.py")
print(json.dumps([[owner, name, literal is not None] for owner, name, literal in facts.data]))
`;

/** [class or null, name, whether its text is a literal] for each value test.py's text only reads. */
function readOnly(text: string): [string | null, string, boolean][] {
  const r = spawnSync("python3", ["-c", READ, SRC], { input: text, encoding: "utf8" });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout);
}

function watched(text: string): string[] {
  return readOnly(text).map(([owner, name]) => (owner ? `${owner}.${name}` : name));
}

describe("test.py's data that its text only reads", () => {
  it.each([
    ["a loop over it", "BAD = [1, 2]\ndef t():\n    for b in BAD:\n        f(b)\n", ["BAD"]],
    ["an item handed on", "BAD = [[1], [2]]\ndef t():\n    f(BAD[0])\n", ["BAD"]],
    ["compared and counted", "EXP = {'a': 1}\ndef t(self):\n    self.assertEqual(g(), EXP)\n    len(EXP)\n", ["EXP"]],
    ["handed to a function", "XS = [1, 2]\ndef t():\n    f(XS)\n", []],
    ["named again (an alias)", "XS = [1, 2]\ndef t():\n    ys = XS\n", []],
    ["changed by its text", "CACHE = {}\ndef t():\n    CACHE['k'] = 1\n", []],
    ["a method that changes it", "XS = [1]\ndef t():\n    XS.append(2)\n", []],
    ["a method that reads it", "D = {'a': 1}\ndef t():\n    for k, v in D.items():\n        f(v)\n", ["D"]],
    ["an iterator of it handed on", "XS = [1]\ndef t():\n    f(iter(XS))\n", []],
    ["an iterator of it looped over", "XS = [1]\ndef t():\n    for i, x in enumerate(XS):\n        f(x)\n", ["XS"]],
    ["a calling assertion", "XS = [1]\ndef t(self):\n    self.assertRaises(ValueError, f, XS)\n", []],
    ["patch.dict of it", "D = {}\ndef t():\n    with mock.patch.dict(D, {'a': 1}):\n        pass\n", []],
    ["rebound in a function (global)", "XS = [1]\ndef t():\n    global XS\n    XS = []\n", []],
    ["bound twice", "XS = [1]\nXS = [2]\n", []],
    [
      "a class attribute read through self",
      "class T:\n    P = [1]\n    def t(self):\n        for p in self.P:\n            f(p)\n",
      ["T.P"],
    ],
    ["a class attribute handed on", "class T:\n    P = [1]\n    def t(self):\n        f(self.P)\n", []],
  ])("%s", (_what, text, names) => {
    expect(watched(text as string)).toEqual(names);
  });

  it("says which values are literals", () => {
    expect(
      readOnly('BAD = [-0.1, float("nan")]\nGRID = make()\ndef t():\n    for b in BAD:\n        pass\n    for g in GRID:\n        pass\n'),
    ).toEqual([
      [null, "BAD", true],
      [null, "GRID", false],
    ]);
  });

  it("compares a value with its literal by type and number, a NaN being a NaN", () => {
    const COMPARE = `
import json, math, sys
sys.path.insert(0, sys.argv[1])
from recode_testdata import literal_differs
nan = float("nan")
print(json.dumps([
    literal_differs([1.0, nan], [1.0, nan]),
    literal_differs([1.0, nan], [1.0, 2.0]),
    literal_differs([1, 2], [1.0, 2.0]),
    literal_differs({"a": [1]}, {"a": [1]}),
    literal_differs({"a": [1]}, {"b": [1]}),
    literal_differs([], [1]),
]))
`;
    const r = spawnSync("python3", ["-c", COMPARE, SRC], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual([false, true, true, false, true, true]);
  });
});
