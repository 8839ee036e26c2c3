"""Containment, mutation rate and ANI with confidence intervals from FracMinHash
sketches (Hera, Pierce-Ward and Koslicki, "Deriving confidence intervals for
mutation rates across a wide range of evolutionary distances using
FracMinHash", Genome Research 2023)."""

import math
from statistics import NormalDist

from fracminhash.kmer_stats import exp_n_mutated, exp_n_mutated_squared, prob_kmer_mutated, var_n_mutated
from fracminhash.roots import brentq

# Search interval for the mutation rate when solving for the interval ends.
P_MIN = 1e-7
P_MAX = 1.0 - 1e-7


def _check_int(name, x, low):
    if isinstance(x, bool) or not isinstance(x, int) or x < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {x!r}")


def containment(sketch_a, sketch_b):
    """|FRAC_s(A) n FRAC_s(B)| / |FRAC_s(A)|."""
    a = set(sketch_a)
    b = set(sketch_b)
    if not a:
        raise ValueError("the sketch of A is empty")
    # Sec. 2, containment of A in B estimated on the sketches.
    return len(a & b) / len(a)


def bias_factor(n_kmers, scaled):
    """1 - (1 - s)^|A|, the probability that FRAC_s(A) is not empty."""
    _check_int("n_kmers", n_kmers, 1)
    _check_int("scaled", scaled, 1)
    s = 1.0 / scaled
    # Sec. 2 (bias): E[|FRAC(A) n FRAC(B)| / |FRAC(A)|] ~ C(A, B) (1 - (1 - s)^|A|),
    # because the ratio is 0 when the sketch of A happens to be empty.
    return 1.0 - (1.0 - s) ** n_kmers


def corrected_containment(sketch_a, sketch_b, n_kmers_a, scaled):
    """Bias-corrected containment C_frac(A, B)."""
    # Definition of C_frac: the sketch containment divided by the bias factor.
    return containment(sketch_a, sketch_b) / bias_factor(n_kmers_a, scaled)


def _check_containment(c):
    if isinstance(c, bool) or not isinstance(c, (int, float)) or math.isnan(c) or c < 0.0:
        raise ValueError(f"containment must be a number >= 0, got {c!r}")


def point_estimate(c, ksize):
    """Mutation rate estimate 1 - C^(1/k) from a containment C."""
    _check_containment(c)
    _check_int("ksize", ksize, 1)
    # Sec. 3: under the simple mutation model a k-mer survives with
    # probability (1 - p)^k, so E[C] ~ (1 - p)^k and p_hat = 1 - C^(1/k).
    # C >= 1 (possible after the bias correction) means no mutation (p = 0);
    # C = 0 gives p = 1.
    return 1.0 - min(c, 1.0) ** (1.0 / ksize)


def confidence_interval(c, ksize, scaled, n_kmers, confidence=0.95):
    """(p_low, p_high): a confidence interval for the mutation rate, or None."""
    _check_containment(c)
    _check_int("ksize", ksize, 1)
    _check_int("scaled", scaled, 1)
    _check_int("n_kmers", n_kmers, 1)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    # Edge cases: nothing shared -> rate 1; everything shared -> rate 0.
    if c <= 0.0:
        return (1.0, 1.0)
    if c >= 1.0:
        return (0.0, 0.0)
    L = n_kmers
    k = ksize
    s = 1.0 / scaled
    # z_{alpha/2}, the standard normal quantile for a two-sided interval.
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    bias = bias_factor(n_kmers, scaled)
    # Theorem 8: the variance of C_frac as a function of p combines the
    # sampling of the sketch (term 1 times term 2) and the mutation process
    # (term 3), with the moments of N_mut from the repository's kmer_stats.
    term_1 = (1.0 - s) / (s * L**3 * bias**2)

    def variance(p):
        term_2 = L * exp_n_mutated(L, k, p) - exp_n_mutated_squared(L, k, p)
        term_3 = var_n_mutated(L, k, p) / L**2
        return term_1 * term_2 + term_3

    # The interval ends solve (1 - p)^k +- z sqrt(Var(p)) = C.
    def upper(p):
        return (1.0 - p) ** k + z * math.sqrt(variance(p)) - c

    def lower(p):
        return (1.0 - p) ** k - z * math.sqrt(variance(p)) - c

    try:
        p_high = brentq(upper, P_MIN, P_MAX)
        p_low = brentq(lower, P_MIN, P_MAX)
    except ValueError:
        # No sign change in the bracket (or a negative variance from rounding):
        # the sketch holds too few hashes for an interval.
        return None
    return (p_low, p_high)


def prob_nothing_in_common(mutation_rate, ksize, scaled, n_kmers):
    """Probability that the sketches of A and of its mutated copy share nothing."""
    if isinstance(mutation_rate, bool) or not isinstance(mutation_rate, (int, float)) or not 0.0 <= mutation_rate <= 1.0:
        raise ValueError(f"mutation_rate must be in [0, 1], got {mutation_rate!r}")
    _check_int("ksize", ksize, 1)
    _check_int("scaled", scaled, 1)
    _check_int("n_kmers", n_kmers, 1)
    # Sec. 4: about L - E[N_mut] = L (1 - q) k-mers stay unmutated; the sketches
    # share nothing when none of them is kept, probability (1 - s)^(L (1 - q)).
    unmutated = n_kmers * (1.0 - prob_kmer_mutated(ksize, mutation_rate))
    if unmutated == 0.0:
        return 1.0
    if scaled == 1:
        return 0.0
    return math.exp(unmutated * math.log1p(-1.0 / scaled))


def ani_estimate(sketch_a, sketch_b, ksize, scaled, n_kmers_a, confidence=0.95):
    """ANI of A to B with a confidence interval, from FracMinHash sketches."""
    c = corrected_containment(sketch_a, sketch_b, n_kmers_a, scaled)
    p = point_estimate(c, ksize)
    ci = confidence_interval(c, ksize, scaled, n_kmers_a, confidence)
    # ANI = 1 - mutation rate; the interval ends swap (high rate = low ANI).
    return {
        "containment": c,
        "mutation_rate": p,
        "ani": 1.0 - p,
        "ani_low": None if ci is None else 1.0 - ci[1],
        "ani_high": None if ci is None else 1.0 - ci[0],
        "p_nothing_in_common": prob_nothing_in_common(p, ksize, scaled, n_kmers_a),
    }
