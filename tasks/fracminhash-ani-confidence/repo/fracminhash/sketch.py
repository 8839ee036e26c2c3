"""FracMinHash sketches.

A FracMinHash sketch with scale factor s = 1/scaled keeps every distinct
canonical k-mer whose hash is at most ``max_hash(scaled)``, about a fraction s
of the 64-bit hash space. ``scaled`` is an integer >= 1 (1 keeps everything).
"""

from fracminhash.hashing import DEFAULT_SEED, hash_kmer

MAX_HASH = 2**64 - 1

_COMPLEMENT = str.maketrans("ACGT", "TGCA")


def max_hash(scaled):
    """Largest hash kept by a sketch with this ``scaled`` value:
    round((2^64 - 1) / scaled). ValueError unless scaled is an int >= 1."""
    if isinstance(scaled, bool) or not isinstance(scaled, int) or scaled < 1:
        raise ValueError(f"scaled must be an integer >= 1, got {scaled!r}")
    return min(round(MAX_HASH / scaled), MAX_HASH)


def canonical_kmers(seq, ksize):
    """Distinct canonical k-mers (min of k-mer and reverse complement) of an
    upper-cased sequence; k-mers with characters other than ACGT are skipped."""
    seq = seq.upper()
    out = set()
    for i in range(len(seq) - ksize + 1):
        kmer = seq[i : i + ksize]
        if kmer.strip("ACGT"):
            continue
        rc = kmer.translate(_COMPLEMENT)[::-1]
        out.add(min(kmer, rc))
    return out


def n_unique_kmers(seq, ksize):
    """Number of distinct canonical k-mers of ``seq`` (the paper's |A|)."""
    return len(canonical_kmers(seq, ksize))


def frac_sketch(seq, ksize, scaled, seed=DEFAULT_SEED):
    """FRAC_s(A): the set of 64-bit hashes of the canonical k-mers of ``seq``
    that are <= max_hash(scaled)."""
    limit = max_hash(scaled)
    hashes = (hash_kmer(km, seed, 64) for km in canonical_kmers(seq, ksize))
    return {h for h in hashes if h <= limit}
