"""`dipc privacy-loss`: the exact tight privacy loss L(eps) of a program, as closed forms.

    dipc privacy-loss programs/svt_lyu_alg4.dip theories/svt_lyu_alg4_privacy.toml --plot loss.png

L(eps) = max over neighbouring inputs u, u' and outputs v of ln(P[P(u)=v] / P[P(u')=v]),
printed piece by piece with the pair and output attaining it, and
sup L(eps)/eps (the smallest k such that the program is k*eps-DP on the claim's
inputs); for programs whose probabilities do not depend on eps, the tight eps
as ln of a rational.  With a Pufferfish claim, `--attack` prints the Bayes-optimal
adversary's success and advantage for each scenario.
"""
from __future__ import annotations

import argparse
import math

from dipc_plus.errors import UserError
from dipc_plus.commands.common import add_privacy_arguments, load_privacy, print_json

EXAMPLE = """\
examples:
  dipc privacy-loss programs/randomized_response_coin.dip theories/randomized_response_coin_privacy.toml
      tight eps = ln(3) for a coin that tells the truth with probability 3/4
  dipc privacy-loss programs/svt_lyu_alg4.dip theories/svt_lyu_alg4_privacy.toml --plot loss.png
      L(eps) as a closed form, sup L(eps)/eps, and a plot of L(eps) against the claimed budget
  dipc privacy-loss programs/discrete_above_threshold.dip theories/discrete_above_threshold_privacy.toml --set m=6
      at eps = ln 2 (FAIER's alpha = 1/2): the exact loss ln(64)
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "privacy-loss",
        aliases=["privacy_loss"],
        help="the exact tight privacy loss L(eps) and sup L(eps)/eps, with the attaining pair and output",
        description="Compute the tight privacy loss of PROGRAM over the neighbouring inputs of CLAIM's [privacy] "
                    "table, exactly, as closed forms in eps.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_privacy_arguments(parser)
    parser.add_argument("--plot", metavar="FILE", help="also plot L(eps) and the claimed budget to FILE (.png/.pdf)")
    parser.add_argument("--attack", action="store_true",
                        help="(Pufferfish claims) the Bayes-optimal adversary's success and advantage per scenario")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def run(args) -> int:
    claim = load_privacy(args)
    if claim.kind == "pufferfish":
        return _pufferfish(args, claim)
    if args.attack:
        raise UserError("--attack needs a Pufferfish claim (its scenarios are the adversary's priors)",
                        hint="see docs/claims.md, 'Pufferfish claims'")
    from dipc_plus.privacy.dp import privacy_loss
    structure = False if args.no_structure else None
    result = privacy_loss(claim, structure=structure, max_states=args.max_states)
    if args.plot:
        plot_loss(result, args.plot)
    if args.json:
        print_json(result.to_json(), claim.program)
    else:
        print(text_report(result))
    return 0


def _pufferfish(args, claim) -> int:
    from dipc_plus.privacy.pufferfish import pufferfish_loss
    result = pufferfish_loss(claim)
    attack = None
    if args.attack:
        from dipc_plus.privacy.attack import scenario_attacks
        attack = scenario_attacks(claim)
    if args.json:
        out = result.to_json()
        if attack is not None:
            out["attack"] = [a.to_json() for a in attack]
        print_json(out, claim.program)
    else:
        print(result.report())
        if attack is not None:
            for a in attack:
                print()
                print(a.report())
    if args.plot:
        if attack:
            from dipc_plus.privacy.attack import plot_attacks
            plot_attacks(attack, args.plot, program=claim.program.name)
        else:
            raise UserError("--plot with a Pufferfish claim plots the attack: add --attack")
    return 0


def text_report(result) -> str:
    from dipc_plus.privacy.dp import loss_expr, show_env, show_outputs
    claim = result.claim
    program = claim.program

    def witness(c) -> str:
        return (f"{show_env(c.input, program)}  vs  {show_env(c.neighbour, program)}, output "
                f"{show_outputs(c.output, program)}")

    lines = [f"tight privacy loss of {program.name} ({claim.adjacency.describe()}, {claim.npoints} input(s), "
             f"{claim.eps})"]
    if result.plan is not None:
        for note in result.plan.notes:
            lines.append(f"structure: {note}")
    lines.append(f"{result.pairs} pair(s) of neighbouring inputs, {result.candidates} likelihood ratio(s), "
                 f"{result.distinct} distinct; {result.seconds:.2f} s")
    if result.infinite is not None:
        lines.append("L(eps) = inf: an output has positive probability at one input and probability 0 at a neighbour")
        lines.append(f"  attained at {witness(result.infinite)}")
        lines.append(f"  P = {result.infinite.p}, P' = {result.infinite.q}")
        return "\n".join(lines)
    if result.point_ratio is not None:
        lines.append(f"L({_eps_point(claim)}) = {_ln(result.point_ratio)} = {math.log(result.point_ratio):.12g}")
        lines.append(f"  attained at {witness(result.point_candidate)}")
        return "\n".join(lines)
    if result.constant is not None:
        lines.append("the probabilities do not depend on eps:")
        lines.append(f"  tight eps = {_ln(result.constant)} = {math.log(result.constant):.12g}"
                     f"  (the program is eps'-DP exactly for eps' >= {_ln(result.constant)})")
        lines.append(f"  attained at {witness(result.constant_candidate)}")
        return "\n".join(lines)
    for pc in result.pieces:
        lines.append(f"L(eps) = {loss_expr(pc.candidate.ratio)}   for eps in {pc.where()}")
        lines.append(f"  attained at {witness(pc.candidate)}")
    if result.sup is not None:
        lines.append(f"sup L(eps)/eps = {result.sup.text()}   ({result.sup.how})")
        b = claim.budget
        if b.factor == 1 and b.k:
            k = b.k
            if result.sup.value is not None:
                verdict = "holds" if result.sup.value <= k else "fails"
            elif result.sup.hi is not None and result.sup.hi <= k:
                verdict = "holds"
            elif result.sup.lo is not None and result.sup.lo > k:
                verdict = "fails"
            else:
                verdict = "is borderline (decide it with dipc privacy)"
            lines.append(f"  so the claimed budget {b} {verdict} on these inputs")
    return "\n".join(lines)


def _ln(x) -> str:
    from dipc_plus.privacy.claim import ln_text
    return ln_text(x)


def _eps_point(claim) -> str:
    return str(claim.eps).replace("eps = ", "")


def plot_loss(result, path: str) -> None:
    """L(eps) beside the claimed budget, written to `path` (privacy.loss_plot)."""
    from dipc_plus.privacy.loss_plot import save_loss_figure
    save_loss_figure(result, path)
