"""Worst neighbour by monotonicity: a prover of box privacy for finite outputs whose probabilities
are proved monotone in every input (issue 38, method 2; docs/claims.md).

Why: the density-ratio bound charges every draw whose mean moves, so Report Noisy Max under linf
gets m*r*B where the truth is 2*r*B.  The argument here, each step proved from the program:

1. `semantics.output_monotone` proves P_u[o] monotone in each input u_j with sign s_oj (0 when o
   does not read u_j).  So for every u' with |u' - u|_inf <= B (the l1 and one-position balls lie
   inside it), P_u'[o] >= P_w[o] at w = u - B s_o, the worst neighbour (outside the box is fine:
   the program is defined on every real input, so the box only makes the true sup smaller).
2. Translation: when every symbolic atom's input coefficients sum to 0 (inputs enter only as
   differences), P_(w + c 1)[o] = P_w[o] for every real c.
3. Pointwise density: with no input-only comparison on the way (outputs are functions of the
   draws), moving the inputs by d = w + c 1 - u moves draw i's mean by t_i = a_i.d, and its
   density drops by at most e^(r_i eps |t_i|) - for a two-sided Laplace noise always, for a
   one-sided noise (support [mean, inf)) only when t_i <= 0.  So P_(u + d)[o] >= e^(-L) P_u[o]
   with L = eps * max over paths of sum_i r_i |t_i|.
Hence P_u[o] <= e^(k eps) P_u'[o] with k = max over o of min over c of that sum (a convex
piecewise-linear function of c, minimised at one of its break points).  It proves, never refutes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.exact.convert import fmt_q
from dipc_plus.privacy.dp.density_ratio import ProvedBound, Refused, path_draws, shape_refusal
from dipc_plus.semantics import ir
from dipc_plus.semantics.argmax import recognise
from dipc_plus.semantics.output_monotone import output_directions
from dipc_plus.semantics.symbolic_chain import NotSymbolic, symbolic_paths


@dataclass
class WorstNeighbour(ProvedBound):
    """The bound for one claim: applies when k <= the budget; k (a multiple of eps) and how."""
    translation: bool = False         # step 2 was proved and used
    per_output: dict = field(default_factory=dict)   # output text -> (k_o, shift c, directions text)

    title, name = "worst neighbour by monotonicity", "worst-neighbour bound"

    def lines(self) -> list[str]:
        return [f"  out = {o}: P monotone ({dirs}); worst neighbour u - B*s moved by {fmt_q(c)} in every "
                f"input{' (translation invariant)' if self.translation else ''}: density drop <= e^({fmt_q(k)}*eps)"
                for o, (k, c, dirs) in self.per_output.items()]

    def to_json(self) -> dict:
        return {**self.json_head(), "translation_invariant": self.translation,
                "per_output": {o: {"k": fmt_q(k), "shift": fmt_q(c), "directions": d}
                               for o, (k, c, d) in self.per_output.items()}}


def translation_invariant(program: ir.Program) -> bool:
    """Whether every atom of every path reads the inputs with coefficients summing to 0 (then
    shifting every input by the same c changes no atom, so no output probability)."""
    walk = symbolic_paths(program, {})
    for paths in walk.paths.values():
        for atoms in paths:
            for a in atoms:
                if sum((c for ident, c in a.form.coeffs if ident in walk.input_ids), Fraction(0)) != 0:
                    return False
    return True


def argmax_directions(program: ir.Program) -> tuple[dict, bool] | None:
    """({(j,): {input: UP 1 / DOWN -1}}, translation invariant) for a recognised argmax (argmin) of
    independent noises with means mu_k = a_k.u + b (`semantics.argmax`), or None.  Coupling the
    noises, raising mu_j can only keep j the winner and raising mu_i (i != j) can only take it
    away, whatever the tie rule by index; so P[j] moves with u_l as sign(a_jl) and against
    sign(a_il), monotone when these signs agree.  Shifting every input by c moves mu_k by
    c * sum(a_k), the same for every k exactly when those sums are equal: argmax is unchanged.
    An injective relabelling of the index (`ArgmaxShape.labels`) keys P[j] by j's output value."""
    shape = recognise(program)
    if shape is None:
        return None
    coeffs = []
    for _, _, mean in shape.samples:
        a: dict = {}
        for coef, var in mean.terms:
            if not isinstance(getattr(coef, "value", None), (int, Fraction)):
                return None
            a[var] = a.get(var, Fraction(0)) + Fraction(coef.value)
        coeffs.append({n: c for n, c in a.items() if c != 0})
    flip = -1 if shape.minimum else 1
    out = {}
    for j in range(len(coeffs)):
        signs: dict = {}
        for k, a in enumerate(coeffs):
            for n, c in a.items():
                signs.setdefault(n, set()).add(flip * (1 if c > 0 else -1) * (1 if k == j else -1))
        key = (shape.label(j + 1),)
        if any(len(v) != 1 for v in signs.values()):
            out[key] = None
        else:
            out[key] = {n: v.pop() for n, v in sorted(signs.items())}
    return out, len({sum(a.values(), Fraction(0)) for a in coeffs}) <= 1


