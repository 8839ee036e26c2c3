"""FracMinHash sketches of DNA sequences (``sketch``), statistics of k-mers
under a simple point-mutation model (``kmer_stats``), a scalar root finder
(``roots``), and containment-based mutation-rate / ANI estimates (``ani``)."""
