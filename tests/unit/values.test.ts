/**
 * Host-side values (src/core/values*.ts): parsing and writing expected.json,
 * Python reprs, and compareValues, checked against real python3 + numpy
 * (recode_check.encode and recode_check._compare) in one python3 call.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalDigest, staleRecording, testPyDigest } from "../../src/core/recording";
import type { Mismatch } from "../../src/core/results";
import {
  checkedTextLimit,
  compareValues,
  type ExpectedFile,
  formatExpected,
  type PyValue,
  parseExpected,
  parseValueJson,
  pyFloat,
  pyFloatRepr,
  pyFormatG,
  pyRepr,
  pyShortRepr,
  pyStrRepr,
} from "../../src/core/values";

const PYTHON_DIR = fileURLToPath(new URL("../../src/python", import.meta.url));

/** The corpus, written once in Python: every value goes through recode_check.encode and json.dumps. */
const ORACLE = String.raw`
import json, math, random, struct, sys
from decimal import Decimal
from fractions import Fraction
sys.path.insert(0, sys.argv[1])
import numpy as np
import recode_check as rc

random.seed(11)
rng = np.random.default_rng(5)

def enc(v):
    return rc._dumps(rc.encode(v))

# Numbers: repr and format(x, ".Ng").
xs = [0.0, -0.0, 0.1, 1e-7, 1.0, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 0.05, 0.125, 1.125, 2.5, 1e22,
      1e21, 5e-324, 1.7976931348623157e308, 123456789.0, 0.001953125, 1e-9, 1e-6, 1e5, 1e6, 999.5, 9.995, 0.0009995]
for _ in range(1500):
    k = random.random()
    if k < 0.3:
        x = struct.unpack("<d", struct.pack("<Q", random.getrandbits(64)))[0]
    elif k < 0.6:
        x = random.uniform(-1, 1) * 10 ** random.randint(-30, 30)
    elif k < 0.8:
        x = round(random.uniform(-1000, 1000), random.randint(0, 6))
    else:
        x = random.randint(-10**6, 10**6) / 2 ** random.randint(0, 20)
    if math.isfinite(x):
        xs.append(x)
numbers = [[struct.pack(">d", x).hex(), repr(x)] + [format(x, p) for p in (".3g", "g", ".1g", ".10g")] for x in xs]

# Strings: characters whose printability does not depend on the Unicode version.
pool = [chr(c) for c in list(range(0x250)) + list(range(0x370, 0x400))] + list("\u2028\u200b\u3000\xa0\xad\ue000\ufeff\U0001f600\U0010ffff\ud800\u4e2d\x85'\"\\")
strings = ["", "'", '"', "'\"", "it's", 'say "hi"']
strings += ["".join(random.choice(pool) for _ in range(random.randint(1, 8))) for _ in range(800)]
strings = [[s, repr(s)] for s in strings]

# Numpy arrays and scalars: repr.
arrays = [np.array([1.0, 2.5]), np.array([], dtype=np.float64), np.zeros((0, 3)), np.array(5), np.array(5.0), np.array(True),
          np.array([True, False]), np.array([1, 2], dtype=np.int32), np.array([0.1], dtype=np.float32), np.arange(2000),
          np.arange(2000.0).reshape(40, 50), np.array([1e-5, 1.5]), np.array([-0.0, 1e-5]), np.array([np.nan, np.inf, -np.inf]),
          np.array([1e100, 1e-100]), np.arange(24).reshape(2, 3, 4) / 7, np.array(["a", "b'c", "d\xe9"]),
          np.array([1, "x", None, [1, 2]], dtype=object), np.array([0.001953125, 1.0]), np.array([1e6, 1.0], dtype=np.float32),
          np.float64(0.5), np.float32(0.1), np.float16(0.1), np.int64(-3), np.uint8(7), np.True_, np.str_("it's"),
          np.float32(1e16), np.float32(1e-5), np.float64(-0.0), np.float16(65504), np.float32(1e6)]
for _ in range(300):
    dt = random.choice([np.float64, np.float32, np.float16, np.int64, np.int32, np.uint8, np.bool_])
    shape = tuple(random.randint(1, 9) for _ in range(random.choice([0, 1, 1, 2, 3])))
    a = np.round(rng.standard_normal(shape) * 10 ** random.randint(-7, 9), random.choice([2, 9]))
    with np.errstate(all="ignore"):
        a = a > 0 if dt is np.bool_ else a.astype(dt)
    arrays.append(a)
arrays = [[enc(a), repr(a)] for a in arrays]

# Comparisons: (name, expected, actual, rtol, atol).
class Custom:
    def __repr__(self):
        return "<Custom 'x'>"

T = 1e-9
cases = [
    ("int equal", 5, 5, T, 0.0),
    ("int off by one", 5, 6, T, 0.0),
    ("int beyond 2**53", 2**53 + 1, 2**53, T, 0.0),
    ("int example", 1832624140942590534, 1832624140942590535, T, 0.0),
    ("int beyond 1e21", 10**25, 10**25 + 1, T, 0.0),
    ("int sign", -10**30, 10**30, T, 0.0),
    ("huge int vs float", 10**400, 1.5, T, 0.0),
    ("float vs huge int", 1.5, 10**400, T, 0.0),
    ("huge int equal", 10**400, 10**400, T, 0.0),
    ("huge int off", 10**400, 10**400 + 7, T, 0.0),
    ("huge int vs np.float64", 10**400, np.float64(1.0), T, 0.0),
    ("huge int in list", [10**400], [1e308], T, 0.0),
    ("int vs float rounds equal", 2**53 + 1, float(2**53), 0.0, 0.0),
    ("1e21 int vs float", 10**21 + 1, 1e21, 0.0, 0.0),
    ("int vs equal float", 5, 5.0, T, 0.0),
    ("int vs float", 5, 5.5, T, 0.0),
    ("float vs int", 0.5, 1, T, 0.0),
    ("float example", 0.25, 0.3, T, 0.0),
    ("float sum", 0.1 + 0.2, 0.3, T, 0.0),
    ("negative zero", -0.0, 0.0, T, 0.0),
    ("nan nan", float("nan"), float("nan"), T, 0.0),
    ("nan vs number", float("nan"), 1.0, T, 0.0),
    ("inf inf", float("inf"), float("inf"), T, 0.0),
    ("inf vs -inf", float("inf"), float("-inf"), T, 0.0),
    ("number vs inf", 1.0, float("inf"), T, 0.0),
    ("big floats", 1e16, 1e16 * (1 + 1e-8), T, 0.0),
    ("atol fails", 1e-7, 2e-7, T, 1e-8),
    ("atol passes", 1e-7, 1.05e-7, T, 1e-8),
    ("diff overflows", 1e308, -1e308, T, 0.0),
    ("subnormal", 5e-324, 0.0, T, 0.0),
    ("tight rtol", 0.1, 0.1 + 1e-10, 1e-12, 0.0),
    ("odd tolerances", 100.0, 101.0, 1e-3, 0.25),
    ("float vs str", 1.0, "1.0", T, 0.0),
    ("float vs None", 1.0, None, T, 0.0),
    ("float vs bool", 1.0, True, T, 0.0),
    ("bool vs int", True, 1, T, 0.0),
    ("bool equal", True, True, T, 0.0),
    ("bool vs np.bool", False, np.False_, T, 0.0),
    ("None vs 0", None, 0, T, 0.0),
    ("str differs", "abc", "abd", T, 0.0),
    ("str quotes", "it's", 'say "hi"', T, 0.0),
    ("str unicode", "na\xefve \xfc \u4e2d\u6587 \U0001f600", "naive", T, 0.0),
    ("str escapes", "a\nb\t\x00\x7f", "a\\nb", T, 0.0),
    ("str long", "x" * 300, "y" * 300, T, 0.0),
    ("list item", [1, 2, 3], [1, 2, 4], T, 0.0),
    ("list vs tuple", [1.0, 2.0], (1.0, 2.0), T, 0.0),
    ("tuple vs list", (1.0,), [1.0], T, 0.0),
    ("tuple length", (1,), (1, 2), T, 0.0),
    ("nested list", [[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.5]], T, 0.0),
    ("deep path", [[1, [2, [3, 4.0]]]], [[1, [2, [3, 4.5]]]], T, 0.0),
    ("list vs dict", [], {}, T, 0.0),
    ("long list", [float(i) for i in range(1000)], [float(i) for i in range(999)] + [1e9], T, 0.0),
    ("mixed tuple equal", (1, "a", None, 2.5), (1, "a", None, 2.5), T, 0.0),
    ("negative rtol in list", [1.0, 2.0], [1.0, 2.5], -1.0, 0.0),
    ("negative rtol top", 1, 1.0, -1.0, 0.0),
    ("negative atol in dict", {"a": 1.0}, {"a": 2.0}, T, -1.0),
    ("set equal", {1, 2, 3}, {3, 2, 1}, T, 0.0),
    ("set differs", {1, 2, 3}, {1, 2, 4}, T, 0.0),
    ("set vs list", {1, 2}, [1, 2], T, 0.0),
    ("str set equal", {"a", "b", "c"}, {"c", "b", "a"}, T, 0.0),
    ("set numeric equality", {1, 2}, {1.0, 2.0}, T, 0.0),
    ("set of tuples", {(1, 2), (3, 4)}, frozenset({(3, 4), (1, 2)}), T, 0.0),
    ("set bool key", {1, 2}, {True, 2}, T, 0.0),
    ("set nan", {float("nan")}, {float("nan")}, T, 0.0),
    ("dict value", {"a": 1, "b": 2.0}, {"a": 1, "b": 2.5}, T, 0.0),
    ("dict keys", {"a": 1, "c": 2}, {"b": 1, "c": 2, "d": 3}, T, 0.0),
    ("dict tuple keys", {(1, 2): "x", (3, 4): "y"}, {(1, 2): "x", (3, 4): "z"}, T, 0.0),
    ("nested dict", {"outer": {"inner": [1, 2.0]}}, {"outer": {"inner": [1, 2.1]}}, T, 0.0),
    ("dict int vs float key", {1: "a"}, {1.0: "a"}, T, 0.0),
    ("dict order", {1: "a", 2: "b"}, {2: "b", 1: "a"}, T, 0.0),
    ("dict vs list", {"a": 1}, [("a", 1)], T, 0.0),
    ("dict quote key", {"k'ey": 1}, {"k'ey": 2}, T, 0.0),
    ("dict None and bool keys", {None: 1, True: 2}, {None: 1, True: 3}, T, 0.0),
    ("dict nested tuple key with set", {(1, (2, 3)): {1, 2}}, {(1, (2, 3)): {1, 3}}, T, 0.0),
    ("dict nan key", {float("nan"): 1}, {float("nan"): 1}, T, 0.0),
    ("array equal", np.array([1.0, 2.0]), np.array([1.0, 2.0]), T, 0.0),
    ("array element", np.array([1.0, 2.0]), np.array([1.0, 2.5]), T, 0.0),
    ("array shape", np.zeros((2, 3)), np.zeros((3, 2)), T, 0.0),
    ("array 1-d shape", np.zeros(3), np.zeros(4), T, 0.0),
    ("array dtype", np.zeros(3), np.zeros(3, dtype=np.float32), T, 0.0),
    ("array vs list", np.arange(3), [0, 1, 2], T, 0.0),
    ("list vs array", [0, 1, 2], np.arange(3), T, 0.0),
    ("number vs array", 1.0, np.array([1.0]), T, 0.0),
    ("big array vs list", [0.0], np.arange(2000.0), T, 0.0),
    ("int matrix", np.array([[1, 2], [3, 4]]), np.array([[1, 2], [3, 5]]), T, 0.0),
    ("bool array", np.array([True, False]), np.array([True, True]), T, 0.0),
    ("str array", np.array(["a", "b"]), np.array(["a", "c"]), T, 0.0),
    ("0-d array", np.array(5.0), np.array(6.0), T, 0.0),
    ("array nan", np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), T, 0.0),
    ("array in dict", {"a": np.arange(3)}, {"a": np.arange(4)}, T, 0.0),
    ("float32 array", np.array([0.1, 0.2], dtype=np.float32), np.array([0.1, 0.25], dtype=np.float32), T, 0.0),
    ("scalar equal", np.float64(0.5), np.float64(0.5), T, 0.0),
    ("scalar dtype", np.float64(0.5), np.float32(0.5), T, 0.0),
    ("scalar vs float", np.float64(0.5), 0.5, T, 0.0),
    ("scalar vs other float", np.float64(0.5), 0.6, T, 0.0),
    ("float32 scalars", np.float32(0.1), np.float32(0.2), T, 0.0),
    ("int scalar vs int", np.int64(3), 3, T, 0.0),
    ("int scalar vs bool", np.int64(3), True, T, 0.0),
    ("int scalar vs str", np.int64(3), "3", T, 0.0),
    ("float vs scalar", 0.5, np.float64(0.6), T, 0.0),
    ("int vs int scalar", 5, np.int64(6), T, 0.0),
    ("list of scalars", [np.float32(1.5), 2], [np.float32(1.5), 3], T, 0.0),
    ("bool scalar vs bool", np.True_, True, T, 0.0),
    ("str scalar vs str", np.str_("a"), "a", T, 0.0),
    ("number vs bool scalar", 1.0, np.True_, T, 0.0),
    ("uint8 scalars", np.uint8(7), np.uint8(9), T, 0.0),
    ("int vs float beyond 2**64", 2**64, float(2**64), T, 0.0),
    ("int of 5000 digits", 10**5000 + 7, 10**5000 + 7, T, 0.0),
    ("int of 5000 digits off by one", 10**5000 + 7, 10**5000 + 8, T, 0.0),
    ("int of 5000 digits vs float", 10**5000, 1e300, T, 0.0),
    ("int beyond 2**53 vs the float it rounds to", 2**53 + 1, float(2**53), 0.0, 0.0),
    ("float vs an int beyond 2**53 that rounds to it", float(2**53), 2**53 + 1, 0.0, 0.0),
    ("int beyond 2**53 vs float within atol", 2**53 + 1, float(2**53 + 2), 0.0, 1.0),
    ("int beyond 2**53 vs float within rtol", 2**60 + 1, float(2**60), 1e-15, 0.0),
    ("int vs equal float", 3, 3.0, T, 0.0),
    ("int vs float within rtol", 3, 3.0000000001, T, 0.0),
    ("int vs float within atol", 3, 3.0000001, T, 1e-6),
    ("hash vs float off by 3 within rtol", 2**40 + 5, float(2**40 + 8), T, 0.0),
    ("int vs nan", 3, float("nan"), T, 0.0),
    ("float vs int within rtol", 3.0000000001, 3, T, 0.0),
    ("int scalar vs float within rtol", np.int64(7), 7.000000001, T, 0.0),
    ("int beyond 2**53 vs non-whole float", 2**60 + 1, 0.5, 0.0, 0.0),
    ("int beyond 2**53 vs inf", 2**60 + 1, float("inf"), T, 0.0),
    ("int vs int scalar beyond 2**53", 2**53, np.int64(2**53 + 1), T, 0.0),
    ("int scalar beyond 2**53 vs float", np.int64(2**53 + 1), float(2**53), 0.0, 0.0),
    ("uint64 scalar vs int", np.uint64(2**64 - 1), 2**64 - 1, T, 0.0),
    ("str vs str scalar", "a", np.str_("a"), T, 0.0),
    ("str vs other str scalar", "a", np.str_("b"), T, 0.0),
    ("bool vs bool scalar", True, np.True_, T, 0.0),
    ("bool vs int scalar", True, np.int64(1), T, 0.0),
    ("str scalar vs other str", np.str_("a"), "b", T, 0.0),
    ("big-endian array vs native", np.arange(3.0), np.arange(3.0).astype(">f8"), T, 0.0),
    ("record array vs structured array", np.array([(1, 2.0)], dtype=[("a", "<i8"), ("b", "<f8")]), np.rec.fromrecords([(1, 2.0)], names="a,b"), T, 0.0),
    ("Decimal vs float", 1.5, Decimal("1.5"), T, 0.0),
    ("Fraction vs int", 1, Fraction(1, 2), T, 0.0),
    ("complex vs float", 1.0, 1 + 2j, T, 0.0),
    ("object vs str", "a", Custom(), T, 0.0),
    ("Decimal vs list", [1.5], Decimal("1.5"), T, 0.0),
    ("Decimal vs dict", {"a": 1}, Decimal(1), T, 0.0),
    ("Decimal vs array", np.zeros(2), Decimal(1), T, 0.0),
    # recode_check.outcome: a call that raised, compared by its exception's nearest built-in class.
    ("raised vs raised", rc.outcome(int, "x"), rc.outcome(float, "y"), T, 0.0),
    ("raised vs its subclass", rc.outcome(int, "x"), rc.outcome(lambda: (_ for _ in ()).throw(type("Own", (ValueError,), {})("own"))), T, 0.0),
    ("raised vs another", rc.outcome(int, "x"), rc.outcome(lambda: 1 / 0), T, 0.0),
    ("raised vs a value", rc.outcome(int, "x"), 0.5, T, 0.0),
    ("value vs raised", [0.5, 1.0], rc.outcome(int, "x"), T, 0.0),
    ("raised in a list", [1, rc.outcome(int, "x")], [1, 2], T, 0.0),
    # A list of outcome() of a constructor: the object of a call that did not raise is named at its place.
    ("raised vs an object in a list", [rc.outcome(int, "x"), rc.outcome(int, "y")], [rc.outcome(int, "x"), Custom()], T, 0.0),
    ("raised vs an object in a tuple", (1.5, rc.outcome(int, "y")), (1.5, Custom()), T, 0.0),
]
compared = []
for name, e, a, rtol, atol in cases:
    try:
        rc.compare_value("k", rc.decode(rc._any_int_digits(json.loads, enc(e))), a, rtol, atol)
        result = None
    except rc.Mismatch as m:
        result = m.info
    actual = rc.encode_any(a, "k")  # what check() sends to the host
    compared.append({"name": name, "expected": enc(e), "actual": actual, "rtol": rtol, "atol": atol, "result": result})

# expected.json files as Python writes them.
values = {"big": rc.encode(10**30), "floats": rc.encode([0.1, 1e-07, -0.0, 1e16, float("nan"), float("-inf"), 1.0]),
          "nested": rc.encode({(1, "a"): {1, 2}, "k": (np.float32(0.5),)}), "arr": rc.encode(np.arange(6.0).reshape(2, 3)),
          "uni \u00e9\U0001f600": rc.encode("\u4e2d\n\"q\" \x7f"), "empty": rc.encode([[], {}, (), set()]), "10": rc.encode(None), "2": rc.encode(True)}
doc = {"format": 2, "tests": {"B.test_b": ["arr", "big", "10"], "A.test_a": ["floats", "uni \u00e9\U0001f600", "nested", "empty", "2"], "C.test_none": []},
       "values": values}
files = {"v2": json.dumps(doc, indent=1, sort_keys=True), "legacy": json.dumps(values, indent=1, sort_keys=True)}

json.dump({"numbers": numbers, "strings": strings, "arrays": arrays, "cases": compared, "files": files}, sys.stdout)
`;

