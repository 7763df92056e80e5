"""`dipc simulate`: run a program many times at one eps and report output frequencies.

The Monte Carlo witness for the exact engine: every frequency comes with a
Wilson confidence interval, so `dipc prob`'s exact answer can be checked by
eye (or by a test) against it.
"""
from __future__ import annotations

import json
from fractions import Fraction

from dipc_plus.execution.lazy import lazy_import

np = lazy_import("numpy")

from dipc_plus.semantics import inputs as inputs_mod
from dipc_plus.semantics import ir
from dipc_plus.commands.common import add_program_arguments, conventional_json, declared_names, load_program_input
from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.execution.progress import progress_bar
from dipc_plus.semantics.sampler import DEFAULT_CHUNK, DEFAULT_MAX_ITERATIONS, as_eps, simulate
from dipc_plus.semantics.samples import Frequency
from dipc_plus.semantics.stats import z_value
from dipc_plus.semantics.values import show_value

EXAMPLE = """\
example:
  dipc simulate programs/noisy_max.dip --set m=3 --input q=[-1,0,0] --eps 27/82 -n 100000 --seed 1

  prints, for each observed output, how many runs gave it, its frequency and a
  Wilson confidence interval (99% by default) for its probability:

      noisy_max at eps = 27/82 on q=[-1,0,0]: 100000 runs, seed 1

      outcome  count  frequency        99% interval
      out=2    35397   0.353970  [0.35008, 0.35787]
      out=3    35161   0.351610  [0.34773, 0.35551]
      out=1    29442   0.294420  [0.29072, 0.29815]

  (most frequent first; exact values for comparison: dipc prob).

  Real outputs are summarised by mean, standard deviation and quantiles; with
  --within GAMMA --around o=1/2 the sampler instead reports how often every real
  output lies within GAMMA of its centre (per discrete outcome and overall).

  The same --seed (and -n, --chunk) gives the same numbers.
"""


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = ("Run PROGRAM N times at a concrete eps on one input (a vectorised Monte Carlo sampler) and "
                          "report each observed output with its frequency and a Wilson confidence interval.")
    parser.epilog = EXAMPLE
    add_program_arguments(parser)
    parser.add_argument("--eps", required=True, metavar="EPS",
                        help="the privacy budget, a positive rational such as 27/82, 1/2 or 0.5")
    parser.add_argument("-n", "--runs", type=int, default=100_000, metavar="N",
                        help="number of runs (default 100000)")
    parser.add_argument("--seed", type=int, default=None, help="random seed, for reproducible numbers")
    parser.add_argument("--confidence", type=float, default=0.99,
                        help="confidence level of the intervals (default 0.99)")
    parser.add_argument("--within", metavar="GAMMA", default=None,
                        help="report how often every real output is within GAMMA of its centre (see --around)")
    parser.add_argument("--around", action="append", metavar="NAME=VALUE",
                        help="the centre of a real output for --within, e.g. --around o=1/2 or --around out=[1,2]")
    parser.add_argument("--max-iterations", type=int, default=DEFAULT_MAX_ITERATIONS, metavar="K",
                        help=f"stop with an error if runs are still inside a while loop after K iterations "
                             f"(default {DEFAULT_MAX_ITERATIONS})")
    parser.add_argument("--chunk", type=int, default=DEFAULT_CHUNK, metavar="K",
                        help=f"runs executed together in one batch (default {DEFAULT_CHUNK}); bounds memory")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


# --------------------------------------------------------------------------- running


