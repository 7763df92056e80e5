"""StatDP's iSVT1, written as its list writes it: the queries get no noise (`eta2 = 0`), every
query is answered, and the cutoff N is a parameter it never reads (Stoddard, Chen &
Machanavajjhala 2014; Lyu, Su & Li 2017, Algorithm 5).

Not eps-DP for any eps.  Lyu et al. Alg. 5; the .dip twin:
programs/svt_lyu_alg5.dip.
"""


def isvt1(prng, queries, epsilon, N, T):
    out = []
    eta1 = prng.laplace(scale=2.0 / epsilon)
    noisy_T = T + eta1
    for query in queries:
        eta2 = 0
        if (query + eta2) >= noisy_T:
            out.append(True)
        else:
            out.append(False)
    return out
