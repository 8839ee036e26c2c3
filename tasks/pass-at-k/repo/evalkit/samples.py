"""A small example run: per problem, one character per generated sample
(1 = the sample passed the problem's unit tests, 0 = it failed)."""

import json

OUTCOMES = {
    "HumanEval/0": "1111111111111111",
    "HumanEval/1": "0100000000001000",
    "HumanEval/2": "0000000000000000",
    "HumanEval/3": "1011011101110110",
    "HumanEval/4": "0000001000000000",
    "HumanEval/5": "0010010000",
}


def sample_jsonl(outcomes=None):
    """Render outcomes (default: OUTCOMES) as results JSONL text, samples of
    different problems interleaved as an evaluation harness would write them."""
    outcomes = OUTCOMES if outcomes is None else outcomes
    lines = []
    longest = max((len(s) for s in outcomes.values()), default=0)
    for i in range(longest):
        for task_id, s in outcomes.items():
            if i < len(s):
                lines.append(json.dumps({"task_id": task_id, "passed": s[i] == "1"}))
    return "\n".join(lines) + "\n"
