"""Exact values: exponential polynomials in eps, the exact LP, and the engines that
turn orderings of Laplace / discrete-Laplace samples into closed forms."""
