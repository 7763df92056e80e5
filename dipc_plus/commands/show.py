"""`dipc show`: print the checked, desugared program, as the back ends see it.

Useful to check what a program means after parameters, `for` unrolling,
array flattening and sugar (argmax, comparisons in conditions, elif); the
output is itself a valid .dip program.  For a Python function (`--function NAME` with a .py file)
it is the DiPWhile+ program the function became, so the user sees what was checked.
"""
from __future__ import annotations

from dipc_plus.commands.common import add_program_arguments
from dipc_plus.semantics import inputs as inputs_mod

EXAMPLE = """\
example:
  dipc show programs/noisy_max.dip --set m=4
  dipc show programs/python/noisy_max.py --function noisy_max --set m=3

  prints a header (parameters, inputs, outputs) and the program with every
  loop unrolled, arrays flattened to q[1], q[2], ... and argmax written as
  comparisons of the noisy values.
"""


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = ("Parse and check PROGRAM, then print it as the back ends see it: parameters substituted, "
                          "for loops unrolled, arrays flattened, sugar expanded.  The output is a valid .dip program.")
    parser.epilog = EXAMPLE
    add_program_arguments(parser, inputs=False, program_help="a .dip file, or a .py file with --function NAME",
                          set_help="override a parameter, e.g. --set m=4 (repeat for each)")
    parser.add_argument("--no-header", action="store_true", help="omit the header comment")
    parser.set_defaults(func=run)


def run(args) -> int:
    from dipc_plus.frontend.load import load_program
    from dipc_plus.semantics.pretty import format_program
    params = inputs_mod.parse_params(args.set)
    program = load_program(args.program, params, args.function)
    print(format_program(program, header=not args.no_header), end="")
    return 0
