"""dipc-plus: decide accuracy and privacy claims of DiPWhile+ programs exactly, for every epsilon at once.

The Python API (each function is the twin of a `dipc` command; ``help(dipc_plus.check_privacy)``)::

    import dipc_plus
    from dipc_plus import example

    nm = dipc_plus.load(example("programs/noisy_max.dip"), params={"m": 3})
    d = nm.distribution(input={"q": [-1, 0, 0]})       # exact, for every eps
    nm.simulate(1, 10**5, input={"q": [-1, 0, 0]})      # Monte Carlo at eps = 1

    r = dipc_plus.check_accuracy(example("theories/sparse.toml"), params={"c": 1},
                                 input={"q": [-1, -1, 1]}, kappa=7)
    r.verdict, r.counterexample, r.to_json(), r.plot()
    dipc_plus.sweep(example("theories/sparse.toml"), params={"c": 1}).best_kappa
    dipc_plus.check_privacy(example("theories/svt_lyu_alg4_privacy.toml"), jobs=2)
    dipc_plus.privacy_loss(example("theories/noisy_min_privacy.toml")).plot()

Programs and claims also come from text: `Program.from_text`, `Claim.from_text`.  Bad input
raises `UserError` (file, line, column, hint).  The names are imported on first use, so
``import dipc_plus`` (and the `dipc` command's start-up) stays light.

When this process is the `dipc` command itself (the console script or ``python -m dipc_plus``),
importing the package is the first thing it does: the closed standard descriptors are
reserved and the signal latch entered here, before any other import (execution.lifetime).
"""
from __future__ import annotations

import os as _os
import sys as _sys


def _is_the_dipc_command() -> bool:
    """Is this process `dipc` (its console script) or `python -m dipc_plus`?  Never a notebook
    or a program that imports the API: they keep their own signal handlers."""
    script = _os.path.basename(_sys.argv[0] if _sys.argv else "")
    if script.removesuffix(".exe").removesuffix("-script.pyw") == "dipc":
        return True
    words = iter(list(getattr(_sys, "orig_argv", ()))[1:])
    for arg in words:   # the interpreter's options, up to what it runs
        if arg in ("-W", "-X"):        # an option whose value is the next word
            next(words, None)
        elif arg.startswith("-m"):     # -m NAME or -mNAME
            return (arg[2:] or next(words, None)) == "dipc_plus"
        elif arg == "-c" or arg == "-" or not arg.startswith("-"):
            return False
    return False


def _latch_the_dipc_command() -> None:
    """Reserve the standard descriptors, then enter the process's signal latch.  A SIGINT that
    comes before the latch is entered (Python's KeyboardInterrupt) is recorded in it as its first."""
    interrupted = False
    while True:
        try:
            from dipc_plus.execution.std_streams import reserve_standard_descriptors
            from dipc_plus.execution.lifetime import latch_this_process
            reserve_standard_descriptors()
            latch_this_process(interrupted=interrupted)
            return
        except KeyboardInterrupt:
            interrupted = True


if _is_the_dipc_command():
    _latch_the_dipc_command()

from typing import TYPE_CHECKING, Any  # noqa: E402

__version__ = "0.1.0"

if TYPE_CHECKING:  # for type checkers and editors; at run time the names load on first use
    from dipc_plus.api import (DTMC, AccuracyReport, BoxReport, BoxSweepReport, Claim, Counterexample, Distribution,
                               Exact, KappaStar, LoadedProgram, LossReport, PrivacyCounterexample, PrivacyReport,
                               Program, RegionKappaStar, RegionVerdict, Report, ReportText, StrictVerdictError,
                               SweepReport, SymbolicResult, UserError, ValueCounterexample, check_accuracy,
                               check_privacy, example, load, privacy_loss, sweep)

__all__ = ["load", "check_accuracy", "sweep", "check_privacy", "privacy_loss", "example",
           "Program", "LoadedProgram", "Claim", "UserError", "StrictVerdictError",
           "Report", "AccuracyReport", "SweepReport", "PrivacyReport", "LossReport", "ReportText",
           "Counterexample", "PrivacyCounterexample", "ValueCounterexample", "KappaStar", "SampleResult",
           "BoxReport", "BoxSweepReport", "RegionVerdict", "RegionKappaStar",
           "Distribution", "Exact", "DTMC", "SymbolicResult", "PlotFigure"]


def __getattr__(name: str) -> Any:
    """The API's names, imported from `dipc_plus.api` when first used."""
    if name in __all__:
        import dipc_plus.api as api
        return getattr(api, name)
    raise AttributeError(f"module 'dipc_plus' has no attribute '{name}'")


def __dir__() -> list[str]:
    """The API's names and the module's dunders: not the typing helpers used to write this file."""
    return sorted({name for name in globals() if name.startswith("__")} | set(__all__))
