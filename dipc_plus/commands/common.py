"""Argument handling the `dipc` commands share, in one place.

Why it exists: accuracy, sweep and plot read the same accuracy-claim arguments;
privacy and privacy-loss the same privacy-claim arguments; prob and dtmc the
same program-at-one-input arguments.  Each group is declared and loaded here,
so a command never borrows another command's module.

A claim file names its program ([program] path), so the claim commands take
``[PROGRAM] CLAIM``: with one path it is the claim; with two, PROGRAM must be the
claim's program (checking another program against a claim stated for a given
one is refused rather than guessed).
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.exact.convert import json_exact
from dipc_plus.execution.limits import clip
from dipc_plus.semantics import inputs as inputs_mod
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES


# --------------------------------------------------------------------------- [PROGRAM] CLAIM

def add_program_claim(parser, table: str) -> None:
    parser.add_argument("program", metavar="[PROGRAM]",
                        help="the .dip program (optional: the claim names it; if given it must be the claim's)")
    parser.add_argument("claim", metavar="CLAIM", nargs="?",
                        help=f"a claim file (theories/*.toml) with a [{table}] table")


def claim_paths(args) -> tuple[str | None, str]:
    """(program or None, claim) of `[PROGRAM] CLAIM` (one path: the claim) and --max-states, checked."""
    check_max_states(args.max_states)
    if args.claim is None:
        if str(args.program).endswith(".dip"):
            raise UserError(f"{args.program} is a program; a claim file is needed too",
                            hint="give the claim (theories/*.toml), which names its program, e.g. "
                                 "dipc accuracy theories/sparse.toml")
        return None, args.program
    return args.program, args.claim


def check_same_program(program: str | None, claim_path: str, claim_file: str) -> None:
    """PROGRAM, when given, must be the file the claim names."""
    if program is None:
        return
    if not os.path.exists(program):
        raise UserError(f"cannot read the program: no file {program}", hint="give the path of a .dip file")
    if not os.path.exists(claim_path) or not os.path.samefile(program, claim_path):
        raise UserError(f"the claim is about {os.path.relpath(claim_path)}, not {program}", file=claim_file,
                        hint="leave PROGRAM out (the claim names it), or copy the claim and change its "
                             "[program] path to check another program")


def add_max_states_argument(parser, refuse: str = "refuse Markov chains with") -> None:
    parser.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES, metavar="N",
                        help=f"{refuse} more than N states (default {DEFAULT_MAX_STATES})")


def check_max_states(value: int) -> None:
    if value <= 0:
        raise UserError("--max-states must be positive", hint="use e.g. --max-states 200000")


def check_kappa(value, option: str = "--kappa", example: str = "--kappa 7") -> int:
    """kappa (beta/kappa) is a positive integer; `option` and `example` are the caller's words
    for it (the API passes "kappa" and "kappa=7")."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:   # True is an int in Python
        shown = repr(value) if isinstance(value, str) else clip(value)
        raise UserError(f"{option} must be a positive integer, not {shown}", hint=f"use e.g. {example}")
    return value


# --------------------------------------------------------------------------- verdicts and exit codes

STRICT_EXIT = 4
EXIT_VACUOUS = 5
EXIT_UNDECIDED = 6   # a box accuracy claim with regions neither proved nor refuted


def add_strict_argument(parser, vacuous: bool = False) -> None:
    """--strict; with `vacuous` (accuracy claims) also --allow-vacuous."""
    parser.add_argument("--strict", action="store_true",
                        help=f"exit {STRICT_EXIT} instead of 0 when the verdict is vacuous (nothing was compared) "
                             "or covers real outputs only on named events")
    if vacuous:
        parser.add_argument("--allow-vacuous", action="store_true",
                            help=f"exit 0, not {EXIT_VACUOUS}, when the answer is vacuous (the claim applies at no "
                                 "input, or no kappa fails)")


strict_reason_text = {"vacuous": "the verdict is vacuous (nothing was compared)",
                      "events": "real outputs were checked only on the named events"}


