"""Sparse bucket counts: bucket index (int) -> count (a positive float)."""


class BucketCounts:
    """The non-empty buckets of one side of a sketch.

    ``add(index, weight)`` adds to a bucket, ``pop(index)`` empties one and returns what it held,
    ``indices()`` lists the non-empty buckets from the lowest index up, ``len()`` counts them and
    ``total`` is the sum of all counts. Nothing here knows what an index means.
    """

    def __init__(self):
        self._counts = {}
        self.total = 0.0

    def add(self, index, weight=1.0):
        """Add ``weight`` to bucket ``index`` (an int)."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"a bucket index is an int, got {index!r}")
        self._counts[index] = self._counts.get(index, 0.0) + weight
        self.total += weight

    def get(self, index):
        """The count of bucket ``index`` (0.0 when it is empty)."""
        return self._counts.get(index, 0.0)

    def pop(self, index):
        """Empty bucket ``index`` and return the count it held (0.0 when it was empty)."""
        count = self._counts.pop(index, 0.0)
        self.total -= count
        return count

    def indices(self):
        """The indices of the non-empty buckets, lowest first."""
        return sorted(self._counts)

    def items(self):
        """``(index, count)`` pairs of the non-empty buckets, lowest index first."""
        return [(i, self._counts[i]) for i in sorted(self._counts)]

    def copy(self):
        """An independent copy."""
        other = BucketCounts()
        other._counts = dict(self._counts)
        other.total = self.total
        return other

    def __len__(self):
        return len(self._counts)

    def __repr__(self):
        return f"BucketCounts({self.items()!r})"