interface OracleCase {
  name: string;
  expected: string;
  actual: string;
  rtol: number;
  atol: number;
  result: Mismatch | null;
}

interface Oracle {
  numbers: string[][];
  strings: [string, string][];
  arrays: [string, string][];
  cases: OracleCase[];
  files: { v2: string; legacy: string };
}

const int = (n: bigint | number): PyValue => ({ type: "int", value: BigInt(n) });
const str = (s: string): PyValue => ({ type: "str", value: s });
const list = (...items: PyValue[]): PyValue => ({ type: "list", items });

describe("parseValueJson", () => {
  it("keeps ints exact and floats with their repr", () => {
    expect(parseValueJson("123456789012345678901234567890")).toEqual(int(123456789012345678901234567890n));
    expect(parseValueJson("-0")).toEqual(int(0));
    const f = parseValueJson("[0.1, 1e-07, -0.0, 1e+16, 1E5, 1e400]");
    expect(f.type === "list" && f.items.map((v) => (v.type === "float" ? v.text : v.type))).toEqual([
      "0.1",
      "1e-07",
      "-0.0",
      "1e+16",
      "100000.0",
      "inf",
    ]);
    expect(parseValueJson('{"$float": "-inf"}')).toEqual(pyFloat(Number.NEGATIVE_INFINITY));
    expect(parseValueJson('{"$other": {"type": "Decimal", "repr": "Decimal(\'1\')"}}')).toEqual({
      type: "other",
      typeName: "Decimal",
      repr: "Decimal('1')",
    });
  });

  it("decodes every tag", () => {
    const v = parseValueJson(
      '{"$dict": [[{"$tuple": [1, "a"]}, {"$set": [1, 2]}], [null, {"$npscalar": {"dtype": "float32", "value": 0.5}}],' +
        ' ["arr", {"$ndarray": {"dtype": "int64", "shape": [2], "data": [1, 2]}}], [true, {"$float": "nan"}]]}',
    );
    expect(pyRepr(v)).toBe("{(1, 'a'): {1, 2}, None: np.float32(0.5), 'arr': array([1, 2]), True: nan}");
  });

  it("says what is wrong and where", () => {
    expect(() => parseValueJson('{"$tuple": [1, {"$foo": 2}]}')).toThrow(
      'invalid encoded value at ["$tuple"][1]: unknown tag "$foo" (known: $float, $tuple, $set, $dict, $ndarray, $npscalar, $raised, $other)',
    );
    expect(() => parseValueJson('[{"a": 1}]')).toThrow("invalid encoded value at [0]: an object must be one tagged value");
    expect(() => parseValueJson('{"$raised": {"type": 1, "message": ""}}')).toThrow('at ["$raised"]: type and message must be strings');
    expect(() => parseValueJson('{"$float": "NaN"}')).toThrow('at ["$float"]: must be "nan", "inf" or "-inf", got "NaN"');
    expect(() => parseValueJson('{"$ndarray": {"dtype": "int64", "shape": [-1], "data": []}}')).toThrow(
      'at ["$ndarray"]["shape"][0]: a dimension must be a non-negative integer',
    );
    expect(() => parseValueJson('{"$ndarray": {"dtype": "int64", "data": []}}')).toThrow('at ["$ndarray"]: missing field "shape"');
    expect(() => parseValueJson("[1,\n 2 x]")).toThrow(
      "invalid value JSON at line 2, column 4: Comma ',' expected after value but got 'x'",
    );
  });
});

