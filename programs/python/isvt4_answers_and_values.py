"""StatDP's iSVT4 (Roth 2011; Lyu, Su & Li 2017, Algorithm 3) in the Python subset: the answers
(True above the threshold) and, beside them, the noisy query values published for the True
answers (0.0 elsewhere).

isvt4.py mixes False and numbers in one list, and a list of numbers cannot be cut short by
`break` (a real output has no `none`), so here the loop runs to the end and answers False,
with value 0.0, once N answers were True: after the N-th True the answers say where the
cutoff was, so nothing is lost or added.  Not eps-DP (Lyu et al.: infinity-DP; the loss grows
with the number of queries).  The .dip twin: programs/svt_lyu_alg3.dip.
"""


def isvt4_answers_and_values(prng, queries, epsilon, N, T):
    answers = []
    values = []
    noisy_T = T + prng.laplace(scale=2.0 / epsilon)
    count = 0
    for query in queries:
        if count < N:
            noisy_query = query + prng.laplace(scale=2.0 * N / epsilon)
            if noisy_query > noisy_T:
                answers.append(True)
                values.append(noisy_query)
                count += 1
            else:
                answers.append(False)
                values.append(0.0)
        else:
            answers.append(False)
            values.append(0.0)
    return answers, values
