"""Ordering constraints over independent noise samples, and their exact probability.

A comparison of samples is an `Atom`  ``sum c_i N_i + k  op  0``.  `probability` splits
the atoms into independent components, canonicalises each (so equal shapes share one
cache entry across states and inputs) and hands it to the engine of its noise kind.
On a cell of symbolic inputs (`prob --symbolic`, boxes) the same route keeps the inputs
as symbols: they link no components, and the Laplace engine returns one closed form
for the whole cell.  Design: docs/design/exact_engines.md.

Examples.  With N_5, N_9, N_2 ~ Lap(eps): P[N_5 - N_9 > 1] = e^(-eps)(2 + eps)/4 (the
difference of two Laplace samples, by hand); N_2 > 0 is independent of it and halves it;
a renaming of the noises has the same canonical key; and given N_2 > 0, N_2 > 1 has
probability e^(-eps) (the Laplace tail is memoryless):

>>> from dipc_plus.exact.linear import Noise
>>> lap = Noise("lap", Fraction(1))
>>> gap = atom(LinForm.make({5: 1}), ">", LinForm.make({9: 1}, 1))
>>> positive = atom(LinForm.make({2: 1}), ">", LinForm.constant(0))
>>> print(probability([gap], {5: lap, 9: lap}))
1/2*e^(-eps) + 1/4*eps*e^(-eps)
>>> [len(c) for c in components([gap, positive])]
[1, 1]
>>> print(probability([gap, positive], {5: lap, 9: lap, 2: lap}))
1/4*e^(-eps) + 1/8*eps*e^(-eps)
>>> renamed = atom(LinForm.make({0: 1}), ">", LinForm.make({4: 1}, 1))
>>> canonical(frozenset({gap}), {5: lap, 9: lap}) == canonical(frozenset({renamed}), {0: lap, 4: lap})
True
>>> print(component_probability(*canonical(frozenset({gap}), {5: lap, 9: lap})))
1/2*e^(-eps) + 1/4*eps*e^(-eps)

A chain's noise 7 ~ Lap(eps) below its input 3 (the cell's q0), for q0 in [0, 1]:
1 - e^(-eps q0)/2, the Laplace CDF:

>>> from dipc_plus.exact.cells import box
>>> below = atom(LinForm.make({7: 1}), "<", LinForm.make({3: 1}))
>>> print(probability([below], {7: lap}, {3: 0}, box(1, 0, 1)).at([Fraction(1)]))
1 - 1/2*e^(-eps)

The memos never change a value:

>>> forget_constraint_sets(); clear_probability_caches()
>>> print(probability([gap], {5: lap, 9: lap}))
1/2*e^(-eps) + 1/4*eps*e^(-eps)
"""
from __future__ import annotations

from collections import OrderedDict
from fractions import Fraction
from functools import lru_cache
from itertools import permutations, product
from math import factorial

from dipc_plus.exact import dlap_engine, laplace_engine
from dipc_plus.exact.cells import Cell
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.linear import Atom, LinForm, atom, normalise_form
from dipc_plus.exact.noises import engine_reading
from dipc_plus.exact.open_regions import primitive
from dipc_plus.exact.symbolic_terms import SymbolicForm

# --------------------------------------------------------------------------- probability


def linked_groups(keys: dict) -> list[list]:
    """The items of {item: its sorted keys} grouped by shared keys (union-find on the keys), items
    with no key left out, each group in the items' order and the groups in the order of their
    smallest key: the one partition of atoms by noise and of statements by the variables they share.

    >>> linked_groups({"a": [1, 4], "b": [2], "c": [4, 9], "d": []})
    [['a', 'c'], ['b']]
    """
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for ids in keys.values():
        for i in ids[1:]:
            ra, rb = find(ids[0]), find(i)
            if ra != rb:
                parent[rb] = ra
    groups: dict = {}
    for item, ids in keys.items():
        if ids:
            groups.setdefault(find(ids[0]), []).append(item)
    return sorted(groups.values(), key=lambda g: min(keys[item][0] for item in g))


