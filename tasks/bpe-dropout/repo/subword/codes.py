"""BPE merge tables.

A merge table lists merge operations, one per line, as the two symbols to join
separated by a space, in the order they were learned: the line number is the
merge's priority (0 = learned first = applied first). A first line starting
with "#version" is a header. Words are split into characters and the end of a
word is marked by appending EOW to its last character ("low" -> "l", "o",
"w</w>"), so merges can tell a word-final "st" from a word-internal one."""

EOW = "</w>"

# Merges learned from a small English corpus (45 merge operations).
TOY_CODES = """\
#version: 0.2
w e
l o
t h
s t</w>
th e</w>
e n
we r</w>
n e
we st</w>
t o
to k
tok en
lo wer</w>
w i
wi d
wid e
token i
tokeni z
r e
wide st</w>
e r
s lower</w>
ne west</w>
ne wer</w>
lo west</w>
lo w</w>
g e
en t</w>
a r
w o
wo r
wor d
word s</w>
u ent</w>
tokeniz e
tokenize r</w>
token s</w>
re q
req uent</w>
r o
r i
m o
m er
mer ge
merge s</w>
"""


def parse_merges(text):
    """Merge table text -> dict mapping each pair (left, right) to its rank
    (0-based line number after the optional header). When a pair occurs twice
    the first occurrence counts. Blank lines are ignored. Raises ValueError for a
    line that is not exactly two symbols."""
    ranks = {}
    rank = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        if lineno == 1 and line.startswith("#version"):
            continue
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"line {lineno}: a merge is two symbols separated by a space, got {line!r}")
        ranks.setdefault((parts[0], parts[1]), rank)
        rank += 1
    return ranks


def toy_ranks():
    """The merge table TOY_CODES as a dict pair -> rank."""
    return parse_merges(TOY_CODES)
