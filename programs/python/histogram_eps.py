"""StatDP's incorrect histogram: Laplace noise of scale epsilon instead of 1/epsilon.

dipc refuses it (exit 2): the noise's rate 1/epsilon is not a rational multiple of epsilon,
outside what the exact engines decide (docs/python.md).
"""


def histogram_eps(prng, queries, epsilon):
    return [q + prng.laplace(scale=epsilon) for q in queries]
