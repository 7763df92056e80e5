"""The loss of real outputs outcome by outcome (`pair_loss`), and over two or more released values:
sup of f_u/f_u' on a polyhedral cell of w-space.

`pair_loss` takes each outcome of a pair of inputs: a mass is one ratio, one released value is cut
into intervals of w for `real_output_loss.interval_loss`, and two or more are reduced here.

With k >= 2 released values w = (w_1..w_k) the two densities are closed forms on polyhedral
cells (`real_output_density`).  On the intersection C of a cell of f = f_u and one of g =
f_u' (an open polyhedron, found by an exact LP) the ratio R = f/g is reduced to edges, where
the one-value machinery (`real_output_loss.interval_loss`) takes over:

* **Separability, proved per cell.**  If every term of f has the same exponent mu of v_j and
  no power of v_j, and every term of g the same nu (v = eps w), then R = phi(w without w_j)
  * e^((mu - nu) eps w_j): along the direction e_j the ratio is monotone for every eps, with
  the sign of a = mu - nu.  (When each closed form is a single exponential term, every
  coordinate is separable, ln R is linear on C and the reduction below ends at the vertices
  and the recession directions of C: the exact LP over the cell.)  A cell separable in no
  coordinate is reported undecided, never guessed.
* **To the boundary.**  From any point of C, moving along +e_j (a > 0), -e_j (a < 0) or
  either way (a = 0) does not decrease R until the boundary of C, which is the union of its
  facets.  So sup_C R is the sup over the relative interiors of the facets (with limits at
  their boundaries) - unless C is unbounded in the direction that increases R (a != 0): then
  R grows without bound on C and the loss is infinite; if a = 0 and C contains whole lines
  along e_j (no constraint involves w_j), the section w_j = 0 is used instead of the facets.
  Using every facet, not only those met going up, is sound: each value is a limit of R on C.
* **Recursion.**  A facet h.w + b = 0 is parametrised by the other coordinates (w_j solved
  from h, which involves w_j), the other constraints and both closed forms are substituted
  (`restrict`), and the facet (an open polyhedron one dimension lower, empty ones dropped by
  the LP) is reduced the same way, down to open segments of lines in w-space.  A segment is
  cut at 0 of its parameter and handed to `interval_loss` with its line (origin, direction
  and a point inside C), which the counterexample search of `real_output_check` uses.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from dipc_plus.exact.cells import Cell, primitive
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.exact.symbolic_terms import SymbolicForm
from dipc_plus.privacy.dp.real_output_loss import EndRatio, PairLoss, interval_loss, middle

__all__ = ["pair_loss", "piece_at", "region_loss", "restrict", "separable_direction", "open_intersection"]


def piece_at(pieces: list, point: list) -> SymbolicForm:
    """The closed form of the density piece whose cell holds `point` (the zero form off every cell)."""
    return next((pc.form for pc in pieces if pc.cell.contains(point)), SymbolicForm(len(point), {}))


def _breakpoints(pieces: list) -> set:
    return {Fraction(-h[-1], h[0]) for pc in pieces for h, _ in pc.cell.constraints}


def pair_loss(dens_u: dict, dens_v: dict, thorough: bool = True, memo: dict | None = None) -> PairLoss:
    """The loss of u against u' from their `real_output_densities` (one direction: f_u / f_u').
    `thorough` False leaves out the outcomes with two or more released values (a quick search for
    refutations; `region_loss` decides them).  `memo` (a dict kept
    across pairs) reuses the findings of an earlier pair whose two densities of an outcome were
    the same closed forms on the same cells (a density often depends on a few inputs only, or
    on their multiset), relabelled with this outcome."""
    out, memo = PairLoss(), ({} if memo is None else memo)
    for outcome, du in dens_u.items():
        dv = dens_v.get(outcome)
        if dv is None:
            out.infinite.append((outcome, "positive at u, probability 0 at u'"))
            continue
        key = (len(outcome.released), density_key(du), density_key(dv), thorough)
        if key not in memo:
            memo[key] = PairLoss()
            _outcome_loss(outcome, du, dv, memo[key], thorough)
        _relabelled(memo[key], outcome, out)
    return out


def density_key(od) -> tuple:
    """A hashable identity of an outcome's density: its cells and closed forms."""
    return tuple((pc.cell.constraints, tuple(sorted((k, str(P)) for k, P in pc.form.terms.items())))
                 for pc in od.density)


