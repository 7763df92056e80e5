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

from dipc_plus.errors import UserError
from dipc_plus.accuracy.sweep import DEFAULT_DIGITS, DEFAULT_KAPPA_MAX, sweep, sweep_text
from dipc_plus.commands.common import (EXIT_UNDECIDED, EXIT_VACUOUS, add_accuracy_arguments, add_strict_argument, executor_of,
                                       exit_status, load_accuracy, print_json, run_options, strict_json, strict_line, vacuity_lines)

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
    if args.kappa_max < 1:
        raise UserError(f"--kappa-max must be at least 1, not {args.kappa_max}", hint="use e.g. --kappa-max 100")
    if not 1 <= args.digits <= 60:
        raise UserError(f"--digits must be between 1 and 60, not {args.digits}", hint="use e.g. --digits 10")
    options = run_options(args)
    checker, points = load_accuracy(args, options)
    if checker.claim.inputs_kind == "box" and points is None:
        return run_box(args, checker, options)
    result = sweep(checker, kappa_max=args.kappa_max, digits=args.digits, points=points,
                   progress=options.progress, executor=executor_of(options),
                   summarize="json" if args.json and args.reports else "nothing")
    vacuity = result.vacuity
    code = exit_status(result.accuracy, args, vacuity)
    return _show(args, checker.program, lambda: {**result.to_json(full=args.reports), **options.mode_json()},
                 lambda: sweep_text(result), result.accuracy, vacuity, code)


def run_box(args, checker, options) -> int:
    """A box claim: best kappa over every real input of the box (`accuracy.box_sweep`).
    Exit 0 the claim holds on the box, 1 refuted, 5 no kappa fails (--allow-vacuous: 0), 6 undecided."""
    from dipc_plus.accuracy.box_sweep import box_sweep, box_sweep_text
    if args.paper:
        raise UserError("a box claim is decided under Definition 2 (dd(u) > alpha)", hint="leave out --paper")
    if args.reports:
        raise UserError("a box sweep has no per-input reports: it decides the box's det regions",
                        hint="leave out --reports (the regions are in the JSON)")
    result = box_sweep(checker.claim, kappa_max=args.kappa_max, digits=args.digits, max_states=args.max_states,
                       options=options)
    vacuity = result.vacuity
    if result.best_kappa is None:
        code = EXIT_UNDECIDED
    elif vacuity is not None and not args.allow_vacuous:
        code = EXIT_VACUOUS
    else:
        code = exit_status(result.base, args)
    return _show(args, checker.program, lambda: {**result.to_json(), **options.mode_json()},
                 lambda: box_sweep_text(result), result.base, vacuity, code)


def _show(args, program, json_of, text_of, accuracy, vacuity, code: int) -> int:
    """A sweep's answer, grid or box: its JSON with the strict field, or its text with the vacuity
    and strict lines; returns `code`."""
    if args.json:
        out = json_of()
        out["strict"] = strict_json(accuracy, args)
        print_json(out, program)
    else:
        print(text_of())
        for line in vacuity_lines(vacuity, args):
            print(line)
        if strict_line(accuracy, args) and code != EXIT_VACUOUS:
            print(strict_line(accuracy, args))
    return code
