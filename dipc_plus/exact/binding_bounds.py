"""The case split on which bound of a variable binds, shared by the exact engines.

Integrating (Laplace) or summing (discrete Laplace) one variable over a polyhedron
needs its largest lower bound and its smallest upper bound, which differ from place to
place; both engines split into one case per choice of the two and add the rows that
make the choice true.  Only the rows differ (a real bound comparison or an integer
one), so each engine passes the function that writes them; `by_sign` sorts an engine's
rows into the bounds of the variable and the rest, for any row representation.
"""
from __future__ import annotations

__all__ = ["binding_cases", "by_sign"]


def binding_cases(lows: list, highs: list, below):
    """(L, U, rows) for each choice of the binding bounds (None: that side has no bound): L the
    largest of `lows` (the first of its ties), U the smallest of `highs` (likewise), L <= U;
    `below(a, b, strict)` writes the row a <= b (a < b when `strict`).

    Two lower bounds and one upper one on x (as numbers, rows as text):

    >>> for case in binding_cases([1, 2], [5], lambda a, b, strict: f"{a}{'<' if strict else '<='}{b}"):
    ...     print(case)
    (1, 5, ['2<=1', '1<=5'])
    (2, 5, ['1<2', '2<=5'])
    """
    for i in range(len(lows)) or [None]:
        for j in range(len(highs)) or [None]:
            low = None if i is None else lows[i]
            high = None if j is None else highs[j]
            rows = []
            if low is not None:
                rows += [below(other, low, k < i) for k, other in enumerate(lows) if k != i]
            if high is not None:
                rows += [below(high, other, k < j) for k, other in enumerate(highs) if k != j]
            if low is not None and high is not None:
                rows.append(below(low, high, False))
            yield low, high, rows


def by_sign(rows, coefficient) -> tuple[list, list, list]:
    """(lower bounds, upper bounds, the rest): the rows ``c x + ... <= 0`` (or < 0) whose
    coefficient c = coefficient(row) of the variable x is < 0, > 0, 0.

    >>> by_sign([(1, 0), (-2, 1), (0, 3)], lambda row: row[0])
    ([(-2, 1)], [(1, 0)], [(0, 3)])
    """
    lows, highs, rest = [], [], []
    for row in rows:
        c = coefficient(row)
        (rest if c == 0 else highs if c > 0 else lows).append(row)
    return lows, highs, rest
