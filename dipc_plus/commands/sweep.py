"""`dipc sweep`: how far beta can be divided and the claim still hold.

    dipc sweep programs/sparse.dip theories/sparse.toml --set c=1 --digits 8

Prints kappa* = inf over the claim's inputs and eps of beta/P[error] (exactly, to
--digits significant digits, truncated, with where it is reached), the largest
integer kappa such that (alpha, beta/kappa, gamma) holds (confirmed by the decision
procedure at every input) and a re-checked counterexample for kappa + 1 (the
paper's Table 4).  Exit code: 0 when the claim itself (kappa = 1) holds, 1 when it
is refuted, 2 on a usage or input error, 5 when no kappa fails (the claim applies to none
of the inputs, P[error] is 0 wherever it applies, or kappa* exceeds --kappa-max: the field
to change is named; --allow-vacuous makes it 0), 4 with --strict (and --allow-vacuous) when the
claim applies to none of the inputs.  Every number is about the printed scope (the claim's grid or list, and its
parameters).  On a box claim the best kappa is over every real input of the box (`accuracy.box_sweep`,
by the corner reduction); exit 6 when a region is undecided at some kappa.
"""
from __future__ import annotations

from dipc_plus.accuracy.decide import decide_sweep, decides_box
from dipc_plus.accuracy.sweep import DEFAULT_DIGITS, DEFAULT_KAPPA_MAX
from dipc_plus.commands.common import (EXIT_UNDECIDED, add_accuracy_arguments, add_strict_argument, executor_of,
                                       exit_status, load_accuracy, print_json, print_verdict_tail, run_options, strict_json)

EXAMPLE = """\
examples:
  dipc sweep programs/sparse.dip theories/sparse.toml --set c=1
      kappa* = 6.3758..., best kappa = 6, counterexample for beta/7
  dipc sweep programs/laplace.dip theories/laplace.toml --json
      "best_kappa": 1, "kappa_star": "1.00000" (approached as eps -> inf)
  dipc sweep theories/threshold_half_box.toml
      every real input of [-2, 2]: kappa* = 4/5, best kappa = 0 (1 on the grid)

exit codes: 0 the claim holds (kappa = 1), 1 refuted, 2 usage or input error,
5 vacuous: no kappa fails (the field to change is named; --allow-vacuous: exit 0),
4 with --strict (and --allow-vacuous): the claim applies to none of the inputs,
6 a box claim with a region undecided at some kappa
"""


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = ("Find the largest integer kappa such that the accuracy claim holds with beta/kappa, "
                          "a counterexample for kappa + 1, and kappa* = inf beta/P[error] exactly.")
    parser.epilog = EXAMPLE
    add_accuracy_arguments(parser, shard=False)   # kappa* is a minimum over every input: no parts
    parser.add_argument("--kappa-max", type=int, default=DEFAULT_KAPPA_MAX, metavar="N",
                        help=f"report at most N as the best kappa (default {DEFAULT_KAPPA_MAX})")
    parser.add_argument("--digits", type=int, default=DEFAULT_DIGITS, metavar="D",
                        help=f"significant digits of kappa* (certified, truncated; default {DEFAULT_DIGITS})")
    parser.add_argument("--json", action="store_true", help="print one JSON object (schema: docs/claims.md)")
    parser.add_argument("--reports", action="store_true", help="with --json: include every input's report")
    add_strict_argument(parser, vacuous=True)
    parser.set_defaults(func=run)


def run(args) -> int:
    options = run_options(args)
    checker, points = load_accuracy(args, options)
    result = decide_sweep(checker, points, options, kappa_max=args.kappa_max, digits=args.digits, paper=args.paper,
                          reports=args.reports, summarize="json" if args.json and args.reports else "nothing",
                          executor=None if decides_box(checker, points) else executor_of(options))
    # a box sweep with a region undecided at some kappa has no best kappa
    vacuous = result.vacuity is not None
    code = EXIT_UNDECIDED if result.best_kappa is None else exit_status(result.base, args, vacuous=vacuous)
    if args.json:
        out = {**result.to_json(full=args.reports), **options.mode_json()}
        out["strict"] = strict_json(result.base, args)
        print_json(out, checker.program)
    else:
        print(result.report())
        print_verdict_tail(result.base, args, result.vacuity, code)
    return code