def strict_reason(result, verdict: str | None = None) -> str | None:
    """Why a verified verdict fails --strict (vacuous, or only on named events), else None.
    `verdict` is the result's own unless given (a tight loss has none: its report decides it)."""
    if (result.verdict if verdict is None else verdict) != "verified":
        return None
    if getattr(result, "vacuous", False):
        return strict_reason_text["vacuous"]
    scope = getattr(result, "scope", None)
    if scope is not None and getattr(scope, "event_limited", False):
        return strict_reason_text["events"]
    return None


REFUTING = ("refuted", "not private for any constant")   # verdicts that exit 1 (every length has the second)


def verdict_exit(verdict: str, *, vacuous: bool = False, allow_vacuous: bool = False, strict_failure=None,
                 open_exit: int = 1) -> int:
    """The one table from an answer to the exit status, for every command and `dipc merge`:
    1 refuted; `open_exit` for a verdict neither verified nor refuted (a box's 6, a real-output or
    every-length verdict left open 2); verified: EXIT_VACUOUS for a vacuous answer unless
    `allow_vacuous`, STRICT_EXIT when --strict was asked and `strict_failure` says why it fails, else 0.

    >>> verdict_exit("verified", vacuous=True, allow_vacuous=True, strict_failure="vacuous")
    4
    """
    if verdict in REFUTING:
        return 1
    if verdict != "verified":
        return open_exit
    if vacuous and not allow_vacuous:
        return EXIT_VACUOUS
    return STRICT_EXIT if strict_failure else 0


def exit_status(result, args, vacuous: bool = False, open_exit: int = 1) -> int:
    """`verdict_exit` of a command's result under its --allow-vacuous and --strict (printed as one line
    in text mode; in JSON under "strict")."""
    return verdict_exit(result.verdict, vacuous=vacuous, allow_vacuous=getattr(args, "allow_vacuous", False),
                        strict_failure=args.strict and strict_reason(result), open_exit=open_exit)


def vacuity_lines(vacuity, args) -> list[str]:
    """The text that says a vacuous answer is vacuous, why, and what to change."""
    if vacuity is None:
        return []
    allowed = getattr(args, "allow_vacuous", False)
    head = "VACUOUS (accepted: --allow-vacuous)" if allowed else f"VACUOUS: exit {EXIT_VACUOUS}"
    lines = [f"{head}: {vacuity.reason}",
             f"  made vacuous by: {vacuity.field}",
             f"  to change it: {vacuity.hint}"]
    if not allowed:
        lines.append("  (--allow-vacuous accepts a vacuous answer with exit 0)")
    return lines


def strict_json(result, args) -> dict:
    return {"requested": bool(args.strict), "reason": strict_reason(result)}


def print_verdict_tail(result, args, vacuity=None, code: int = 0) -> None:
    """What follows a verdict's text: why it is vacuous, then the --strict line (unless the exit is vacuous's)."""
    reason = strict_reason(result) if args.strict and code != EXIT_VACUOUS else None
    for line in vacuity_lines(vacuity, args) + ([f"STRICT: {reason}: exit {STRICT_EXIT}"] if reason else []):
        print(line)


@contextmanager
def certified_or_exit_2():
    """A computation that cannot be certified ends with exit 2 and a message, never a traceback
    (and never exit 1, which means "refuted")."""
    from dipc_plus.decision.decide import CertificationError
    try:
        yield
    except CertificationError as exc:
        raise UserError(f"the result could not be certified: {exc}",
                        hint="this is a bug in dipc-plus (two certified computations disagree); please report "
                             "it with the program and claim") from None
    except RecursionError:
        raise UserError("the computation nested too deeply to finish",
                        hint="use smaller parameters (fewer queries or inputs)") from None


def input_files(args, *more) -> list:
    """The files a run reads (an output must never overwrite one)."""
    return [p for p in (getattr(args, "program", None), getattr(args, "claim", None), *more) if p]


# --------------------------------------------------------------------------- where the work runs

