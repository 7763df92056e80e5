"""Canonical component keys: isomorphic constraint sets share a key, others do not.

A key collision between non-isomorphic components would silently return a wrong
probability from the cache, so every shared key here is also checked by
recomputing the renamed problem with the engine directly.
"""
from __future__ import annotations

import random
from fractions import Fraction as F

from dipc_plus.exact import constraints
from dipc_plus.exact import dlap_engine
from dipc_plus.exact import laplace_engine as le
from dipc_plus.exact.linear import LinForm, Noise, atom
from dipc_plus.exact.constraints import canonical


def lin(coeffs=None, const=0) -> LinForm:
    return LinForm.make(coeffs or {}, const)


def lap(rate) -> Noise:
    return Noise("lap", F(rate))


def star(ids, threshold, consts, ops):
    return frozenset(atom(lin({i: 1}, k), op, lin({threshold: 1})) for i, k, op in zip(ids, consts, ops))


def engine(atoms, noises: dict) -> object:
    """The engine on the atoms as they are (ids compacted in increasing order, no cache)."""
    ids = sorted({i for a in atoms for i in a.noises()})
    new = {i: n for n, i in enumerate(ids)}
    renamed = [atom(LinForm.make({new[i]: c for i, c in a.form.coeffs}, a.form.const), a.op, lin())
               for a in atoms]
    return le.probability(tuple(renamed), tuple(noises[i] for i in ids))


def test_permuted_queries_share_a_key():
    noises = {0: lap(F(1, 2)), 3: lap(F(1, 4)), 5: lap(F(1, 4)), 9: lap(F(1, 4))}
    a = star([3, 5, 9], 0, [1, 0, -1], [">=", "<", "<"])
    b = star([9, 3, 5], 0, [1, 0, -1], [">=", "<", "<"])      # the same shape, other ids
    c = star([3, 5, 9], 0, [0, 1, -1], ["<", ">=", "<"])      # queries in another order
    ka, kb, kc = canonical(a, noises), canonical(b, noises), canonical(c, noises)
    assert ka == kb == kc
    assert engine(a, noises) == engine(c, noises)


def test_different_shapes_get_different_keys():
    noises = {0: lap(F(1, 2)), 1: lap(F(1, 4)), 2: lap(F(1, 4)), 3: lap(F(1, 2))}
    base = star([1, 2], 0, [1, 0], [">=", "<"])
    keys = {
        canonical(base, noises),
        canonical(star([1, 2], 0, [1, 0], [">=", ">="]), noises),   # another op
        canonical(star([1, 2], 0, [2, 0], [">=", "<"]), noises),    # another constant
        canonical(star([1, 3], 0, [1, 0], [">=", "<"]), noises),    # another rate on one leaf
        canonical(star([1, 2], 3, [1, 0], [">=", "<"]), noises),    # threshold noise 3: a renaming
    }
    # noise 3 has the rate of noise 0, so the last set is the first one renamed: 4 distinct keys
    assert len(keys) == 4


def test_twins_and_ties():
    noises = {i: lap(F(1, 4)) for i in range(1, 5)}
    noises[0] = lap(F(1, 2))
    same = star([1, 2, 3, 4], 0, [0, 0, 0, 0], ["<"] * 4)       # four interchangeable leaves
    key, order = canonical(same, noises)
    assert order.count(lap(F(1, 2))) == 1 and order.count(lap(F(1, 4))) == 4 and len(key) == 4
    assert canonical(star([4, 2, 1, 3], 0, [0, 0, 0, 0], ["<"] * 4), noises) == (key, order)
    # a chain N1 < N2 < N3 with equal rates: no twins, orientation matters
    chain_noises = {i: lap(1) for i in range(3)}
    up = frozenset([atom(lin({0: 1}), "<", lin({1: 1})), atom(lin({1: 1}), "<", lin({2: 1}, 1))])
    down = frozenset([atom(lin({2: 1}), "<", lin({1: 1})), atom(lin({1: 1}), "<", lin({0: 1}, 1))])
    assert canonical(up, chain_noises) == canonical(down, chain_noises)
    assert engine(up, chain_noises) == engine(down, chain_noises)
    shifted = frozenset([atom(lin({0: 1}), "<", lin({1: 1}, 1)), atom(lin({1: 1}), "<", lin({2: 1}))])
    assert canonical(up, chain_noises) != canonical(shifted, chain_noises)


def test_equalities_up_to_sign():
    noises = {0: Noise("dlap", F(1)), 1: Noise("dlap", F(1)), 2: Noise("dlap", F(1, 2))}
    a = frozenset([atom(lin({0: 1}), "==", lin({1: 1}, 1)), atom(lin({1: 1}), "<=", lin({2: 1}))])
    b = frozenset([atom(lin({0: 1}, 1), "==", lin({1: 1})), atom(lin({0: 1}), "<=", lin({2: 1}))])
    # b is a with N0 and N1 exchanged (N1 == N0 + 1, written the other way round, and N0 <= N2)
    assert canonical(a, noises) == canonical(b, noises)
    pa = dlap_engine.probability(*canonical(a, noises))
    assert constraints.probability(b, noises) == constraints.probability(a, noises)
    assert not pa.is_zero()


def test_random_relabellings_keep_the_key_and_the_value():
    rng = random.Random(11)
    for _ in range(40):
        n = rng.randint(2, 4)
        rates = [rng.choice([F(1), F(1, 2)]) for _ in range(n)]
        atoms = set()
        for _ in range(rng.randint(1, 3)):
            i, j = rng.sample(range(n), 2)
            atoms.add(atom(lin({i: 1}, rng.randint(-1, 1)), rng.choice(["<", ">="]), lin({j: rng.choice([1, 2])})))
        comp = frozenset(atoms)
        noises = dict(enumerate(lap(r) for r in rates))
        perm = list(range(n))
        rng.shuffle(perm)
        new_id = {i: 10 + 3 * perm[i] for i in range(n)}
        moved = frozenset(atom(LinForm.make({new_id[i]: c for i, c in a.form.coeffs}, a.form.const), a.op, lin())
                          for a in comp)
        moved_noises = {new_id[i]: noises[i] for i in range(n)}
        assert canonical(comp, noises) == canonical(moved, moved_noises)
        assert engine(comp, noises) == engine(moved, moved_noises)
