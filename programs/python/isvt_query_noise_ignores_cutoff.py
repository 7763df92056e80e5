"""An incorrect Sparse Vector: the query noise does not grow with the cutoff N (Lee &
Clifton; Lyu, Su & Li 2017, Algorithm 4): threshold scale 4/epsilon, query scale
4/(3 epsilon).

Lyu et al.: only ((1 + 6N)/4)*eps-DP, claimed eps-DP.  The .dip twin: programs/svt_lyu_alg4.dip.
"""


def isvt_query_noise_ignores_cutoff(prng, queries, epsilon, N, T):
    out = []
    noisy_T = T + prng.laplace(scale=4.0 / epsilon)
    count = 0
    for query in queries:
        if query + prng.laplace(scale=4.0 / (3 * epsilon)) >= noisy_T:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out
