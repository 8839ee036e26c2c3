"""Streaming summaries with relative-error guarantees."""
