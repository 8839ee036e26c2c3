import { describe, expect, it } from "vitest";
import { isInsidePath, loadTaskFromFiles, TaskFormatError } from "../../src/core/task";
import { PACK_LIMITS, readTaskPack } from "../../src/core/task-pack";

const enc = (s: string) => new TextEncoder().encode(s);

describe("task packs", () => {
  it("sorts files into task folders by their task.json, whatever folder holds them, and leaves out caches and archiver files", () => {
    const pack = readTaskPack({
      "week3/a/task.json": enc("{}"),
      "week3/a/repo/x.py": enc("x = 1\n"),
      "week3/a/__pycache__/x.cpython-311.pyc": new Uint8Array([0, 1]),
      "week3/b/task.json": "{}",
      "week3/b/test.py": "import unittest\n",
      "__MACOSX/week3/a/._task.json": new Uint8Array([0]),
      "week3/README.md": enc("outside every task"),
      "week3/a/.DS_Store": new Uint8Array([0]),
    });
    expect(pack.problems).toEqual([]);
    expect(pack.folders.map((f) => [f.folder, Object.keys(f.files).sort()])).toEqual([
      ["a", ["repo/x.py", "task.json"]],
      ["b", ["task.json", "test.py"]],
    ]);
  });

  it("a task.json at the top is the pack's own task, named after the pack", () => {
    expect(readTaskPack({ "task.json": "{}" }, "my-task").folders.map((f) => f.folder)).toEqual(["my-task"]);
  });

  it("names files that are not UTF-8, and a pack with no task", () => {
    const pack = readTaskPack({ "t/task.json": "{}", "t/paper.tex": new Uint8Array([0xff, 0xfe, 0x41]) });
    expect(pack.problems).toEqual(["t/paper.tex: not UTF-8 text"]);
    expect(readTaskPack({ "notes.txt": "hi" }).problems).toEqual(["the pack holds no task folder (a folder with a task.json)"]);
  });

  it("reads no more than its limits", () => {
    const big = new Uint8Array(PACK_LIMITS.fileBytes + 1);
    expect(readTaskPack({ "t/task.json": "{}", "t/big.bin": big }).problems[0]).toMatch(
      /^t\/big\.bin: 4\.0 MB; a task's file may have at most 4\.0 MB/,
    );
  });

  it("a repository file whose path leaves repo/ is refused by the task loader, naming it", () => {
    const [folder] = readTaskPack({
      "p/evil/task.json": "{}",
      "p/evil/repo/../../../lib/python314.zip": "x",
      "p\\evil\\repo\\..\\..\\lib\\y.py": "x",
    }).folders;
    const paths = Object.keys(folder?.files ?? {}).filter((p) => p.startsWith("repo/"));
    expect(paths.length).toBe(2);
    for (const p of paths) expect(isInsidePath(p.slice(5))).toBe(false);
    for (const bad of ["../x.py", "a/../../x.py", "/etc/x", "a//b.py", "./a.py", "a\\b.py", "a\u0000.py", ""])
      expect(isInsidePath(bad), bad).toBe(false);
    expect(isInsidePath("pkg/mod.py")).toBe(true);
  });

  it("a task.json inside another task's repo/ is a file of that task, not a task of its own", () => {
    const pack = readTaskPack({ "p/t1/task.json": "{}", "p/t1/repo/configs/task.json": "{}", "p/t1/repo/configs/a.py": "" });
    expect(pack.folders.map((f) => [f.folder, Object.keys(f.files).sort()])).toEqual([
      ["t1", ["repo/configs/a.py", "repo/configs/task.json", "task.json"]],
    ]);
  });

  it("the same task folder name twice is named, and only the first is read; a file named __proto__ is an ordinary file", () => {
    const pack = readTaskPack({ "a/t2/task.json": "{}", "b/t2/task.json": "{}", "a/t2/__proto__": "x" });
    expect(pack.folders.map((f) => f.folder)).toEqual(["t2"]);
    expect(Object.keys(pack.folders[0]?.files ?? {}).sort()).toEqual(["__proto__", "task.json"]);
    expect(pack.problems).toEqual(["b/t2: a second task folder named t2 (the first, a/t2, is the one read)"]);
  });

  it("a pack of too many files is refused before it is sorted", () => {
    const many: Record<string, string> = {};
    for (let i = 0; i <= PACK_LIMITS.files; i++) many[`p/t${i}/task.json`] = "{}";
    expect(readTaskPack(many).problems).toEqual([`the pack holds ${PACK_LIMITS.files + 1} files; at most ${PACK_LIMITS.files} are read`]);
  });

  it("a broken task.json of a pack is named with its file and line by the task loader", () => {
    const [folder] = readTaskPack({ "p/broken/task.json": '{\n  "id": "broken",\n}\n' }).folders;
    expect(() => loadTaskFromFiles(folder?.folder ?? "", folder?.files ?? {})).toThrow(TaskFormatError);
  });
});
