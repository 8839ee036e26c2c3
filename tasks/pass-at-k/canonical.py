"""pass@k for functional correctness (Chen et al., "Evaluating Large Language
Models Trained on Code", 2021)."""

from evalkit.results import count_correct


def _validate(n, c, k):
    for name, v in (("n", n), ("c", c), ("k", k)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise ValueError(f"{name} must be an integer, got {v!r}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if not 0 <= c <= n:
        raise ValueError(f"c must be between 0 and n={n}, got {c}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}")


def pass_at_k(n, c, k):
    """Unbiased estimate of pass@k for one problem from n samples of which c
    are correct. Returns a float in [0, 1].
    Raises ValueError unless n >= 1, 0 <= c <= n and 1 <= k <= n (integers)."""
    _validate(n, c, k)
    # Eq. (1): pass@k = 1 - C(n - c, k) / C(n, k). When fewer than k samples are
    # wrong, every draw of k samples contains a correct one.
    if n - c < k:
        return 1.0
    # Eq. (2), the numerically stable product form:
    # C(n - c, k) / C(n, k) = prod_{i = n - c + 1}^{n} (1 - k / i).
    prob_all_wrong = 1.0
    for i in range(n - c + 1, n + 1):
        prob_all_wrong *= 1.0 - k / i
    return 1.0 - prob_all_wrong


def naive_pass_at_k(n, c, k):
    """The biased plug-in estimate 1 - (1 - c/n)**k, for comparison.
    Same arguments and errors as pass_at_k."""
    _validate(n, c, k)
    # Plugging the empirical pass rate p = c / n into 1 - (1 - p)^k: by Jensen's
    # inequality this underestimates pass@k.
    return 1.0 - (1.0 - c / n) ** k


def aggregate_pass_at_k(results, ks=(1, 10, 100)):
    """Mean unbiased pass@k over problems.

    results: dict task_id -> list of bools (see evalkit.results.parse_results).
    Returns a dict {"pass@<k>": float} for each k in ks that every problem
    has at least k samples for. Raises ValueError for no problems or a k that
    is not a positive integer."""
    counts = count_correct(results)
    if not counts:
        raise ValueError("no problems in the results")
    ks = list(ks)
    for k in ks:
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"every k must be a positive integer, got {k!r}")
    smallest_n = min(n for n, _ in counts.values())
    out = {}
    for k in ks:
        # pass@k is only defined for problems with at least k samples; report a
        # k only when it is defined for every problem.
        if k > smallest_n:
            continue
        # The benchmark score is the mean of the per-problem estimates.
        out[f"pass@{k}"] = sum(pass_at_k(n, c, k) for n, c in counts.values()) / len(counts)
    return out
