"""The corner sentence of a box claim in two variables (d, eps), decided by `decision.two_variable`.

Why: on a piece of the corner path v(d) = a + s*d (`accuracy.box`) that is not homogeneous
(P[error] at v(d), or beta, is not a function of eps*d alone), the claim on the piece is
"for every d in (d0, d1] and eps: P_err(eps, v(d)) <= beta(d, eps)/kappa", a sentence in two
variables.  This module writes it as one exact closed form F = beta/kappa - P_err per cell
that the corner path crosses: the symbolic engine (`semantics.symbolic_distribution`) gives
P[out = w] on the cells of the segment's bounding box as a closed form in v = eps*q (with real
outputs, the paths' atoms get "|output - det| <= gamma" added: `correct_pieces`), and
v(d) = eps*a + s*(eps*d) turns each term into c * eps^i * d^j * e^(eps*(A + B*d)).  The d
range of each cell is read off its constraints: an interval of positive length is
decided on its closure by the two-variable procedure (the closed form extends continuously
to it); a single d (the path only touches the cell) is one sentence in eps at that point.
A witness is re-checked by the per-point path at the input v(d) before it is printed.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.decision.two_variable import (REFUTED, UNDECIDED, VERIFIED, ExpPoly2, decide_two_variable,
                                             describe)
from dipc_plus.exact.cells import box_of
from dipc_plus.exact.convert import fmt_q, to_fraction
from dipc_plus.exact.linear import LinForm, atom
from dipc_plus.execution import limits
from dipc_plus.semantics.symbolic_distribution import SymbolicDistribution, path_pieces


class NotBuilt(Exception):
    """The sentence could not be written as one closed form (the reason is the message)."""


def beta_in_d(claim, gamma, kappa: int) -> ExpPoly2:
    """beta(alpha = d, eps)/kappa as an `ExpPoly2`; NotBuilt when its denominator is not a positive constant."""
    form = claim.beta.in_variable("alpha", {**claim.program.params, "gamma": gamma})
    scale = Fraction(1)
    if form.den is not None:
        den = form.den.free()
        if den is None or any(q != 0 or k != 0 for _, k, q in den.monomials()):
            raise NotBuilt("beta's denominator depends on alpha or eps")
        (scale, _, _), = list(den.monomials())
        if scale <= 0:
            raise NotBuilt("beta's denominator is not positive")
    out = ExpPoly2()
    for (p, j), c in form.num.terms.items():
        for coef, k, q in c.monomials():
            out = out + ExpPoly2.term(coef / scale / kappa, k, j, q, p)
    return out


def form_on_path(form, a: list, s: list) -> ExpPoly2:
    """A `SymbolicForm` (in v = eps*q) at q = a + s*d: on the line its one input is w = d, so a term
    P(eps) (eps d)^j e^(le eps + lw eps d) gives eps^(k + j) d^j e^(eps (le + lw d)) per eps^k of P."""
    line = form.substituted(a, [s])
    return ExpPoly2({(k + j, j, le, lw): to_fraction(c) for ((lw,), le, (j,)), P in line.terms.items()
                     for k, c in enumerate(P.coeffs()) if c})


def d_range(cell, a: list, s: list, d0: Fraction, d1: Fraction):
    """(lo, lo_closed, hi, hi_closed) of {d in [d0, d1]: a + s*d in cell}, or None if empty."""
    low, high = (d0, False), (d1, True)     # (lo, lo open) and (hi, hi closed): the tightest is the max / min
    for h, op in cell.constraints:          # h.(a + s*d, 1) = const + slope*d, op 0
        slope = sum((Fraction(c) * y for c, y in zip(h, s)), Fraction(0))
        const = sum((Fraction(c) * x for c, x in zip(h, a)), Fraction(0)) + Fraction(h[-1])
        if slope == 0:
            if not {"<": const < 0, "<=": const <= 0, "==": const == 0}[op]:
                return None
            continue
        t, strict = -const / slope, op == "<"
        if op == "==" or slope < 0:         # d >= t (> when strict)
            low = max(low, (t, strict))
        if op == "==" or slope > 0:         # d <= t (< when strict)
            high = min(high, (t, not strict))
    (lo, lo_open), (hi, hi_closed) = low, high
    if lo > hi or (lo == hi and (lo_open or not hi_closed)):
        return None
    return lo, not lo_open, hi, hi_closed


def decide_piece(decider, region, gamma: Fraction, corner, d0: Fraction, d1: Fraction, a: dict, s: dict):
    """(verdict, method, reason, counterexample or None) on the corner piece d in (d0, d1] of a
    `accuracy.box.BoxDecider`: its two-variable sentences, decided cell by cell."""
    try:     # beta in (d, eps) and the cells' closed forms, or why not (the same refusal for both)
        beta = beta_in_d(decider.claim, gamma, decider.kappa)
        av, sv = [a[n] for n in decider.bounds], [s[n] for n in decider.bounds]
        bounds = [tuple(sorted((x + y * d0, x + y * d1))) for x, y in zip(av, sv)]
        paths = decider.symbolic_paths
        key = tuple(region.det[n] for n in paths.output_names)
        pieces = correct_pieces(paths, key, region.det, gamma, bounds) if key in paths.paths else []
    except NotBuilt as exc:
        return UNDECIDED, "none", f"a sentence in (d, eps) remains: {exc}", None
    spans, methods, open_parts = [], set(), []
    for pc in pieces:
        span = d_range(pc.cell, av, sv, d0, d1)
        if span is None:
            continue
        lo, _, hi, _ = span
        spans.append(span)
        if lo == hi:
            if lo == d0:
                continue                      # d0 is outside the piece (d0, d1]
            cex = decider.point_sentence(region.det, corner.at(lo), lo, gamma)
            if cex is not None:
                return REFUTED, "corner (two variables)", "", cex
            methods.add("corner point sentence")
            continue
        F = beta - (ExpPoly2.const(1) - form_on_path(pc.form, av, sv))
        found = decide_two_variable(F, lo, hi, decider.claim.eps)
        if found.verdict == REFUTED:
            d, eps = found.witness
            cex = decider.recheck(corner.at(d))
            if cex is None:
                raise AssertionError(f"F < 0 certified at d = {d}, eps = {eps} but the per-point path at "
                                     f"{corner.at(d)} does not refute")
            return REFUTED, f"corner (two variables: {found.method})", "", cex
        if found.verdict == UNDECIDED:
            open_parts.append(f"d in [{fmt_q(lo)}, {fmt_q(hi)}]: {found.note}; open: {describe(found)}")
        else:
            methods.add(f"corner (two variables: {found.method})")
    if not _covers(spans, d0, d1):
        return UNDECIDED, "none", (f"d in ({fmt_q(d0)}, {fmt_q(d1)}]: the cells of the symbolic engine "
                                   "do not cover the corner path"), None
    if open_parts:
        return UNDECIDED, "corner (two variables)", "; ".join(open_parts), None
    return VERIFIED, ", ".join(sorted(methods)), "", None


def correct_pieces(paths, key, det: dict, gamma: Fraction, bounds: list) -> list:
    """[Piece] of the box `bounds`: P[finite outputs = key and every real output within gamma of det]
    (det's real outputs are `LinForm`s in the inputs; every path assigns each real output, as the front
    end's `check_flow` proves): each path's atoms with -gamma <= output - det <= gamma added; without real
    outputs, P[out = key]."""
    if not paths.real_output_names:
        return SymbolicDistribution(paths, bounds).pieces(key)
    ident = {paths.real_inputs[index]: i for i, index in paths.input_ids.items()}
    targets = [det[n].renamed(ident) if isinstance(det[n], LinForm) else LinForm.constant(det[n])
               for n in paths.real_output_names]
    sets = []
    for atoms, forms in zip(paths.paths[key], paths.real_forms[key]):
        extra, possible = [], True
        for form, target in zip(forms, targets):
            dev = form - target
            if dev.is_constant():
                possible = possible and abs(dev.const) <= gamma
                continue
            extra += [atom(dev, "<=", LinForm.constant(gamma)), atom(dev, ">=", LinForm.constant(-gamma))]
        if possible:
            sets.append(frozenset(atoms) | frozenset(extra))

    return path_pieces(sets, paths.noises, paths.input_ids, box_of(bounds), limits.get("cells"))


def _covers(spans: list, d0: Fraction, d1: Fraction) -> bool:
    """Whether the closed spans cover [d0, d1] (every d of the piece lies in some cell's span)."""
    reach = d0
    for lo, _, hi, _ in sorted(spans, key=lambda t: (t[0], t[2])):
        if lo > reach:
            return False
        reach = max(reach, hi)
    return reach >= d1
