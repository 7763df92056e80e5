"""The Sparse Vector Technique as StatDP writes it (Lyu, Su & Li 2017, Algorithm 1).

Correct: eps-DP for queries of sensitivity 1.  The threshold is perturbed once (scale
2/epsilon); each query gets noise of scale 4N/epsilon; after N answers above the
threshold the list is returned, cut short.  The .dip twin: programs/svt_lyu_alg1.dip.
"""


def svt(prng, queries, epsilon, N, T):
    out = []
    noisy_T = T + prng.laplace(scale=2.0 / epsilon)
    count = 0
    for query in queries:
        if query + prng.laplace(scale=4.0 * N / epsilon) >= noisy_T:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out
