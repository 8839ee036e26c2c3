import math
import unittest

import numpy as np

from recode_check import check, outcome

from fuzzygraph.fuzzy import compute_rho, fuzzy_graph, fuzzy_simplicial_set, membership_strengths, smooth_knn_dist
from fuzzygraph.knn import exact_knn

# Hand-made neighbour distances (column 0 is the point itself).
HAND = np.array(
    [
        [0.0, 0.5, 1.0, 2.0],
        [0.0, 0.0, 0.3, 0.9],
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 0.2, 0.2, 0.7],
    ]
)


def blobs(seed, n_per=12, dim=3):
    """Two Gaussian blobs and three exact duplicates of the first point."""
    rng = np.random.default_rng(seed)
    a = rng.normal(0.0, 1.0, size=(n_per, dim))
    b = rng.normal(4.0, 0.5, size=(n_per, dim))
    X = np.vstack([a, b])
    X[1] = X[0]
    X[2] = X[0]
    return X


class TestComputeRho(unittest.TestCase):
    def test_local_connectivity(self):
        check(self, "rho_lc1", compute_rho(HAND), rtol=1e-15)
        check(self, "rho_lc1.5", compute_rho(HAND, 1.5), rtol=1e-12)
        check(self, "rho_lc0", compute_rho(HAND, 0.0))
        check(self, "rho_lc0.5", compute_rho(HAND, 0.5), rtol=1e-12)
        # More than the number of positive distances: the largest one.
        check(self, "rho_lc5", compute_rho(HAND, 5.0), rtol=1e-15)
        check(self, "rho_lc_range", [outcome(compute_rho, HAND, lc) for lc in (2.0, -1.0, 0.25)], rtol=1e-12)
        # A single column (each point its own only neighbour) is valid: rho = 0.
        check(self, "rho_one_column", compute_rho(np.zeros((3, 1))))
        check(
            self,
            "rho_shape",
            [outcome(compute_rho, a) for a in (np.zeros(4), HAND[:2], np.zeros((3, 0)), np.ones((2, 3)))],
            rtol=1e-12,
        )


