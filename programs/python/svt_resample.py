"""Sparse Vector with the threshold drawn again after each answer above it (Dwork & Roth's
Sparse; Lyu, Su & Li 2017, Algorithm 2).

Correct: eps-DP for queries of sensitivity 1.  The .dip twin: programs/svt_lyu_alg2.dip.
"""


def svt_resample(prng, queries, epsilon, N, T):
    out = []
    noisy_T = T + prng.laplace(scale=2.0 * N / epsilon)
    count = 0
    for query in queries:
        if query + prng.laplace(scale=4.0 * N / epsilon) >= noisy_T:
            out.append(True)
            noisy_T = T + prng.laplace(scale=2.0 * N / epsilon)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out
