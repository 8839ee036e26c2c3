"""Rational approximation in barycentric form: sample sets (``samples``), a
linear-algebra helper (``linalg``) and the AAA algorithm (``aaa``)."""
