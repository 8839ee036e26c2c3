"""SimPO: Simple Preference Optimization with a Reference-Free Reward (Meng,
Xia and Chen, NeurIPS 2024). Write log_sigmoid, sequence_log_prob,
simpo_loss and simpo_batch_loss here (see instruction.md)."""
