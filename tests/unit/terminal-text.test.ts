import { describe, expect, it } from "vitest";
import { printable } from "../../src/cli/terminal-text";

describe("printable", () => {
  it("shows the characters that show nothing, so a file name with one does not read as the task's own", () => {
    expect(printable("optim/params.py\u200b, line 2")).toBe("optim/params.py\\u200b, line 2");
    expect(printable("a\u00adb\u2060c\ufeffd\u200de")).toBe("a\\xadb\\u2060c\\ufeffd\\u200de");
  });

  it("keeps newlines, tabs and ordinary text as they are", () => {
    expect(printable("Test run:\n\tok é ü 数")).toBe("Test run:\n\tok é ü 数");
  });
});
