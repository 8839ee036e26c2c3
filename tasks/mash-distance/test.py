import math
import random
import unittest

from recode_check import check, outcome

from minhash.dna import mutate, random_genome, reverse_complement
from minhash.hashing import hash_kmer
from minhash.mash import (
    canonical_kmers,
    distance,
    hash_bits,
    mash_distance,
    mash_p_value,
    sketch,
    sketch_jaccard,
)

GENOMES = {}


def setUpModule():
    # One random genome and relatives at several mutation rates, shared by
    # the sketch and distance tests.
    rng = random.Random(2016)
    base = random_genome(rng, 1500)
    GENOMES["base"] = base
    GENOMES["mut1"] = mutate(rng, base, 0.01)
    GENOMES["mut5"] = mutate(rng, base, 0.05)
    GENOMES["mut20"] = mutate(rng, base, 0.20)
    GENOMES["other"] = random_genome(rng, 1200)


class TestCanonicalKmers(unittest.TestCase):
    def test_strand_and_order(self):
        check(self, "kmers_hand", canonical_kmers("ACGTTGCA", 3))
        # A k-mer equal to its reverse complement (a palindrome) is kept as is.
        check(self, "kmers_palindrome", canonical_kmers("ACGT", 4))
        # Both strands of a sequence give the same multiset of canonical k-mers.
        seq = "GATTACACCGTAGGCTTAAC"
        fwd = canonical_kmers(seq, 5)
        rev = canonical_kmers(reverse_complement(seq), 5)
        self.assertEqual(sorted(fwd), sorted(rev))
        check(self, "kmers_k5", fwd)

    def test_case_invalid_characters_and_errors(self):
        check(self, "kmers_lower_case", canonical_kmers("ttgacc", 4))
        check(self, "kmers_skip_n", canonical_kmers("ACGTNACGGTRA", 3))
        check(self, "kmers_too_short", canonical_kmers("ACG", 4))
        check(self, "kmers_k_outcomes", [outcome(canonical_kmers, "ACGT", k) for k in (2, 0, 1, 2.0, 3)])


class TestHashBits(unittest.TestCase):
    def test_threshold(self):
        check(self, "bits_table", [hash_bits(k) for k in (1, 11, 15, 16, 17, 21, 32)])
        check(self, "bits_k_outcomes", [outcome(hash_bits, k) for k in (5, 0, 20)])


class TestSketch(unittest.TestCase):
    def test_bottom_s(self):
        sk = sketch(GENOMES["base"], 21, 50)
        self.assertEqual(len(sk), 50)
        self.assertEqual(sk, sorted(sk))
        check(self, "sketch_k21_s50", sk)
        # The s smallest hashes of all distinct canonical k-mers.
        everything = sorted({hash_kmer(km) for km in canonical_kmers(GENOMES["base"], 21)})
        check(self, "sketch_k21_smallest_hashes", everything[:50])

    def test_small_k_uses_32_bit_hashes(self):
        sk = sketch(GENOMES["base"], 11, 40)
        check(self, "sketch_k11_s40", sk)
        check(self, "sketch_k11_max_below_2_32", max(sk) < 2**32)

    def test_strands_contigs_and_short_genomes(self):
        g = GENOMES["mut5"]
        # Reverse-complementing a genome does not change its sketch.
        check(self, "sketch_revcomp", sketch(reverse_complement(g), 17, 64))
        check(self, "sketch_mut5_k17_s64", sketch(g, 17, 64))
        # Contigs feed one sketch; k-mers spanning two contigs do not exist.
        check(self, "sketch_contigs", sketch([g[:600], g[600:1000].lower(), "NN" + g[1000:]], 17, 64))
        # Fewer distinct k-mers than s: every hash, once (repeats collapse).
        check(self, "sketch_short", sketch("ACGTACGTACGTAC", 4, 100))
        # Every k-mer of two short contigs is in the sketch: none spans the join.
        check(self, "sketch_two_short_contigs", sketch(["ACGTACGGTA", "TTGCAAGT"], 5, 100))
        # A custom seed changes the hash function.
        check(self, "sketch_seed_7", sketch(g[:400], 21, 10, seed=7))
        check(self, "sketch_s1", sketch(g, 21, 1))
        check(self, "sketch_outcomes", [outcome(sketch, g, 21, 3), outcome(sketch, g, 21, 0), outcome(sketch, g, 9, 5), outcome(sketch, g, 0, 10)])


class TestSketchJaccard(unittest.TestCase):
    def test_merge_hand(self):
        # The bottom-4 sketch of the union is 1, 2, 3, 5; of these, 3 and 5 are in both sketches.
        check(self, "jac_hand_s4", sketch_jaccard([1, 3, 5, 7, 9], [2, 3, 5, 8, 9], 4))
        check(self, "jac_hand_s5", sketch_jaccard([1, 3, 5, 7, 9], [2, 3, 5, 8, 9], 5))
        check(self, "jac_hand_s10", sketch_jaccard([1, 3, 5, 7, 9], [2, 3, 5, 8, 9], 10))

    def test_uneven_and_degenerate(self):
        # One sketch runs out: the rest of the other fills the union sketch up to s.
        check(self, "jac_uneven", sketch_jaccard([10, 20], [5, 10, 15, 20, 25, 30], 5))
        check(self, "jac_cap", sketch_jaccard([1], [2, 3, 4, 5, 6], 5))
        check(self, "jac_uneven_swapped", sketch_jaccard([5, 10, 15, 20, 25, 30], [10, 20], 5))
        check(self, "jac_s1", sketch_jaccard([3, 7], [3, 9], 1))
        check(self, "jac_uneven_big_s", sketch_jaccard([10, 20], [5, 10, 15, 20, 25, 30], 50))
        check(self, "jac_identical", sketch_jaccard([4, 8, 15, 16], [4, 8, 15, 16], 4))
        check(self, "jac_disjoint", sketch_jaccard([1, 2, 3], [4, 5, 6], 3))
        check(self, "jac_one_empty", sketch_jaccard([], [4, 5, 6], 2))
        check(self, "jac_both_empty", sketch_jaccard([], [], 3))
        check(self, "jac_s_outcomes", [outcome(sketch_jaccard, [1], [1], s) for s in (2, 0, 1)])

    def test_genomes(self):
        a = sketch(GENOMES["base"], 21, 200)
        b = sketch(GENOMES["mut1"], 21, 200)
        check(self, "jac_genomes_mut1", sketch_jaccard(a, b, 200))
        check(self, "jac_genomes_mut1_swapped", sketch_jaccard(b, a, 200))