describe("parseExpected and formatExpected", () => {
  const doc = (tests: string, values = '{"a": 1, "b": [0.5], "c": null}') => `{"format": 2, "tests": ${tests}, "values": ${values}}`;

  it("reads format 2 and the legacy flat format", () => {
    const f = parseExpected(doc('{"T.test_y": ["c"], "T.test_x": ["b", "a"]}'));
    expect([...(f.tests ?? [])]).toEqual([
      ["T.test_x", ["b", "a"]],
      ["T.test_y", ["c"]],
    ]);
    expect(f.values.get("b")).toEqual(list(pyFloat(0.5)));
    const legacy = parseExpected('{"x": 1, "format": "text"}');
    expect(legacy.tests).toBeNull();
    expect([...legacy.values.keys()]).toEqual(["format", "x"]);
  });

  it("names the file and the field path of every error", () => {
    expect(() => parseExpected(doc('{"A.test_x": ["a", "b", "zz"], "B.test_y": ["c"]}'), "t/expected.json")).toThrow(
      't/expected.json: tests["A.test_x"][2]: key "zz" has no entry in "values"',
    );
    expect(() => parseExpected(doc('{"A.test_x": ["a", "b"], "B.test_y": ["c", "a"]}'))).toThrow(
      'expected.json: tests["B.test_y"][1]: key "a" is already listed at tests["A.test_x"][0]',
    );
    expect(() => parseExpected(doc('{"A.test_x": ["a", "b"]}'))).toThrow('expected.json: values["c"]: not listed by any test in "tests"');
    expect(() => parseExpected(doc('{"A.test_x": ["a", 3]}'))).toThrow('tests["A.test_x"][1]: expected a key (string), got number');
    expect(() => parseExpected(doc('{"A.test_x": ["a"]}', '{"a": {"$set": 1}}'))).toThrow(
      'expected.json: values["a"]["$set"]: a set must be a list, got number',
    );
    expect(() => parseExpected('{"format": 3}')).toThrow("expected.json: format: unsupported format 3");
    expect(() => parseExpected('{"format": 2, "tests": {}, "values": {}, "x": 1}')).toThrow('unexpected field "x"');
    expect(() => parseExpected('{"format": 2, "tests": {}}')).toThrow('missing field "values"');
    expect(() => parseExpected('{\n "format": 2,\n "tests": {]\n}')).toThrow(
      "expected.json: invalid JSON at line 3, column 12: Quoted object key expected but got ']'",
    );
    expect(() => parseExpected("[1]")).toThrow("expected.json: top level: expected an object, got array");
    expect(() => parseExpected('{"k": [{"$other": {"type": "Decimal", "repr": "1"}}]}')).toThrow(
      'expected.json: ["k"][0]: a value of type Decimal cannot be recorded',
    );
  });

  it("writes what it reads, and refuses inconsistent files", () => {
    const file: ExpectedFile = {
      tests: new Map([["A.test", ["k", "j"]]]),
      values: new Map<string, PyValue>([
        ["k", list(int(2n ** 70n), pyFloat(-0), pyFloat(Number.NaN), str("é\u2028"))],
        [
          "j",
          {
            type: "dict",
            entries: [
              [
                { type: "tuple", items: [int(1)] },
                { type: "set", items: [] },
              ],
            ],
          },
        ],
      ]),
    };
    const text = formatExpected(file);
    expect(text).toContain('"k": [\n   1180591620717411303424,\n   -0.0,\n   {\n    "$float": "nan"\n   },\n   "\\u00e9\\u2028"\n  ]');
    expect(parseExpected(text)).toEqual({
      tests: file.tests,
      values: new Map([...file.values].reverse()),
      tolerances: new Map(),
      expectedFailures: new Set(),
    });
    // Recorded tolerances and expected failures round-trip, in the order Python's sort_keys writes them.
    const extra = { ...file, tolerances: new Map([["k", [1e-12, 0] as const]]), expectedFailures: new Set(["A.test"]) };
    const withExtra = formatExpected(extra);
    expect(withExtra.indexOf('"expectedFailures"')).toBeLessThan(withExtra.indexOf('"format"'));
    expect(withExtra).toContain('"tolerances": {\n  "k": [\n   1e-12,\n   0.0\n  ]\n }');
    expect(formatExpected(parseExpected(withExtra))).toBe(withExtra);
    // test.py's digest too, between "format" and "tests"; anything but 64 lower-case hex digits is refused.
    const digest = testPyDigest("import unittest\n");
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const withDigest = formatExpected({ ...extra, testPySha256: digest });
    expect(withDigest).toContain(`"format": 2,\n "testPySha256": "${digest}",\n "tests"`);
    expect(parseExpected(withDigest).testPySha256).toBe(digest);
    expect(formatExpected(parseExpected(withDigest))).toBe(withDigest);
    expect(() => parseExpected(withDigest.replace(digest, digest.toUpperCase()))).toThrow(
      "expected.json: testPySha256: expected the SHA-256 of test.py, 64 lower-case hex digits",
    );
    expect(formatExpected({ tests: null, values: new Map([["a", int(1)]]) })).toBe('{\n "a": 1\n}');
    expect(() => formatExpected({ tests: new Map([["A.t", ["a"]]]), values: new Map() })).toThrow('tests["A.t"][0]: key "a" has no entry');
  });
});