def components(atoms, ignore=frozenset()) -> list[frozenset]:
    """Partition atoms into groups that share no noise (`linked_groups` on noise ids); ids in
    `ignore` (symbolic inputs) link nothing, and atoms with no other id are left out.  The groups
    come in the order of their smallest noise id, whatever order the atoms come in (a frozenset's
    order changes with PYTHONHASHSEED, and on a cell the first component to need a split decides
    how the cell is cut, so the printed cells would too)."""
    return [frozenset(g) for g in linked_groups({a: sorted(a.noises() - ignore) for a in atoms})]


_MAX_ORDERINGS = 120   # tie-breaking renamings tried per component (beyond: one fixed choice)


def canonical(component, noises: dict) -> tuple:
    """(atoms renamed to noise ids 0..k-1, tuple of their Noise): one key per isomorphism class.

    Two components that differ only by a renaming of their noises (keeping kinds
    and rates) have the same probability, so they should share one cache entry,
    whatever ids the DTMC gave the noises (statement positions, which differ
    between programs, and between queries in different places of one program).
    Noises are coloured by colour refinement (kind and rate, then the atoms they
    appear in, read without ids), ordered by colour; noises left tied are tried
    in every order (up to `_MAX_ORDERINGS` renamings; tied noises that can be
    swapped without changing the atoms count once) and the least renamed atom
    set is the key.  Any renaming is a valid key; the search only makes equal
    shapes meet.  Atoms are handled as primitive integer vectors, so no
    Fraction is hashed on the way.
    """
    atoms = list(component)
    ints = [_integer_atom(a) for a in atoms]
    colour = _colours(ints, noises)
    groups = [sorted(i for i in colour if colour[i] == c) for c in sorted(set(colour.values()))]
    order = _least_order(ints, groups)
    new_id = {i: n for n, i in enumerate(order)}
    # atoms in the order of their integer forms (a deterministic order, cheaper than comparing Atoms)
    renamed = sorted((_form(op, {new_id[i]: c for i, c in cs.items()}, k), _renamed(a, new_id))
                     for (op, cs, k), a in zip(ints, atoms))
    return tuple(a for _, a in renamed), tuple(noises[i] for i in order)


def _colours(ints: list, noises: dict) -> dict:
    """Colour refinement of the noises: {noise id: colour}, started from (kind, rate) and refined by
    the atoms each noise appears in (read without ids) until the partition stops splitting."""
    ids = sorted({i for _, cs, _ in ints for i in cs})
    colour = _rank({i: (noises[i].kind, noises[i].rate) for i in ids})
    for _ in range(len(ids)):
        seen: dict = {i: [] for i in ids}
        for op, cs, k in ints:
            label = _form(op, cs, k, colour)
            equality = op in ("==", "!=")
            for i, c in cs.items():
                seen[i].append((label, abs(c) if equality else c))
        refined = _rank({i: (colour[i], tuple(sorted(seen[i]))) for i in ids})
        if len(set(refined.values())) == len(set(colour.values())):
            break
        colour = refined
    return colour


def _least_order(ints: list, groups: list) -> list:
    """The order of the noises (colour classes in turn) whose renaming gives the least atom set,
    over the orders of tied noises worth trying (see `canonical`)."""
    def renamed_atoms(order: list) -> tuple:
        new_id = {i: n for n, i in enumerate(order)}
        return tuple(sorted(_form(op, {new_id[i]: c for i, c in cs.items()}, k) for op, cs, k in ints))
    # min keeps the first of equal keys, as the search always did
    return min(([i for part in choice for i in part] for choice in product(*_tie_choices(ints, groups))),
               key=renamed_atoms)


def _tie_choices(ints: list, groups: list) -> list:
    """Per colour class, the orders of its noises to try: one for a singleton or for twins (noises
    that swap without changing the atoms), every permutation while the product of the counts
    stays within _MAX_ORDERINGS, and one fixed order beyond it."""
    shape = None
    choices = []
    orderings = 1
    for g in groups:
        if len(g) > 1:
            if shape is None:
                shape = frozenset(_form(op, cs, k) for op, cs, k in ints)
            if all(_swap_keeps(shape, ints, g[j], g[j + 1]) for j in range(len(g) - 1)):
                choices.append((tuple(g),))    # twins: every order gives the same atoms
                continue
            orderings *= factorial(len(g))
        choices.append(list(permutations(g)) if orderings <= _MAX_ORDERINGS else (tuple(g),))
    return choices


