import { describe, expect, it } from "vitest";
import { classWorkCsv } from "../../src/core/class-work-csv";
import { studentWork } from "../../src/core/student-work";
import type { TaskProgress } from "../../src/core/study";

function progress(taskId: string, turns: [solved: boolean, level: 0 | 1 | 2 | 3 | 4][]): TaskProgress {
  return { version: 1, taskId, turns: turns.map(([solved, level], i) => ({ at: i, passed: solved ? 3 : 1, total: 3, solved, level })) };
}

describe("the class-work table as CSV", () => {
  it("one line per work file, three columns per task: state, runs and the levels asked for", () => {
    const ada = studentWork(
      new Map(),
      new Map([
        [
          "pass-at-k",
          progress("pass-at-k", [
            [false, 1],
            [false, 2],
            [true, 0],
          ]),
        ],
      ]),
      "Week 3",
      new Date("2026-12-06T10:00:00Z"),
      "Ada Lovelace",
    );
    const anon = studentWork(
      new Map(),
      new Map([["min-p-sampling", progress("min-p-sampling", [[false, 0]])]]),
      null,
      new Date("2026-12-06T11:00:00Z"),
    );
    const csv = classWorkCsv(
      [
        { work: ada, source: "recode-work-Ada-Lovelace-2026-12-06.json" },
        { work: anon, source: "recode-work-unnamed-2026-12-06-110000.json" },
      ],
      ["pass-at-k", "min-p-sampling"],
    );
    expect(csv.split("\n")).toEqual([
      "student,file,exported_at,pass-at-k,pass-at-k runs,pass-at-k levels,min-p-sampling,min-p-sampling runs,min-p-sampling levels",
      "Ada Lovelace,recode-work-Ada-Lovelace-2026-12-06.json,2026-12-06T10:00:00.000Z,solved,3,L1 L2,not run,0,",
      ",recode-work-unnamed-2026-12-06-110000.json,2026-12-06T11:00:00.000Z,not run,0,,attempted,1,L0",
      "",
    ]);
  });

  it("a name with commas or quotes is quoted, and one a spreadsheet would read as a formula stays text", () => {
    const work = (student: string) => ({ work: studentWork(new Map(), new Map(), null, new Date(0), student), source: "w.json" });
    const rows = classWorkCsv([work('Lovelace, "Ada"'), work('=HYPERLINK("http://x")'), work("-2+3")], [])
      .trim()
      .split("\n")
      .slice(1);
    expect(rows).toEqual([
      '"Lovelace, ""Ada""",w.json,1970-01-01T00:00:00.000Z',
      `"'=HYPERLINK(""http://x"")",w.json,1970-01-01T00:00:00.000Z`,
      "'-2+3,w.json,1970-01-01T00:00:00.000Z",
    ]);
  });
});
