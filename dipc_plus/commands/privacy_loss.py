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

from dipc_plus.errors import UserError
from dipc_plus.execution.files import FIGURE_EXTENSIONS, write_figure
from dipc_plus.commands.common import (add_privacy_arguments, certified_or_exit_2, executor_of, input_files,
                                       load_privacy, print_json, run_options)

EXAMPLE = """\
examples:
  dipc privacy-loss programs/randomized_response_coin.dip theories/randomized_response_coin_privacy.toml
      tight eps = ln(3) for a coin that tells the truth with probability 3/4
  dipc privacy-loss programs/svt_lyu_alg4.dip theories/svt_lyu_alg4_privacy.toml --plot loss.png
      L(eps) as a closed form, sup L(eps)/eps, and a plot of L(eps) against the claimed budget
  dipc privacy-loss programs/discrete_above_threshold.dip theories/discrete_above_threshold_privacy.toml --set m=6
      at eps = ln 2 (FAIER's alpha = 1/2): the exact loss ln(64)
"""


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = ("Compute the tight privacy loss of PROGRAM over the neighbouring inputs of CLAIM's [privacy] "
                          "table, exactly, as closed forms in eps.")
    parser.epilog = EXAMPLE
    add_privacy_arguments(parser, shard=False)   # the envelope needs every ratio: no parts
    parser.add_argument("--plot", metavar="FILE",
                        help="also plot L(eps) and the claimed budget to FILE (.png, .pdf or .svg); with a Pufferfish "
                             "claim and --attack, the adversary's advantage")
    parser.add_argument("--attack", action="store_true",
                        help="(Pufferfish claims) the Bayes-optimal adversary's success and advantage per scenario")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    # cli.py refuses, before any work, a plot name matplotlib cannot write or a special file
    parser.set_defaults(func=run, outputs=(("plot", "the plot", FIGURE_EXTENSIONS),))


def run(args) -> int:
    """The loss through `privacy.decide.decide_loss`; printed, plotted, exit 0."""
    from dipc_plus.privacy.decide import decide_loss
    claim, params = load_privacy(args)
    pufferfish = claim.kind == "pufferfish"
    if args.plot and pufferfish and not args.attack:
        raise UserError("--plot with a Pufferfish claim plots the attack: add --attack")
    options = run_options(args)
    with certified_or_exit_2():
        result = decide_loss(claim, options, params, attack=args.attack,
                             structure=False if args.no_structure else None, executor=executor_of(options))
    if args.plot and not pufferfish:
        from dipc_plus.privacy.loss.plot import loss_figure
        write_figure(args.plot, lambda: loss_figure(result.part), input_files(args, claim.program.source))
    with certified_or_exit_2():
        if args.json:
            print_json(result.to_json(options.mode_json()), claim.program)
        else:
            print(result.report())
    if args.plot and pufferfish:
        from dipc_plus.privacy.pufferfish.attack import attack_figure
        write_figure(args.plot, lambda: attack_figure(result.attacks, program=claim.program.name),
                     input_files(args, claim.program.source))
    return 0