def _renamed(a: Atom, new_id: dict) -> Atom:
    return Atom(normalise_form(a.form.renamed(new_id), a.op), a.op)


def _rank(values: dict) -> dict:
    """Replace each value by its rank among the distinct values (ranks are comparable ints)."""
    order = {v: r for r, v in enumerate(sorted(set(values.values())))}
    return {k: order[v] for k, v in values.items()}


def _integer_atom(a: Atom) -> tuple:
    """(op, {noise id: int}, int): the atom scaled by a positive number to a primitive integer vector."""
    found = a.__dict__.get("_ints")
    if found is None:
        *cs, k = primitive([c for _, c in a.form.coeffs] + [a.form.const])
        found = (a.op, {i: c for (i, _), c in zip(a.form.coeffs, cs)}, k)
        object.__setattr__(a, "_ints", found)
    return found


def _form(op: str, cs: dict, k: int, colour: dict | None = None) -> tuple:
    """A hashable, comparable integer atom; equalities with the sign that makes it least.  With
    `colour`, the atom without noise ids: coefficients paired with the colours of their noises."""
    def signed(s: int) -> tuple:
        pairs = ((i, s * c) for i, c in cs.items()) if colour is None else ((s * c, colour[i]) for i, c in cs.items())
        return op, tuple(sorted(pairs)), s * k
    return min(signed(1), signed(-1)) if op in ("==", "!=") else signed(1)


def _swap_keeps(shape: frozenset, ints: list, i: int, j: int) -> bool:
    """Does exchanging noises i and j map the atom set to itself?"""
    swap = {i: j, j: i}
    return frozenset(_form(op, {swap.get(v, v): c for v, c in cs.items()}, k) for op, cs, k in ints) == shape


# Whole constraint sets, least recently used first.  A grid's neighbouring inputs share most of
# their sets (a sequential program's first comparisons read only the first inputs), so the
# memo outlives an input; a streaming check trims it to the recent sets after each input.
_PROBABILITY_CACHE: OrderedDict = OrderedDict()
_CACHE_LIMIT = 200_000
_RECENT_SETS = 1024


def probability(atoms, noises: dict, inputs: dict | None = None, cell: Cell | None = None):
    """P[every atom holds], noises independent as given by `noises` (id -> Noise): an `ExpFrac`
    at a point; on a `cell` a `SymbolicForm`, with `inputs` mapping the ids of symbolic
    inputs to their index in the cell's q (`cells.NeedSplit` passes through to the caller).

    At a point it is memoised on the atoms themselves (with the noises they mention): DTMCs
    of the same or nearby inputs ask for the same constraint sets again and again.
    """
    if cell is not None:
        return _probability(list(atoms), noises, inputs or {}, cell)
    atoms = frozenset(atoms)
    ids = frozenset().union(*(a.noises() for a in atoms))
    key = (atoms, tuple(noises[i] for i in sorted(ids)))
    found = _PROBABILITY_CACHE.get(key)
    if found is None:
        found = _probability(atoms, noises)
        _PROBABILITY_CACHE[key] = found
        if len(_PROBABILITY_CACHE) > _CACHE_LIMIT:
            _PROBABILITY_CACHE.popitem(last=False)
    else:
        _PROBABILITY_CACHE.move_to_end(key)
    return found


def forget_constraint_sets() -> None:
    """Keep only the `_RECENT_SETS` most recently used constraint sets.  Called by a streaming grid
    check after each input: its memory stays flat whatever the grid's size, while the next
    inputs, which usually share the last ones' first comparisons, still find them."""
    while len(_PROBABILITY_CACHE) > _RECENT_SETS:
        _PROBABILITY_CACHE.popitem(last=False)


