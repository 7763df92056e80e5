"""`dipc dtmc`: export a program's parametric Markov chain at one input (DOT or PRISM).

DOT is for looking at the chain (each state shows its program position, the
Bool/DOM values, the symbolic real values and the constraints taken so far).
PRISM is for model checkers: Storm's parametric engine accepts it and computes
the same exit probabilities (PRISM has no exp(), so e^(k eps/L) is written t^k
with a second parameter t = exp(eps/L); with --at the probabilities are
decimals instead: 20 significant digits of a certified ball's midpoint, each
state's row adjusted in its last digit to sum to exactly 1 - a numeric model for
Storm's exact engine, not certified bounds; docs/storm.md).
"""
from __future__ import annotations

import os
import sys

from dipc_plus.errors import UserError
from dipc_plus.execution.files import check_output, write_text
from dipc_plus.semantics.export import output_groups, prism_properties, to_dot, to_prism
from dipc_plus.semantics.pretty import format_noise
from dipc_plus.semantics.values import show_env
from dipc_plus.semantics.distribution import build_chain
from dipc_plus.commands.common import add_program_input_arguments, input_files, load_program_input, parse_eps_values

EXAMPLE = """\
examples:
  dipc dtmc programs/numeric_sparse_fig4a.dip --input q1=-1 --input q2=1 --format dot -o chain.dot
  dot -Tpdf chain.dot -o chain.pdf

  dipc dtmc programs/noisy_max.dip --set m=3 --input q=[-1,0,0] --format prism -o nm.pm
  storm --prism nm.pm --prop nm.props --constants eps=0.5
      nm.props (written beside nm.pm) asks P=? [F "o0"], P=? [F "o1"], ... for the output
      labels (one per output value, in value order; each labelled in a comment); the model
      has one constant eps, with formula t = pow(e, eps/L)
  dipc dtmc ... --format prism --parametric -o nm.pm
      rational functions for storm --parametric: the parameter t = exp(eps/L) (and eps too
      when it appears as a polynomial factor; the file says so)

  --full keeps one state per statement, as in the paper's Fig. 4b; by default only the
  states where a random choice happens are kept (same exit probabilities).
"""


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = ("Build the parametric Markov chain of PROGRAM at one input and write it as Graphviz DOT "
                          "or as a PRISM dtmc.")
    parser.epilog = EXAMPLE
    add_program_input_arguments(parser, eps_help=(
        "write the transition probabilities at this eps (a rational such as 27/82 or 0.5; `--at eps=27/82` is the "
        "same) as decimals: 20 significant digits of each certified value, the last digit of each state's row "
        "adjusted so that it sums to exactly 1 (a numeric model, not certified bounds: leave --eps out for the "
        "exact chain)"))
    parser.add_argument("--format", choices=("dot", "prism"), default="dot", help="output format (default dot)")
    parser.add_argument("--full", action="store_true",
                        help="one state per statement (the paper's chain) instead of one per random choice")
    parser.add_argument("--parametric", action="store_true",
                        help="(prism) rational functions in t = exp(eps/L) for Storm's parametric engine, instead "
                             "of the constant eps with formula t = pow(e, eps/L)")
    parser.add_argument("--claim", metavar="CLAIM", default=None,
                        help="(prism) an accuracy claim with d' = zero-one: the .props file also asks P[correct] "
                             "at this input, correct meaning the claim's det(u)")
    parser.add_argument("-o", "--output", metavar="FILE", default=None,
                        help="write to FILE instead of stdout (with --format prism also FILE's .props file)")
    parser.set_defaults(func=run, outputs=(("output", "-o", None),))   # cli.py checks it before any work


def props_path(output: str) -> str:
    """The .props file written beside a PRISM model `output`."""
    return os.path.splitext(output)[0] + ".props"


def run(args) -> int:
    points = parse_eps_values(args.at)
    if len(points) > 1:
        raise UserError("dtmc export takes at most one --eps", hint="give a single --eps VALUE")
    at = points[0] if points else None
    if args.parametric and (args.format != "prism" or at is not None):
        raise UserError("--parametric goes with --format prism and no --eps", hint="drop --parametric or --eps")
    if args.claim and (args.format != "prism" or not args.output):
        raise UserError("--claim adds P[correct] to the .props file of --format prism -o FILE",
                        hint="add --format prism -o FILE.pm")
    # the .props file too is checked before any work (cli.py checked -o): a special file at the
    # .props path is refused before the .pm is written, not after
    props = props_path(args.output) if args.output and args.format == "prism" else None
    if props:
        check_output(props, input_files(args), option="the .props file")
    program, env, given = load_program_input(args)
    chain = build_chain(program, env, max_states=args.max_states, compress=not args.full)
    header = f"{program.name} at {show_env(given, braces=False, empty='(no inputs)')}"
    if program.params:
        header += " (" + ", ".join(f"{k}={v}" for k, v in program.params.items()) + ")"
    if chain.noises:
        header += "; noises: " + ", ".join(format_noise(i, chain.noises[i]) for i in sorted(chain.noises))
    text = to_dot(chain, at, header) if args.format == "dot" else to_prism(chain, at, header, args.parametric)
    if not args.output:
        sys.stdout.write(text)
        return 0
    # the claim is read (and may be refused) before anything is written
    props_text = props and prism_properties(chain, header, *_correct(args, program, env, chain))
    write_text(args.output, text, input_files(args))
    print(f"wrote {args.output}: {chain.stats.states} states, {chain.stats.edges} transitions", file=sys.stderr)
    if props:
        write_text(props, props_text, input_files(args))
        print(f"wrote {props}: {_label_properties(len(output_groups(chain)))}, P=? [F \"exit\"]", file=sys.stderr)
    return 0


def _label_properties(n: int) -> str:
    """The output-label properties of the .props file, named as they are written there."""
    if n == 0:
        return "no output label"
    names = [f'P=? [F "o{k}"]' for k in range(n)]
    return ", ".join(names if n <= 3 else [names[0], "...", names[-1]]) + (" (the output label)" if n == 1 else
                                                                            f" (the {n} output labels)")


def _correct(args, program, env, chain) -> tuple:
    """(exit states with the claim's det(u), a note) for --claim, else (None, "")."""
    if not args.claim:
        return None, ""
    from dipc_plus.claims.claim_file import load_claim
    from dipc_plus.semantics import inputs as inputs_mod
    from dipc_plus.semantics.export import exits_with_outputs
    claim = load_claim(args.claim, inputs_mod.parse_params(args.set))
    acc = claim.accuracy
    if acc is None or acc.output_distance.name != "zero-one":
        raise UserError("--claim needs an accuracy claim with output_distance = \"zero-one\"", file=args.claim,
                        hint="other output distances compare real outputs, which the chain keeps symbolic")
    if not os.path.samefile(claim.program_path, program.source):
        raise UserError(f"the claim is about {os.path.relpath(claim.program_path)}, not {args.program}",
                        file=args.claim)
    det = acc.det_at(env)
    shown = ", ".join(f"{k}={v}" for k, v in det.items())
    return exits_with_outputs(chain, det), f"{acc.describe()}; det(u): {shown}"