class TestMashDistance(unittest.TestCase):
    def test_values(self):
        check(self, "dist_values", [mash_distance(j, 21) for j in (0.9, 0.5, 0.25, 0.01)], rtol=1e-12)
        check(self, "dist_k16", mash_distance(0.3, 16), rtol=1e-12)

    def test_edges_and_errors(self):
        d1 = mash_distance(1.0, 21)
        check(self, "dist_identical", d1)
        self.assertEqual(math.copysign(1.0, d1), 1.0, "identical sketches give +0.0, not -0.0")
        check(self, "dist_disjoint", mash_distance(0.0, 21))
        check(self, "dist_clipped", mash_distance(1e-12, 21))
        check(self, "dist_int_one", mash_distance(1, 5))
        check(self, "dist_jaccard_outcomes", [outcome(mash_distance, j, 21) for j in (0.75, -0.1, 1.5, 0.1, float("nan"), 0.6)], rtol=1e-12)
        check(self, "dist_k_outcomes", [outcome(mash_distance, 0.5, k) for k in (3, 0, 11)], rtol=1e-12)


class TestPValue(unittest.TestCase):
    def test_values(self):
        check(self, "p_random_pair", mash_p_value(2, 1000, 20000, 20000, 21), rtol=1e-9)
        check(self, "p_small_k", mash_p_value(30, 1000, 5000000, 3000000, 12), rtol=1e-9)
        check(self, "p_uneven_lengths", mash_p_value(16, 1000, 300, 20000, 21), rtol=1e-9)
        check(self, "p_denominator_matters", mash_p_value(5, 400, 50000, 80000, 14), rtol=1e-9)

    def test_tails_and_errors(self):
        # Far in the upper tail the p-value is tiny but not zero.
        check(self, "p_tiny", mash_p_value(40, 1000, 100000, 100000, 16), rtol=1e-9)
        check(self, "p_none_shared", mash_p_value(0, 1000, 5000, 5000, 21))
        check(self, "p_all_shared_small_space", mash_p_value(10, 10, 10**6, 10**6, 8), rtol=1e-9)
        check(self, "p_common_denominator_outcomes", [outcome(mash_p_value, common, 4, 1000, 1000, 5) for common in (3, 5, 4)], rtol=1e-9)
        check(self, "p_args_outcomes", [outcome(mash_p_value, *args) for args in ((1, 10, 500, 1000, 6), (1, 10, 0, 1000, 21), (1, 10, 1000, 0, 21), (2, 5, 800, 900, 5),
                                                                                 (0, 0, 1000, 1000, 21), (1, 10, 1000, 1000, 0), (3, 10, 1000, 1000, 4),
                                                                                 (-1, 10, 1000, 1000, 21), (1.0, 10, 1000, 1000, 21), (1, 1, 2000, 3000, 7))], rtol=1e-9)


class TestDistancePipeline(unittest.TestCase):
    def test_relatives(self):
        for name in ("mut1", "mut5", "mut20", "other"):
            d, p, common, denom = distance(GENOMES["base"], GENOMES[name], k=21, s=200)
            check(self, f"pipe_{name}_counts", [common, denom])
            check(self, f"pipe_{name}_distance", d, rtol=1e-12)
            check(self, f"pipe_{name}_p", p, rtol=1e-9, atol=1e-300)

    def test_defaults(self):
        # k = 21 and s = 1000 by default; the genomes have about 1480 k-mers each.
        check(self, "pipe_defaults", distance(GENOMES["base"], GENOMES["mut5"]), rtol=1e-9)

    def test_contigs_and_short_k(self):
        g = GENOMES["mut5"]
        d, p, common, denom = distance([g[:700], "NNNN" + g[700:]], GENOMES["base"], k=15, s=200)
        check(self, "pipe_k15_contigs", [common, denom])
        check(self, "pipe_k15_distance", d, rtol=1e-12)
        check(self, "pipe_k15_p", p, rtol=1e-9, atol=1e-300)
        # Every character counts in the genome length, N included.
        d, p, common, denom = distance(["NNNN" + GENOMES["other"][:600], GENOMES["other"][600:]], GENOMES["base"], k=8, s=200)
        check(self, "pipe_unrelated_k8", [common, denom])
        check(self, "pipe_unrelated_k8_p", p, rtol=1e-9)
        d, p, common, denom = distance(GENOMES["base"], reverse_complement(GENOMES["base"]), k=21, s=100)
        check(self, "pipe_self_revcomp", [d, p, common, denom])
        check(self, "pipe_kmers_outcomes", [outcome(distance, a, GENOMES["base"], k=21, s=100)
                                             for a in (GENOMES["mut20"][:300], "ACGTNNNNACGT", GENOMES["base"][200:700])], rtol=1e-9)
