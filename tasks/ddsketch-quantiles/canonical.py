"""DDSketch: a fully mergeable quantile sketch with relative-error guarantees
(Masson, Rim and Lee, PVLDB 2019).

Use the helpers in ``sketches.buckets`` and ``sketches.checks``.
"""

import math

from sketches.buckets import BucketCounts
from sketches.checks import (
    check_gamma,
    check_max_buckets,
    check_positive_value,
    check_quantile,
    check_relative_accuracy,
    check_value,
    check_weight,
)


def gamma_from_accuracy(alpha):
    """The bucket ratio gamma of a sketch whose quantiles are alpha-accurate."""
    check_relative_accuracy(alpha)
    # Sec. 2: gamma = (1 + alpha) / (1 - alpha). A bucket (gamma^(i-1), gamma^i] is then narrow enough that one
    # value inside it is within alpha of every value of the bucket, relative to that value.
    return (1.0 + alpha) / (1.0 - alpha)


def bucket_index(x, gamma):
    """The index i of the bucket (gamma^(i-1), gamma^i] that holds the positive value x."""
    check_positive_value(x)
    check_gamma(gamma)
    # Sec. 2, insertion: i = ceil(log_gamma(x)). The ceiling (not the floor) makes the bucket closed on the right:
    # gamma^i itself is in bucket i.
    return math.ceil(math.log(x) / math.log(gamma))


def bucket_value(index, gamma):
    """The value a sketch returns for bucket ``index``: 2 gamma^i / (gamma + 1)."""
    if isinstance(index, bool) or not isinstance(index, int):
        raise ValueError(f"a bucket index is an int, got {index!r}")
    check_gamma(gamma)
    # Sec. 2, quantile query: not the bucket's upper end gamma^i nor its midpoint, but the point whose relative
    # distance to both ends is alpha: 2 gamma^i / (gamma + 1) = (1 - alpha) gamma^i = (1 + alpha) gamma^(i-1).
    return 2.0 * gamma**index / (gamma + 1.0)


class DDSketch:
    """A DDSketch of relative accuracy ``relative_accuracy`` (alpha); with ``max_buckets`` an int, each of its
    two sides keeps at most that many non-empty buckets, collapsing its lowest ones (see instruction.md)."""

    def __init__(self, relative_accuracy=0.01, max_buckets=None):
        check_relative_accuracy(relative_accuracy)
        check_max_buckets(max_buckets)
        self.relative_accuracy = relative_accuracy
        self.gamma = gamma_from_accuracy(relative_accuracy)
        self.max_buckets = max_buckets
        # The positive values' buckets; the negative values' magnitudes in a second set of buckets (not in the
        # paper, which sketches positive values: the authors' library does so), and zeros counted apart (log 0
        # has no bucket).
        self.positive = BucketCounts()
        self.negative = BucketCounts()
        self.zero_count = 0.0

    @property
    def count(self):
        """The total weight added (the number of values when every weight is 1)."""
        return self.negative.total + self.zero_count + self.positive.total

    @property
    def num_buckets(self):
        """The number of non-empty buckets, both sides together."""
        return len(self.positive) + len(self.negative)

    def add(self, x, weight=1.0):
        """Add the value ``x`` with weight ``weight`` (a count; 1 for one value)."""
        check_value(x)
        check_weight(weight)
        if x > 0:
            # Sec. 2, insertion: one more in bucket ceil(log_gamma x).
            self.positive.add(bucket_index(x, self.gamma), weight)
            self._collapse(self.positive)
        elif x < 0:
            self.negative.add(bucket_index(-x, self.gamma), weight)
            self._collapse(self.negative)
        else:
            self.zero_count += weight

    def _collapse(self, side):
        # Sec. 2, bounding the size: while a side has more than m non-empty buckets, its lowest bucket is merged into
        # the next lowest. The low end (values near zero, or the smallest magnitudes) loses its accuracy; the high
        # quantiles, which a latency monitor reads, keep theirs.
        if self.max_buckets is None:
            return
        while len(side) > self.max_buckets:
            lowest, next_lowest = side.indices()[:2]
            side.add(next_lowest, side.pop(lowest))

    def quantile(self, q):
        """The alpha-accurate q-quantile, or None for an empty sketch."""
        check_quantile(q)
        if self.count == 0:
            return None
        # Sec. 2, quantile query: the q-quantile is the value of rank q(n - 1) (0-based) in sorted order; walk the
        # buckets from the smallest value up and stop at the first whose cumulative count exceeds that rank (a
        # count equal to the rank is not past it).
        rank = q * (self.count - 1)
        seen = 0.0
        # The negative values first, the most negative (the highest index of the magnitudes) first.
        for index, c in reversed(self.negative.items()):
            seen += c
            if seen > rank:
                return -bucket_value(index, self.gamma)
        seen += self.zero_count
        if seen > rank:
            return 0.0
        for index, c in self.positive.items():
            seen += c
            if seen > rank:
                return bucket_value(index, self.gamma)
        # No running count passed the rank: weights so large that n - 1 rounds to n (q = 1 then has rank n). The
        # largest value's bucket, as for q = 1 with any other weights.
        return self._largest()

    def _largest(self):
        if len(self.positive):
            return bucket_value(self.positive.indices()[-1], self.gamma)
        if self.zero_count:
            return 0.0
        return -bucket_value(self.negative.indices()[0], self.gamma)

    def merge(self, other):
        """Add every value of the DDSketch ``other`` to this one (``other`` is not changed)."""
        if not isinstance(other, DDSketch):
            raise ValueError(f"can only merge a DDSketch, got {type(other).__name__}")
        # Sec. 2, merging: two sketches with the same gamma have the same buckets, so the counts add up bucket by
        # bucket, and the result is the sketch of the union, as accurate as one sketch of all the values.
        if other.gamma != self.gamma:
            raise ValueError(f"cannot merge sketches of different accuracy (gamma {self.gamma!r} and {other.gamma!r})")
        for index, c in other.positive.items():
            self.positive.add(index, c)
        for index, c in other.negative.items():
            self.negative.add(index, c)
        self.zero_count += other.zero_count
        self._collapse(self.positive)
        self._collapse(self.negative)
