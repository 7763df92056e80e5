"""The `dipc` command: one sub-command module per job, under dipc_plus.commands.

Each command module listed in `dipc_plus.commands.COMMANDS` defines ``register(parser)``,
which adds its arguments and sets ``func`` (a callable taking the parsed args and
returning an exit code).  Only the module of the command being run is imported;
the others appear in `dipc --help` from their summary alone, so start-up stays short.
This module adds what every command shares: the time and memory guard
(``--timeout``, ``--max-memory``, run by `execution.guard`), size limits
(``--limit NAME=N``), the ``--jobs`` cap, the refusal of outputs that name an
input, one JSON object under ``--json`` whatever happens, and the exit codes
(EXIT_CODES, printed by `dipc --help`).  Signals are latched for the whole call
(`execution.lifetime`; for the process, from the import of `dipc_plus` on), stdout carries
only our own text (`execution.output`), and a failed write to it ends the run with exit 2
whatever the verdict was; a failing stderr changes nothing (`execution.std_streams`).
"""
from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import sys
import tempfile

from dipc_plus import __version__
from dipc_plus.errors import UserError
from dipc_plus.commands import COMMANDS, command_named
from dipc_plus.execution import files, guard, ledger, limits
from dipc_plus.execution.lifetime import EXIT_SIGNAL, SignalLatch, take_process_latch
from dipc_plus.execution.output import StdoutFailed, own_stdout
from dipc_plus.execution.std_streams import quiet_stderr, reserve_standard_descriptors
from dipc_plus.execution.collector import bulk_gc

EXIT_INTERNAL = 3
EXIT_BROKEN_PIPE = 141
EXIT_STDOUT_FAILED = 2

EXIT_CODES = """\
exit codes (every command):
  0    verified / success
  1    refuted (a re-checked counterexample is printed); prob: the probabilities do not sum to 1
  2    usage or input error, a limit reached (--timeout, --max-memory, --limit), a result
       that could not be certified, or the run's process killed (e.g. by the out-of-memory killer)
  3    internal error (a bug of dipc; the traceback is written to a file that is named)
  4    with --strict: verified, but vacuously or only on named events of real outputs
  5    accuracy, sweep: vacuous - the claim applies at no input, or no kappa fails; the
       claim field to change is named (--allow-vacuous: exit 0)
  6    accuracy, sweep on a box claim: undecided - regions neither proved nor refuted (listed)
  130  interrupted (SIGINT, Ctrl-C)
  141  stdout closed early (e.g. dipc ... | head)
  143  terminated (SIGTERM)
"""

