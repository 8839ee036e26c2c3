"""DNA sequence helpers."""

NUCLEOTIDES = "ACGT"

_COMPLEMENT = {"A": "T", "C": "G", "G": "C", "T": "A"}


def reverse_complement(seq):
    """Reverse complement of an upper-case A/C/G/T string.

    Raises ValueError for any other character (lower case included)."""
    try:
        return "".join(_COMPLEMENT[c] for c in reversed(seq))
    except KeyError as exc:
        raise ValueError(f"not an upper-case nucleotide: {exc.args[0]!r}") from None


def is_acgt(seq):
    """True when every character of ``seq`` is one of A, C, G, T (upper case)."""
    return all(c in _COMPLEMENT for c in seq)


def random_genome(rng, length):
    """A random A/C/G/T string of ``length`` bases drawn with ``rng`` (random.Random)."""
    return "".join(rng.choice(NUCLEOTIDES) for _ in range(length))


def mutate(rng, seq, rate):
    """Copy of ``seq`` where each base is, with probability ``rate``, replaced
    by one of the three other bases (one rng.random() per base, plus one
    rng.choice() per substitution)."""
    out = []
    for c in seq:
        if rng.random() < rate:
            out.append(rng.choice([b for b in NUCLEOTIDES if b != c]))
        else:
            out.append(c)
    return "".join(out)
