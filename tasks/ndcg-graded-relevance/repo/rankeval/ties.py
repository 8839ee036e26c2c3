"""Grouping documents that a system scored equally."""


def tie_groups(scores):
    """Indices of ``scores`` grouped by equal score, best group first.

    Returns a list of lists: the groups are ordered by score descending, the
    indices inside a group ascending; together they cover every index once.
    tie_groups([0.2, 0.9, 0.2, 0.5]) == [[1], [3], [0, 2]]."""
    groups = {}
    for i, s in enumerate(scores):
        groups.setdefault(s, []).append(i)
    return [groups[s] for s in sorted(groups, reverse=True)]
