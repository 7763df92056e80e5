"""An accuracy claim, resolved against its program: det, dd, beta and what to decide.

`claims.claim_file` reads the `[accuracy]` table of a claim file into an
`AccuracyClaim` (POPL 2021, Definition 2).  The claim knows its own meaning: det(u)
(the noise-free program or a table), the distance to disagreement dd(u), beta as an
exact closed form, the output ball B(det(u), u, gamma), and -- in one place,
`AccuracyClaim.applies_at` -- the rule for which inputs it speaks about, with and
without the paper's boundary convention.  `accuracy.checker` lists the exact sentences
by that rule and decides them (with caches).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from dipc_plus.claims import noise_free
from dipc_plus.claims.disagreement import GridSpace, RealSpace
from dipc_plus.claims.distances import INF, InputDistance, LinfOutput, OutputDistance, ZeroOneOutput
from dipc_plus.claims.formula import Formula
from dipc_plus.claims.scope import claimed_inputs_text
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.semantics import ir
from dipc_plus.semantics.values import freeze_env, show_env


def beta_closed_form(beta: Formula, params: Mapping, alpha, gamma):
    """beta at alpha (INF: the limit alpha -> infinity), gamma and the parameters, as an exact closed
    form in eps: for the claim's obligations, and at sample values when the claim is read (so that a
    formula with no exact form fails at load time)."""
    values = {**params, "gamma": gamma}
    return beta.limit("alpha", values) if alpha == INF else beta.exact({**values, "alpha": alpha})


@dataclass
class AccuracyClaim:
    """The `[accuracy]` table of a claim file, resolved against its program."""
    file: str
    program: ir.Program
    inputs_kind: str                 # "grid" | "list" | "table" | "box" (points: a claims.box.BoxInputs)
    points: list                     # flat input environments to check
    det: str                         # 'noise-free' | 'table'
    table: dict | None               # frozen input -> output (det = 'table')
    input_distance: InputDistance
    output_distance: OutputDistance
    alpha: object                    # Fraction or 'dd'
    gammas: object                   # list of Fraction, or 'alpha'
    beta: Formula
    eps: object                      # decide.Interval
    dd_over: str                     # 'reals' | 'grid'
    note: str = ""

    # -- the deterministic function ------------------------------------------------------------
    def det_at(self, u: Mapping) -> dict:
        """det(u): the noise-free output, or the table's row."""
        if self.det == "table":
            key = freeze_env(u)
            if key not in self.table:
                raise UserError(f"the det table has no row for the input {show_env(u)}", file=self.file,
                                hint="add a row to [[accuracy.table]] or drop the input")
            return self.table[key]
        return noise_free.run(self.program, u)

    # -- distance to disagreement -------------------------------------------------------------------
    def dd_space(self, det=None, argmax_formula: bool = True) -> RealSpace | GridSpace:
        """The space dd is taken over, as `dd_over` says: the claim's points, their det outputs from
        `det` (default `det_at`; the checker passes its cached det), or the real input space
        (`argmax_formula` as in `RealSpace`).  The one place the choice is made."""
        if self.dd_over == "grid":
            return GridSpace(self.points, self.det_at if det is None else det, self.input_distance)
        return RealSpace(self.program, self.input_distance, argmax_formula=argmax_formula)

    # -- beta --------------------------------------------------------------------------------------------
    def beta_at(self, alpha, gamma):
        """beta as an exact closed form in eps; alpha may be INF (the limit alpha -> infinity)."""
        return beta_closed_form(self.beta, self.program.params, alpha, gamma)

    def beta_of_alpha_eps(self, gamma) -> bool:
        """Whether beta(alpha, eps) at this gamma is proved a function of alpha*eps alone: every term
        of its numerator and denominator is c * (alpha*eps)^j * e^(p*alpha*eps).  The box
        reductions need it to turn a sentence in (d, eps) into one in x = eps*d."""
        form = self.beta.in_variable("alpha", {**self.program.params, "gamma": gamma})
        for part in (form.num, form.den):
            for (_, j), coeff in part.terms.items():
                if any(k != j or q != 0 for _, k, q in coeff.monomials()):
                    return False
        return True

    def gamma_values(self, alpha) -> list:
        return [alpha] if self.gammas == "alpha" else list(self.gammas)

    # -- what must be decided ---------------------------------------------------------------------
    def applies_at(self, dd, boundary: bool = False) -> tuple:
        """(alpha, applies) at an input whose distance to disagreement is `dd`.

        The one rule for when the claim speaks about an input.  Definition 2
        (boundary=False): dd(u) > alpha, or dd(u) > 0 when alpha is "dd".  The paper's
        section 7 tool (boundary=True, `dipc accuracy --paper`) also takes dd(u) = alpha,
        the limit of the claims at alpha' < dd(u) (beta is continuous in alpha).
        alpha is the claim's number, or dd(u) when the claim says alpha = "dd"."""
        if self.alpha == "dd":
            return dd, dd > 0 or boundary
        return self.alpha, dd > self.alpha or (boundary and dd == self.alpha)

    def ball_probability(self, distribution, u: Mapping, det_u: Mapping, gamma):
        """P[P(u) in B(det(u), u, gamma)] from an exact `semantics.Distribution` at u."""
        if isinstance(self.output_distance, LinfOutput):
            return distribution.within(dict(det_u), gamma)
        if isinstance(self.output_distance, ZeroOneOutput):
            if gamma >= 1:
                return distribution.total()
            return distribution.within(dict(det_u), Fraction(0))
        total = ExpFrac.of(ExpPoly.ZERO)
        names = distribution.names
        for outcome, p in distribution.items():
            v = dict(zip(names, outcome.values))
            if self.output_distance.in_ball(u, det_u, v, gamma):
                total = total + p
        return total

    def describe(self) -> str:
        alpha = "dd(u)" if self.alpha == "dd" else str(self.alpha)
        if self.gammas == "alpha" or len(self.gammas) == 1:
            gamma, each = ("alpha" if self.gammas == "alpha" else str(self.gammas[0])), ""
        else:  # several gammas: one claim each, named outside the tuple
            gamma, each = "gamma", f" for each gamma in {{{', '.join(map(str, self.gammas))}}}"
        return (f"({alpha}, {self.beta}, {gamma})-accuracy of {self.program.name}{each} for eps in {self.eps}, "
                f"d = {self.input_distance.name}, d' = {self.output_distance.name}, det = {self.det}, "
                f"{claimed_inputs_text(self.program, self.inputs_kind, self.points)}, dd over {self.dd_over}")
