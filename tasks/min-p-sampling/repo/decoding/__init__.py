"""Tiny decoding toolkit: turn a language model's next-token logits into a
chosen token. ``vocab`` holds numeric helpers and a toy vocabulary;
``min_p`` implements min-p sampling."""
