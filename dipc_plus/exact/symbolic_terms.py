"""Closed forms in eps and symbolic inputs: sum P(eps) v^a e^(l_v.v + l_eps eps).

The Laplace engine run on a cell (`laplace_engine.probability_on_cell`) keeps the
real inputs as coordinates v_i = eps q_i that it never integrates; what it returns
on the cell is a `SymbolicForm`.  Distinct (exponent, power) pairs are linearly
independent functions on any open set of (v, eps), so the form is canonical on an
open cell: equality is an exact identity test.  (On an equality cell the v's are
tied, so two different forms may agree there; compare them with `at`.)
Substituting v = eps q gives back the per-point `ExpPoly` of that input exactly.
On an equality cell the engine writes the tied inputs in terms of the free ones
first, so the form is canonical there too.
"""
from __future__ import annotations

from fractions import Fraction
from math import prod

from flint import fmpq_poly

from dipc_plus.exact.convert import linear_text, to_fmpq, to_fraction
from dipc_plus.exact.expoly import ExpPoly, binary_power, eps_power_text, exp_text, monomial_sum_text
from dipc_plus.exact.sparse import SparseSum, accumulate, add_keys

__all__ = ["SymbolicForm"]


class SymbolicForm(SparseSum):
    """`terms` maps (exponents of v (Fractions), exponent of eps, powers of v) to a nonzero
    fmpq_poly in eps; p is the number of inputs.

    P[N < q] for N ~ Lap(eps), q >= 0, is 1 - e^(-eps q)/2; at q = 1/2 and q = 2:

    >>> from dipc_plus.exact.cells import Cell
    >>> from dipc_plus.exact.laplace_engine import probability_on_cell
    >>> from dipc_plus.exact.linear import LinForm, Noise, atom
    >>> below_q = atom(LinForm.make({0: 1}), "<", LinForm.make({1: 1}))    # noise 0, input 1
    >>> form = probability_on_cell((below_q,), (Noise("lap", Fraction(1)),), Cell(1, [((-1, 0), "<=")]))
    >>> print(form.at([Fraction(1, 2)]), "|", form.at([Fraction(2)]))
    1 - 1/2*e^(-1/2*eps) | 1 - 1/2*e^(-2*eps)
    >>> print(SymbolicForm.one(1).at([Fraction(3)]))
    1
    """

    __slots__ = ("p", "terms")

    def __init__(self, p: int, terms: dict):
        self.p = p
        self.terms = {k: P for k, P in terms.items() if not P.is_zero()}

    @staticmethod
    def from_engine(terms: dict, n: int, p: int, D: int) -> "SymbolicForm":
        """From the engine's term keys over (u_0..u_{n-1}, v_0..v_{p-1}): exponents of every
        coordinate on the grid 1/D, then eps's, then the powers; no u may be left."""
        N = n + p
        out: dict = {}
        for key, P in terms.items():
            assert not any(key[:n]) and not any(key[N + 1:N + 1 + n]), "a noise was not integrated"
            k = (tuple(Fraction(e, D) for e in key[n:N]), Fraction(key[N], D), key[N + 1 + n:])
            accumulate(out, k, P)
        return SymbolicForm(p, out)

    def like(self, terms: dict, other=None) -> "SymbolicForm":
        """A form over the same inputs (sums and products of forms over different ones are refused)."""
        if other is not None and other.p != self.p:
            raise ValueError("forms over different inputs")
        return SymbolicForm(self.p, terms)

    @staticmethod
    def combine(k1: tuple, k2: tuple) -> tuple:
        """The key of a product of two terms (of the probabilities of independent constraint
        sets): exponents and powers add."""
        return add_keys(k1[0], k2[0]), k1[1] + k2[1], add_keys(k1[2], k2[2])

    def __eq__(self, other):
        return isinstance(other, SymbolicForm) and self.p == other.p and self.terms == other.terms

    __hash__ = None

    @staticmethod
    def one(p: int) -> "SymbolicForm":
        return SymbolicForm(p, {((Fraction(0),) * p, Fraction(0), (0,) * p): fmpq_poly([1])})

    def __len__(self):
        return len(self.terms)

    def at(self, q) -> ExpPoly:
        """The closed form in eps at the input q: v = eps q, so v^a e^(l_v.v + l eps) becomes
        q^a eps^|a| e^((l_v.q + l) eps)."""
        if len(q) != self.p:
            raise ValueError(f"{len(q)} inputs given, the form has {self.p}")
        q = [Fraction(x) for x in q]
        out: dict = {}
        for (lv, le, powers), P in self.terms.items():
            exponent = le + sum((a * x for a, x in zip(lv, q)), Fraction(0))
            coeff = prod((x ** k for x, k in zip(q, powers)), start=Fraction(1))
            if not coeff:
                continue
            shifted = P * fmpq_poly([0] * sum(powers) + [to_fmpq(coeff)])
            accumulate(out, exponent, shifted)
        return ExpPoly(out)

    def substituted(self, origin: list, basis: list) -> "SymbolicForm":
        """The form at q = origin + sum_l w_l basis[l], over the new inputs w (v'_l = eps w_l): each
        exponent maps linearly, and each power of v_i = eps origin_i + sum_l basis[l][i] v'_l expands
        through the ring.  On the line q0 = 1/2 + w0 of the module's example, P[N < q0] at w0 = 0:

        >>> from dipc_plus.exact.cells import Cell
        >>> from dipc_plus.exact.laplace_engine import probability_on_cell
        >>> from dipc_plus.exact.linear import LinForm, Noise, atom
        >>> below_q = atom(LinForm.make({0: 1}), "<", LinForm.make({1: 1}))
        >>> form = probability_on_cell((below_q,), (Noise("lap", Fraction(1)),), Cell(1, [((-1, 0), "<=")]))
        >>> print(form.substituted([Fraction(1, 2)], [[Fraction(1)]]).at([Fraction(0)]))
        1 - 1/2*e^(-1/2*eps)
        """
        p, zero = len(basis), (Fraction(0),) * len(basis)
        units = [tuple(int(l == m) for m in range(p)) for l in range(p)]
        lines = []
        for i, o in enumerate(origin):
            terms = {(zero, Fraction(0), units[l]): fmpq_poly([to_fmpq(b[i])]) for l, b in enumerate(basis)}
            terms[(zero, Fraction(0), (0,) * p)] = fmpq_poly([0, to_fmpq(o)])
            lines.append(SymbolicForm(p, terms))
        out: dict = {}
        for (lv, le, powers), P in self.terms.items():
            exponent = tuple(sum((a * b[i] for i, a in enumerate(lv)), Fraction(0)) for b in basis)
            shift = sum((a * o for a, o in zip(lv, origin)), Fraction(0))
            term = SymbolicForm(p, {(exponent, le + shift, (0,) * p): P})
            for line, k in zip(lines, powers):
                if k:
                    term = term * binary_power(line, k - 1, line)
            for key, Q in term.terms.items():
                accumulate(out, key, Q)
        return SymbolicForm(p, out)

    def monomials_in_q(self) -> list:
        """[(c, k, powers, (l_q, l))]: the form as sum c eps^k q^powers e^((l_q.q + l) eps), c
        rational (v = eps q substituted): terms in eps alone first, then by exponent, powers, k."""
        out = []
        for (lv, le, powers), P in self.terms.items():
            shift = sum(powers)
            for k, c in enumerate(P.coeffs()):
                if c:
                    out.append((to_fraction(c), k + shift, powers, (lv, le)))
        out.sort(key=lambda m: (any(m[3][0]), [-x for x in m[3][0]], -m[3][1], m[2], m[1]))
        return out

    def text(self, names) -> str:
        """Plain text in eps and the inputs (named by `names`), in the style of the per-point
        closed forms: '1/2*eps*q[1]*e^((1/4*q[1] - 1/2)*eps) + ...'."""
        def factors(k, powers, lq, l):
            named = [n if a == 1 else f"{n}^{a}" for n, a in zip(names, powers) if a]
            compound = sum(1 for a in lq if a) + (l != 0) > 1
            return eps_power_text(k) + named + exp_text(linear_text(lq, names, l), compound=compound)
        return monomial_sum_text([(c, factors(k, powers, lq, l)) for c, k, powers, (lq, l) in self.monomials_in_q()])

    def to_sympy(self, symbols, eps):
        """The form as a sympy expression in the given input symbols and eps (for LaTeX)."""
        import sympy
        total = sympy.Integer(0)
        for c, k, powers, (lq, l) in self.monomials_in_q():
            term = sympy.Rational(c.numerator, c.denominator) * eps ** k
            for x, a in zip(symbols, powers):
                term *= x ** a
            exponent = sympy.Rational(l.numerator, l.denominator) + sum(
                (sympy.Rational(a.numerator, a.denominator) * x for a, x in zip(lq, symbols)), sympy.Integer(0))
            total += term * sympy.exp(sympy.expand(exponent * eps))
        return total

    def __str__(self) -> str:
        """The form in the inputs q0, q1, ... (the one printer, `text`, with default names)."""
        return self.text([f"q{i}" for i in range(self.p)])
