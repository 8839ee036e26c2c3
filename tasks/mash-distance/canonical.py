"""Mash distance (Ondov et al., "Mash: fast genome and metagenome distance
estimation using MinHash", Genome Biology 2016)."""

import math

from minhash.dna import is_acgt, reverse_complement
from minhash.hashing import DEFAULT_SEED, hash_kmer


def _check_k(k):
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")


def _as_list(seqs):
    return [seqs] if isinstance(seqs, str) else list(seqs)


def canonical_kmers(seq, k):
    """Canonical k-mers of one sequence, in order of position."""
    _check_k(k)
    # Mash folds lower case to upper case before it reads k-mers.
    seq = seq.upper()
    out = []
    for i in range(len(seq) - k + 1):
        kmer = seq[i : i + k]
        # A k-mer holding a character outside the nucleotide alphabet (N, IUPAC
        # codes, gaps) is skipped; the paper leaves this out, Mash does it.
        if not is_acgt(kmer):
            continue
        # Sec. "MinHash sketches": strand is ignored by hashing the canonical
        # k-mer, the lexicographically smaller of the k-mer and its reverse
        # complement (the forward one on a tie, i.e. a palindrome).
        rc = reverse_complement(kmer)
        out.append(kmer if kmer <= rc else rc)
    return out


def hash_bits(k):
    """Width of the hashes for k-mer size k: 64 when 4^k > 2^32, else 32."""
    _check_k(k)
    # Sec. "Implementation": 32-bit hashes suffice when the k-mer space 4^k
    # fits in 32 bits; 4^k > 2^32 exactly when k > 16, which needs 64 bits.
    return 64 if k > 16 else 32


def sketch(seqs, k, s, seed=DEFAULT_SEED):
    """Bottom-s MinHash sketch: the s smallest distinct k-mer hashes, ascending."""
    if isinstance(s, bool) or not isinstance(s, int) or s < 1:
        raise ValueError(f"sketch size s must be a positive integer, got {s!r}")
    bits = hash_bits(k)
    # Eq. (1) uses S(A), the s smallest hash values of the k-mers of A under a
    # single hash function h; repeated k-mers (and equal hashes) count once.
    # All sequences of a genome (its contigs or chromosomes) feed one sketch.
    hashes = set()
    for seq in _as_list(seqs):
        for kmer in canonical_kmers(seq, k):
            hashes.add(hash_kmer(kmer, seed, bits))
    return sorted(hashes)[:s]


def sketch_jaccard(sketch_a, sketch_b, s):
    """Shared hashes and denominator of the Jaccard estimate of two sketches."""
    if isinstance(s, bool) or not isinstance(s, int) or s < 1:
        raise ValueError(f"sketch size s must be a positive integer, got {s!r}")
    a = sorted(set(sketch_a))[:s]
    b = sorted(set(sketch_b))[:s]
    # Eq. (2): J(A, B) ~ |S(A u B) n S(A) n S(B)| / |S(A u B)|, where S(A u B)
    # is the bottom-s sketch of the union, obtained by merging the two sorted
    # sketches until s distinct hashes of the union have been seen.
    i = j = common = denom = 0
    while denom < s and i < len(a) and j < len(b):
        if a[i] < b[j]:
            i += 1
        elif b[j] < a[i]:
            j += 1
        else:
            i += 1
            j += 1
            common += 1
        denom += 1
    # One sketch ran out first: the rest of the other one is in the union
    # sketch too, up to s hashes in all.
    if denom < s:
        denom = min(s, denom + (len(a) - i) + (len(b) - j))
    return common, denom


def mash_distance(j, k):
    """Mash distance D = -1/k ln(2j / (1 + j)) for a Jaccard estimate j."""
    _check_k(k)
    if isinstance(j, bool) or not isinstance(j, (int, float)) or not 0.0 <= j <= 1.0:
        raise ValueError(f"the Jaccard index must be a number in [0, 1], got {j!r}")
    # j = 1: identical sketches, distance exactly 0 (not -0.0).
    if j == 1:
        return 0.0
    # j = 0: nothing shared, the log diverges; Mash reports the maximal distance 1.
    if j == 0:
        return 1.0
    # Eq. (4): D = -1/k ln(2j / (1 + j)), an estimate of the mutation rate under
    # a Poisson model of k-mer conservation; clipped at 1 as in Mash.
    return min(1.0, -math.log(2.0 * j / (1.0 + j)) / k)


def mash_p_value(common, denom, length_a, length_b, k):
    """P-value of observing at least `common` shared hashes by chance."""
    _check_k(k)
    for name, v in (("common", common), ("denom", denom), ("length_a", length_a), ("length_b", length_b)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {v!r}")
    if common > denom or denom == 0 or length_a == 0 or length_b == 0:
        raise ValueError("need 0 <= common <= denom, denom > 0 and positive lengths")
    # Sec. "Significance testing": the chance that a random k-mer of the
    # alphabet (size 4, so 4^k k-mers) occurs in a random genome of n bases is
    # p = 1 / (1 + 4^k / n).
    space = 4.0**k
    p_a = 1.0 / (1.0 + space / length_a)
    p_b = 1.0 / (1.0 + space / length_b)
    # Expected Jaccard index of two random genomes of these sizes.
    r = p_a * p_b / (p_a + p_b - p_a * p_b)
    # The shared count of a sketch of denom hashes is Binomial(denom, r); the
    # p-value is its upper tail P(X >= common), summed term by term (one minus
    # the lower tail cancels to 0 for small p-values); common = 0 sums the
    # whole distribution, 1.
    log_r = math.log(r)
    log_q = math.log1p(-r)
    lg_n = math.lgamma(denom + 1)
    terms = [
        math.exp(lg_n - math.lgamma(x + 1) - math.lgamma(denom - x + 1) + x * log_r + (denom - x) * log_q)
        for x in range(common, denom + 1)
    ]
    return min(1.0, math.fsum(terms))


def distance(seqs_a, seqs_b, k=21, s=1000, seed=DEFAULT_SEED):
    """Mash distance between two genomes: (distance, p_value, common, denom)."""
    sk_a = sketch(seqs_a, k, s, seed)
    sk_b = sketch(seqs_b, k, s, seed)
    if not sk_a or not sk_b:
        raise ValueError("a genome has no valid k-mer")
    common, denom = sketch_jaccard(sk_a, sk_b, s)
    # The genome size in the p-value is the total sequence length in bases.
    length_a = sum(len(x) for x in _as_list(seqs_a))
    length_b = sum(len(x) for x in _as_list(seqs_b))
    d = mash_distance(common / denom, k)
    p = mash_p_value(common, denom, length_a, length_b, k)
    return d, p, common, denom
