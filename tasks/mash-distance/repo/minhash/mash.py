"""Mash distance (Ondov et al., "Mash: fast genome and metagenome distance
estimation using MinHash", Genome Biology 2016).

Canonical k-mers, bottom-s MinHash sketches, the Jaccard estimate of two
sketches, the Mash distance and its p-value. Use the helpers in
``minhash.hashing`` and ``minhash.dna``.
"""

import math

from minhash.dna import is_acgt, reverse_complement
from minhash.hashing import DEFAULT_SEED, hash_kmer