def add_execution_arguments(parser, shard: bool = True, reference: bool = True) -> None:
    """--jobs, --executor, --scheduler, --shard (with `shard`), --no-progress and --reference (with `reference`)."""
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                        help="run the check's tasks (ranges of inputs or pairs) over N processes "
                             "(0: one per core; default 1); with --executor dask, 4N tasks")
    parser.add_argument("--executor", choices=("local", "dask"), default="local",
                        help="local: processes of this machine (default); dask: the workers of a Dask "
                             "scheduler (--scheduler; docs/cluster.md)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="the Dask scheduler, e.g. tcp://10.0.0.5:8786 (with --executor dask; default: the "
                             "DASK_SCHEDULER_ADDRESS environment variable)")
    if shard:
        parser.add_argument("--shard", metavar="I/N",
                            help="check only the I-th of N equal parts of the inputs (or pairs) and print a "
                                 "part for `dipc merge` (with --json), e.g. --shard 1/8 in a job array")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    if reference:
        parser.add_argument("--reference", action="store_true", help=REFERENCE_HELP)


def executor_of(options):
    """The executor of a RunOptions; a scheduler taken from DASK_SCHEDULER_ADDRESS is said on stderr
    (the user did not type it)."""
    executor = options.run_on()
    if executor.kind == "dask" and executor.origin != "--scheduler":
        print(f"note: --executor dask: the scheduler {executor.scheduler} (from {executor.origin})", file=sys.stderr)
    return executor


def parse_shard(args) -> tuple[int, int] | None:
    """--shard I/N -> (I, N), 1 <= I <= N; None without --shard.  A part is JSON for `dipc merge`."""
    text = getattr(args, "shard", None)
    if text is None:
        return None
    i, sep, n = str(text).partition("/")
    if not sep or not i.strip().isdigit() or not n.strip().isdigit() or len(text) > 20:
        raise UserError(f"--shard {clip(str(text), 40)}: write I/N, e.g. --shard 3/8",
                        hint="I is this part's number (1..N), N the number of parts")
    i, n = int(i), int(n)
    if not 1 <= i <= n or n > MAX_SHARDS:
        raise UserError(f"--shard {i}/{n}: I must be between 1 and N, and N at most {MAX_SHARDS}",
                        hint="e.g. --shard 1/8 ... --shard 8/8, then dipc merge the eight outputs")
    if not getattr(args, "json", False):
        raise UserError("--shard prints a part for `dipc merge`, which is JSON", hint="add --json and save the output "
                        f"to a file, e.g. dipc {getattr(args, 'command', None) or 'privacy'} CLAIM --shard 1/4 --json > part1.json")
    return i, n


MAX_SHARDS = 100_000


REFERENCE_HELP = ("the general provers only: no accelerator (report classes, orbits, symmetry, corner and worst-point "
                  f"reductions, the coupling bound); what only they decide is UNDECIDED, exit {EXIT_UNDECIDED} (docs/claims.md)")


def run_options(args):
    """The one RunOptions of a command's parsed arguments (what is absent takes its default)."""
    from dipc_plus.execution.options import RunOptions
    json_out = getattr(args, "json", False)
    return RunOptions(max_states=getattr(args, "max_states", DEFAULT_MAX_STATES),
                      limits=tuple(getattr(args, "limit", None) or ()),   # (name, N): cli.py checked and applied them
                      timeout=getattr(args, "timeout", None), max_memory=getattr(args, "max_memory_bytes", None),
                      jobs=getattr(args, "jobs", 1) or 1, executor=getattr(args, "executor", "local"),
                      scheduler=getattr(args, "scheduler", None), shard=parse_shard(args),
                      progress=not getattr(args, "no_progress", True) and not json_out,
                      strict=bool(getattr(args, "strict", False)), reference=bool(getattr(args, "reference", False)))


def part_json(command: str, shard: tuple[int, int], source, total: int, **options) -> dict:
    """What `dipc merge` needs to know about one part: which run it belongs to (the Source its workers
    rebuild the check from, and the command's `options`) and what it covers (its chunk of the run's
    `total` items)."""
    from dipc_plus.execution.executor import shard_chunk
    return {"command": command, "index": shard[0], "of": shard[1],
            "files": {path: digest for path, digest in source.files},
            "options": json_exact({"args": list(source.args), **options}),
            "items": list(shard_chunk(total, shard)), "total_items": total}


