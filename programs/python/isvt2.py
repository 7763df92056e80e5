"""StatDP's iSVT2: query noise of scale 2/epsilon that does not grow with N, and no cutoff
(Chen et al. 2015; Lyu, Su & Li 2017, Algorithm 6); N is a parameter it never reads.

Not eps-DP (the loss grows with the number of answers above the threshold).  The same
mechanism as Lyu et al. Alg. 6; the .dip twin: programs/svt_lyu_alg6.dip.
"""


def isvt2(prng, queries, epsilon, N, T):
    out = []
    eta1 = prng.laplace(scale=2.0 / epsilon)
    noisy_T = T + eta1
    for query in queries:
        eta2 = prng.laplace(scale=2.0 / epsilon)
        if (query + eta2) >= noisy_T:
            out.append(True)
        else:
            out.append(False)
    return out
