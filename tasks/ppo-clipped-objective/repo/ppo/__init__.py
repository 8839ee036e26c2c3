"""Proximal policy optimisation: numeric helpers, categorical policies and the PPO objective."""
