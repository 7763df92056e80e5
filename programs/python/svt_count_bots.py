"""StatDP's first SVT (Lyu, Su & Li 2017, Algorithm 1) as its early versions return it: the
number of False answers ("bots") before the cutoff, a single integer a tester can bin.

Correct: eps-DP for queries of sensitivity 1 (a function of the eps-DP answer list).  The loop
ends with `break`, and the count is taken as it would be after the loop.  The .dip twin:
programs/svt_lyu_alg1.dip, whose answer lists give the same count.
"""


def svt_count_bots(prng, queries, epsilon, N, T):
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
    return out.count(False)
