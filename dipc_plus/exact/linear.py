"""Linear forms over independent noises, and ordering atoms ``form op 0``.

The vocabulary shared by the chain (which builds them), the constraint
splitter and the exact engines (which integrate them): kept apart so that the
engines and `constraints` can both import it without importing each other.
`LinForm` is the one affine form: the symbolic walk (`semantics.walk`) keys it by
input names, the density-ratio bound wraps it, and `lp.Constraint.of` reads it.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.exact.convert import to_fraction


# Canonical operators: the form is compared with 0.
OPS = ("<", "<=", "==", "!=")
_FLIP = {">": "<", ">=": "<="}          # f > 0  <=>  -f < 0
_NEGATE = {"<": "<=", "<=": "<", "==": "!=", "!=": "=="}  # not(f < 0) <=> -f <= 0 ; see negate()


def holds(value, op: str) -> bool:
    """The truth of ``value op 0`` (op in < <= == != > >=): the one reading of an operator.

    >>> holds(-1, "<"), holds(0, "<"), holds(0, ">=")
    (True, False, True)
    """
    return {"<": value < 0, "<=": value <= 0, "==": value == 0, "!=": value != 0,
            ">": value > 0, ">=": value >= 0}[op]


def _uncached_state(self) -> dict:
    """Pickle state without the cached hash (str hashes differ between processes)."""
    return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


def _cached_hash(self) -> int:
    """The hash of the fields' tuple, computed once: noises, forms and atoms are immutable and
    key the engines' caches, where hashing their Fractions again was a measured cost."""
    h = self.__dict__.get("_hash")
    if h is None:
        h = hash(tuple(v for k, v in self.__dict__.items() if not k.startswith("_")))
        object.__setattr__(self, "_hash", h)
    return h


@dataclass(frozen=True)
class Noise:
    """An independent noise variable, rate a of a*eps, location 0; `kind` names its
    distribution in the registry of exact/noises/ ('lap', 'exp', 'dlap', ...).

    >>> from fractions import Fraction
    >>> Noise("lap", Fraction(1, 2))         # Lap(eps/2): density (eps/4) e^(-eps|x|/2)
    Noise(kind='lap', rate=Fraction(1, 2))
    """
    kind: str
    rate: Fraction

    __hash__ = _cached_hash
    __getstate__ = _uncached_state


def engine_rates(noises, kind: str) -> list:
    """The rates (Fractions) of the noises an exact engine integrates, which must all be of its
    `kind` with a positive rate: the engines' one precondition on their noises.

    >>> engine_rates([Noise("lap", Fraction(1, 2))], "lap")
    [Fraction(1, 2)]
    """
    rates = []
    for nz in noises:
        if nz.kind != kind:
            raise ValueError(f"the {kind!r} engine got a {nz.kind!r} noise")
        rates.append(Fraction(nz.rate))
        if rates[-1] <= 0:
            raise ValueError(f"the {kind!r} noise's rate {nz.rate} is not positive")
    return rates


_ZERO = Fraction(0)
_ONE = Fraction(1)


@dataclass(frozen=True, order=True)
class LinForm:
    """sum coeffs[i][1] * N_{coeffs[i][0]} + const, coeffs sorted by key, no zero coefficient.

    Keys are noise ids for the engines, input names for the walks, or tagged pairs for the
    density-ratio bound (`privacy.dp.density_ratio.Form`): of one sortable kind in a form.

    2 N_0 - N_1 + 3, halved; and N_0 - N_1 + 1/2 minus itself is the constant 0:

    >>> f = LinForm.make({0: 2, 1: -1}, 3)
    >>> f.scale(Fraction(1, 2))
    LinForm(coeffs=((0, Fraction(1, 1)), (1, Fraction(-1, 2))), const=Fraction(3, 2))
    >>> g = LinForm.make({0: 1, 1: -1}, Fraction(1, 2))
    >>> sorted(g.noises()), (g - g).is_constant(), (g + LinForm.constant(1)).const
    ([0, 1], True, Fraction(3, 2))
    """
    coeffs: tuple  # of (int noise id, Fraction)
    const: Fraction = Fraction(0)

    __hash__ = _cached_hash
    __getstate__ = _uncached_state

    @staticmethod
    def make(coeffs: dict, const=Fraction(0)) -> "LinForm":
        return LinForm(tuple(sorted((i, to_fraction(c)) for i, c in coeffs.items() if c != 0)), to_fraction(const))

    @staticmethod
    def constant(k) -> "LinForm":
        return LinForm((), to_fraction(k))

    @staticmethod
    def symbol(key) -> "LinForm":
        return LinForm(((key, _ONE),), _ZERO)

    def as_dict(self) -> dict:
        return dict(self.coeffs)

    def renamed(self, new_key: dict) -> "LinForm":
        """The form with each key k written new_key[k] (a one-to-one renaming).

        >>> print(LinForm.make({0: 2, 1: 1}).renamed({0: "y", 1: "x"}))
        x + 2*y
        """
        return LinForm(tuple(sorted((new_key[k], c) for k, c in self.coeffs)), self.const)

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
        s = to_fraction(s)
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

    def value(self, point) -> Fraction:
        """The form at a point (key -> number).

        >>> LinForm.make({"x": 2}, 1).value({"x": Fraction(1, 2)})
        Fraction(2, 1)
        """
        return self.const + sum((c * to_fraction(point[k]) for k, c in self.coeffs), _ZERO)

    def __str__(self) -> str:
        """'2*x + y + 1/2' ('0' for the zero form)."""
        parts = [f"{c}*{k}" if c != 1 else str(k) for k, c in self.coeffs]
        if self.const != 0 or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)