def _relabelled(found: PairLoss, outcome, out: PairLoss) -> None:
    """The findings `found` (for an outcome with the same densities) added to `out` for `outcome`."""
    out.candidates += [replace(c, outcome=outcome) for c in found.candidates]
    out.unproved += [replace(x, outcome=outcome) for x in found.unproved]
    out.infinite += [(outcome,) + tuple(x[1:]) for x in found.infinite]
    out.undecided += [(outcome,) + tuple(x[1:]) for x in found.undecided]


def _outcome_loss(outcome, du, dv, out: PairLoss, thorough: bool) -> None:
    """The findings of one outcome present at u and u' (see `pair_loss`), added to `out`."""
    k = len(outcome.released)
    if k == 0:
        num, den = du.density[0].form.at([]), dv.density[0].form.at([])
        out.candidates.append(EndRatio(outcome, None, None, "mass", ExpFrac(num, den)))
        return
    if k > 1:
        if thorough:
            region_loss(outcome, du, dv, out)
        return
    points = sorted(_breakpoints(du.density) | _breakpoints(dv.density) | {Fraction(0)})
    ends = [None] + points + [None]
    for lo, hi in zip(ends, ends[1:]):
        mid = middle(lo, hi)
        interval_loss(outcome, piece_at(du.density, [mid]), piece_at(dv.density, [mid]), lo, hi, out)


def region_loss(outcome, du, dv, out: PairLoss) -> None:
    """The candidates of the loss of an outcome with k >= 2 released values (u against u'),
    added to `out` (the hook `pair_loss` calls for such outcomes on its thorough pass)."""
    k = len(outcome.released)
    for pf in du.density:
        if pf.form.is_zero():
            continue
        for pg in dv.density:
            cons, inside = open_intersection(k, pf.cell.constraints, pg.cell.constraints)
            if cons is None:
                continue
            if pg.form.is_zero():
                out.infinite.append((outcome, f"density positive at u and 0 at u' on the cell {_cell_text(cons)}"))
                continue
            origin = tuple(Fraction(0) for _ in range(k))
            basis = tuple(tuple(Fraction(int(i == j)) for j in range(k)) for i in range(k))
            _reduce(outcome, pf.form, pg.form, cons, (origin, basis, tuple(inside)), out)


def open_intersection(k: int, *constraint_lists) -> tuple:
    """(constraints, interior point) of the open polyhedron where every constraint holds
    strictly (h.(w, 1) < 0; '==' constraints make it empty), or (None, None) if it is empty."""
    cons = set()
    for lst in constraint_lists:
        for h, op in lst:
            if op == "==":
                return None, None
            if any(h[:-1]):
                cons.add(primitive(h))
            elif h[-1] >= 0:
                return None, None
    cell = Cell(k, [(h, "<") for h in cons])
    point = cell.interior_point()
    return (None, None) if point is None else (sorted(cons), point)


def _cell_text(cons) -> str:
    return Cell(len(cons[0]) - 1 if cons else 0, [(h, "<") for h in cons]).describe().replace("q", "w")


def separable_direction(f: SymbolicForm, g: SymbolicForm) -> tuple | None:
    """(j, a): a coordinate j in which f and g are each one exponential (every term of f has
    the exponent mu of v_j and no power of v_j, every term of g the exponent nu), a = mu - nu;
    None if there is none.  Then f/g = phi(other coordinates) * e^(a v_j)."""
    for j in range(f.p):
        exps = []
        for form in (f, g):
            seen = {lv[j] for lv, _, pw in form.terms if not pw[j]}
            if len(seen) != 1 or any(pw[j] for _, _, pw in form.terms):
                break
            exps.append(seen.pop())
        else:
            return j, exps[0] - exps[1]
    return None


def restrict(form: SymbolicForm, j: int, c0: Fraction, coeffs: dict) -> SymbolicForm:
    """The form on the hyperplane w_j = c0 + sum_l coeffs[l] w_l, in the other coordinates (in
    order): v_j = eps c0 + sum_l coeffs[l] v_l, substituted in each exponent and power."""
    rest = [l for l in range(form.p) if l != j]
    basis = [[Fraction(i == l) if i != j else Fraction(coeffs.get(l, 0)) for i in range(form.p)] for l in rest]
    return form.substituted([c0 if i == j else Fraction(0) for i in range(form.p)], basis)