def run(args) -> int:
    eps = as_eps(args.eps)
    for option, value in (("-n", args.runs), ("--chunk", args.chunk), ("--max-iterations", args.max_iterations)):
        if value <= 0:
            raise UserError(f"{option} must be positive, not {value}", hint=f"use e.g. {option} 100000")
        if value > limits.get("runs"):
            raise UserError(f"{option} {limits.clip(value)} is more than {limits.get('runs')}", hint=limits.hint("runs"))
    z_value(args.confidence)  # validates the level early
    gamma = None
    if args.within is not None:
        value = inputs_mod.parse_scalar(args.within, "--within")
        if not isinstance(value, Fraction) or value < 0:
            raise UserError(f"--within needs a non-negative number, not '{args.within}'", hint="write e.g. --within 1/2")
        gamma = value
    elif args.around:
        raise UserError("--around is only meaningful with --within", hint="add --within GAMMA")
    program, env, _ = load_program_input(args)
    around = _centres(program, args.around) if gamma is not None else None

    result = _simulate_with_progress(program, env, eps, args)
    report = build_report(result, args.confidence, gamma, around, seed=args.seed)
    if args.json:
        print(json.dumps(conventional_json(report, program), indent=2))
    else:
        print(render(report))
    return 0


def _simulate_with_progress(program, env, eps, args):
    """The runs, with the project's progress bar (a terminal only) unless -q, --json or one batch."""
    show = not args.quiet and not args.json and args.runs > args.chunk
    with progress_bar(args.runs if show else 0, "simulating", "run") as bar:
        return simulate(program, env, eps, args.runs, seed=args.seed, chunk=args.chunk,
                        max_iterations=args.max_iterations, progress=bar.update if show else None)


def _centres(program: ir.Program, items) -> dict:
    """--around NAME=VALUE (arrays flattened) -> {flat output name: value}."""
    given = inputs_mod.parse_assignments(items, "--around")
    outputs = dict(program.outputs)
    flat: dict = {}
    for name, value in given.items():
        if name in program.arrays and name not in outputs:
            elements = program.arrays[name]
            if not isinstance(value, list) or len(value) != len(elements):
                raise UserError(f"--around {name}: give a list of {len(elements)} values",
                                hint=f"write --around {name}=[{','.join(['0'] * len(elements))}]")
            pairs = list(zip(elements, value))
        else:
            pairs = [(name, value)]
        for flat_name, item in pairs:
            if flat_name not in outputs:
                raise UserError(f"--around: '{name}' is not an output of {program.name}",
                                hint=f"its outputs are: {', '.join(declared_names(program, [n for n, _ in program.outputs]))}")
            if isinstance(item, list):
                raise UserError(f"--around {flat_name} is a scalar: give one value")
            flat[flat_name] = inputs_mod.coerce(item, outputs[flat_name], f"--around {flat_name}")
    reals = [n for n, t in program.outputs if isinstance(t, ir.RealT)]
    missing = [n for n in reals if n not in flat]
    if not reals:
        raise UserError(f"{program.name} has no real outputs: --within does not apply",
                        hint="drop --within; discrete outputs are reported with their frequencies")
    if missing:
        raise UserError(f"--within needs a centre for every real output; missing: {', '.join(missing)}",
                        hint="give each with --around NAME=VALUE")
    return flat


# --------------------------------------------------------------------------- the report


def _json_value(value):
    if isinstance(value, Fraction):
        return str(value)
    return value


def _freq(freq: Frequency, confidence: float) -> dict:
    interval = freq.interval(confidence)
    return {"count": freq.successes, "frequency": freq.estimate, "interval": [interval.low, interval.high]}


def _ordered(program, names: list, distribution: dict) -> list:
    """Outcomes by value when an output is an integer (a distribution over Z reads in order),
    else most frequent first."""
    types = dict(program.outputs)
    flat = {n: types.get(n, types.get(n.split("[")[0])) for n in names}
    items = list(distribution.items())
    if not any(isinstance(t, ir.IntT) for t in flat.values()):
        return items

    def key(item):
        return tuple((0, v) if isinstance(v, (int, float, Fraction)) and not isinstance(v, bool) else (1, str(v))
                     for v in item[0])
    return sorted(items, key=key)


