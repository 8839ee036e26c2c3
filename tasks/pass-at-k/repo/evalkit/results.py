"""Reading execution results: one JSON object per line,
{"task_id": str, "passed": bool}, one line per generated sample."""

import json


def parse_results(jsonl_text):
    """Group sample outcomes by problem.

    Returns a dict task_id -> list of bools (one per sample, in file order);
    problems appear in order of first occurrence. Blank lines are ignored.
    Raises ValueError naming the line for malformed input."""
    results = {}
    for lineno, line in enumerate(jsonl_text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"line {lineno}: not valid JSON ({e.msg})") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("task_id"), str) or not isinstance(rec.get("passed"), bool):
            raise ValueError(f'line {lineno}: expected {{"task_id": str, "passed": bool}}')
        results.setdefault(rec["task_id"], []).append(rec["passed"])
    return results


def count_correct(results):
    """Map task_id -> (n, c): the number of samples and of correct samples."""
    return {task_id: (len(outcomes), sum(1 for o in outcomes if o)) for task_id, outcomes in results.items()}
