"""The Python API: the `dipc` command's twin for Python and Jupyter.

Why it exists: a researcher exploring a mechanism wants verdicts as objects
(printable, shown as tables in a notebook, serialisable as the command's JSON,
plottable as matplotlib Figures), not as text to parse.  Every function here runs
exactly the machinery the commands run and its `.to_json()` is the command's
``--json``.  `dipc_plus/__init__.py` re-exports these names lazily.
"""
from dipc_plus.api.box_results import BoxReport, BoxSweepReport, RegionKappaStar, RegionVerdict
from dipc_plus.api.checks import check_accuracy, check_privacy, privacy_loss, sweep
from dipc_plus.api.claim import Claim, example
from dipc_plus.api.errors import StrictVerdictError, UserError
from dipc_plus.api.program import LoadedProgram, Program, load
from dipc_plus.api.results import AccuracyReport, LossReport, PrivacyReport, Report, SweepReport
from dipc_plus.api.views import Counterexample, KappaStar, PrivacyCounterexample, ValueCounterexample, sample_class


__all__ = ["load", "check_accuracy", "sweep", "check_privacy", "privacy_loss", "example",
           "Program", "LoadedProgram", "Claim", "UserError", "StrictVerdictError",
           "Report", "AccuracyReport", "SweepReport", "PrivacyReport", "LossReport",
           "Counterexample", "PrivacyCounterexample", "ValueCounterexample", "KappaStar",
           "BoxReport", "BoxSweepReport", "RegionVerdict", "RegionKappaStar"]
