"""SGDR: stochastic gradient descent with warm restarts (Loshchilov & Hutter, ICLR 2017)."""

import math

from schedules.training import MomentumSGD
from schedules.validation import check_epoch, check_learning_rates, check_positive_int


def cycle_position(epoch, T_0, T_mult=1):
    """Where ``epoch`` (possibly fractional) falls in the restart schedule.

    Returns ``(i, T_cur, T_i)``: the 0-based index of the current run, the number of
    epochs since its restart, and its length in epochs."""
    raise NotImplementedError


def sgdr_learning_rate(epoch, eta_max, eta_min, T_0, T_mult=1):
    """The SGDR learning rate at ``epoch`` (possibly fractional)."""
    raise NotImplementedError


def batch_learning_rates(num_epochs, batches_per_epoch, eta_max, eta_min, T_0, T_mult=1):
    """The learning rate of every mini-batch of ``num_epochs`` epochs, in order (a flat list)."""
    raise NotImplementedError


def train_with_restarts(objective, x0, num_epochs, batches_per_epoch, eta_max, eta_min, T_0, T_mult=1, momentum=0.9):
    """Train with SGD + momentum under the SGDR schedule.

    Returns ``(x_final, snapshots)``, the snapshots being the parameters at the end of
    every run that was completed before training stopped."""
    raise NotImplementedError