def build_report(result, confidence: float, gamma=None, around=None, seed=None) -> dict:
    """Everything `dipc simulate` prints, as plain data (also the --json output)."""
    from dipc_plus.semantics.distribution import group_outputs   # the exact engines: not at start-up
    program = result.program
    discrete = result.discrete_names()
    reals = result.real_names()
    report = {
        "program": program.name,
        "eps": str(result.eps),
        "inputs": dict(group_outputs(program, list(result.inputs), tuple(result.inputs.values()), _json_value)),
        "runs": result.n,
        "seed": seed,
        "confidence": confidence,
        "outputs": declared_names(program, [n for n, _ in program.outputs]),
        "outcomes": [],
    }
    within_event = result.within(gamma, around) if gamma is not None else None
    within_hits = None
    if within_event is not None:
        within_hits = within_event(result.view())
        report["within"] = {"gamma": str(gamma), "around": {k: _json_value(v) for k, v in around.items()},
                            **_freq(Frequency(int(within_hits.sum()), result.n), confidence)}
    columns = {name: result.column(name) for name in discrete}
    for values, count in _ordered(program, discrete, result.distribution()):
        entry = {"values": dict(group_outputs(program, discrete, values, _json_value)),
                 **_freq(Frequency(count, result.n), confidence)}
        if within_hits is not None:
            mask = within_hits.copy()
            for name, value in zip(discrete, values):
                col = columns[name]
                mask &= (col == value) if col.dtype != object else _object_equal(col, value)
            entry["within"] = _freq(Frequency(int(mask.sum()), result.n), confidence)
        report["outcomes"].append(entry)
    if reals and within_event is None:
        report["reals"] = {}
        for name in reals:
            s = result.summary(name)
            report["reals"][name] = {"assigned": s.count, "mean": s.mean, "std": s.std,
                                     "quantiles": {str(q): v for q, v in s.quantiles.items()}}
    return report


def _object_equal(col, value):
    return np.fromiter(((v == value and isinstance(v, bool) == isinstance(value, bool)) or (v is None and value is None)
                        for v in col), dtype=bool, count=len(col))


def _show(value) -> str:
    """A value as `show_value` prints it, an output no run assigned (also inside an array) as "unassigned"."""
    if value is None:
        return "unassigned"
    if isinstance(value, list):
        return "[" + ",".join(_show(v) for v in value) + "]"
    return show_value(value)


def _interval_text(interval) -> str:
    """A confidence interval printed outward (5 digits): it contains the computed one."""
    from dipc_plus.exact.decimals import decimal_down, decimal_up
    return f"[{decimal_down(interval[0], 5)}, {decimal_up(interval[1], 5)}]"


def render(report: dict) -> str:
    """The human-readable table of a report."""
    conf = f"{report['confidence'] * 100:g}%"
    inputs = " ".join(f"{k}={_show(v)}" for k, v in report["inputs"].items()) or "(no inputs)"
    seed = f", seed {report['seed']}" if report["seed"] is not None else ""
    lines = [f"{report['program']} at eps = {report['eps']} on {inputs}: {report['runs']} runs{seed}"]
    within = report.get("within")

    def cells(freq: dict) -> list[str]:
        return [str(freq["count"]), f"{freq['frequency']:.6f}", _interval_text(freq["interval"])]
    rows = []
    for entry in report["outcomes"]:
        label = " ".join(f"{k}={_show(v)}" for k, v in entry["values"].items()) or "(any)"
        rows.append([label] + cells(entry) + (cells(entry["within"]) if within else []))
    header = ["outcome", "count", "frequency", f"{conf} interval"] + (
        ["within", "frequency", f"{conf} interval"] if within else [])
    if rows:
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
        lines.append("")
        for row in [header] + rows:   # the outcome left-aligned, the numbers right-aligned
            lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    if within:
        centres = ", ".join(f"{k}={_show(v)}" for k, v in within["around"].items())
        lines.append("")
        lines.append(f"every real output within {within['gamma']} of ({centres}): {within['count']} runs, "
                     f"frequency {within['frequency']:.6f}, {conf} interval {_interval_text(within['interval'])}")
    for name, s in report.get("reals", {}).items():
        lines.append("")
        quant = "  ".join(f"q{float(q) * 100:g}={v:.4g}" for q, v in s["quantiles"].items())
        lines.append(f"{name}: mean {s['mean']:.6g}, std {s['std']:.6g} over {s['assigned']} runs")
        lines.append(f"  quantiles: {quant}")
    return "\n".join(lines)

