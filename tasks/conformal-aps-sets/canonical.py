"""Split conformal prediction sets with Adaptive Prediction Sets (Romano, Sesia and Candes, NeurIPS 2020)."""

import math

from conformal.randomness import draw_uniforms
from conformal.ranking import rank_of, sort_classes
from conformal.validation import check_alpha, check_label, check_probabilities


def _check_u(u):
    if u is not None and (isinstance(u, bool) or not isinstance(u, (int, float)) or not 0.0 <= u <= 1.0):
        raise ValueError(f"u must be None or a number in [0, 1], got {u!r}")


def aps_score(probs, label, u=None):
    """Conformity score E(x, y, u) of a true label: small when the label is among the most likely."""
    check_probabilities(probs)
    check_label(label, len(probs))
    _check_u(u)
    order, sorted_probs, cumulative = sort_classes(probs)
    r = rank_of(order, label)
    if u is None:
        # The paper leaves the deterministic score out (it always randomises); as in common
        # implementations it is the total mass of the labels ranked at or above y, y included.
        return cumulative[r]
    # Eq. (5), E = min{tau : y in S(x, u; pi, tau)}: with S from Eq. (4), y enters once tau passes
    # pi_(1) + ... + pi_(r) - u * pi_(r), i.e. the mass above y plus the share (1 - u) of y's own.
    return cumulative[r] - u * sorted_probs[r]


def conformal_quantile(scores, alpha):
    """The ceil((n + 1)(1 - alpha))-th smallest score; +inf when that rank exceeds n."""
    check_alpha(alpha)
    n = len(scores)
    if n == 0:
        raise ValueError("no calibration scores")
    # Eq. (6): tau_hat = the ceil((1 - alpha)(1 + n))-th smallest calibration score, i.e. the empirical
    # quantile of level ceil((n + 1)(1 - alpha)) / n.
    k = math.ceil((n + 1) * (1 - alpha))
    if k > n:
        # Too few calibration points for this alpha: the only valid set is every label.
        return math.inf
    return sorted(scores)[k - 1]


def aps_set(probs, tau, u=None):
    """The prediction set S(x, u; pi, tau) as a sorted list of class indices."""
    check_probabilities(probs)
    _check_u(u)
    order, sorted_probs, cumulative = sort_classes(probs)
    K = len(probs)
    # Eq. (2): L(x; pi, tau) = min{k : pi_(1) + ... + pi_(k) >= tau}; when no k reaches tau (tau above
    # the total mass, e.g. tau = inf) every label is kept.
    L = next((k + 1 for k in range(K) if cumulative[k] >= tau), None)
    if L is None:
        return sorted(order)
    size = L
    if u is not None:
        # Eq. (3)-(4): V(x; pi, tau) = (pi_(1) + ... + pi_(L) - tau) / pi_(L) is the share of the L-th
        # label's mass beyond tau; the L-th label is dropped when u <= V.
        v = (cumulative[L - 1] - tau) / sorted_probs[L - 1]
        if u <= v:
            size = L - 1
    return sorted(order[:size])


def calibrate(cal_probs, cal_labels, alpha, rng=None):
    """tau_hat from a calibration set; randomised scores when rng is given."""
    if len(cal_probs) != len(cal_labels):
        raise ValueError(f"{len(cal_probs)} probability vectors but {len(cal_labels)} labels")
    n = len(cal_probs)
    # One uniform U_i per calibration point, drawn in order through the repository's helper.
    us = draw_uniforms(rng, n) if rng is not None else [None] * n
    # Sec. 2.2 (split conformal): score every held-out point with its true label, then take the quantile.
    scores = [aps_score(p, y, u) for p, y, u in zip(cal_probs, cal_labels, us)]
    return conformal_quantile(scores, alpha)


def predict_sets(test_probs, tau, rng=None):
    """Prediction sets C_hat(x) = S(x, U; pi_hat, tau_hat) for each test point."""
    us = draw_uniforms(rng, len(test_probs)) if rng is not None else [None] * len(test_probs)
    return [aps_set(p, tau, u) for p, u in zip(test_probs, us)]