def clear_probability_caches() -> None:
    """Forget every memoised probability, here and in the Laplace engine (for cold timings and
    for comparing engine variants; results never depend on it)."""
    _PROBABILITY_CACHE.clear()
    component_probability.cache_clear()
    laplace_engine.clear_caches()


def _probability(atoms, noises: dict, inputs: dict = {}, cell: Cell | None = None):
    """The product over the independent components: each renamed to the engine's ids (noises
    0..k-1, canonically at a point; inputs k + their index on a cell) and decided once by
    `component_probability`; atoms without a noise are one component of no noise."""
    ignore = frozenset(inputs)
    alone = tuple(sorted(_renamed_on_cell(a, {}, inputs, 0) for a in atoms if a.noises() <= ignore))
    result = component_probability(alone, (), cell) if alone else None
    for comp in components(atoms, ignore):
        if result is not None and result.is_zero():
            break
        value = component_probability(*(canonical(comp, noises) if cell is None
                                         else _on_cell(comp, noises, inputs)), cell)
        result = value if result is None else result * value     # 1 * value is value: skip the product
    if result is None:
        return ExpFrac(ExpPoly.ONE) if cell is None else SymbolicForm.one(cell.p)
    return result


def _on_cell(component, noises: dict, inputs: dict) -> tuple:
    """(atoms, their Noise): the component's noises renamed 0..k-1 in id order, its inputs k + index."""
    ids = sorted({i for a in component for i in a.noises()} - inputs.keys())
    for i in ids:
        if i not in noises:
            raise ValueError(f"atom id {i} is neither a noise nor an input")
    new_id = {i: k for k, i in enumerate(ids)}
    return tuple(sorted(_renamed_on_cell(a, new_id, inputs, len(ids)) for a in component)), \
        tuple(noises[i] for i in ids)


def _renamed_on_cell(a: Atom, new_id: dict, inputs: dict, n: int) -> Atom:
    """Noise ids by `new_id`, input ids to n + their index (the form's scale is kept)."""
    return Atom(a.form.renamed({i: new_id[i] if i in new_id else n + inputs[i] for i in a.noises()}), a.op)


@lru_cache(maxsize=200_000)
def component_probability(atoms: tuple, noises: tuple, cell: Cell | None = None):
    """P[atoms] for one connected component over noises 0..k-1 (and on a `cell` inputs k..), by
    the engine that reads its noises (exact/noises/): an ExpFrac at a point, a SymbolicForm on
    a cell (Laplace engine only).  A noise read as `positive_only` has twice its engine noise's
    density on N > 0: with k such noises P[atoms] = 2^k P[atoms and N_j > 0 for each of them]."""
    readings = [engine_reading(nz) for nz in noises]
    engines = {r.noise.kind for r in readings}
    as_engine = tuple(r.noise for r in readings)
    positive = support_atoms(readings)
    if engines <= {"lap"}:
        form = laplace_engine.probability_on_cell(tuple(atoms) + positive, as_engine, cell)
        form = form.scaled(2 ** len(positive)) if positive else form
        return form if cell is not None else ExpFrac.of(form.at(()))
    if cell is not None:
        kind = next(nz.kind for nz, r in zip(noises, readings) if r.noise.kind != "lap")
        raise ValueError(f"a {kind!r} noise: only noises the Laplace engine reads are symbolic")
    if engines == {"dlap"} and not positive:
        return ExpFrac.of(dlap_engine.probability(atoms, as_engine))
    raise ValueError("a comparison mixes real and integer samples")  # excluded by the checks


def support_atoms(readings) -> tuple:
    """The atoms N_j > 0 for the readings (noise j at position j) that are `positive_only`: with
    them added, the engine noise's integral times 2 per atom is P[atoms] for the one-sided noise.

    >>> from dipc_plus.exact.linear import Noise
    >>> [sorted(a.noises()) for a in support_atoms([engine_reading(Noise("lap", Fraction(1))),
    ...                                             engine_reading(Noise("exp", Fraction(1)))])]
    [[1]]
    """
    return tuple(atom(LinForm(((j, Fraction(1)),), Fraction(0)), ">", LinForm.constant(0))
                 for j, r in enumerate(readings) if r.positive_only)
