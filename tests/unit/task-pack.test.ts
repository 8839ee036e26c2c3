import { describe, expect, it } from "vitest";
import { loadTaskFromFiles, TaskFormatError } from "../../src/core/task";
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

  it("a broken task.json of a pack is named with its file and line by the task loader", () => {
    const [folder] = readTaskPack({ "p/broken/task.json": '{\n  "id": "broken",\n}\n' }).folders;
    expect(() => loadTaskFromFiles(folder?.folder ?? "", folder?.files ?? {})).toThrow(TaskFormatError);
  });
});