@dataclass(frozen=True, order=True)
class Atom:
    """form op 0 with op in OPS; built by `atom`, which normalises it.

    >>> atom(LinForm.constant(1), "<", LinForm.constant(2)).holds_constant()     # 1 - 2 < 0
    True
    """
    form: LinForm
    op: str

    __hash__ = _cached_hash
    __getstate__ = _uncached_state

    def noises(self) -> frozenset:
        return self.form.noises()

    def holds_constant(self) -> bool:
        """Truth of an atom without noise."""
        return holds(self.form.const, self.op)


def atom(lhs: LinForm, op: str, rhs: LinForm) -> Atom:
    """The normalised atom for ``lhs op rhs`` (op in < <= > >= == = !=).

    N_0 >= 1 is stored as 1 - N_0 <= 0:

    >>> atom(LinForm.make({0: 1}), ">=", LinForm.constant(1))
    Atom(form=LinForm(coeffs=((0, Fraction(-1, 1)),), const=Fraction(1, 1)), op='<=')
    """
    if op == "=":
        op = "=="
    if op in _FLIP:             # lhs > rhs  <=>  rhs - lhs < 0
        lhs, rhs, op = rhs, lhs, _FLIP[op]
    if op not in OPS:
        raise ValueError(f"unknown comparison {op!r}")
    return Atom(normalise_form(lhs - rhs, op), op)


def negate(a: Atom) -> Atom:
    """The atom for not(a).

    not(N_0 >= 1) is N_0 - 1 < 0:

    >>> negate(atom(LinForm.make({0: 1}), ">=", LinForm.constant(1)))
    Atom(form=LinForm(coeffs=((0, Fraction(1, 1)),), const=Fraction(-1, 1)), op='<')
    """
    if a.op in ("==", "!="):
        return Atom(a.form, _NEGATE[a.op])
    # not(f < 0) is f >= 0 is -f <= 0; not(f <= 0) is -f < 0
    return Atom(normalise_form(a.form.scale(-1), _NEGATE[a.op]), _NEGATE[a.op])


def atom_row(a: "Atom", width: int) -> list:
    """The atom's coefficients on ids 0..width-1 and then its constant, as Fractions: the row an
    engine reads (noises first, then any symbolic inputs).

    N_1 < 1/2, stored as N_1 - 1/2 < 0:

    >>> atom_row(atom(LinForm.make({1: 1}), "<", LinForm.constant(Fraction(1, 2))), 2)
    [Fraction(0, 1), Fraction(1, 1), Fraction(-1, 2)]
    """
    row = [_ZERO] * (width + 1)
    for i, c in a.form.coeffs:
        if not 0 <= i < width:
            raise ValueError(f"atom coefficient id {i} is outside the engine's ids 0..{width - 1}")
        row[i] = to_fraction(c)
    row[-1] = to_fraction(a.form.const)
    return row


def normalise_form(form: LinForm, op: str) -> LinForm:
    """Divide by |first coefficient| (by the first coefficient for == and !=), so equal atoms are equal.

    -2 N_0 + 4 < 0 becomes -N_0 + 2 < 0; as an equation the sign is fixed too:

    >>> f = LinForm.make({0: -2}, 4)
    >>> normalise_form(f, "<").as_dict(), normalise_form(f, "<").const
    ({0: Fraction(-1, 1)}, Fraction(2, 1))
    >>> normalise_form(f, "==").as_dict(), normalise_form(f, "==").const
    ({0: Fraction(1, 1)}, Fraction(-2, 1))
    """
    if not form.coeffs:
        return form
    lead = form.coeffs[0][1]
    if lead == 1 or (lead == -1 and op not in ("==", "!=")):
        return form
    s = 1 / lead if op in ("==", "!=") else 1 / abs(lead)
    return form.scale(s)
