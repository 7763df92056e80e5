"""The notebook API: the `dipc` command's twin for Python and Jupyter.

Why it exists: a researcher exploring a mechanism wants the verdicts as objects
(printable, shown as tables in a notebook, serialisable as the CLI's JSON,
plottable as matplotlib Figures), not as text to parse.  Every function here
runs exactly the machinery the commands run (accuracy.check, accuracy.sweep,
privacy.dp_check, privacy.loss, privacy.pufferfish) and its `.to_json()` is the command's `--json`.
"""
from dipc_plus.api.program import LoadedProgram
from dipc_plus.api.checks import check_accuracy, check_privacy, privacy_loss, sweep
from dipc_plus.api.results import AccuracyReport, LossReport, PrivacyReport, SweepReport

__all__ = ["LoadedProgram", "check_accuracy", "check_privacy", "privacy_loss", "sweep",
           "AccuracyReport", "SweepReport", "PrivacyReport", "LossReport"]
