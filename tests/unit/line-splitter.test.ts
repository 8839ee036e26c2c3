import { describe, expect, it } from "vitest";
import { STREAM_LIMITS } from "../../src/python/assembler";
import { LineSplitter, MAX_EVENT_LINE } from "../../src/python/line-splitter";

function split(chunks: string[], maxLine = 8): string[] {
  const out: string[] = [];
  const s = new LineSplitter((l) => out.push(l), maxLine);
  for (const c of chunks) s.push(c);
  return out;
}

describe("event lines", () => {
  it("come whole however the text is cut into chunks", () => {
    expect(split(["ab", "c\nde", "f\n\ng", "h\n"])).toEqual(["abc", "def", "", "gh"]);
  });

  it("an unfinished line is held only up to the limit: then it is cut, and the rest of it dropped up to its newline", () => {
    expect(split(["0123", "4567", "89ab", "cdef", "ghij\nok\n"])).toEqual(["01234567", "ok"]);
    expect(split(["0123456789\nok\n"])).toEqual(["01234567", "ok"]);
  });

  it("a line never ended holds at most the limit, however much is written", () => {
    const out: string[] = [];
    const s = new LineSplitter((l) => out.push(l), 1000);
    for (let i = 0; i < 10_000; i++) s.push("x".repeat(999));
    expect(out).toEqual(["x".repeat(1000)]);
    expect((s as unknown as { pending: string }).pending).toBe("");
  });

  it("reset forgets an unfinished line; the limit is the whole stream's", () => {
    const out: string[] = [];
    const s = new LineSplitter((l) => out.push(l), 8);
    s.push("half");
    s.reset();
    s.push("new\n");
    expect(out).toEqual(["new"]);
    expect(MAX_EVENT_LINE).toBe(STREAM_LIMITS.chars);
  });
});
