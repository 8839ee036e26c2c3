import { describe, expect, it } from "vitest";
import { ClassFileError, describeClass, parseClassFile } from "../../src/core/class-file";

const KNOWN = ["dynamic-tanh", "simpo-loss", "pass-at-k"];

describe("class files", () => {
  it("reads the tasks, the level cap, apply and the researcher, with defaults for what is left out", () => {
    const text = JSON.stringify({
      format: "recode-class",
      version: 1,
      name: "Week 3",
      tasks: ["simpo-loss", "dynamic-tanh"],
      maxLevel: 2,
      hideApply: true,
      researcher: "rules",
    });
    const c = parseClassFile(text, "week3.json", KNOWN);
    expect(c).toMatchObject({ name: "Week 3", tasks: ["simpo-loss", "dynamic-tanh"], maxLevel: 2, hideApply: true, researcher: "rules" });
    expect(describeClass(c)).toBe("2 tasks · feedback up to L2 · apply hidden · rules researcher");
    const all = parseClassFile('{"format":"recode-class","version":1,"name":"Open lab"}', "lab.json", KNOWN);
    expect(all).toMatchObject({ tasks: null, maxLevel: 4, hideApply: false, researcher: null });
  });

  it("says what is wrong, in which field and on which line", () => {
    const cases: [string, RegExp][] = [
      ["{", /class file c.json: not valid JSON/],
      ['{"format":"recode-class","version":1}', /field name is required but missing/],
      ['{\n "format": "recode-class",\n "version": 1,\n "name": "x",\n "maxLevel": 7\n}', /c\.json, line 5: field maxLevel/],
      [
        '{"format":"recode-class","version":1,"name":"x","level":2}',
        /field level is not a field of a class file \(did you mean "maxLevel"\?\) \(fields: /,
      ],
      ['{"format":"recode-class","version":2,"name":"x"}', /field version/],
      // Every fault at once, each with its line.
      [
        '{\n "format": "recode-class",\n "version": 1,\n "name": "x",\n "maxLevel": 9,\n "hideApply": "yes"\n}',
        /c\.json, line 5: field maxLevel .*; also field hideApply .* \(line 6\)$/,
      ],
      [
        '{\n "format": "recode-class",\n "version": 1,\n "name": "x",\n "tasks": [\n  "pass-at-k",\n  "nope",\n  "gone"\n ]\n}',
        /c\.json, line 7: field tasks names tasks this page does not have: "nope", "gone" \(a task of a task pack is known once the pack is imported: Settings → Task packs, then load the class file again\)/,
      ],
    ];
    for (const [text, message] of cases) {
      let error: unknown = null;
      try {
        parseClassFile(text, "c.json", KNOWN);
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(ClassFileError);
      expect((error as Error).message, text).toMatch(message);
    }
  });
});

describe("class file slips a teacher makes", () => {
  const message = (text: string) => {
    try {
      parseClassFile(text, "c.json", KNOWN);
    } catch (e) {
      return (e as Error).message;
    }
    return "no error";
  };
  it("say what the slip is and where", () => {
    expect(message('{\n "format": "recode-class",\n "version": 1,\n "name": "x",\n "maxLevel": "2"\n}')).toBe(
      'class file c.json, line 5: field maxLevel is the text "2": write the number without quotes (0 to 4)',
    );
    expect(message('{\n "format": "recode-class",\n "version": 1,\n "name": "x",\n}')).toBe(
      "class file c.json, line 4: a comma before a closing } or ]: JSON allows none after the last item",
    );
    expect(message("<!doctype html><html></html>")).toBe(
      "class file c.json: the address gave a web page, not a JSON file: is the class file at that address?",
    );
  });
});
