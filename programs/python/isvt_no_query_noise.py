"""An incorrect Sparse Vector: no noise on the queries and no cutoff (Stoddard, Chen &
Machanavajjhala; Lyu, Su & Li 2017, Algorithm 5).

Not eps-DP for any eps (an answer possible at one input is impossible at a neighbour).
The .dip twin: programs/svt_lyu_alg5.dip.
"""


def isvt_no_query_noise(prng, queries, epsilon, T):
    out = []
    noisy_T = T + prng.laplace(scale=2.0 / epsilon)
    for query in queries:
        if query >= noisy_T:
            out.append(True)
        else:
            out.append(False)
    return out