def _compose(frame: tuple, j: int, c0: Fraction, coeffs: dict) -> tuple:
    """The affine map w = origin + basis . x of the current coordinates x, after x_j is
    replaced by c0 + sum_l coeffs[l] x_l: (origin, basis) over the remaining coordinates."""
    origin, basis, inside = frame
    new_origin = tuple(o + b * c0 for o, b in zip(origin, basis[j]))
    rest = [l for l in range(len(basis)) if l != j]
    new_basis = tuple(tuple(a + b * coeffs.get(l, 0) for a, b in zip(basis[l], basis[j])) for l in rest)
    return new_origin, new_basis, inside


def _reduce(outcome, f: SymbolicForm, g: SymbolicForm, cons: list, frame: tuple, out: PairLoss) -> None:
    """sup f/g on the open polyhedron {h.(x, 1) < 0 for h in cons} of the current coordinates x
    (frame: their place in w-space), down to segments handed to `interval_loss`."""
    k = f.p
    if k == 1:
        _segments(outcome, f, g, cons, frame, out)
        return
    found = separable_direction(f, g)
    if found is None:
        out.undecided.append((outcome, None, f"the density ratio is one exponential in no released value on "
                                             f"{_frame_text(cons, frame)}"))
        return
    j, a = found
    s = (a > 0) - (a < 0)
    if s and all(s * h[j] <= 0 for h in cons):
        out.infinite.append((outcome, f"the density ratio grows without bound along coordinate {j + 1} of "
                                      f"{_frame_text(cons, frame)}"))
        return
    facets = [h for h in cons if h[j]]
    if not facets:          # a = 0 and C holds whole lines along e_j: the section x_j = 0
        facets = [None]
    for h in facets:
        if h is None:
            c0, coeffs, others = Fraction(0), {}, cons
        else:               # h.x + b = 0  <=>  x_j = -(b + sum_{l != j} h_l x_l) / h_j
            c0 = Fraction(-h[-1], h[j])
            coeffs = {l: Fraction(-h[l], h[j]) for l in range(k) if l != j and h[l]}
            others = [x for x in cons if x != h]
        # each other constraint with x_j substituted (open_intersection drops the constant ones that hold)
        sub = [tuple(Fraction(x[l]) + x[j] * coeffs.get(l, 0) for l in range(k) if l != j) + (Fraction(x[-1]) + x[j] * c0,)
               for x in others]
        sub_cons, _ = open_intersection(k - 1, [(x, "<") for x in sub])
        if sub_cons is None:
            continue
        fr, gr = restrict(f, j, c0, coeffs), restrict(g, j, c0, coeffs)
        if fr.is_zero() and gr.is_zero():
            out.undecided.append((outcome, None, f"both densities vanish on a face of {_frame_text(cons, frame)}"))
            continue
        _reduce(outcome, fr, gr, sub_cons, _compose(frame, j, c0, coeffs), out)


def _segments(outcome, f, g, cons: list, frame: tuple, out: PairLoss) -> None:
    """The open interval {t : h.(t, 1) < 0}, cut at t = 0, to `interval_loss` on the line."""
    lo = hi = None
    for a, b in cons:
        bound = Fraction(-b, a)
        if a > 0:
            hi = bound if hi is None else min(hi, bound)
        else:
            lo = bound if lo is None else max(lo, bound)
    if lo is not None and hi is not None and lo >= hi:
        return
    origin, basis, inside = frame
    line = (origin, basis[0], inside)
    cuts = [lo] + ([Fraction(0)] if (lo is None or lo < 0) and (hi is None or hi > 0) else []) + [hi]
    for a, b in zip(cuts, cuts[1:]):
        interval_loss(outcome, f, g, a, b, out, line)


def _frame_text(cons: list, frame: tuple) -> str:
    origin, basis, _ = frame
    if len(basis) == len(origin) and all(o == 0 for o in origin):
        return f"the cell {_cell_text(cons)}"
    return f"a face of a cell (through {tuple(str(x) for x in origin)})"