describe("staleRecording", () => {
  const testPy = "import unittest\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        pass\n";
  const solution = {
    canonical: "def f():\n    return 1\n",
    repo: { "m.py": "def f():\n    pass\n", "util.py": "K = 2\n" } as Record<string, string>,
    meta: { target_file_path: "m.py" },
  };
  const recorded = (digests: { testPySha256?: string; canonicalSha256?: string }) =>
    formatExpected({ tests: new Map([["T.test_x", []]]), values: new Map(), ...digests });
  const task = (expected: string | null, changes: Partial<typeof solution & { tests: string }> = {}) => ({
    ...solution,
    tests: testPy,
    expected,
    ...changes,
  });

  it("tells a recording of another test.py; line ends do not count", () => {
    const file = recorded({ testPySha256: testPyDigest(testPy) });
    expect(staleRecording(task(file))).toBeNull();
    expect(staleRecording(task(file, { tests: testPy.replaceAll("\n", "\r\n") }))).toBeNull();
    expect(staleRecording(task(file, { tests: testPy.replace("test_x", "test_y") }))).toBe(
      "expected.json was recorded from another test.py (test.py changed since the task was recorded)",
    );
  });

  it("tells a recording of another canonical solution: canonical.py, or a repository file beside it, changed", () => {
    const file = recorded({ testPySha256: testPyDigest(testPy), canonicalSha256: canonicalDigest(solution) });
    expect(file).toContain(`{\n "canonicalSha256": "${canonicalDigest(solution)}",\n "format": 2,`);
    expect(staleRecording(task(file))).toBeNull();
    expect(staleRecording(task(file, { canonical: solution.canonical.replaceAll("\n", "\r\n") }))).toBeNull();
    // The target's starting text is not what a recording runs: it may change.
    expect(staleRecording(task(file, { repo: { ...solution.repo, "m.py": "def f():\n    return 0\n" } }))).toBeNull();
    const why =
      "expected.json was recorded from another canonical solution (canonical.py or a file of repo/ changed since the task was recorded)";
    expect(staleRecording(task(file, { canonical: "def f():\n    return 2\n" }))).toBe(why);
    expect(staleRecording(task(file, { repo: { ...solution.repo, "util.py": "K = 3\n" } }))).toBe(why);
    expect(staleRecording(task(file, { repo: { ...solution.repo, "new.py": "" } }))).toBe(why);
  });

  it("cannot tell, and says nothing, without expected.json, without a digest, or for a file that does not parse", () => {
    expect(staleRecording(task(null))).toBeNull();
    expect(staleRecording(task(recorded({})))).toBeNull();
    expect(staleRecording(task("{"))).toBeNull();
  });
});