# --------------------------------------------------------------------------- accuracy claims

def add_accuracy_arguments(parser, shard: bool = True, reference: bool = True) -> None:
    add_program_claim(parser, "accuracy")
    parser.add_argument("--input", action="append", metavar="NAME=VALUE",
                        help="check only this input, e.g. --input q=[-1,-1,1] (repeat for each input variable)")
    parser.add_argument("--set", action="append", metavar="NAME=VALUE",
                        help="override a parameter of the program and claim, e.g. --set c=2")
    parser.add_argument("--dd-over", choices=("reals", "grid"), default=None,
                        help="distance to disagreement over the real input space or over the claim's grid "
                             "(default: the claim's dd_over)")
    parser.add_argument("--paper", action="store_true",
                        help="the paper's convention: also check inputs with dd(u) = alpha (section 7)")
    add_max_states_argument(parser)
    add_execution_arguments(parser, shard, reference)


def load_accuracy(args, options):
    """(checker, points or None) from the command line and its RunOptions; every mistake a UserError."""
    program, claim_file = claim_paths(args)
    params = inputs_mod.parse_params(args.set)
    checker = accuracy_checker(claim_file, params, program, args.dd_over, args.paper, options)
    points = None
    if args.input:
        given = inputs_mod.parse_assignments(args.input, "--input")
        points = [inputs_mod.bind_inputs(checker.program, given)]
    return checker, points


def accuracy_checker(claim_file: str, params: dict, program: str | None, dd_over, paper: bool, options):
    """The checker of an accuracy claim file at `params` under `options` (the command's and the API's
    one way to it), refused when the file has no [accuracy] table or `program` (PROGRAM, program=)
    is not the claim's; with the Source its workers rebuild it from (the reference flag is passed
    only when set, so a default run's parts name what they did)."""
    from dipc_plus.accuracy.checker import AccuracyChecker, accuracy_table, build_checker
    from dipc_plus.claims.claim_file import load_claim
    from dipc_plus.execution.executor import Source
    claim = load_claim(claim_file, params)
    accuracy_table(claim)
    check_same_program(program, claim.program_path, claim_file)
    checker = AccuracyChecker(claim, dd_over=dd_over, boundary=paper, max_states=options.max_states, options=options)
    build = (os.path.abspath(claim_file), tuple(params.items()), dd_over, paper, options.max_states)
    checker.source = Source.of(build_checker, build + ((True,) if options.reference else ()),
                               (claim_file, claim.program_path))
    return checker


# --------------------------------------------------------------------------- privacy claims

def add_privacy_arguments(parser, shard: bool = True) -> None:
    add_program_claim(parser, "privacy")
    add_execution_arguments(parser, shard)
    parser.add_argument("--set", action="append", metavar="NAME=VALUE",
                        help="override a parameter of the program and claim, e.g. --set n=12")
    parser.add_argument("--no-structure", action="store_true",
                        help="one Markov chain per input: no independent components, kernel chains or symmetry "
                             "(for measurements)")
    add_max_states_argument(parser)


def load_privacy(args) -> tuple:
    """(the privacy claim named on the command line (a DPClaim or PufferfishClaim), the --set parameters)."""
    program, claim_file = claim_paths(args)
    params = inputs_mod.parse_params(args.set)
    return read_privacy_claim(claim_file, params, program), params


def read_privacy_claim(claim_file: str, params: dict, program: str | None = None):
    """A privacy claim file read at `params`, refused when it is absent or when `program` (the
    command's PROGRAM, the API's program=) is not the program the claim names."""
    from dipc_plus.claims.privacy_reader import load_privacy_claim
    if not os.path.exists(claim_file):
        raise UserError(f"cannot read the claim file: no file {claim_file}",
                        hint="claims live in theories/*_privacy.toml")
    claim = load_privacy_claim(claim_file, params)
    check_same_program(program, claim.program.source, claim_file)
    return claim


