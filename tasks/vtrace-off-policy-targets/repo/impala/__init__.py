"""Pieces of an IMPALA-style off-policy actor-critic learner: policy helpers, input checks, V-trace."""
