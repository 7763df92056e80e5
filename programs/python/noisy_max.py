"""Report Noisy Max with Laplace noise, in the style of StatDP's algorithm list.

Correct: eps-DP for queries of sensitivity 1 (Laplace noise of scale 2/epsilon on each
query, the index of the largest noisy answer).  The .dip twin: programs/noisy_max.dip
(whose index counts from 1; numpy's argmax counts from 0).
"""
import numpy as np


def noisy_max(prng, queries, epsilon):
    noisy = [q + prng.laplace(scale=2.0 / epsilon) for q in queries]
    return np.argmax(noisy)