LIMITS_HELP = "size limits (--limit NAME=N): " + "; ".join(
    f"{lim.name} = {lim.default} ({lim.meaning})" for lim in limits.LIMITS.values())


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors with exit code 2 and a hint, not a traceback."""

    json_errors = False

    def error(self, message: str):  # pragma: no cover - exercised through the CLI tests
        message = _plain_words(message)
        hint = f"run '{self.prog} --help' for the options"
        if not _Parser.json_errors:
            self.print_usage(sys.stderr)
        raise SystemExit(_report(UserError(message, hint=hint), 2, _Parser.json_errors,
                                 text=f"error: {message}\n  hint: {hint}"))


def _plain_words(message: str) -> str:
    """argparse's message, said in the command's terms where argparse's own words mislead.

    The claim commands take `[PROGRAM] CLAIM`: with no word at all argparse fills the
    first slot it sees and reports `[PROGRAM]` missing, although the claim is what is
    missing (PROGRAM is optional: the claim names it)."""
    head = "the following arguments are required: "
    if not message.startswith(head) or "[PROGRAM]" not in message[len(head):].split(", "):
        return message
    others = [item for item in message[len(head):].split(", ") if item != "[PROGRAM]"]
    return ("the claim file is missing: give CLAIM (e.g. theories/sparse.toml); it names its program, so "
            "[PROGRAM] may be left out" + (f"; also required: {', '.join(others)}" if others else ""))


def _add_guard_arguments(parser) -> None:
    group = parser.add_argument_group("limits (a run that passes one stops with exit 2)")
    group.add_argument("--timeout", type=float, default=guard.DEFAULT_TIMEOUT, metavar="SECONDS",
                       help=f"stop after SECONDS of wall-clock time (default {guard.DEFAULT_TIMEOUT:g}; 0: no limit)")
    group.add_argument("--max-memory", default=f"{guard.DEFAULT_MAX_MEMORY >> 30}G", metavar="SIZE",
                       help=f"address space per process, e.g. 4G or 512M (default {guard.DEFAULT_MAX_MEMORY >> 30}G; "
                            f"0: no limit)")
    group.add_argument("--limit", action="append", default=[], metavar="NAME=N", help=LIMITS_HELP)


ALL = "all"


@functools.lru_cache(maxsize=None)
def build_parser(command: str | None = ALL) -> argparse.ArgumentParser:
    """The parser of `command` (a name), of every command (ALL), or of none (None).

    Every command is listed either way; a command not asked for gets a parser with
    its summary only, so its module is not imported.  Built once per process and
    argument (parse_args leaves it unchanged).
    """
    parser = _Parser(
        prog="dipc",
        description="Decide accuracy and privacy claims of DiPWhile+ programs exactly, for every epsilon.",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dipc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    parser.command_parsers = {}
    for entry in COMMANDS:
        command_parser = sub.add_parser(entry.name, aliases=list(entry.aliases), help=entry.summary,
                                        formatter_class=argparse.RawDescriptionHelpFormatter)
        parser.command_parsers[entry.name] = command_parser
        if command in (ALL, entry.name):
            importlib.import_module(f"dipc_plus.commands.{entry.module}").register(command_parser)
            _add_guard_arguments(command_parser)
    return parser


def _command_in(argv: list[str]) -> str | None:
    """The command argv names: its first word (`dipc` itself takes no option with a value)."""
    word = next((a for a in argv if not a.startswith("-")), None)
    entry = command_named(word) if word is not None else None
    return entry.name if entry else None


def _report(err: UserError, code: int, as_json: bool, text: str | None = None, **more) -> int:
    """`err` as one JSON object on stdout (with `more` fields), or as `text` (default: the error) on stderr."""
    if as_json:
        error = {"file": err.file, "line": err.line, "column": err.column, "message": err.message, "hint": err.hint}
        print(json.dumps({"error": error, "exit": code, **more}, indent=2))
    else:
        print(str(err) if text is None else text, file=sys.stderr)
    return code


def _internal_error(exc: BaseException, as_json: bool) -> int:
    """A bug of ours: one line, the traceback in a file, exit 3 (never 1, which means refuted)."""
    import traceback   # only here: a bug of ours is rare, and importing it costs every start-up ~10 ms
    try:
        fd, path = tempfile.mkstemp(prefix="dipc-internal-error-", suffix=".txt")
        with os.fdopen(fd, "w") as fh:
            fh.write(f"dipc {__version__}\n{' '.join(sys.argv)}\n\n")
            fh.write("".join(traceback.format_exception(exc)))
        where = f"details: {path}"
    except OSError:  # pragma: no cover
        where = "no details file could be written"
    summary = limits.clip(f"{type(exc).__name__}: {exc}", 160)
    err = UserError(f"internal error: {summary}", hint=f"this is a bug in dipc, please report it; {where}")
    return _report(err, EXIT_INTERNAL, as_json, text=f"internal error: {summary} -- please report it ({where})")


def _apply_limits(args) -> None:
    """--limit NAME=N set, and kept on `args` as (name, N) pairs (commands.common.run_options)."""
    limits.reset()
    pairs = []
    for item in args.limit or []:
        name, sep, value = item.partition("=")
        if not sep or not value.strip().isdigit() or len(value.strip()) > 18:
            raise UserError(f"--limit takes NAME=N, not '{limits.clip(item)}'", hint="e.g. --limit power=1000")
        limits.set_limit(name.strip(), int(value))
        pairs.append((name.strip(), int(value)))
    args.limit = pairs
    _, args.max_memory_bytes = guard.checked_limits(args.timeout, args.max_memory)


def _memory_available() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cap_jobs(args) -> None:
    """--jobs at most the cores we may use, and at most what the available memory holds."""
    jobs = getattr(args, "jobs", None)
    if not isinstance(jobs, int):
        return
    from dipc_plus.execution.executor import available_cores   # imports FLINT: only for commands that run work
    if getattr(args, "executor", "local") == "dask":   # the cluster's workers, not this machine's cores
        args.jobs = jobs if jobs > 0 else available_cores()
        return
    cores = available_cores()
    cap, why = cores, f"{cores} core(s) available"
    avail = _memory_available()
    if avail and args.max_memory_bytes:
        by_memory = max(1, avail // args.max_memory_bytes)
        if by_memory < cap:
            cap, why = by_memory, f"{avail >> 20} MiB available, {args.max_memory_bytes >> 20} MiB per worker"
    if jobs <= 0:
        args.jobs = cap
    elif jobs > cap:
        print(f"note: --jobs {jobs} capped at {cap} ({why})", file=sys.stderr)
        args.jobs = cap


def _check_outputs(args) -> None:
    """The output files a command declares (`outputs`: (option dest, what it is, extensions or None),
    set by its register), each refused here, once and before any work, when it cannot be written."""
    from dipc_plus.commands.common import input_files   # loaded already: the command's module imports it
    for key, what, extensions in getattr(args, "outputs", ()):
        out = getattr(args, key, None)
        if isinstance(out, str):
            files.check_output(out, input_files(args), extensions, what)


def _execute(args, as_json: bool) -> int:
    """The command itself, every outcome turned into an exit code (runs in the guarded child).
    A failed write to stdout is caught by the outer `try` also when it happened while reporting an error."""
    try:
        try:
            with bulk_gc():   # the whole command, not only its tasks: see execution.collector
                code = int(args.func(args) or 0)
            sys.stdout.flush()   # a closed pipe shows here, as BrokenPipeError, not at exit
            return code
        except UserError as err:
            return _report(err, err.exit_code, as_json)
        except (BrokenPipeError, StdoutFailed, MemoryError):
            raise   # the outer try's (the report is cut short, not a bug of ours); the guard reports the memory limit
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        except Exception as exc:  # a bug of ours
            return _internal_error(exc, as_json)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except StdoutFailed as exc:
        return _stdout_failed(exc)


def _silence_stdout() -> None:
    """After a closed pipe (`dipc ... | head`): send the rest of stdout nowhere, quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _stdout_failed(exc: OSError) -> int:
    """One line on stderr (which may fail too, quietly) and exit 2: the report is incomplete."""
    print(f"error: could not write the report to stdout ({exc.strerror or exc}); what it holds is incomplete",
          file=sys.stderr)
    return EXIT_STDOUT_FAILED