describe("pyRepr", () => {
  it("writes Python's reprs", () => {
    expect(pyRepr({ type: "tuple", items: [int(1)] })).toBe("(1,)");
    expect(pyRepr({ type: "tuple", items: [] })).toBe("()");
    expect(pyRepr({ type: "set", items: [] })).toBe("set()");
    expect(pyRepr(list({ type: "bool", value: false }, { type: "none" }, str("it's"), pyFloat(1e-7)))).toBe(`[False, None, "it's", 1e-07]`);
    expect(pyRepr({ type: "dict", entries: [] })).toBe("{}");
    expect(pyRepr({ type: "npscalar", dtype: "bool", value: { type: "bool", value: true } })).toBe("np.True_");
    expect(pyStrRepr("a'b\"c\\")).toBe("'a\\'b\"c\\\\'");
  });

  it("cuts long reprs like _short, counting characters", () => {
    const long = list(...Array.from({ length: 100_000 }, (_, i) => int(i)));
    const short = pyShortRepr(long);
    expect(short).toHaveLength(200);
    expect(short.endsWith("...")).toBe(true);
    expect(Array.from(pyShortRepr(str("😀".repeat(300))))).toHaveLength(200);
    expect(pyShortRepr(str("x".repeat(198)))).toBe(`'${"x".repeat(198)}'`);
  });

  it("does not throw on an array whose data does not fit its shape", () => {
    const bad: PyValue = { type: "ndarray", dtype: "float64", shape: [3], data: list(int(1)) };
    expect(pyRepr(bad)).toBe("array([1], dtype=float64)");
  });
});

