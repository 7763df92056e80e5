"""Ordering constraints over independent noise samples, and their exact probability.

Every real (integer) program variable is, at a DTMC state, a linear form
``sum c_i N_i + k`` over independent noises N_i ~ Lap(a_i eps, 0) (DLap(a_i eps, 0)
for integers) with rational c_i, k: a sample Lap(a eps, mu) is mu + N.  A
comparison of samples is an `Atom`  ``sum c_i N_i + k  op  0``.

`probability(atoms, noises)` is P[all atoms hold] as an exact closed form.  It
splits the atoms into independent components (atoms that share no noise),
canonicalises each component (noise ids renamed by first appearance, so equal
shapes share one cache entry across states and inputs) and hands it to the
engine of its kind: `laplace_engine` (integrals) or `dlap_engine` (sums).
The conditional probability a DTMC edge carries is P[C and a] / P[C].
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import permutations, product
from math import factorial, gcd, lcm

from .expoly import ExpFrac, ExpPoly

# Canonical operators: the form is compared with 0.
OPS = ("<", "<=", "==", "!=")
_FLIP = {">": "<", ">=": "<="}          # f > 0  <=>  -f < 0
_NEGATE = {"<": "<=", "<=": "<", "==": "!=", "!=": "=="}  # not(f < 0) <=> -f <= 0 ; see negate()


def _uncached_state(self) -> dict:
    """Pickle state without the cached hash (str hashes differ between processes)."""
    return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


@dataclass(frozen=True)
class Noise:
    """An independent noise variable: kind 'lap' (real) or 'dlap' (integer), rate a of a*eps, mean 0."""
    kind: str
    rate: Fraction

    def __hash__(self):   # cached: Fraction hashes are slow and noises key many caches
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.kind, self.rate))
            object.__setattr__(self, "_hash", h)
        return h

    __getstate__ = _uncached_state


def _frac(c) -> Fraction:
    return c if type(c) is Fraction else Fraction(c)


_ZERO = Fraction(0)
_ONE = Fraction(1)


@dataclass(frozen=True, order=True)
class LinForm:
    """sum coeffs[i][1] * N_{coeffs[i][0]} + const, coeffs sorted by noise id, no zero coefficient."""
    coeffs: tuple  # of (int noise id, Fraction)
    const: Fraction = Fraction(0)

    def __hash__(self):   # cached (forms are immutable and hashed over and over in states)
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.coeffs, self.const))
            object.__setattr__(self, "_hash", h)
        return h

    __getstate__ = _uncached_state

    @staticmethod
    def make(coeffs: dict, const=Fraction(0)) -> "LinForm":
        return LinForm(tuple(sorted((i, _frac(c)) for i, c in coeffs.items() if c != 0)), _frac(const))

    @staticmethod
    def constant(k) -> "LinForm":
        return LinForm((), _frac(k))

    def as_dict(self) -> dict:
        return dict(self.coeffs)

    def __add__(self, other: "LinForm") -> "LinForm":
        if not other.coeffs:
            return LinForm(self.coeffs, self.const + other.const)
        if not self.coeffs:
            return LinForm(other.coeffs, self.const + other.const)
        d = self.as_dict()
        for i, c in other.coeffs:
            d[i] = d.get(i, 0) + c
        return LinForm.make(d, self.const + other.const)

    def scale(self, s) -> "LinForm":
        s = _frac(s)
        if s == 1:
            return self
        if not s:
            return LinForm((), _ZERO)
        if s == -1:
            return LinForm(tuple((i, -c) for i, c in self.coeffs), -self.const)
        return LinForm(tuple((i, c * s) for i, c in self.coeffs), self.const * s)

    def __sub__(self, other: "LinForm") -> "LinForm":
        return self + other.scale(-1)

    def noises(self) -> frozenset:
        found = self.__dict__.get("_noises")
        if found is None:
            found = frozenset(i for i, _ in self.coeffs)
            object.__setattr__(self, "_noises", found)
        return found

    def is_constant(self) -> bool:
        return not self.coeffs


@dataclass(frozen=True, order=True)
class Atom:
    """form op 0 with op in OPS; built by `atom`, which normalises it."""
    form: LinForm
    op: str

    def __hash__(self):
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.form, self.op))
            object.__setattr__(self, "_hash", h)
        return h

    __getstate__ = _uncached_state

    def noises(self) -> frozenset:
        return self.form.noises()

    def holds_constant(self) -> bool:
        """Truth of an atom without noise."""
        k = self.form.const
        return {"<": k < 0, "<=": k <= 0, "==": k == 0, "!=": k != 0}[self.op]


def atom(lhs: LinForm, op: str, rhs: LinForm) -> Atom:
    """The normalised atom for ``lhs op rhs`` (op in < <= > >= == = !=)."""
    if op == "=":
        op = "=="
    if op in _FLIP:             # lhs > rhs  <=>  rhs - lhs < 0
        lhs, rhs, op = rhs, lhs, _FLIP[op]
    if op not in OPS:
        raise ValueError(f"unknown comparison {op!r}")
    d = dict(lhs.coeffs)
    for i, c in rhs.coeffs:
        d[i] = d.get(i, 0) - c
    form = LinForm.make(d, lhs.const - rhs.const)
    return Atom(_normalise(form, op), op)


def negate(a: Atom) -> Atom:
    """The atom for not(a)."""
    if a.op in ("==", "!="):
        return Atom(a.form, _NEGATE[a.op])
    # not(f < 0) is f >= 0 is -f <= 0; not(f <= 0) is -f < 0
    return Atom(_normalise(a.form.scale(-1), _NEGATE[a.op]), _NEGATE[a.op])


def _normalise(form: LinForm, op: str) -> LinForm:
    """Divide by |first coefficient| (by the first coefficient for == and !=), so equal atoms are equal."""
    if not form.coeffs:
        return form
    lead = form.coeffs[0][1]
    if lead == 1 or (lead == -1 and op not in ("==", "!=")):
        return form
    s = 1 / lead if op in ("==", "!=") else 1 / abs(lead)
    return form.scale(s)


# --------------------------------------------------------------------------- probability


def components(atoms) -> list[frozenset]:
    """Partition atoms into groups that share no noise (union-find on noise ids)."""
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a in atoms:
        ids = sorted(a.noises())
        for i in ids[1:]:
            ra, rb = find(ids[0]), find(i)
            if ra != rb:
                parent[rb] = ra
        if ids:
            find(ids[0])
    groups: dict = {}
    for a in atoms:
        ids = a.noises()
        if ids:
            groups.setdefault(find(next(iter(ids))), set()).add(a)
    return [frozenset(g) for g in groups.values()]


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
    ids = sorted({i for _, cs, _ in ints for i in cs})
    kinds = {noises[i] for i in ids}    # Noise hashes are cached; Fraction rates are not
    kind_rank = {nz: r for r, nz in enumerate(sorted(kinds, key=lambda nz: (nz.kind, nz.rate)))}
    colour = {i: kind_rank[noises[i]] for i in ids}
    for _ in range(len(ids)):
        seen: dict = {i: [] for i in ids}
        for op, cs, k in ints:
            label = _label(op, cs, k, colour)
            equality = op in ("==", "!=")
            for i, c in cs.items():
                seen[i].append((label, abs(c) if equality else c))
        refined = _rank({i: (colour[i], tuple(sorted(seen[i]))) for i in ids})
        if len(set(refined.values())) == len(set(colour.values())):
            break
        colour = refined
    classes: dict = {}
    for i in ids:
        classes.setdefault(colour[i], []).append(i)
    groups = [classes[c] for c in sorted(classes)]
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
    best = None
    for choice in product(*choices):
        order = [i for part in choice for i in part]
        new_id = {i: n for n, i in enumerate(order)}
        key = tuple(sorted(_form(op, {new_id[i]: c for i, c in cs.items()}, k) for op, cs, k in ints))
        if best is None or key < best[0]:
            best = (key, order)
    order = best[1]
    new_id = {i: n for n, i in enumerate(order)}
    # atoms in the order of their integer forms (a deterministic order, cheaper than comparing Atoms)
    renamed = sorted((_form(op, {new_id[i]: c for i, c in cs.items()}, k), _renamed(a, new_id))
                     for (op, cs, k), a in zip(ints, atoms))
    return tuple(a for _, a in renamed), tuple(noises[i] for i in order)


def _renamed(a: Atom, new_id: dict) -> Atom:
    form = LinForm(tuple(sorted((new_id[i], c) for i, c in a.form.coeffs)), a.form.const)
    return Atom(_normalise(form, a.op), a.op)


def _rank(values: dict) -> dict:
    """Replace each value by its rank among the distinct values (ranks are comparable ints)."""
    order = {v: r for r, v in enumerate(sorted(set(values.values())))}
    return {k: order[v] for k, v in values.items()}


def _integer_atom(a: Atom) -> tuple:
    """(op, {noise id: int}, int): the atom scaled by a positive number to a primitive integer vector."""
    found = a.__dict__.get("_ints")
    if found is None:
        const = a.form.const
        den = const.denominator
        for _, c in a.form.coeffs:
            den = lcm(den, c.denominator)
        cs = {i: c.numerator * (den // c.denominator) for i, c in a.form.coeffs}
        k = const.numerator * (den // const.denominator)
        g = gcd(k, *cs.values())
        found = (a.op, {i: c // g for i, c in cs.items()}, k // g)
        object.__setattr__(a, "_ints", found)
    return found


def _form(op: str, cs: dict, k: int) -> tuple:
    """A hashable, comparable integer atom; equalities with the sign that makes it least."""
    plain = (op, tuple(sorted(cs.items())), k)
    if op in ("==", "!="):
        return min(plain, (op, tuple(sorted((i, -c) for i, c in cs.items())), -k))
    return plain


def _label(op: str, cs: dict, k: int, colour: dict) -> tuple:
    """The atom without noise ids: coefficients paired with the colours of their noises."""
    plain = (op, tuple(sorted((c, colour[i]) for i, c in cs.items())), k)
    if op in ("==", "!="):
        return min(plain, (op, tuple(sorted((-c, colour[i]) for i, c in cs.items())), -k))
    return plain


def _swap_keeps(shape: frozenset, ints: list, i: int, j: int) -> bool:
    """Does exchanging noises i and j map the atom set to itself?"""
    swap = {i: j, j: i}
    return frozenset(_form(op, {swap.get(v, v): c for v, c in cs.items()}, k) for op, cs, k in ints) == shape


_PROBABILITY_CACHE: dict = {}
_CACHE_LIMIT = 200_000


def probability(atoms, noises: dict) -> ExpFrac:
    """P[every atom holds], noises independent as given by `noises` (id -> Noise).

    Memoised on the atoms themselves (with the noises they mention): DTMCs of
    nearby inputs ask for the same constraint sets again and again.
    """
    atoms = frozenset(atoms)
    ids: set = set()
    for a in atoms:
        ids.update(a.form.noises())
    key = (atoms, tuple(noises[i] for i in sorted(ids)))
    found = _PROBABILITY_CACHE.get(key)
    if found is None:
        found = _probability(atoms, noises)
        if len(_PROBABILITY_CACHE) > _CACHE_LIMIT:
            _PROBABILITY_CACHE.clear()
        _PROBABILITY_CACHE[key] = found
    return found


def _probability(atoms, noises: dict) -> ExpFrac:
    result = ExpFrac(ExpPoly.ONE)
    for a in atoms:
        if a.form.is_constant() and not a.holds_constant():
            return ExpFrac(ExpPoly.ZERO)
    first = True
    for comp in components([a for a in atoms if not a.form.is_constant()]):
        value = component_probability(*canonical(comp, noises))
        result = value if first else result * value     # 1 * value is value: skip the product
        first = False
        if result.is_zero():
            break
    return result


def conditional(given, new: Atom, noises: dict) -> ExpFrac:
    """P[new | given]: only the components that `new` touches matter."""
    touched = new.noises()
    related = [a for a in given if a.noises() & touched]
    # grow to the whole component of `new` within `given`
    changed = True
    while changed:
        changed = False
        for a in given:
            if a not in related and a.noises() & touched:
                related.append(a)
        ids = set(touched)
        for a in related:
            ids |= a.noises()
        if ids != touched:
            touched = frozenset(ids)
            changed = True
    base = probability(related, noises)
    both = probability(related + [new], noises)
    if base.is_zero():
        raise ZeroDivisionError("conditioning on a constraint set of probability 0")
    return both / base


@lru_cache(maxsize=200_000)
def component_probability(atoms: tuple, noises: tuple) -> ExpFrac:
    """P[atoms] for one connected, canonical component, by the engine of its kind."""
    kinds = {n.kind for n in noises}
    if kinds == {"lap"}:
        from . import laplace_engine
        return ExpFrac.of(laplace_engine.probability(atoms, noises))
    if kinds == {"dlap"}:
        from . import dlap_engine
        return ExpFrac.of(dlap_engine.probability(atoms, noises))
    raise ValueError("a comparison mixes real and integer samples")  # excluded by the checks
