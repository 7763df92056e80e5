"""StatDP's iSVT3: threshold noise of scale 4/epsilon, query noise of scale 4/(3 epsilon) that
does not grow with the cutoff N, strict comparison (Lee & Clifton 2014; Lyu, Su & Li 2017,
Algorithm 4).

Lyu et al.: only ((1 + 6N)/4)*eps-DP, claimed eps-DP.  With continuous noise `>` and `>=`
give the same distribution, so the .dip twin is programs/svt_lyu_alg4.dip (which uses `>=`).
"""


def isvt3(prng, queries, epsilon, N, T):
    out = []
    eta1 = prng.laplace(scale=4.0 / epsilon)
    noisy_T = T + eta1
    count = 0
    for query in queries:
        eta2 = prng.laplace(scale=4.0 / (3.0 * epsilon))
        if query + eta2 > noisy_T:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out