def main(argv: list[str] | None = None) -> int:
    """The command's exit status.  Signals are latched for the whole call (never a traceback);
    run as the process itself (argv None), they are ignored once the command is done."""
    process = argv is None
    if process:
        reserve_standard_descriptors()   # done at the import of dipc_plus already, unless imported otherwise
        # dipc draws into files on the Agg canvas, never through pyplot: MPLBACKEND has no say in
        # what it does, and a name matplotlib does not know made matplotlib's import fail (exit 3)
        os.environ.pop("MPLBACKEND", None)
    latch = (take_process_latch() if process else None) or SignalLatch().__enter__()
    try:
        with quiet_stderr():
            return _main_writing(list(sys.argv[1:] if process else argv), latch)
    finally:
        latch.release(restore=not process)


def _main_writing(argv: list[str], latch: SignalLatch) -> int:
    """_main with our own stdout; a failed write to it decides the exit code (141 for a closed
    pipe, else exit 2; a signal's code stands), also when a library caught the error."""
    code, failure = None, None
    with own_stdout() as out:
        try:
            try:
                code = _main(argv, latch)
            finally:   # also after argparse's exit (--help): a failed write shows here
                sys.stdout.flush()
        except (BrokenPipeError, StdoutFailed) as exc:
            failure = exc
        except SystemExit:
            if out.failure is None:
                raise
        failure = out.failure or failure
    if isinstance(failure, BrokenPipeError):
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    if failure is not None:
        if code == EXIT_STDOUT_FAILED:   # said already (by _execute), or a user error's message is on stderr
            return code
        if code is None and latch.first is not None:   # the stop message itself could not be written
            return EXIT_SIGNAL[latch.first]
        return code if code in EXIT_SIGNAL.values() else _stdout_failed(failure)
    return code


def _main(argv: list[str], latch: SignalLatch) -> int:
    as_json = "--json" in argv
    _Parser.json_errors = as_json
    try:
        command = _command_in(argv)
        parser = build_parser(command)
        args, unknown = parser.parse_known_args(argv)
        if unknown:   # said by the command's own parser, so that the hint names `dipc COMMAND --help`
            owner = parser.command_parsers.get(command, parser) if command else parser
            owner.error(f"unrecognized arguments: {' '.join(unknown)}")
    finally:
        _Parser.json_errors = False
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    as_json = bool(getattr(args, "json", False))
    files.forget_inputs()
    try:
        _apply_limits(args)
        _cap_jobs(args)
        _check_outputs(args)
    except UserError as err:
        return _report(err, err.exit_code, as_json)

    def on_stop(stop: guard.Stopped) -> int:
        """One message (plus, in text, what was decided before the stop); one JSON object with --json."""
        if as_json:
            more = {"decided_not_kept": stop.dropped} if stop.dropped else {}
            return _report(UserError(stop.message, hint=stop.hint), stop.exit, True, decided_so_far=stop.decided, **more)
        if stop.exit in guard.EXIT_SIGNAL.values():  # one line after Ctrl-C or SIGTERM
            n = ledger.decided_count(stop.decided, stop.dropped)
            print(stop.message + (f" ({n} items were decided before the stop)" if n else ""), file=sys.stderr)
            return stop.exit
        print(str(UserError(stop.message, hint=stop.hint)), file=sys.stderr)
        if stop.exit != 3 or stop.decided:
            print(ledger.summary(stop.decided, stop.dropped), file=sys.stderr)
        return stop.exit

    return guard.run_guarded(lambda: _execute(args, as_json), timeout=args.timeout,
                             max_memory=args.max_memory_bytes, on_stop=on_stop, buffer_stdout=as_json,
                             latch=latch)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
