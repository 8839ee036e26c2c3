"""SGDR: stochastic gradient descent with warm restarts (Loshchilov & Hutter, ICLR 2017)."""

import math

from schedules.training import MomentumSGD
from schedules.validation import check_epoch, check_learning_rates, check_positive_int


def cycle_position(epoch, T_0, T_mult=1):
    """Where ``epoch`` (possibly fractional) falls in the restart schedule: (i, T_cur, T_i)."""
    check_epoch(epoch)
    check_positive_int("T_0", T_0)
    check_positive_int("T_mult", T_mult)
    # paper.tex, "Growing periods": the first run lasts T_0 epochs and every restart multiplies the length by T_mult,
    # so run i covers [T_0 (1 + T_mult + ... + T_mult^(i-1)), ... + T_mult^i). The boundaries are
    # integers, so walking them with integer arithmetic places a restart exactly (no logarithm, whose
    # rounding can put an epoch on a boundary into the previous run).
    i, start, T_i = 0, 0, T_0
    while epoch >= start + T_i:
        start += T_i
        T_i *= T_mult
        i += 1
    # T_cur: epochs since the last restart, fractional within an epoch.
    return i, float(epoch - start), T_i


def sgdr_learning_rate(epoch, eta_max, eta_min, T_0, T_mult=1):
    """The SGDR learning rate at ``epoch`` (possibly fractional)."""
    check_learning_rates(eta_max, eta_min)
    _, T_cur, T_i = cycle_position(epoch, T_0, T_mult)
    # Eq. (1) (Eq. 5 of the paper): eta_t = eta_min + 1/2 (eta_max - eta_min) (1 + cos(pi T_cur / T_i)); eta_max right
    # after a restart (T_cur = 0), approaching eta_min at the end of the run (T_cur -> T_i).
    # eta_min and eta_max stay the same in every run, as in the paper's experiments.
    return eta_min + 0.5 * (eta_max - eta_min) * (1.0 + math.cos(math.pi * T_cur / T_i))


def batch_learning_rates(num_epochs, batches_per_epoch, eta_max, eta_min, T_0, T_mult=1):
    """The learning rate of every mini-batch of ``num_epochs`` epochs, in order."""
    if isinstance(num_epochs, bool) or not isinstance(num_epochs, int) or num_epochs < 0:
        raise ValueError(f"num_epochs must be an integer >= 0, got {num_epochs!r}")
    check_positive_int("batches_per_epoch", batches_per_epoch)
    # paper.tex, after Eq. (1): T_cur is updated at each batch, so it takes fractional values: batch b of epoch e
    # runs at epoch e + b / batches_per_epoch (the first batch of a run uses eta_max).
    return [
        sgdr_learning_rate(e + b / batches_per_epoch, eta_max, eta_min, T_0, T_mult)
        for e in range(num_epochs)
        for b in range(batches_per_epoch)
    ]


def train_with_restarts(objective, x0, num_epochs, batches_per_epoch, eta_max, eta_min, T_0, T_mult=1, momentum=0.9):
    """Train with SGD + momentum under the SGDR schedule; returns (x_final, snapshots)."""
    lrs = batch_learning_rates(num_epochs, batches_per_epoch, eta_max, eta_min, T_0, T_mult)
    x = [float(v) for v in x0]
    # "Warm" restarts: only the learning rate jumps back to eta_max; the parameters (and the
    # optimizer's momentum buffer) carry over from the end of the previous run.
    opt = MomentumSGD(len(x), momentum)
    snapshots = []
    k = 0
    for e in range(num_epochs):
        for b in range(batches_per_epoch):
            x = opt.step(x, objective.batch_grad(x, b, batches_per_epoch), lrs[k])
            k += 1
        # paper.tex, "Snapshots": the recommended solution of a run is the one at its end, just before the next
        # restart, where the learning rate is smallest; these snapshots can form an ensemble.
        if cycle_position(e + 1, T_0, T_mult)[1] == 0:
            snapshots.append(list(x))
    return x, snapshots