describe("compareValues", () => {
  it("gives the details recode_check gives", () => {
    expect(compareValues("k", pyFloat(0.25), pyFloat(0.3), 1e-9, 0)?.detail).toBe(
      "expected 0.25, got 0.3 (abs diff 0.05; rtol 1e-09, atol 0)",
    );
    expect(compareValues("k", int(1832624140942590534n), int(1832624140942590535n), 1e-9, 0)?.detail).toBe(
      "expected 1832624140942590534, got 1832624140942590535 (off by 1)",
    );
    const huge = int(10n ** 399n);
    expect(compareValues("k", pyFloat(1), huge, 1e-9, 0)).toMatchObject({
      kind: "value",
      detail: "expected a number within float range, got an int of 400 digits",
    });
    expect(compareValues("k", list(int(1), list(pyFloat(2))), list(int(1), list(pyFloat(3))), 0, 0)?.where).toBe("[1][0]");
    expect(compareValues("k", pyFloat(Number.NaN), pyFloat(Number.NaN), 0, 0)).toBeNull();
  });

  it("a sent dict whose keys repeat is a mismatch (keys a subclass holds apart but sends alike)", () => {
    const dict = (...entries: [PyValue, PyValue][]): PyValue => ({ type: "dict", entries });
    const m = compareValues("k", dict([str("a"), int(2)]), dict([str("a"), int(2)], [str("a"), int(5)]), 0, 0);
    expect(m?.detail).toBe("2 entries sent for 1 keys: a key repeats");
    expect(compareValues("k", dict([str("a"), int(2)]), dict([str("a"), int(2)]), 0, 0)).toBeNull();
  });

  it("the size a checked value may have leaves room for any text equal to the recorded one", () => {
    // json.dumps escapes what is not ASCII: 6 characters for é, 12 for a character outside the BMP.
    for (const text of ["a".repeat(72_000), "é".repeat(12_000), "😀".repeat(10_000)]) {
      expect(
        JSON.stringify(text).replace(/[^ -~]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).length,
      ).toBeLessThanOrEqual(checkedTextLimit(str(text)));
    }
    // 256 per value, and for an int room for its digits (2 for one of 1 to 4 bits).
    expect(checkedTextLimit({ type: "list", items: [int(1), int(2), int(3)] })).toBe(64 * 1024 + 256 + 3 * 258);
    // An int equal to a float (int(1e308): 309 digits), 6000 times.
    const floats: PyValue = { type: "list", items: Array.from({ length: 6000 }, () => pyFloat(1e308)) };
    expect(`[${Array(6000).fill(BigInt(1e308).toString()).join(", ")}]`.length).toBeLessThanOrEqual(checkedTextLimit(floats));
    // An int of any size: 100,000 digits, and a list of 50 ints of 5,000 digits each.
    const huge = -(10n ** 100_000n) + 1n;
    expect(huge.toString().length).toBeLessThanOrEqual(checkedTextLimit(int(huge)));
    const many = Array.from({ length: 50 }, (_, i) => 10n ** 5_000n - BigInt(i));
    expect(`[${many.join(", ")}]`.length).toBeLessThanOrEqual(checkedTextLimit({ type: "list", items: many.map(int) }));
  });

  it("a sent set that repeats an item is no set: a mismatch, however many items it has", () => {
    const set = (...items: PyValue[]): PyValue => ({ type: "set", items });
    expect(compareValues("k", set(int(0), int(3), int(5)), set(int(3), int(3), int(3)), 0, 0)).not.toBeNull();
    expect(compareValues("k", set(int(0), int(3), int(5)), set(int(5), int(0), int(3)), 0, 0)).toBeNull();
    // 1 and 1.0 are one item to Python.
    expect(compareValues("k", set(int(1), int(2)), set(int(1), pyFloat(1)), 0, 0)).not.toBeNull();
    // Items without a fast key (a float beside a tuple) are compared one by one, and the rule holds there too.
    const t = (...items: PyValue[]): PyValue => ({ type: "tuple", items });
    expect(compareValues("k", set(t(int(1)), t(int(2))), set(t(int(1)), t(pyFloat(1))), 0, 0)).not.toBeNull();
    expect(compareValues("k", set(t(int(1)), t(int(2))), set(t(int(2)), t(int(1))), 0, 0)).toBeNull();
  });

  // 200,000 keys: by lookup a second or two; compared pairwise (4e10 comparisons) it would not end within the
  // test's time limit. No timed assertion: the limit only stops a run that would not end.
  it("matches dict keys and set items by Python equality, by lookup", { timeout: 120_000 }, () => {
    const keys = Array.from({ length: 200_000 }, (_, i): PyValue => ({ type: "tuple", items: [int(i), str(`k${i}`)] }));
    const dict = (vals: PyValue[]): PyValue => ({ type: "dict", entries: vals.map((k, i) => [k, int(i)] as const) });
    expect(compareValues("k", dict(keys), dict([...keys].reverse()), 0, 0)?.where).toBe("[(0, 'k0')]");
    expect(compareValues("k", { type: "set", items: keys }, { type: "set", items: [...keys].reverse() }, 0, 0)).toBeNull();
    // decode() builds a dict: 1 and 1.0 are one key, which keeps the last value.
    const recorded = parseValueJson('{"$dict": [[1, "a"], [1.0, "b"], [[2, 3], "c"]]}');
    expect(compareValues("k", recorded, parseValueJson('{"$dict": [[true, "b"], [{"$tuple": [2, 3]}, "c"]]}'), 0, 0)).toBeNull();
  });

  // Keys nested 40 deep: by a key that grows with the depth, at once; by one that doubles at each level
  // (JSON escaping, as before), 2**40 characters, which would not end within the test's time limit.
  it("keys dict entries nested deep in tuples without growing with each level", { timeout: 120_000 }, () => {
    const deep = (n: number, depth: number): PyValue => {
      let v: PyValue = int(n);
      for (let d = 0; d < depth; d += 1) v = { type: "tuple", items: [v] };
      return v;
    };
    const dict = (keys: PyValue[], value: number): PyValue => ({ type: "dict", entries: keys.map((k) => [k, int(value)] as const) });
    const keys = Array.from({ length: 60 }, (_, i) => deep(i, 40));
    expect(compareValues("k", dict(keys, 1), dict([...keys].reverse(), 1), 0, 0)).toBeNull();
    expect(compareValues("k", dict(keys, 1), dict(keys, 2), 0, 0)?.kind).toBe("value");
    // Different nesting, different keys: (1,) is not ((1,),), nor ("a", "b") ("a, b",).
    const t = (...items: PyValue[]): PyValue => ({ type: "tuple", items });
    expect(compareValues("k", dict([t(int(1))], 1), dict([t(t(int(1)))], 1), 0, 0)?.kind).toBe("keys");
    expect(compareValues("k", dict([t(str("a"), str("b"))], 1), dict([t(str('a", "s:b'))], 1), 0, 0)?.kind).toBe("keys");
    // Only what differs is said: no "unexpected keys []".
    expect(compareValues("k", dict([int(1), int(2)], 1), dict([int(1)], 1), 0, 0)?.detail).toBe("missing keys [2]");
    expect(compareValues("k", dict([int(1)], 1), dict([int(1), int(3)], 1), 0, 0)?.detail).toBe("unexpected keys [3]");
  });

  it("says when a container held a value the encoding could not send", () => {
    // Python would point at the element ([0]: expected a number, got Decimal ...); an encoding that sent only the whole
    // value (a set's or a dict's: a plain list or tuple is sent item by item) says so.
    const other: PyValue = { type: "other", typeName: "list", repr: "[Decimal('1.5')]" };
    expect(compareValues("k", list(pyFloat(1.5)), other, 0, 0)).toEqual({
      key: "k",
      kind: "type",
      where: "",
      expected: "[1.5]",
      actual: "[Decimal('1.5')]",
      detail: "cannot compare: the list holds a value of an unsupported type",
    });
  });

  it("never throws, even on values nested deeper than the stack", () => {
    let deep: PyValue = int(1);
    for (let i = 0; i < 200_000; i += 1) deep = list(deep);
    const m = compareValues("k", deep, deep, 0, 0);
    expect(m).toMatchObject({ key: "k", kind: "type", where: "", detail: "cannot compare: values nested too deeply" });
    const bad: PyValue = { type: "ndarray", dtype: "float64", shape: [2], data: str("x") };
    expect(compareValues("k", bad, list(), 0, 0)?.actual).toBe("[]");
  });
});

