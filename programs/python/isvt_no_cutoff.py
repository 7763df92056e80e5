"""An incorrect Sparse Vector: no cutoff, query noise of scale 2/epsilon (Chen et al.; Lyu,
Su & Li 2017, Algorithm 6).

Not eps-DP (the loss grows with the number of queries).  The .dip twin:
programs/svt_lyu_alg6.dip.
"""


def isvt_no_cutoff(prng, queries, epsilon, T):
    out = []
    noisy_T = T + prng.laplace(scale=2.0 / epsilon)
    for query in queries:
        if query + prng.laplace(scale=2.0 / epsilon) >= noisy_T:
            out.append(True)
        else:
            out.append(False)
    return out
