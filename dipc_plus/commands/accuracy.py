"""`dipc accuracy`: decide an (alpha, beta, gamma)-accuracy claim for every eps at once.

    dipc accuracy programs/sparse.dip theories/sparse.toml --set c=1
    dipc accuracy programs/sparse.dip theories/sparse.toml --set c=1 --input q=[-1,-1,1] --kappa 7

Without --input every input of the claim is checked.  Exit code 0: verified at
every input checked (the verdict names its scope: the grid or list, and the
parameters); 1: refuted (a counterexample is printed, re-checked by an
independent certified evaluation); 2: a usage or input error; 4 (only with
--strict): verified vacuously, the claim applying to none of the inputs.

PROGRAM must be the program the claim file names ([program] path): the claim's
parameters, distances and det are stated for that program, so checking another
program against it is refused rather than guessed (copy the claim and change its
path to check a variant).  `--set` overrides parameters of both.
"""
from __future__ import annotations

import argparse
import json
import os

from dipc_plus.semantics import inputs as inputs_mod
from dipc_plus.accuracy.check import AccuracyChecker, AccuracyResult, env_text, fmt_q
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES
from dipc_plus.errors import UserError

EXAMPLE = """\
examples:
  dipc accuracy programs/sparse.dip theories/sparse.toml --set c=1
      every input of the claim's grid; exit 0 when the claim holds for every eps > 0
  dipc accuracy programs/sparse.dip theories/sparse.toml --set c=1 --input q=[-1,-1,1] --kappa 7
      one input, with beta/7: refuted, with the simplest rational eps where it fails
  dipc accuracy programs/noisy_max.dip theories/noisy_max.toml --json
      one JSON object: "verdict", and for a refutation "counterexample" (schema: docs/claims.md)

exit codes: 0 verified (on the printed scope), 1 refuted, 2 usage or input error,
4 with --strict: verified vacuously

conventions:
  by default a claim speaks about the inputs with dd(u) > alpha (Definition 2), with dd
  over the real input space (the claim's dd_over).  --paper uses the paper's tool's
  convention dd(u) >= alpha (section 7); --dd-over grid takes dd over the claim's grid.
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "accuracy",
        help="decide an accuracy claim for every eps: verified, or a re-checked counterexample",
        description="Decide an (alpha, beta, gamma)-accuracy claim (theories/*.toml) for every eps in its "
                    "interval, at one input or at every input of the claim.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_claim_arguments(parser)
    parser.add_argument("--kappa", type=int, default=1, metavar="K",
                        help="check the claim with beta/K instead of beta (default 1)")
    parser.add_argument("--first", action="store_true", help="stop at the first input that refutes the claim")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="print every input's full report (closed forms included)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (schema: docs/claims.md)")
    add_strict_argument(parser)
    parser.set_defaults(func=run)


STRICT_EXIT = 4


def add_strict_argument(parser) -> None:
    parser.add_argument("--strict", action="store_true",
                        help=f"exit {STRICT_EXIT} instead of 0 when the verdict is vacuous (the claim applies to "
                             "none of the checked inputs)")


def exit_status(result, strict: bool) -> int:
    """0 verified, 1 refuted, STRICT_EXIT for a vacuous verdict under --strict."""
    if result.verdict != "verified":
        return 1
    return STRICT_EXIT if strict and result.vacuous else 0


def add_claim_arguments(parser) -> None:
    parser.add_argument("program", metavar="PROGRAM", help="the .dip program (must be the claim's program)")
    parser.add_argument("claim", metavar="CLAIM", help="a claim file (theories/*.toml) with an [accuracy] table")
    parser.add_argument("--input", action="append", metavar="NAME=VALUE",
                        help="check only this input, e.g. --input q=[-1,-1,1] (repeat for each input variable)")
    parser.add_argument("--set", action="append", metavar="NAME=VALUE",
                        help="override a parameter of the program and claim, e.g. --set c=2")
    parser.add_argument("--dd-over", choices=("reals", "grid"), default=None,
                        help="distance to disagreement over the real input space or over the claim's grid "
                             "(default: the claim's dd_over)")
    parser.add_argument("--paper", action="store_true",
                        help="the paper's convention: also check inputs with dd(u) = alpha (section 7)")
    parser.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES, metavar="N",
                        help=f"refuse Markov chains with more than N states (default {DEFAULT_MAX_STATES})")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                        help="compute the inputs' exact distributions over N processes (0: one per core; "
                             "default 1)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def load(args):
    """(checker, points or None) from the command line; every mistake a UserError."""
    if args.max_states <= 0:
        raise UserError("--max-states must be positive", hint="use e.g. --max-states 200000")
    params = inputs_mod.parse_params(args.set)
    if not os.path.exists(args.program):
        raise UserError(f"cannot read the program: no file {args.program}", hint="give the path of a .dip file")
    claim = load_claim(args.claim, params)
    if claim.accuracy is None:
        raise UserError("the claim file has no [accuracy] table", file=args.claim,
                        hint="add an [accuracy] table (see docs/claims.md)")
    if not os.path.samefile(args.program, claim.program_path):
        raise UserError(f"the claim is about {os.path.relpath(claim.program_path)}, not {args.program}",
                        file=args.claim,
                        hint=f"run it with PROGRAM = {os.path.relpath(claim.program_path)}, or copy the claim and "
                             f"change its [program] path to check another program")
    checker = AccuracyChecker(claim, dd_over=args.dd_over, boundary=args.paper, max_states=args.max_states)
    points = None
    if args.input:
        given = inputs_mod.parse_assignments(args.input, "--input")
        points = [inputs_mod.bind_inputs(checker.program, given)]
    return checker, points


def check_kappa(value: int) -> int:
    if value < 1:
        raise UserError(f"--kappa must be a positive integer, not {value}", hint="use e.g. --kappa 7")
    return value


def run(args) -> int:
    kappa = check_kappa(args.kappa)
    checker, points = load(args)
    result = checker.run(points, kappa, progress=not args.no_progress and not args.json, stop_at_first=args.first,
                         jobs=args.jobs)
    if args.json:
        out = result.to_json()
        out["strict"] = {"requested": bool(args.strict),
                         "reason": "the verdict is vacuous" if result.vacuous else None}
        print(json.dumps(out, indent=2))
    else:
        print(text_report(result, verbose=args.verbose or points is not None))
        if args.strict and result.vacuous:
            print(f"STRICT: the verdict is vacuous: exit {STRICT_EXIT}")
    return exit_status(result, args.strict)


def text_report(result: AccuracyResult, verbose: bool = False) -> str:
    claim = result.claim
    program = claim.program
    conv = "dd(u) >= alpha (the paper's convention)" if result.boundary else "dd(u) > alpha (Definition 2)"
    kappa = "" if result.kappa == 1 else f", beta divided by {result.kappa}"
    lines = [f"claim:  {claim.describe()}",
             f"        inputs with {conv}, dd over {result.dd_over}{kappa}"]
    if claim.note:
        lines.append(f"note:   {claim.note}")
    lines.append("")
    if verbose:
        for r in result.reports:
            lines.append(r.describe())
            lines.append("")
    else:
        shown = set()
        for r in result.reports:
            key = tuple(r.input.items())
            if not r.applies and key in shown:
                continue  # one line per input the claim says nothing about
            shown.add(key)
            lines.append(r.line())
        lines.append("")
    applicable = len(result.applicable)
    lines.append(f"{result.inputs} input(s), {len(result.reports)} obligation(s), {applicable} where the claim "
                 f"applies, {len(result.failing)} refuted; {result.seconds:.2f} s")
    scope = result.scope
    if result.verdict == "verified":
        if applicable == 0:
            lines.append(f"VERIFIED (vacuously: the claim applies to none of these inputs) {scope.summary()}")
        else:
            lines.append(f"VERIFIED {scope.summary()}: P[error] <= beta{'' if result.kappa == 1 else f'/{result.kappa}'} "
                         f"for every eps in {claim.eps} at every input where the claim applies")
        lines.append(scope.coverage())
    else:
        cex = result.counterexample
        lines.append(f"REFUTED at {env_text(program, cex.input)}, eps = {fmt_q(cex.eps)} "
                     f"(re-checked by an independent certified evaluation)")
        if not verbose:
            lines.append(cex.describe())
        lines.append(scope.coverage())
    return "\n".join(lines)
