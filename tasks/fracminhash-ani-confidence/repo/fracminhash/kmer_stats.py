"""Moments of the number of mutated k-mers under the simple mutation model
(Blanca, Harris, Koslicki and Medvedev, "The statistics of k-mers from a
sequence undergoing a simple mutation process without spurious matches",
Journal of Computational Biology 2022).

Every nucleotide of a sequence with L k-mers is substituted independently
with probability r (the mutation rate); N_mut is the number of k-mers that
contain at least one substitution.
"""


def prob_kmer_mutated(ksize, r):
    """q = 1 - (1 - r)^k, the probability that a given k-mer is mutated."""
    return 1.0 - (1.0 - r) ** ksize


def exp_n_mutated(L, ksize, r):
    """E[N_mut] = L q."""
    return L * prob_kmer_mutated(ksize, r)


def var_n_mutated(L, ksize, r):
    """Var[N_mut] (Theorem of Blanca et al.); 0 for r = 0.

    Raises ValueError when rounding makes the variance negative (very small
    r with tiny L)."""
    if r == 0:
        return 0.0
    q = prob_kmer_mutated(ksize, r)
    k = ksize
    var = (
        L * (1 - q) * (q * (2 * k + (2 / r) - 1) - 2 * k)
        + k * (k - 1) * (1 - q) ** 2
        + (2 * (1 - q) / (r**2)) * ((1 + (k - 1) * (1 - q)) * r - q)
    )
    if var < 0.0:
        raise ValueError(f"negative variance {var!r} (r too small for this L)")
    return var


def exp_n_mutated_squared(L, ksize, r):
    """E[N_mut^2] = Var[N_mut] + E[N_mut]^2."""
    return var_n_mutated(L, ksize, r) + exp_n_mutated(L, ksize, r) ** 2
