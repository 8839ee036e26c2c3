import { describe, expect, it } from "vitest";
import { authorsShort } from "../../src/core/paper-authors";

describe("authorsShort", () => {
  it("names one or two authors, and the first of three or more with et al.", () => {
    expect(authorsShort([])).toBe("");
    expect(authorsShort(["Ada Lovelace"])).toBe("Ada Lovelace");
    expect(authorsShort(["Ada Lovelace", "Alan Turing"])).toBe("Ada Lovelace and Alan Turing");
    expect(authorsShort(["Ada Lovelace", "Alan Turing", "Grace Hopper"])).toBe("Ada Lovelace et al.");
  });
});