describe("against python3 (recode_check.encode, _compare, repr, format)", () => {
  let oracle: Oracle;
  beforeAll(() => {
    const out = execFileSync("python3", ["-c", ORACLE, PYTHON_DIR], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    oracle = JSON.parse(out) as Oracle;
  });

  it("formats floats as repr and %g do", () => {
    expect(oracle.numbers.length).toBeGreaterThan(1000);
    for (const [hex, ...want] of oracle.numbers) {
      const x = Buffer.from(hex ?? "", "hex").readDoubleBE(0);
      expect([pyFloatRepr(x), pyFormatG(x, 3), pyFormatG(x), pyFormatG(x, 1), pyFormatG(x, 10)], hex).toEqual(want);
    }
  });

  it("writes str reprs as Python does", () => {
    for (const [s, want] of oracle.strings) expect(pyStrRepr(s)).toBe(want);
  });

  it("writes numpy array and scalar reprs as numpy does", () => {
    for (const [encoded, want] of oracle.arrays) expect(pyRepr(parseValueJson(encoded)), encoded).toBe(want);
  });

  it("compares every pair of the corpus exactly as _compare does", () => {
    expect(oracle.cases.length).toBeGreaterThanOrEqual(60);
    expect(oracle.cases.filter((c) => c.result === null).length).toBeGreaterThan(15);
    for (const c of oracle.cases) {
      const got = compareValues("k", parseValueJson(c.expected), parseValueJson(c.actual), c.rtol, c.atol);
      expect(got, c.name).toEqual(c.result);
    }
  });

  it("names the item of a list or tuple that could not be sent, beside the items that could", () => {
    for (const name of ["raised vs an object in a list", "raised vs an object in a tuple"]) {
      const c = oracle.cases.find((x) => x.name === name);
      expect(compareValues("k", parseValueJson(c?.expected ?? ""), parseValueJson(c?.actual ?? ""), 1e-9, 0)).toMatchObject({
        kind: "raised",
        where: "[1]",
        detail: "expected ValueError to be raised, got <Custom 'x'>",
      });
    }
  });

  it("compares a recorded int exactly (or within atol), numpy scalars by value, and arrays whatever their byte order", () => {
    const result = (name: string) => {
      const c = oracle.cases.find((x) => x.name === name);
      if (!c) throw new Error(`no case ${name}`);
      return compareValues("k", parseValueJson(c.expected), parseValueJson(c.actual), c.rtol, c.atol);
    };
    expect(result("int beyond 2**53 vs the float it rounds to")).toMatchObject({
      kind: "value",
      detail: "expected the int 9007199254740993, got 9007199254740992.0 (abs diff 1; an int is matched exactly, or within atol 0)",
    });
    // A recorded int is matched exactly, or within atol: rtol is for recorded floats.
    expect(result("hash vs float off by 3 within rtol")?.detail).toBe(
      "expected the int 1099511627781, got 1099511627784.0 (abs diff 3; an int is matched exactly, or within atol 0)",
    );
    expect(result("float vs an int beyond 2**53 that rounds to it")?.detail).toContain("got 9007199254740993 (abs diff 1;");
    expect(result("int vs int scalar beyond 2**53")?.detail).toBe("expected 9007199254740992, got 9007199254740993 (off by 1)");
    expect(result("int scalar beyond 2**53 vs float")?.kind).toBe("value");
    for (const name of [
      "int beyond 2**53 vs float within atol",
      "int vs equal float",
      "int vs float within atol",
      "float vs int within rtol",
      "uint64 scalar vs int",
      "str vs str scalar",
      "bool vs bool scalar",
      "str scalar vs str",
      "big-endian array vs native",
      "record array vs structured array",
    ]) {
      expect(result(name), name).toBeNull();
    }
    for (const name of [
      "str vs other str scalar",
      "bool vs int scalar",
      "str scalar vs other str",
      "int beyond 2**53 vs non-whole float",
      "int beyond 2**53 vs float within rtol",
      "int vs float within rtol",
      "int vs nan",
      "int scalar vs float within rtol",
    ]) {
      expect(result(name), name).not.toBeNull();
    }
  });

  it("reads and writes expected.json byte for byte as json.dumps(indent=1, sort_keys=True)", () => {
    const { v2, legacy } = oracle.files;
    const parsed = parseExpected(v2);
    expect(formatExpected(parsed)).toBe(v2);
    expect(parseExpected(formatExpected(parsed))).toEqual(parsed);
    expect(parsed.tests?.get("C.test_none")).toEqual([]);
    const old = parseExpected(legacy);
    expect(old.tests).toBeNull();
    expect(formatExpected(old)).toBe(legacy);
    expect(old.values).toEqual(parsed.values);
  });
});