class TestSmoothKnnDist(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.X = blobs(7)
        cls.idx, cls.dists = exact_knn(cls.X, 6)

    def test_random_data(self):
        sigmas, rhos = smooth_knn_dist(self.dists, 6.0)
        check(self, "smooth_sigmas", sigmas, rtol=1e-9)
        check(self, "smooth_rhos", rhos, rtol=1e-12)
        # The normalisation holds to the search tolerance for a regular row.
        i = 5
        total = sum(math.exp(-max(0.0, d - rhos[i]) / sigmas[i]) for d in self.dists[i, 1:])
        self.assertAlmostEqual(total, math.log2(6.0), delta=1e-5)

    def test_search_procedure(self):
        # After 5 steps the search has not converged: the value depends on the
        # exact bisection scheme (start at 1, double while there is no upper bound).
        sigmas, _ = smooth_knn_dist(self.dists, 6.0, n_iter=5)
        check(self, "smooth_5_steps", sigmas, rtol=1e-12)
        sigmas, _ = smooth_knn_dist(self.dists, 6.0, bandwidth=2.0)
        check(self, "smooth_bandwidth_2", sigmas, rtol=1e-9)
        sigmas, rhos = smooth_knn_dist(self.dists, 6.0, local_connectivity=2.0)
        check(self, "smooth_lc2", [sigmas, rhos], rtol=1e-9)

    def test_floor_and_errors(self):
        # Rows 1 and 2: every neighbour at distance rho (or zero), so the sum
        # cannot reach log2(k); sigma falls to the floor of the reference code.
        sigmas, rhos = smooth_knn_dist(HAND, 4.0)
        check(self, "smooth_hand", [sigmas, rhos], rtol=1e-9)
        flat = np.array([[0.0, 1.0, 1.0, 1.0], [0.0, 0.5, 1.0, 3.0]])
        check(self, "smooth_flat_row", smooth_knn_dist(flat, 4.0)[0], rtol=1e-9)
        check(self, "smooth_k_range", [outcome(smooth_knn_dist, HAND, k) for k in (3.0, 1.0, 4.5)], rtol=1e-9)


class TestMembershipStrengths(unittest.TestCase):
    def test_hand(self):
        idx = np.array([[0, 2, 1], [1, 0, -1], [2, 0, 1]])
        d = np.array([[0.0, 0.4, 0.9], [0.0, 0.9, 1.0], [0.0, 0.4, 1.2]])
        sigmas = np.array([0.5, 0.0, 0.25])
        rhos = np.array([0.4, 0.5, 0.4])
        rows, cols, vals = membership_strengths(idx, d, sigmas, rhos)
        self.assertEqual(vals.dtype, np.float64)
        check(self, "memb_hand_rows", rows)
        check(self, "memb_hand_cols", cols)
        check(self, "memb_hand_vals", vals, rtol=1e-12)

    def test_random(self):
        X = blobs(3, n_per=8)
        idx, d = exact_knn(X, 5)
        sigmas, rhos = smooth_knn_dist(d, 5.0)
        rows, cols, vals = membership_strengths(idx, d, sigmas, rhos)
        check(self, "memb_random", [rows, cols], rtol=0)
        check(self, "memb_random_vals", vals, rtol=1e-9)
        check(
            self,
            "memb_shapes",
            [
                outcome(membership_strengths, i, dd, sigmas, rhos)
                for i, dd in ((idx[:, :4], d[:, :4]), (idx[:, :3], d), (idx[:, :2], d[:, :2]))
            ],
            rtol=1e-9,
        )


class TestFuzzySimplicialSet(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.X = blobs(11)
        cls.idx, cls.dists = exact_knn(cls.X, 7)

    def test_union(self):
        graph, sigmas, rhos = fuzzy_simplicial_set(self.idx, self.dists)
        self.assertEqual(graph.shape, (24, 24))
        self.assertTrue(np.allclose(graph, graph.T))
        check(self, "fss_union", graph, rtol=1e-9, atol=1e-15)
        check(self, "fss_union_sigmas", sigmas, rtol=1e-9)

    def test_mix_ratio_and_connectivity(self):
        for mix in (0.0, 0.5):
            graph, _, _ = fuzzy_simplicial_set(self.idx, self.dists, set_op_mix_ratio=mix)
            check(self, f"fss_mix_{mix}", graph, rtol=1e-9, atol=1e-15)
        graph, _, rhos = fuzzy_simplicial_set(self.idx, self.dists, local_connectivity=2.0)
        check(self, "fss_lc2", graph, rtol=1e-9, atol=1e-15)
        check(
            self,
            "fss_mix_range",
            [
                outcome(fuzzy_simplicial_set, self.idx, self.dists, set_op_mix_ratio=mix)
                for mix in (0.25, -0.1, 1.5, 0.75)
            ],
            rtol=1e-9,
            atol=1e-15,
        )

    def test_missing_neighbours(self):
        idx = self.idx.copy()
        idx[3, 6] = -1
        idx[10, 5:] = -1
        graph, _, _ = fuzzy_simplicial_set(idx, self.dists)
        check(self, "fss_missing", graph, rtol=1e-9, atol=1e-15)


class TestFuzzyGraph(unittest.TestCase):
    def test_pipeline(self):
        X = blobs(5, n_per=10, dim=4)
        graph, sigmas, rhos = fuzzy_graph(X, 5)
        check(self, "graph_pipeline", graph, rtol=1e-9, atol=1e-15)
        check(self, "graph_pipeline_rhos", rhos, rtol=1e-12)
        graph, _, _ = fuzzy_graph(X, 8, set_op_mix_ratio=0.25, local_connectivity=1.5)
        check(self, "graph_pipeline_options", graph, rtol=1e-9, atol=1e-15)
        check(self, "graph_pipeline_k", [outcome(fuzzy_graph, X, k) for k in (3, 0, 6)], rtol=1e-9, atol=1e-15)
