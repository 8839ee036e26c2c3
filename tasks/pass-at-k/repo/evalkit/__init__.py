"""evalkit: scoring functional-correctness runs of code-generating models.
``results`` reads per-sample outcomes, ``samples`` holds a small example run,
``metrics`` turns outcomes into pass@k."""
