"""The Laplace histogram of StatDP's list: every count with Laplace noise of scale 1/epsilon.

Correct: eps-DP when neighbouring histograms differ by at most 1 in one count (and checked
here, as the .dip twin programs/laplace.dip is, per output with L-inf distance 1 on m = 1).
"""


def histogram(prng, queries, epsilon):
    return [q + prng.laplace(scale=1.0 / epsilon) for q in queries]
