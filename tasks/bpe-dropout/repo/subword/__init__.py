"""Subword segmentation with byte-pair encoding: merge tables (``codes``),
seeded merge dropout (``sampling``) and segmentation (``bpe``)."""
