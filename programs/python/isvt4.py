"""StatDP's iSVT4 as its list writes it: above the threshold the NOISY QUERY VALUE is
appended instead of True (Roth 2011; Lyu, Su & Li 2017, Algorithm 3).

dipc refuses this text (exit 2): one list holds both False and numbers, which DiPWhile+ has
no type for.  isvt4_answers_and_values.py is the same mechanism in the subset (a list of
answers and a list of values); the .dip twin: programs/svt_lyu_alg3.dip.
"""


def isvt4(prng, queries, epsilon, N, T):
    out = []
    eta1 = prng.laplace(scale=2.0 / epsilon)
    noisy_T = T + eta1
    count = 0
    for query in queries:
        eta2 = prng.laplace(scale=2.0 * N / epsilon)
        if query + eta2 > noisy_T:
            out.append(query + eta2)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out
