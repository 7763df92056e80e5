"""Claim files: reading them, formulas, inputs, distances, disagreement and the
noise-free program."""
