"""Seeded randomness for randomised conformal procedures."""


def draw_uniforms(rng, n):
    """n independent uniform numbers in [0, 1), one per data point, in order: [rng.random() for each].

    rng: a random.Random instance. All randomised procedures of this package draw their tie-breaking
    uniforms through this function, once per call, so seeded runs are reproducible.
    """
    return [rng.random() for _ in range(n)]
