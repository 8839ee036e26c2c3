"""Containment, mutation rate and ANI with confidence intervals from FracMinHash
sketches (Hera, Pierce-Ward and Koslicki, "Deriving confidence intervals for
mutation rates across a wide range of evolutionary distances using
FracMinHash", Genome Research 2023).

Use the helpers in ``fracminhash.kmer_stats`` and ``fracminhash.roots``.
"""