def path_drop(paths: list, d: dict) -> Fraction | None:
    """max over paths of sum r |a.d| (None: a one-sided noise's mean would move up)."""
    worst = Fraction(0)
    for two_sided, one_sided in paths:
        total = Fraction(0)
        for r, a in two_sided:
            total += r * abs(sum((c * d.get(n, 0) for n, c in a.items()), Fraction(0)))
        for r, a in one_sided:
            t = sum((c * d.get(n, 0) for n, c in a.items()), Fraction(0))
            if t > 0:
                return None
            total += r * -t
        worst = max(worst, total)
    return worst


def best_shift(paths: list, s: dict, names: list, bound: Fraction, translate: bool) -> tuple:
    """(least drop over the shifts c, that c) for the move d(c) = -B s + c 1: the drop is convex
    and piecewise linear in c, so its least value is at c = 0 or where some a_i.d(c) = 0."""
    candidates = {Fraction(0)}
    if translate:
        for two_sided, one_sided in paths:
            for _, a in two_sided + one_sided:
                total = sum(a.values(), Fraction(0))
                if total != 0:
                    candidates.add(bound * sum((c * s.get(n, 0) for n, c in a.items()), Fraction(0)) / total)
    best = None
    for c in sorted(candidates):
        drop = path_drop(paths, {n: -bound * s.get(n, 0) + c for n in names} if translate
                         else {n: -bound * s.get(n, 0) for n in names})
        if drop is not None and (best is None or drop < best[0]):
            best = (drop, c)
    return best


def worst_neighbour_for(claim) -> WorstNeighbour:
    """The worst-neighbour bound of a box DP claim (see the module docstring)."""
    budget, adj, program = claim.budget, claim.adjacency, claim.program
    why_not = shape_refusal(claim)
    if why_not is not None:
        return WorstNeighbour(False, why_not)
    if any(isinstance(t, (ir.RealT, ir.IntT)) for _, t in program.outputs):
        return WorstNeighbour(False, "a real or integer output: a density at one value is not monotone in the inputs")
    shape = argmax_directions(program)
    try:
        directions, translate = shape if shape is not None else (output_directions(program),
                                                                   translation_invariant(program))
    except NotSymbolic as why:
        return WorstNeighbour(False, f"the symbolic walk does not apply: {why}")
    unproved = [o for o, dirs in directions.items() if dirs is None]
    if unproved:
        return WorstNeighbour(False, f"P[out = {_show(unproved[0])}] is not proved monotone in every input")
    try:
        paths, _ = path_draws(program, claim.box_bounds, one_sided=True)
    except Refused as why:
        return WorstNeighbour(False, f"a precondition fails: {why.text()}")
    names = sorted({n for dirs in directions.values() for n in dirs} |
                   {n for two, one in paths for _, a in two + one for n in a})
    res = WorstNeighbour(False, translation=translate)
    for o, dirs in sorted(directions.items()):
        best = best_shift(paths, dirs, names, adj.bound, translate)
        if best is None:
            return WorstNeighbour(False, f"out = {_show(o)}: the worst neighbour moves a one-sided noise's mean up "
                                  "(its density ratio is not bounded)", translation=translate)
        text = ", ".join(f"{n} {'up' if s > 0 else 'down'}" for n, s in dirs.items()) or "constant"
        res.per_output[_show(o)] = (best[0], best[1], text)
    # u and its moved point u + d must take the same path: no input-only comparison may split the
    # box widened by the largest move |d_j| <= B + |c|
    reach = adj.bound + max((abs(c) for _, c, _ in res.per_output.values()), default=Fraction(0))
    wide = {n: (lo - reach, hi + reach) for n, (lo, hi) in claim.box_bounds.items()}
    _, cells = path_draws(program, wide, one_sided=True)
    if cells:
        return WorstNeighbour(False, "input-only comparison(s) at line(s) " + ", ".join(str(p.line) for p in cells) +
                              " split the inputs near the box: a pair may take two paths", translation=translate)
    res.k = max((k for k, _, _ in res.per_output.values()), default=Fraction(0))
    if res.k > budget.k:
        res.reason = f"the bound {fmt_q(res.k)}*eps is above the claimed {budget} (it is only an upper bound)"
    else:
        res.applies = True
    return res


def _show(o) -> str:
    return ", ".join(str(v) for v in o) if isinstance(o, tuple) else str(o)
