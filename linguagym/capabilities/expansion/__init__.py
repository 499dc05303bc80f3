"""Syntax-based expansion of seed tests: where a seed's tree can take more words (differentiation), fill-in models for
the masks, validation of each fill, selection, and the expander."""
