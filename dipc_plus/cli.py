"""The `dipc` command: one sub-command module per job, under dipc_plus.commands.

Each module in `COMMANDS` defines ``register(subparsers)`` which adds its parser and
sets ``func`` (a callable taking the parsed args and returning an exit code).
User mistakes raise `UserError` and end with its message and exit code 2; a
refuted claim returns 1; a verified one 0.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from dipc_plus.errors import UserError

# Sub-command modules, in the order `dipc --help` lists them.
COMMANDS = ["show", "simulate", "prob", "dtmc", "accuracy", "sweep", "plot", "privacy", "privacy_loss"]


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors with exit code 2 and a hint, not a traceback."""

    def error(self, message: str):  # pragma: no cover - exercised through the CLI tests
        self.print_usage(sys.stderr)
        print(f"error: {message}\n  hint: run '{self.prog} --help' for the options", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dipc",
        description="Decide accuracy and privacy claims of DiPWhile+ programs exactly, for every epsilon.",
        epilog="Exit codes: 0 verified / success, 1 refuted, 2 usage or input error.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"dipc_plus.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.endswith(f"commands.{name}"):
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as err:
        print(str(err), file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
