import { describe, expect, it } from "vitest";
import { CODE_OMITTED, type FeedbackRecord, MAX_RENDERED_ITEMS, renderFeedback, stripCode } from "../../src/core/feedback";

describe("no code below L4, whatever the researcher wrote", () => {
  const leaky: FeedbackRecord = {
    researcher: "llm:x",
    items: [
      {
        interface: "pass_at_k(n, c, k): return 1.0 - prod(1 - k/i)",
        category: "T2",
        description:
          "Use this:\ndef pass_at_k(n, c, k):\n    p = 1.0\n    for i in range(n - c + 1, n + 1):\n        p *= 1 - k / i\n    return 1 - p",
        analysis: "The one-liner `return 1.0 - math.prod(1 - k / i for i in r)` does it; see <code>p = 1 - p</code>.",
        actionable_feedback: "Multiply `1 - k/i` terms, starting at `n - c + 1`.",
        direct_code_feedback: "```python\ndef pass_at_k(n, c, k):\n    return 0\n```",
      },
    ],
  };

  it.each([1, 2, 3] as const)("L%i shows no code from any field", (level) => {
    const text = renderFeedback(leaky, level);
    expect(text).not.toMatch(/def pass_at_k|return 1|p \*=|p = 1/);
    expect(text).toContain("Interface: pass_at_k [T2");
    expect(text).toContain(CODE_OMITTED);
  });

  it("keeps names and short expressions in words", () => {
    expect(stripCode("Multiply `1 - k/i` terms and call `pass_at_k`.")).toBe("Multiply `1 - k/i` terms and call `pass_at_k`.");
    expect(stripCode("Like this:\nx = 3\nthen go on.")).toBe(`Like this:\n${CODE_OMITTED}\nthen go on.`);
    expect(stripCode("If the value is wrong, check the bins.")).toBe("If the value is wrong, check the bins.");
  });

  it("L4 shows the code", () => {
    expect(renderFeedback(leaky, 4)).toContain("def pass_at_k(n, c, k):");
  });

  it("caps how many items reach the agent", () => {
    const many: FeedbackRecord = {
      researcher: "x",
      items: Array.from({ length: 500 }, () => ({ ...(leaky.items[0] as FeedbackRecord["items"][number]) })),
    };
    const text = renderFeedback(many, 2);
    expect(text).toContain(`${500 - MAX_RENDERED_ITEMS} more items left out`);
    expect(text.length).toBeLessThan(20_000);
  });
});
