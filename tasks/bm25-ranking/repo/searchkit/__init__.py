"""searchkit: a small lexical search engine. ``text`` turns strings into
index terms, ``corpus`` holds a demonstration collection, ``bm25`` scores and
ranks documents."""
