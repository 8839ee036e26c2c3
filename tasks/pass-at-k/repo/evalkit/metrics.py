"""pass@k for functional correctness (Chen et al., "Evaluating Large Language
Models Trained on Code", 2021)."""

from evalkit.results import count_correct


def pass_at_k(n, c, k):
    """Unbiased estimate of pass@k for one problem from n samples of which c
    are correct. Returns a float in [0, 1].
    Raises ValueError unless n >= 1, 0 <= c <= n and 1 <= k <= n (integers)."""
    raise NotImplementedError


def naive_pass_at_k(n, c, k):
    """The biased plug-in estimate 1 - (1 - c/n)**k, for comparison.
    Same arguments and errors as pass_at_k."""
    raise NotImplementedError


def aggregate_pass_at_k(results, ks=(1, 10, 100)):
    """Mean unbiased pass@k over problems.

    results: dict task_id -> list of bools (see evalkit.results.parse_results).
    Returns a dict {"pass@<k>": float} for each k in ks that every problem
    has at least k samples for. Raises ValueError for no problems or a k that
    is not a positive integer."""
    raise NotImplementedError
