"""`dipc plot`: P[error] against eps beside the claimed beta, at one input.

    dipc plot programs/sparse.dip theories/sparse.toml --set c=1 --input q=[-1,-1,1] --kappa 7 -o fig.png

Draws, for each gamma of the claim, P[error](eps) and beta(eps)/kappa (top) and
beta/P[error] (bottom), shades where the claim fails and marks the certified
counterexample.  Exit code: 0 when the claim holds at the input, 1 when it fails
there (the figure is written either way), 2 on a usage or input error.
"""
from __future__ import annotations

from dipc_plus.errors import UserError
from dipc_plus.execution.files import FIGURE_EXTENSIONS, atomic_path
from dipc_plus.accuracy.plot import plot_claim
from dipc_plus.commands.common import add_accuracy_arguments, check_kappa, input_files, load_accuracy, run_options

EXAMPLE = """\
example:
  dipc plot programs/sparse.dip theories/sparse.toml --set c=1 --input q=[-1,-1,1] --kappa 7 -o sparse.png
  dipc plot programs/laplace.dip theories/laplace.toml --input q=[0,1] --log -o laplace.png
"""


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = "Draw P[error] against eps beside the claimed beta at one input (matplotlib)."
    parser.epilog = EXAMPLE
    add_accuracy_arguments(parser, reference=False)
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the figure to write (.png, .pdf or .svg)")
    parser.add_argument("--kappa", type=int, default=1, metavar="K", help="draw beta/K (default 1)")
    parser.add_argument("--eps-max", type=float, default=None, metavar="X",
                        help="right end of the eps axis (default: chosen to show the interesting part)")
    scale = parser.add_mutually_exclusive_group()
    scale.add_argument("--log", dest="log", action="store_const", const=True, default=None,
                       help="logarithmic probability axis (default: chosen when the failure would be invisible "
                            "on the linear axis)")
    scale.add_argument("--linear", dest="log", action="store_const", const=False, help="linear probability axis")
    parser.add_argument("--simulate", type=int, default=0, metavar="N",
                        help="add Monte Carlo estimates (N runs each, 99%% intervals) at 8 values of eps")
    parser.add_argument("--dpi", type=int, default=150, help="resolution of a PNG (default 150)")
    parser.set_defaults(func=run, outputs=(("output", "the figure", FIGURE_EXTENSIONS),))   # cli.py checks it


def run(args) -> int:
    kappa = check_kappa(args.kappa)
    if not args.input:
        raise UserError("dipc plot needs one input", hint="give it with --input, e.g. --input q=[-1,-1,1]")
    if args.simulate < 0:
        raise UserError("--simulate must be >= 0", hint="use e.g. --simulate 100000")
    if args.eps_max is not None and not args.eps_max > 0:
        raise UserError("--eps-max must be positive", hint="use e.g. --eps-max 10")
    checker, points = load_accuracy(args, run_options(args))
    with atomic_path(args.output, input_files(args), FIGURE_EXTENSIONS) as tmp:
        data = plot_claim(checker, points[0], tmp, kappa=kappa, eps_max=args.eps_max, log=args.log,
                          simulate=args.simulate, dpi=args.dpi)
    for r in (c.report for c in data.curves):
        cex = "" if r.counterexample is None else f" (counterexample eps = {r.counterexample.eps})"
        print(f"gamma = {r.gamma}: {r.verdict}{cex}")
    print(f"wrote {args.output}")
    return 1 if any(c.report.verdict == "refuted" for c in data.curves) else 0