# --------------------------------------------------------------------------- one program at one input

EPS_HELP = ("also evaluate at this eps (a rational such as 27/82 or 0.5; `--at eps=27/82` is the same), as a "
            "certified interval; repeat for several values")


def add_program_arguments(parser, inputs: bool = True, program_help: str = "a .dip file (or a .py file with --function)",
                          set_help: str = "override a parameter, e.g. --set m=3") -> None:
    """PROGRAM, --function, --input (with `inputs`), --set."""
    parser.add_argument("program", metavar="PROGRAM", help=program_help)
    parser.add_argument("--function", metavar="NAME",
                        help="with a .py PROGRAM: the function to read (docs/python.md)")
    if inputs:
        parser.add_argument("--input", action="append", metavar="NAME=VALUE",
                            help="an input value, e.g. --input q=[-1,0,0] (repeat for each input)")
    parser.add_argument("--set", action="append", metavar="NAME=VALUE", help=set_help)


def add_program_input_arguments(parser, eps_help: str = EPS_HELP) -> None:
    """PROGRAM, --input, --set, --eps/--at (what it does there: `eps_help`), --max-states."""
    add_program_arguments(parser)
    parser.add_argument("--eps", "--at", dest="at", action="append", metavar="VALUE", help=eps_help)
    add_max_states_argument(parser, "stop with an error when the Markov chain has")


def parse_eps_values(items) -> list[Fraction]:
    """--eps 27/82 (or --at eps=27/82) -> [Fraction(27, 82)]."""
    out = []
    for item in items or []:
        text = item.strip()
        if "=" in text:
            name, _, text = text.partition("=")
            if name.strip() not in ("eps", "ε"):
                raise UserError(f"--eps {item}: only eps can be given a value here",
                                hint="write --eps 27/82")
        value = inputs_mod.parse_scalar(text, "--eps")
        if not isinstance(value, Fraction) or value <= 0:
            raise UserError(f"--eps {item}: eps must be a positive number", hint="write --eps 27/82 or --eps 0.5")
        out.append(value)
    return out


def load_program_input(args):
    """(program, flat inputs, inputs as given) from the command line."""
    from dipc_plus.frontend.load import load_program
    if hasattr(args, "max_states"):    # `dipc simulate` builds no chain
        check_max_states(args.max_states)
    params = inputs_mod.parse_params(args.set)
    given = inputs_mod.parse_assignments(args.input, "--input")
    program = load_program(args.program, params, args.function)
    env = inputs_mod.bind_inputs(program, given)
    return program, env, given


def declared_names(program, names: list[str]) -> list[str]:
    """`names` as the user declared them: an array's elements once, by the array's name."""
    return list(dict.fromkeys(n.split("[")[0] if n.split("[")[0] in program.arrays else n for n in names))


# --------------------------------------------------------------------------- JSON (docs/json.md)

def conventional_json(out: dict, program) -> dict:
    """One JSON convention across commands (docs/json.md): "program" is the program's name,
    "program_path" its file and "params" its parameters, whichever stage built the object."""
    out["program"] = program.name
    if program.source:
        out["program_path"] = program.source
    out.setdefault("params", json_exact(dict(program.params)))
    return out


def print_json(out: dict, program) -> None:
    """`out` (docs/json.md conventions) on stdout, written piece by piece (`execution.json_spool`:
    a spooled list of reports is copied from its file, never held as one string)."""
    from dipc_plus.execution.json_spool import write_json
    write_json(conventional_json(out, program), sys.stdout)
    sys.stdout.write("\n")


def json_text(value, pad: str = "") -> str:
    """JSON with objects indented and each element of a list of objects on one line of its own
    (`execution.json_spool.write_json`, into a string).

    Why not json.dumps(indent=2): with an indent Python encodes in pure Python, which took
    0.2-0.4 s for a 2187-input grid, all of it after the check; one compact line per element
    goes through the C encoder, and one line per input is also what grep and a diff want."""
    import io
    from dipc_plus.execution.json_spool import write_json
    out = io.StringIO()
    write_json(value, out, pad)
    return out.getvalue()
