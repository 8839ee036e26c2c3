"""Tiny genome-sketching toolkit: k-mer hashing helpers (``hashing``), DNA
sequence helpers (``dna``) and MinHash distance estimation in the style of
Mash (``mash``)."""
