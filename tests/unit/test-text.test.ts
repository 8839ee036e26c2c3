/**
 * What test.py's text says it changes itself from inside its tests (recode_testtext.tests_change_own):
 * the guard does not count those changes of test.py's own classes and module against the run.
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
print(json.dumps({"changes_own": facts.changes_own, "tests_patch": facts.tests_patch}))
`;

/** [classes, module]: whether test.py's text changes its own classes, its own module, from inside its tests. */
function facts(text: string): { changes_own: [boolean, boolean]; tests_patch: string } {
  const r = spawnSync("python3", ["-c", READ, SRC], { input: text, encoding: "utf8" });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout);
}

function changesOwn(text: string): [boolean, boolean] {
  return facts(text).changes_own;
}

const head = "import unittest\nfrom unittest import mock\n\n\nclass TestA(unittest.TestCase):\n";

describe("what test.py's text changes itself", () => {
  it.each([
    [
      "nothing (data on self, a local object's attribute)",
      "    def test_x(self):\n        self.y = 1\n        m = object()\n        m.z = 2\n",
      [false, false],
    ],
    [
      "data set in setUpClass and tearDownClass",
      "    @classmethod\n    def setUpClass(cls):\n        cls.model = 1\n\n    @classmethod\n    def tearDownClass(cls):\n        del cls.model\n",
      [false, false],
    ],
    ["cls.x in another class method", "    @classmethod\n    def bump(cls):\n        cls.n += 1\n", [true, false]],
    ["type(self).x", "    def setUp(self):\n        type(self).calls = 0\n", [true, false]],
    ["self.__class__.x", "    def test_x(self):\n        self.__class__.seen = True\n", [true, false]],
    ["the class by name", "    def test_x(self):\n        TestA.seen = True\n", [true, false]],
    ["setattr", "    def test_x(self):\n        setattr(self, 'a', 1)\n", [true, false]],
    ["a patch of its class", "    def test_x(self):\n        with mock.patch.object(TestA, 'a', 1):\n            pass\n", [true, false]],
    ["a global", "    def setUp(self):\n        global CALLS\n        CALLS = 1\n", [false, true]],
    [
      "a patch of its own module's name",
      '    def test_x(self):\n        with mock.patch(f"{__name__}.helper"):\n            pass\n',
      [false, true],
    ],
    [
      "a patch of its own names (globals())",
      '    def test_x(self):\n        with mock.patch.dict(globals(), {"helper": None}):\n            pass\n',
      [false, true],
    ],
    [
      "a classmethod's first parameter of another name",
      "    @classmethod\n    def remember(klass, v):\n        klass.last = v\n",
      [true, false],
    ],
    ["type.__setattr__ on a class", "    def test_x(self):\n        type.__setattr__(TestA, 'last', 1)\n", [true, false]],
    ["its own names through globals()", '    def test_x(self):\n        globals()["_memo"] = [1]\n', [false, true]],
  ] as const)("%s", (_, body, want) => {
    expect(changesOwn(head + body)).toEqual(want);
  });

  it("a global statement in setUpModule is a fixture's, between tests", () => {
    expect(changesOwn("import unittest\n\ndef setUpModule():\n    global DATA\n    DATA = [1]\n")).toEqual([false, false]);
  });

  it.each([
    ["a patch", "import unittest\nfrom unittest import mock\n\nwith mock.patch('math.pi', 3):\n    pass\n", "modules"],
    ["patch.dict", "import os\nfrom unittest.mock import patch\n\n@patch.dict(os.environ, {})\ndef f():\n    pass\n", "modules"],
    ["the built-ins named", "import builtins\n\nbuiltins.input = print\n", "builtins"],
    ["nothing: a comment that says dispatch and builtins", "# no dispatch on dtypes; the builtins are not touched\nx = 'patch'\n", ""],
  ] as const)("what it patches itself: %s", (_, text, want) => {
    expect(facts(text).tests_patch).toBe(want);
  });
});
