"""Small on-policy reinforcement-learning utilities: rollout storage and advantage estimation."""
