import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILTIN_TASKS, readTaskFiles } from "../../src/cli/task-fs";
import { taskSystemPrompt } from "../../src/core/agent/prompts";
import { buildResearcherPrompt } from "../../src/core/researchers/llm";
import { makeRunResult } from "../../src/core/results";
import { loadTaskFromFiles, TaskFormatError } from "../../src/core/task";

const base = readTaskFiles(join(BUILTIN_TASKS, "pass-at-k"));
const meta = JSON.parse(base["task.json"] as string);

/** Load pass-at-k with task.json replaced; return the TaskFormatError. */
function errorFor(metaText: string): TaskFormatError {
  try {
    loadTaskFromFiles("pass-at-k", { ...base, "task.json": metaText });
  } catch (e) {
    if (e instanceof TaskFormatError) return e;
    throw e;
  }
  throw new Error("expected a TaskFormatError");
}

const lineOfText = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split("\n").length;

describe("task.json errors name the field and the line", () => {
  it("a JSON syntax error gives its line", () => {
    const text = JSON.stringify(meta, null, 2).replace('"title": "', '"title" "');
    const e = errorFor(text);
    expect(e.message).toMatch(/not valid JSON/);
    expect(e.line).toBe(lineOfText(text, '"title" "'));
  });

  it("a comma left out at a line's end is found on the next line: the error gives the column and names the line that lacks it", () => {
    const good = JSON.stringify(meta, null, 2);
    const text = good.replace(/("title": "[^"]*"),/, "$1");
    const e = errorFor(text);
    const next = lineOfText(text, '"title"') + 1;
    expect(e.line).toBe(next);
    expect(e.problem).toBe(`not valid JSON at column 3 (',' or '}' was expected; is a comma missing at the end of line ${next - 1}?)`);
  });

  it("a missing top-level field points at the object, not at a nested field of the same name", () => {
    const { title: _t, ...rest } = meta;
    const e = errorFor(JSON.stringify(rest, null, 2));
    expect(e.field).toBe("title");
    expect(e.line).toBe(1);
  });

  it("a missing field says so, and every other problem is named with it", () => {
    const { license: _l, ...rest } = meta;
    rest.interfaces = structuredClone(meta.interfaces);
    delete rest.interfaces[0].guidance;
    const e = errorFor(JSON.stringify(rest, null, 2));
    expect(e.problem).toMatch(/^is required but missing \(also: field .* is required but missing\)$/);
    expect(e.message).toContain("license");
    expect(e.message).toContain("interfaces[0].guidance");
  });

  it("a misspelt field names the field it was likely meant as, on its own line, and that field is not also called missing", () => {
    const { interfaces, ...rest } = meta;
    const text = JSON.stringify({ ...rest, interfacse: interfaces, colour: "red" }, null, 2);
    const e = errorFor(text);
    expect(e.field).toBe("interfacse");
    expect(e.line).toBe(lineOfText(text, '"interfacse"'));
    expect(e.problem).toMatch(
      /^is not a field of task\.json \(did you mean "interfaces"\?\) \(also: field colour \(line \d+\) is not a field of task\.json\)$/,
    );
    expect(e.message).not.toContain("missing");
    // Inside an interface too, and a field that is already there is not offered.
    const m = structuredClone(meta);
    m.interfaces[0].test = m.interfaces[0].tests;
    expect(errorFor(JSON.stringify(m, null, 2)).message).toMatch(/field interfaces\[0\]\.test: is not a field of interfaces\[0\]$/);
  });

  it("a test named without its class, or mistyped, is named with the id test.py defines", () => {
    const m = structuredClone(meta);
    const [cls, method] = m.interfaces[0].tests[0].split(".");
    m.interfaces[0].tests[0] = method;
    m.interfaces[1].tests[0] = `${cls}.${method}z`;
    const text = JSON.stringify(m, null, 2);
    const e = errorFor(text);
    expect(e.field).toBe("interfaces[0].tests[0]");
    expect(e.problem).toContain(`test ${method} names no class: a test id is Class.method, here ${cls}.${method}`);
    expect(e.problem).toContain(`test ${cls}.${method}z is not defined in test.py (did you mean ${cls}.${method}?)`);
  });

  it("an undefined test in a later interface points at that entry", () => {
    const m = structuredClone(meta);
    m.interfaces[2].tests[0] = "TestNothing.test_nothing";
    const text = JSON.stringify(m, null, 2);
    const e = errorFor(text);
    expect(e.field).toBe("interfaces[2].tests[0]");
    expect(e.line).toBe(lineOfText(text, "TestNothing.test_nothing"));
  });

  it("an id that is not the folder's and tests test.py lacks are named at once, each with its line", () => {
    const bad = structuredClone(meta);
    bad.id = "other-name";
    bad.interfaces[0].tests[0] = "TestPassAtK.test_valuez";
    bad.interfaces[1].tests[0] = "TestNope.test_x";
    const text = JSON.stringify(bad, null, 2);
    const e = errorFor(text);
    expect([e.field, e.line]).toEqual(["id", lineOfText(text, '"id"')]);
    expect(e.message).toContain('id "other-name" differs from the folder name "pass-at-k" (also: ');
    expect(e.message).toContain(
      `task.json, line ${lineOfText(text, "TestPassAtK.test_valuez")}, field interfaces[0].tests[0]: test TestPassAtK.test_valuez is not defined in test.py`,
    );
    expect(e.message).toContain("field interfaces[1].tests[0]: test TestNope.test_x is not defined in test.py");
  });

  it("a schema error does not hide the other problems: a wrong id, a test test.py lacks and a missing file are named with it", () => {
    const bad = structuredClone(meta);
    bad.id = "other-name";
    bad.title = 7;
    bad.interfaces[0].tests[0] = "TestPassAtK.test_valuez";
    const text = JSON.stringify(bad, null, 2);
    let e: TaskFormatError | null = null;
    try {
      const { "instruction.md": _gone, ...files } = base;
      loadTaskFromFiles("pass-at-k", { ...files, "task.json": text });
    } catch (err) {
      e = err as TaskFormatError;
    }
    expect(e).toBeInstanceOf(TaskFormatError);
    // The missing file first (it is listed first), then the schema's problem, then what was checked of task.json as it is.
    expect(e?.message).toContain("instruction.md: file is missing (also: ");
    expect(e?.message).toContain(`task.json, line ${lineOfText(text, '"title"')}, field title: `);
    expect(e?.message).toContain(
      `task.json, line ${lineOfText(text, '"id"')}, field id: id "other-name" differs from the folder name "pass-at-k"`,
    );
    expect(e?.message).toContain("field interfaces[0].tests[0]: test TestPassAtK.test_valuez is not defined in test.py");
  });

  it("unknown fields are errors, also inside paper and interfaces", () => {
    const top = JSON.stringify({ ...meta, extra: 1 }, null, 2);
    expect(errorFor(top)).toMatchObject({ field: "extra", line: lineOfText(top, '"extra"') });
    const m = structuredClone(meta);
    m.paper.doi = "10.1/x";
    expect(errorFor(JSON.stringify(m, null, 2)).field).toBe("paper.doi");
    const m2 = structuredClone(meta);
    m2.interfaces[1].notes = "x";
    expect(errorFor(JSON.stringify(m2, null, 2)).field).toBe("interfaces[1].notes");
  });

  it("a test listed under two interfaces is an error", () => {
    const m = structuredClone(meta);
    m.interfaces[1].tests.push(m.interfaces[0].tests[0]);
    expect(errorFor(JSON.stringify(m, null, 2)).message).toMatch(/already listed under interfaces\[0\]/);
  });

  it("a target path with ./ is refused with the form to use", () => {
    const e = errorFor(JSON.stringify({ ...meta, target_file_path: `./${meta.target_file_path}` }, null, 2));
    expect(e.field).toBe("target_file_path");
    expect(e.message).toMatch(/no \.\//);
  });

  it("a missing target file names task.json and its field", () => {
    const e = errorFor(JSON.stringify({ ...meta, target_file_path: "evalkit/nothing.py" }, null, 2));
    expect(e.file).toBe("task.json");
    expect(e.message).toContain("repo/evalkit/nothing.py");
  });

  it("a byte order mark is accepted", () => {
    expect(loadTaskFromFiles("pass-at-k", { ...base, "task.json": `\ufeff${base["task.json"]}` }).meta.id).toBe("pass-at-k");
  });
});

describe("a course task: no paper", () => {
  const { "paper.tex": _paper, ...files } = base;
  const { paper: _meta, ...course } = meta;
  const text = JSON.stringify({ ...course, title: "pass@k as an exercise" }, null, 2);

  it("loads with neither task.json's paper nor paper.tex: its paper text is empty", () => {
    const task = loadTaskFromFiles("pass-at-k", { ...files, "task.json": text });
    expect(task.meta.paper).toBeUndefined();
    expect(task.paper).toBe("");
  });

  it("gives the coder and the LLM researcher no paper to read, and names none", () => {
    const task = loadTaskFromFiles("pass-at-k", { ...files, "task.json": text });
    const coder = taskSystemPrompt(task, "baseline");
    expect(coder).not.toMatch(/Paper:|Method from the paper/);
    expect(coder).toContain("## Instruction");
    const review = buildResearcherPrompt({ task, code: "", run: makeRunResult([]), turn: 1 } as Parameters<
      typeof buildResearcherPrompt
    >[0]);
    expect(review).not.toMatch(/Paper:|Method from the paper/);
    // (A task with a paper still gives it to both.)
    const withPaper = loadTaskFromFiles("pass-at-k", base);
    expect(taskSystemPrompt(withPaper, "baseline")).toContain("## Method from the paper (LaTeX)");
  });

  it("every built-in task names its paper and gives its method", () => {
    for (const id of readdirSync(BUILTIN_TASKS)) {
      const task = loadTaskFromFiles(id, readTaskFiles(join(BUILTIN_TASKS, id)));
      expect(task.meta.paper?.title, id).toBeTruthy();
      expect(task.paper.trim(), id).not.toBe("");
    }
  });
});

describe("test.py's star imports", () => {
  /** Load pass-at-k with test.py's import of the target replaced by `line`; the TaskFormatError, or null when it loads. */
  function loadWith(line: string): TaskFormatError | null {
    const tests = (base["test.py"] as string).replace("from evalkit.metrics import aggregate_pass_at_k, naive_pass_at_k, pass_at_k", line);
    try {
      loadTaskFromFiles("pass-at-k", { ...base, "test.py": tests });
      return null;
    } catch (e) {
      if (e instanceof TaskFormatError) return e;
      throw e;
    }
  }

  it("a star import of the target file is refused at its line, with the names to import instead", () => {
    const e = loadWith("from evalkit.metrics import *  # noqa: F403");
    expect(e).toBeInstanceOf(TaskFormatError);
    expect([e?.file, e?.line]).toEqual(["test.py", 4]);
    expect(e?.message).toContain("from evalkit.metrics import * takes every name of a file of the run into test.py");
    // The canonical solution's public names that test.py uses (not _validate, which it does not).
    expect(e?.message).toContain(
      "import the names test.py uses instead: from evalkit.metrics import aggregate_pass_at_k, naive_pass_at_k, pass_at_k",
    );
  });

  it("any file of the repository counts, however the import is spaced or continued", () => {
    expect(
      loadWith("from evalkit . samples import *\nfrom evalkit.metrics import pass_at_k, naive_pass_at_k, aggregate_pass_at_k")?.line,
    ).toBe(4);
    expect(loadWith("import os; from \\\n  evalkit.metrics import *")?.line).toBe(4);
  });

  it("star imports of other modules, and the words in a comment or a string, are accepted", () => {
    expect(
      loadWith(
        "from math import *  # from evalkit.metrics import *\nfrom evalkit.metrics import aggregate_pass_at_k, naive_pass_at_k, pass_at_k",
      ),
    ).toBeNull();
    expect(
      loadWith('NOTE = "from evalkit.metrics import *"\nfrom evalkit.metrics import aggregate_pass_at_k, naive_pass_at_k, pass_at_k'),
    ).toBeNull();
  });
});

describe("task folders on disk", () => {
  const make = () => {
    const dir = join(mkdtempSync(join(tmpdir(), "recode-task-")), "t");
    mkdirSync(join(dir, "repo"), { recursive: true });
    writeFileSync(join(dir, "task.json"), "{}");
    return dir;
  };

  it("refuses symbolic links", () => {
    const dir = make();
    symlinkSync("/etc/hostname", join(dir, "repo", "link.py"));
    expect(() => readTaskFiles(dir)).toThrow(/repo\/link.py: is a symbolic link/);
  });

  it("refuses files that are not UTF-8, naming file and line", () => {
    const dir = make();
    writeFileSync(join(dir, "instruction.md"), Buffer.from("line one\nbad \xff byte\n", "latin1"));
    expect(() => readTaskFiles(dir)).toThrow(/instruction.md, line 2: not valid UTF-8/);
  });

  it("refuses files over the size limit", () => {
    const dir = make();
    writeFileSync(join(dir, "repo", "huge.txt"), Buffer.alloc(3 * 1024 * 1024, 97));
    expect(() => readTaskFiles(dir)).toThrow(/repo\/huge.txt: is 3.0 MB/);
  });
});
