"""Report Noisy Max with one-sided exponential noise, in the style of StatDP's list.

Correct: eps-DP for queries of sensitivity 1 (exponential noise of scale 2/epsilon).
The .dip twin: programs/noisy_max_exp.dip.
"""
import numpy as np


def noisy_max_exp(prng, queries, epsilon):
    noisy = [q + prng.exponential(scale=2.0 / epsilon) for q in queries]
    return np.argmax(noisy)
