"""`dipc accuracy`: decide an (alpha, beta, gamma)-accuracy claim for every eps at once.

    dipc accuracy programs/sparse.dip theories/sparse.toml --set c=1
    dipc accuracy programs/sparse.dip theories/sparse.toml --set c=1 --input q=[-1,-1,1] --kappa 7

Without --input every input of the claim is checked.  Exit code 0: verified at
every input checked (the verdict names its scope: the grid or list, and the
parameters); 1: refuted (a counterexample is printed, re-checked by an
independent certified evaluation); 2: a usage or input error; 5: vacuous, the
claim applying to none of the inputs (the claim field that made it so is named;
--allow-vacuous makes it 0); 4 (only with --strict): verified vacuously or only
on named events.

PROGRAM may be left out: the claim file names its program ([program] path).  If
given it must be that program: the claim's parameters, distances and det are
stated for it, so checking another program against it is refused rather than
guessed (copy the claim and change its path to check a variant).  `--set`
overrides parameters of both.
"""
from __future__ import annotations

from dipc_plus.accuracy.decide import decide_accuracy, decides_box
from dipc_plus.accuracy.result import AccuracyResult
from dipc_plus.accuracy.vacuity import vacuity_basis
from dipc_plus.accuracy.summary import DEFAULT_WORST, WorstInputs
from dipc_plus.commands.common import (EXIT_UNDECIDED, add_accuracy_arguments, add_strict_argument,
                                       check_kappa, executor_of, exit_status, load_accuracy, part_json, print_json,
                                       print_verdict_tail, run_options, strict_json)
from dipc_plus.errors import UserError

EXAMPLE = """\
examples:
  dipc accuracy programs/sparse.dip theories/sparse.toml --set c=1
      every input of the claim's grid; exit 0 when the claim holds for every eps > 0
  dipc accuracy programs/sparse.dip theories/sparse.toml --set c=1 --input q=[-1,-1,1] --kappa 7
      one input, with beta/7: refuted, with the simplest rational eps where it fails
  dipc accuracy theories/sparse.toml --set m=8 --set c=1 --summary
      the tally and the 5 inputs with the least room (smallest inf beta/P[error]), not 6,561 lines
  dipc accuracy programs/noisy_max.dip theories/noisy_max.toml --json
      one JSON object: "verdict", and for a refutation "counterexample" (schema: docs/claims.md)

exit codes: 0 verified (on the printed scope), 1 refuted, 2 usage or input error,
5 vacuous: the claim applies at none of the inputs (the field to change is named;
--allow-vacuous: exit 0), 4 with --strict (and --allow-vacuous): verified vacuously

conventions:
  by default a claim speaks about the inputs with dd(u) > alpha (Definition 2), with dd
  over the real input space (the claim's dd_over).  --paper uses the paper's tool's
  convention dd(u) >= alpha (section 7); --dd-over grid takes dd over the claim's grid.
"""


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = ("Decide an (alpha, beta, gamma)-accuracy claim (theories/*.toml) for every eps in its "
                          "interval, at one input or at every input of the claim.")
    parser.epilog = EXAMPLE
    add_accuracy_arguments(parser)
    parser.add_argument("--kappa", type=int, default=1, metavar="K",
                        help="check the claim with beta/K instead of beta (default 1)")
    parser.add_argument("--first", action="store_true", help="stop at the first input that refutes the claim")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="print every input's full report (closed forms included)")
    parser.add_argument("--summary", action="store_true",
                        help="print the tally and the worst inputs only (smallest inf beta/P[error]), not one line "
                             "per input; with --json \"worst_inputs\" instead of \"reports\" (the margins cost up "
                             "to as much again as the check)")
    parser.add_argument("--worst", type=int, default=DEFAULT_WORST, metavar="N",
                        help=f"with --summary: how many of the worst inputs to print (default {DEFAULT_WORST})")
    parser.add_argument("--json", action="store_true", help="print one JSON object (schema: docs/claims.md)")
    add_strict_argument(parser, vacuous=True)
    parser.set_defaults(func=run)


def run(args) -> int:
    kappa = check_kappa(args.kappa)
    options = run_options(args)
    shard = options.shard
    if shard is not None and args.first:
        raise UserError("--first stops at the first refuting input of the whole run, which one shard cannot know",
                        hint="leave out --first (or --shard)")
    checker, points = load_accuracy(args, options)
    box = decides_box(checker, points)
    if not box:
        check_summary_options(args, shard)
    verbose = not args.summary and (args.verbose or points is not None)
    # keep each input's JSON or its text lines, not its exact objects: memory stays flat on any grid
    summarize = "nothing" if args.summary else "json" if args.json else "text-verbose" if verbose else "text"
    worst = WorstInputs(args.worst) if args.summary else None
    result = decide_accuracy(checker, points, kappa, options, paper=args.paper, first=args.first, worst=worst,
                             summarize=summarize, executor=None if box else executor_of(options))
    # exit 0 verified, 1 refuted, 6 a box undecided (regions listed), 5 vacuous, 4 failing --strict; a part
    # of a sharded run is not the whole answer: `dipc merge` judges vacuity (a box is never sharded, and
    # says its vacuity in its text)
    vacuity = result.vacuity if shard is None else None
    code = exit_status(result, args, vacuous=result.vacuous and shard is None, open_exit=EXIT_UNDECIDED)
    if args.json:
        part = None if shard is None else part_json("accuracy", shard, checker.source, len(result.scope_points),
                                                        kappa=kappa)
        out = result.to_json() if result.on_a_box else result_json(result, args, worst, part)
        print_json({**out, **options.mode_json()}, checker.program)
    else:
        lines = [result.report()] if result.on_a_box else result.report_lines(
            verbose=verbose, worst=None if worst is None else worst.worst())
        for line in lines:
            print(line)
        print_verdict_tail(result, args, vacuity, code)
    return code


def check_summary_options(args, shard) -> None:
    """--summary, --verbose, --worst and --shard that cannot go together are a usage error, before
    any input is checked."""
    if args.summary and shard is not None:
        raise UserError("--summary keeps the worst inputs of this run, and a part cannot know the whole run's",
                        hint="leave out --summary with --shard (dipc merge joins the parts' reports)")
    if args.summary and args.verbose:
        raise UserError("--summary prints the worst inputs only; --verbose prints every input in full",
                        hint="use one of them")
    if args.worst < 1:
        raise UserError(f"--worst must be at least 1, not {args.worst}", hint="e.g. --summary --worst 10")


def result_json(result: AccuracyResult, args, worst: WorstInputs | None, part: dict | None) -> dict:
    """The --json object: the result's JSON, with the worst inputs instead of the reports under
    --summary, the strict verdict, and for a part of a sharded run what `dipc merge` needs."""
    out = result.to_json(encoded=True)
    if worst is not None:
        del out["reports"]
        out["worst_inputs"] = [m.to_json(result.claim.program) for m in worst.worst()]
    out["strict"] = strict_json(result, args)
    if part is not None:   # a part of a sharded run: `dipc merge` judges vacuity from the basis
        out["vacuity"] = None
        out["vacuity_basis"] = vacuity_basis(result, given_inputs=result.given_inputs)
        out["part"] = part
    return out
