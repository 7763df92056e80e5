"""Python functions that use the rest of the subset (enumerate, range(a, b), a default parameter,
tuples, max/argmin/sum/len, np.random.laplace, loc=, an early return, elif), for
tests/test_python_subset.py: the test runs them; dipc only parses this file."""
import numpy as np


def noisy_max_by_hand(prng, queries, epsilon):
    best = 0
    best_val = queries[0] + np.random.laplace(0, 2.0 / epsilon)
    for i, q in enumerate(queries):
        if i >= 1:
            v = q + prng.laplace(scale=2.0 / epsilon)
            if v > best_val:
                best_val = v
                best = i
    return best


def rising(prng, queries, epsilon, c=2):
    out = []
    for i in range(1, len(queries)):
        out.append(queries[i] - queries[i - 1] + prng.laplace(scale=c / epsilon) >= 0)
    return out, sum(out)


def max_and_argmin(prng, queries, epsilon):
    noisy = [q + prng.laplace(loc=1, scale=2.0 / epsilon) for q in queries]
    return max(noisy) >= 0.5, np.argmin(noisy)


def noisy_total(prng, queries, epsilon):
    noisy = []
    for q in queries:
        noisy.append(q + prng.exponential(scale=1 / epsilon))
    total = sum(noisy)
    return total > 2.5


def first_above(prng, queries, epsilon, T=0.5):
    threshold = T + prng.laplace(scale=2 / epsilon)
    for i in range(len(queries)):
        if queries[i] + prng.laplace(scale=4 / epsilon) >= threshold:
            return i
        elif queries[i] < -0.5:
            return len(queries)
    return len(queries)
