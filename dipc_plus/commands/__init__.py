"""Sub-commands of `dipc`, one module each; see dipc_plus.cli.

`COMMANDS` lists them in the order `dipc --help` shows them, with the one-line
summary that listing prints.  It lives here, apart from the modules, so that the
top-level help and the choice of a command import no command module: `dipc --help`
loads none of them and `dipc accuracy ...` loads one (issue 10: start-up).  Each
module's ``register(parser)`` fills in the parser cli.py made from its entry.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    name: str
    module: str          # dipc_plus.commands.<module>
    summary: str         # the line `dipc --help` prints beside the name
    aliases: tuple[str, ...] = ()


COMMANDS = [
    Command("show", "show",
            "check a program and print it desugared (loops unrolled, arrays flattened, sugar expanded)"),
    Command("simulate", "simulate",
            "run a program many times at one eps and report output frequencies with confidence intervals"),
    Command("prob", "prob", "exact probability of every output at one input, as a closed form in eps"),
    Command("dtmc", "dtmc", "export the parametric Markov chain of a program at one input (DOT or PRISM)"),
    Command("accuracy", "accuracy",
            "decide an accuracy claim for every eps: verified, or a re-checked counterexample"),
    Command("sweep", "sweep", "largest kappa with beta/kappa still valid, and the exact best constant kappa*"),
    Command("plot", "plot", "draw P[error] against eps beside beta at one input, counterexample marked"),
    Command("privacy", "privacy",
            "decide a differential-privacy or Pufferfish claim for every eps: verified or a counterexample"),
    Command("privacy-loss", "privacy_loss",
            "the exact tight privacy loss L(eps) and sup L(eps)/eps, with the attaining pair and output",
            aliases=("privacy_loss",)),
    Command("merge", "merge", "join the --shard I/N parts of an accuracy or privacy run into its verdict"),
]


def command_named(word: str) -> Command | None:
    """The command `word` names (its name or an alias), or None."""
    return next((c for c in COMMANDS if word == c.name or word in c.aliases), None)
