"""DDSketch: a fully mergeable quantile sketch with relative-error guarantees
(Masson, Rim and Lee, PVLDB 2019).

Use the helpers in ``sketches.buckets`` and ``sketches.checks``.
"""
