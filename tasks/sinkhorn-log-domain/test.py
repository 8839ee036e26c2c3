import math
import random
import unittest

from recode_check import check, outcome

from entropic.sinkhorn import (
    gibbs_kernel,
    marginal_error,
    sinkhorn_distance,
    sinkhorn_knopp,
    sinkhorn_log,
    transport_cost,
)

# A 2 x 3 problem small enough to follow by hand.
A2 = [0.5, 0.5]
B3 = [0.2, 0.3, 0.5]
C23 = [[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]
# A 3 x 2 problem whose second column costs at least 0.8.
A3 = [0.2, 0.5, 0.3]
B2 = [0.6, 0.4]
C32 = [[0.0, 1.0], [1.0, 0.9], [0.5, 0.8]]


def random_problem(seed, n, m, power=2):
    """Two histograms on random points of the line and the |x - y|^power cost."""
    rng = random.Random(seed)
    xs = [rng.uniform(0.0, 1.0) for _ in range(n)]
    ys = [rng.uniform(0.0, 1.0) for _ in range(m)]
    a = [rng.uniform(0.1, 1.0) for _ in range(n)]
    b = [rng.uniform(0.1, 1.0) for _ in range(m)]
    sa, sb = math.fsum(a), math.fsum(b)
    a = [x / sa for x in a]
    b = [y / sb for y in b]
    C = [[abs(x - y) ** power for y in ys] for x in xs]
    return a, b, C


class TestGibbsKernel(unittest.TestCase):
    def test_values(self):
        check(self, "kernel_hand", gibbs_kernel(C23, 0.5), rtol=1e-12)
        check(self, "kernel_zero_reg", [outcome(gibbs_kernel, C23, 2.0), outcome(gibbs_kernel, C23, 0.0),
                                        outcome(gibbs_kernel, C32, 0.25)], rtol=1e-12)


class TestTransportCost(unittest.TestCase):
    def test_values(self):
        P = [[0.2, 0.3, 0.0], [0.0, 0.0, 0.5]]
        check(self, "cost_hand", transport_cost(P, C23), rtol=1e-12)
        check(self, "cost_shape_mismatch", [outcome(transport_cost, [[0.1, 0.2, 0.2], [0.3, 0.1, 0.1]], C23),
                                            outcome(transport_cost, [[0.5, 0.5]], C23),
                                            outcome(transport_cost, [[0.5, 0.1], [0.0, 0.2], [0.1, 0.1]], C32)], rtol=1e-12)


class TestMarginalError(unittest.TestCase):
    def test_rows_and_columns(self):
        # Rows sum to 0.5 and 0.5 (exact); columns to 0.2, 0.3, 0.5 (exact).
        check(self, "marg_exact", marginal_error([[0.2, 0.3, 0.0], [0.0, 0.0, 0.5]], A2, B3), atol=1e-15)
        # Row errors 0.1 + 0.1, column errors 0.1 + 0.0 + 0.1: L1 norms, added.
        check(self, "marg_both", marginal_error([[0.3, 0.3, 0.0], [0.0, 0.0, 0.4]], A2, B3), rtol=1e-12)
        check(self, "marg_columns_only", marginal_error([[0.25, 0.25, 0.0], [0.0, 0.0, 0.5]], A2, B3), rtol=1e-12)
        check(self, "marg_shape_mismatch", [outcome(marginal_error, [[0.1, 0.1, 0.3], [0.1, 0.2, 0.2]], A2, B3),
                                            outcome(marginal_error, [[0.5, 0.5]], A2, B3),
                                            outcome(marginal_error, [[0.2, 0.0], [0.3, 0.2], [0.1, 0.2]], A3, B2)],
              rtol=1e-12, atol=1e-15)


class TestSinkhornKnopp(unittest.TestCase):
    def test_first_iterations(self):
        one = sinkhorn_knopp(A2, B3, C23, 1.0, max_iter=1, tol=0.0)
        check(self, "knopp_1_plan", one["plan"], rtol=1e-12)
        check(self, "knopp_1_scalings", [one["u"], one["v"]], rtol=1e-12)
        check(self, "knopp_1_meta", [one["n_iter"], one["converged"]])
        check(self, "knopp_1_error", one["error"], rtol=1e-9)
        three = sinkhorn_knopp(A2, B3, C23, 1.0, max_iter=3, tol=0.0)
        check(self, "knopp_3_plan", three["plan"], rtol=1e-12)

    def test_convergence_and_underflow(self):
        a, b, C = random_problem(3, 7, 5)
        res = sinkhorn_knopp(a, b, C, 0.05, max_iter=500, tol=1e-10)
        check(self, "knopp_rand_n_iter", [res["n_iter"], res["converged"]])
        check(self, "knopp_rand_plan", res["plan"], rtol=1e-9, atol=1e-15)
        self.assertLessEqual(res["error"], 1e-10)
        # exp(-C / reg) underflows to zero for reg = 1e-3 and costs of 0.8 and more:
        # the whole second column of the kernel is zero.
        check(self, "knopp_underflow_column", [outcome(sinkhorn_knopp, A3, B2, C32, 0.5, 3),
                                               outcome(sinkhorn_knopp, A3, B2, C32, 1e-3),
                                               outcome(sinkhorn_knopp, A3, B2, C32, 0.1, 2)], rtol=1e-9, atol=1e-15)
        # A negative entry is rejected even when the masses agree.
        check(self, "knopp_negative_mass", [outcome(sinkhorn_knopp, A2, [0.6, 0.2, 0.2], C23, 1.0, 4),
                                            outcome(sinkhorn_knopp, A2, [0.6, 0.6, -0.2], C23, 1.0),
                                            outcome(sinkhorn_knopp, A2, [0.0, 0.5, 0.5], C23, 2.0, 2)], rtol=1e-9, atol=1e-15)
        # Here K^T u is positive but the second row of K is all zeros, so K v has a zero.
        check(self, "knopp_underflow_row", [outcome(sinkhorn_knopp, [0.5, 0.5], [0.5, 0.5], [[0.0, 0.0], [0.9, 1.0]], 0.5, 3),
                                            outcome(sinkhorn_knopp, [0.5, 0.5], [0.5, 0.5], [[0.0, 0.0], [0.9, 1.0]], 1e-3),
                                            outcome(sinkhorn_knopp, [0.5, 0.5], [0.5, 0.5], [[0.0, 0.0], [0.9, 1.0]], 0.2, 2)],
              rtol=1e-9, atol=1e-15)

    def test_defaults_and_inclusive_stop(self):
        # Slow convergence: the default max_iter (1000) ends the run.
        res = sinkhorn_knopp(A2, B3, C23, 0.1)
        check(self, "knopp_default_cap", [res["n_iter"], res["converged"]])
        check(self, "knopp_default_cap_error", res["error"], rtol=1e-7)
        # The default tol (1e-9) decides the stopping iteration.
        a, b, C = random_problem(31, 5, 4)
        res = sinkhorn_knopp(a, b, C, 0.005)
        check(self, "knopp_default_tol", [res["n_iter"], res["converged"]])
        # A plan whose error is exactly zero stops at once when tol is zero.
        exact = sinkhorn_knopp([0.5, 0.5], [0.25, 0.75], [[0.0, 0.0], [0.0, 0.0]], 1.0, max_iter=50, tol=0.0)
        check(self, "knopp_exact", [exact["n_iter"], exact["converged"], exact["error"]])
        # An error equal to tol counts as converged.
        a, b, C = random_problem(3, 7, 5)
        err5 = sinkhorn_knopp(a, b, C, 0.05, max_iter=5, tol=0.0)["error"]
        res = sinkhorn_knopp(a, b, C, 0.05, max_iter=100, tol=err5)
        check(self, "knopp_tol_inclusive", [res["n_iter"], res["converged"]])


class TestSinkhornLog(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.problem = random_problem(11, 9, 8)
        a, b, C = cls.problem
        cls.converged = sinkhorn_log(a, b, C, 0.05, max_iter=1000, tol=1e-10)

    def test_matches_plain_domain(self):
        a, b, C = self.problem
        plain = sinkhorn_knopp(a, b, C, 0.05, max_iter=1000, tol=1e-10)
        res = self.converged
        check(self, "log_rand_n_iter", [res["n_iter"], res["converged"]])
        check(self, "log_rand_plan", res["plan"], rtol=1e-9, atol=1e-15)
        # The plain-domain plan of the same problem: both match their recordings, which agree to 1e-12.
        check(self, "log_plain_plan", plain["plan"], rtol=1e-9, atol=1e-15)
        check(self, "log_rand_scalings", [res["log_u"], res["log_v"]], rtol=1e-9, atol=1e-12)

    def test_update_order_and_stopping(self):
        one = sinkhorn_log(A2, B3, C23, 1.0, max_iter=1, tol=0.0)
        check(self, "log_1_scalings", [one["log_u"], one["log_v"]], rtol=1e-12, atol=1e-15)
        check(self, "log_1_plan", one["plan"], rtol=1e-12)
        check(self, "log_1_error", one["error"], rtol=1e-9)
        # The stopping rule: the first iteration whose marginal error is <= tol.
        a, b, C = self.problem
        for tol in (1e-3, 1e-6):
            res = sinkhorn_log(a, b, C, 0.05, max_iter=1000, tol=tol)
            check(self, f"log_stop_{tol}", [res["n_iter"], res["converged"]])
            check(self, f"log_stop_error_{tol}", res["error"], rtol=1e-6)
        err5 = sinkhorn_log(a, b, C, 0.05, max_iter=5, tol=0.0)["error"]
        res = sinkhorn_log(a, b, C, 0.05, max_iter=100, tol=err5)
        check(self, "log_tol_inclusive", [res["n_iter"], res["converged"]])
        capped = sinkhorn_log(a, b, C, 0.05, max_iter=4, tol=1e-12)
        check(self, "log_capped", [capped["n_iter"], capped["converged"]])
        check(self, "log_capped_error", capped["error"], rtol=1e-9)

    def test_small_reg_and_zero_mass(self):
        # A regularisation at which the plain kernel underflows.
        tiny = sinkhorn_log(A3, B2, C32, 1e-3, max_iter=2000, tol=1e-12)
        check(self, "log_tiny_reg_plan", tiny["plan"], rtol=1e-9, atol=1e-300)
        check(self, "log_tiny_reg_meta", [tiny["n_iter"], tiny["converged"]])
        a, b, C = random_problem(5, 6, 7, power=1)
        a = [0.0] + a[1:]
        s = math.fsum(a)
        a = [x / s for x in a]
        b[3] = 0.0
        s = math.fsum(b)
        b = [y / s for y in b]
        res = sinkhorn_log(a, b, C, 0.02, max_iter=2000, tol=1e-11)
        check(self, "log_zero_mass_plan", res["plan"], rtol=1e-8, atol=1e-14)
        check(self, "log_zero_row", res["plan"][0])
        check(self, "log_zero_column", [row[3] for row in res["plan"]])
        check(self, "log_zero_mass_scalings", [res["log_u"][0], res["log_v"][3]])

    def test_defaults(self):
        res = sinkhorn_log(A2, B3, C23, 0.1)
        check(self, "log_default_cap", [res["n_iter"], res["converged"]])
        check(self, "log_default_cap_error", res["error"], rtol=1e-7)
        a, b, C = random_problem(31, 5, 4)
        res = sinkhorn_log(a, b, C, 0.005)
        check(self, "log_default_tol", [res["n_iter"], res["converged"]])

    def test_errors(self):
        a, b, C = self.problem
        calls = [
            ([0.3, 0.7], B3, C23, 0.7, 3),  # valid
            ([0.5, 0.4], B3, C23, 1.0),  # masses differ
            (A2, B3, [[0.0, 1.0], [1.0, 0.0]], 1.0),  # wrong cost shape
            (A3, B2, C32, 0.3, 2),  # valid
            (A2, B3, C23, 0.0),  # reg must be positive
            (A2, B3, C23, -1.0),
            ([0.2, 0.3, 0.5], B3, [[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]], 2.0, 4),  # valid
            ([0.5, -0.1, 0.6], B3, [[0.0] * 3] * 3, 1.0),  # negative mass
            ([], B3, [], 1.0),
            ([1.0], [0.25, 0.75], [[0.5, 1.5]], 0.5, 1),  # valid
        ]
        check(self, "log_errors", [outcome(sinkhorn_log, *args) for args in calls], rtol=1e-9, atol=1e-15)
        check(self, "log_zero_max_iter", [outcome(sinkhorn_log, a, b, C, 0.05, max_iter=3),
                                          outcome(sinkhorn_log, a, b, C, 0.05, max_iter=0),
                                          outcome(sinkhorn_log, a, b, C, 0.05, max_iter=2)], rtol=1e-9, atol=1e-15)


class TestSinkhornDistance(unittest.TestCase):
    def test_values(self):
        a, b, C = random_problem(21, 8, 6)
        values = [sinkhorn_distance(a, b, C, reg, max_iter=3000, tol=1e-11) for reg in (1.0, 0.1, 0.02)]
        check(self, "dist_regs", values, rtol=1e-8)
        # Sending a histogram to itself with a small reg costs almost nothing.
        check(self, "dist_self", sinkhorn_distance(a, a, [[abs(i - j) for j in range(8)] for i in range(8)], 0.01, tol=1e-12), rtol=1e-6, atol=1e-30)
        check(self, "dist_hand", sinkhorn_distance(A2, B3, C23, 0.5, tol=1e-12), rtol=1e-9)
        # Defaults: 1000 iterations at most, tol 1e-9.
        check(self, "dist_defaults_capped", sinkhorn_distance(A2, B3, C23, 0.1), rtol=1e-10)
        check(self, "dist_defaults_tol", sinkhorn_distance(*random_problem(31, 5, 4), 0.005), rtol=1e-12)
