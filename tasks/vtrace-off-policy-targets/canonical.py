"""V-trace off-policy actor-critic targets (Espeholt et al., "IMPALA", ICML 2018)."""

import math

from impala.checks import check_discounts, check_threshold, check_trajectory
from impala.policy import action_log_probs


def clipped_importance_weights(log_rhos, threshold):
    """min(threshold, exp(log_rho)) for every step; threshold None means no clipping."""
    check_threshold("threshold", threshold)
    if threshold is None:
        return [math.exp(lr) for lr in log_rhos]
    # Sec. 4.1: rho_t = min(rho_bar, pi/mu), c_i = min(c_bar, pi/mu). The minimum is taken in log
    # space, min(log threshold, log rho), so a huge log-ratio never overflows exp().
    log_t = math.log(threshold)
    return [math.exp(min(log_t, lr)) for lr in log_rhos]


def vtrace_targets(log_rhos, discounts, rewards, values, bootstrap_value,
                   clip_rho_threshold=1.0, clip_c_threshold=1.0):
    """V-trace value targets v_s for s = 0..T-1."""
    check_trajectory(log_rhos=log_rhos, discounts=discounts, rewards=rewards, values=values)
    check_discounts(discounts)
    rhos = clipped_importance_weights(log_rhos, clip_rho_threshold)   # rho_t, clipped at rho_bar
    cs = clipped_importance_weights(log_rhos, clip_c_threshold)       # c_i, clipped at c_bar
    T = len(values)
    vs = [0.0] * T
    # Remark 1: v_s - V(x_s) = delta_s V + gamma_s c_s (v_{s+1} - V(x_{s+1})), run backwards from
    # v_T - V(x_T) = 0 (the bootstrap state's target is its own value).
    acc = 0.0
    for s in reversed(range(T)):
        next_value = values[s + 1] if s + 1 < T else bootstrap_value
        # Eq. (1): delta_s V = rho_s (r_s + gamma V(x_{s+1}) - V(x_s)); gamma is the per-step
        # discount (0 after a terminal step, which cuts both the bootstrap and the trace).
        delta = rhos[s] * (rewards[s] + discounts[s] * next_value - values[s])
        acc = delta + discounts[s] * cs[s] * acc
        vs[s] = values[s] + acc
    return vs


def vtrace_pg_advantages(log_rhos, discounts, rewards, values, bootstrap_value, vs,
                         clip_pg_rho_threshold=1.0):
    """Policy-gradient advantages rho_s (r_s + gamma_s v_{s+1} - V(x_s))."""
    check_trajectory(log_rhos=log_rhos, discounts=discounts, rewards=rewards, values=values, vs=vs)
    check_discounts(discounts)
    pg_rhos = clipped_importance_weights(log_rhos, clip_pg_rho_threshold)
    T = len(values)
    out = []
    for s in range(T):
        # Sec. 4.2: the Q estimate is r_s + gamma v_{s+1}, with the V-trace target of the next
        # step (not the critic's V(x_{s+1})); after the last step v_T = V(x_T), the bootstrap.
        next_vs = vs[s + 1] if s + 1 < T else bootstrap_value
        out.append(pg_rhos[s] * (rewards[s] + discounts[s] * next_vs - values[s]))
    return out


def vtrace_from_logits(behaviour_logits, target_logits, actions, discounts, rewards, values,
                       bootstrap_value, clip_rho_threshold=1.0, clip_c_threshold=1.0,
                       clip_pg_rho_threshold=1.0):
    """V-trace for softmax policies: returns (vs, pg_advantages, log_rhos)."""
    check_trajectory(behaviour_logits=behaviour_logits, target_logits=target_logits, actions=actions,
                     discounts=discounts, rewards=rewards, values=values)
    # The importance ratio pi(a_t|x_t) / mu(a_t|x_t) of the taken action, kept in log space:
    # log rho_t = log pi(a_t|x_t) - log mu(a_t|x_t), from the repository's log-softmax helper.
    target_lp = action_log_probs(target_logits, actions)
    behaviour_lp = action_log_probs(behaviour_logits, actions)
    log_rhos = [p - m for p, m in zip(target_lp, behaviour_lp)]
    vs = vtrace_targets(log_rhos, discounts, rewards, values, bootstrap_value,
                        clip_rho_threshold, clip_c_threshold)
    adv = vtrace_pg_advantages(log_rhos, discounts, rewards, values, bootstrap_value, vs,
                               clip_pg_rho_threshold)
    return vs, adv, log_rhos
