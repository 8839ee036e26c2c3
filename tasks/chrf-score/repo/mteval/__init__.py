"""Small machine-translation evaluation toolkit: n-gram extraction helpers
(``ngrams``), a toy test set (``testset``) and the chrF / chrF++ metric
(``chrf``)."""
