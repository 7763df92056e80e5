"""The Python API: the `dipc` command's twin for Python and Jupyter.

Why it exists: a researcher exploring a mechanism wants verdicts as objects
(printable, shown as tables in a notebook, serialisable as the command's JSON,
plottable as matplotlib Figures), not as text to parse.  Every function here runs
exactly the machinery the commands run and its `.to_json()` is the command's
``--json``.  `dipc_plus/__init__.py` re-exports these names lazily.

The result types are public so that a user can name them (``isinstance``, type hints): the
reports (`Report` and its subclasses, whose `text` is a `ReportText`), the views of their
parts (`Counterexample`, `KappaStar`, ...), what a `Program` answers (`Distribution`, `Exact`,
`DTMC`, `SymbolicResult`, `SampleResult`) and what `.plot()` returns (`PlotFigure`).
`PlotFigure` loads on first use (it imports matplotlib).
"""
from dipc_plus.api.box_results import BoxReport, BoxSweepReport, RegionKappaStar, RegionVerdict
from dipc_plus.api.checks import check_accuracy, check_privacy, privacy_loss, sweep
from dipc_plus.api.claim import Claim, example
from dipc_plus.api.errors import StrictVerdictError, UserError
from dipc_plus.api.program import LoadedProgram, Program, load
from dipc_plus.api.results import AccuracyReport, LossReport, PrivacyReport, Report, ReportText, SweepReport
from dipc_plus.api.symbolic import SymbolicResult
from dipc_plus.api.views import (Counterexample, KappaStar, PrivacyCounterexample, SampleResult, ValueCounterexample,
                                 figure_class)
from dipc_plus.semantics.distribution import Distribution, Exact
from dipc_plus.semantics.dtmc import DTMC


__all__ = ["load", "check_accuracy", "sweep", "check_privacy", "privacy_loss", "example",
           "Program", "LoadedProgram", "Claim", "UserError", "StrictVerdictError",
           "Report", "AccuracyReport", "SweepReport", "PrivacyReport", "LossReport", "ReportText",
           "Counterexample", "PrivacyCounterexample", "ValueCounterexample", "KappaStar",
           "BoxReport", "BoxSweepReport", "RegionVerdict", "RegionKappaStar",
           "Distribution", "Exact", "DTMC", "SymbolicResult", "SampleResult", "PlotFigure"]


def __getattr__(name: str) -> type:
    """PlotFigure, made on first use (matplotlib loads only when a plot is drawn)."""
    if name == "PlotFigure":
        return figure_class()
    raise AttributeError(f"module 'dipc_plus.api' has no attribute '{name}'")
