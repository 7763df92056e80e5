"""Wall-clock timings of the exact Laplace engine on the shapes DP programs produce.

Run:  python experiments/laplace_engine_timings.py
Each shape is computed from a cold engine cache; the numbers are for the report,
never asserted in tests.
"""
from __future__ import annotations

import time
from fractions import Fraction as F

from dipc_plus.exact import laplace_engine as le
from dipc_plus.exact.linear import LinForm, Noise, atom


def lin(coeffs=None, const=0):
    return LinForm.make(coeffs or {}, const)


def lap(rate):
    return Noise("lap", F(rate))


def timed(name, atoms, noises):
    le.clear_caches()
    t = time.perf_counter()
    p = le.probability(tuple(atoms), tuple(noises))
    dt = time.perf_counter() - t
    print(f"{name:52s} {dt * 1000:9.1f} ms   {len(list(p.monomials())):3d} monomials")
    return p


def sparse_variant(m, above):
    """One threshold T ~ Lap(eps/2, 0) against m queries q_i + Lap(eps/4, 0)."""
    qs = [(i % 3) - 1 for i in range(m)]
    atoms = [atom(lin({i + 1: 1}, q), ">=" if up else "<", lin({0: 1})) for i, (q, up) in enumerate(zip(qs, above))]
    return atoms, [lap(F(1, 2))] + [lap(F(1, 4))] * m


def noisy_max(q, i):
    m = len(q)
    return [atom(lin({i: 1}, q[i]), ">", lin({j: 1}, q[j])) for j in range(m) if j != i], [lap(F(1, 2))] * m


def prefix_sums(T, g=2):
    atoms = []
    for k in range(1, T + 1):
        f = lin({i: 1 for i in range(k)})
        atoms += [atom(f, "<=", lin(const=g)), atom(f, ">=", lin(const=-g))]
    return atoms, [lap(1)] * T


def main():
    timed("P[Lap(eps,0) >= Lap(eps,1)]", [atom(lin({0: 1}), ">=", lin({1: 1}, 1))], [lap(1), lap(1)])
    for m in (4, 8, 12):
        timed(f"SparseVariant m={m}, all below", *sparse_variant(m, [False] * m))
        timed(f"SparseVariant m={m}, last above", *sparse_variant(m, [False] * (m - 1) + [True]))
    for m in (3, 5, 8):
        q = [(-1) ** i * (i % 3) for i in range(m)]
        t = time.perf_counter()
        for i in range(m):
            timed(f"  NoisyMax m={m}, P[out={i}]", *noisy_max(q, i))
        print(f"NoisyMax m={m}, all outputs: {(time.perf_counter() - t) * 1000:.1f} ms")
    timed("chain of 8, mixed rates", [atom(lin({i: 1}, 1), "<", lin({i + 1: 1})) for i in range(7)],
          [lap(1 + i % 3) for i in range(8)])
    timed("|N1+N2+N3+1/2| <= 2", [atom(lin({0: 1, 1: 1, 2: 1}, F(1, 2)), "<=", lin(const=2)),
                                   atom(lin({0: 1, 1: 1, 2: 1}, F(1, 2)), ">=", lin(const=-2))],
          [lap(1), lap(F(1, 2)), lap(F(3, 2))])
    for T in (3, 5, 7):
        timed(f"smart sum: all {T} prefix sums within 2", *prefix_sums(T))


if __name__ == "__main__":
    main()
