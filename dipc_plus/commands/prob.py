"""`dipc prob`: the exact output distribution of a program at one input, for every eps.

Builds the program's parametric Markov chain at the input (dipc_plus.semantics.dtmc),
solves reachability exactly (dipc_plus.semantics.reach) and prints each output with its
probability as a closed form in eps; `--at eps=27/82` adds certified decimals.  A program
that is exactly argmax/argmin of independent samples (semantics/argmax.py) takes the argmax
integral instead, the same closed forms without the chain that triples per sample; the
report says which path ran (`--chain` forces the chain).
The last line confirms that the probabilities add up to 1 as an identity in eps.
"""
from __future__ import annotations

import time
from fractions import Fraction

from dipc_plus.exact.linear import LinForm
from dipc_plus.semantics.pretty import format_atom, format_linform
from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.exact.decimals import ball_text
from dipc_plus.semantics.events import event_probability, parse_event, value_events
from dipc_plus.commands.common import (add_program_input_arguments, inputs_text, json_number, json_text,
                                       load_program_input, parse_eps_values)
from dipc_plus.semantics.distribution import (Distribution, argmax_distribution, build_chain, certified,
                                              distribution_of_chain, group_outputs)

EXAMPLE = """\
example:
  dipc prob programs/noisy_max.dip --set m=3 --input q=[-1,0,0] --at eps=27/82

      out=1   5/12*e^(-1/2*eps) - ...     at eps=27/82: [0.0606... +/- 1e-35]
      ...
      The probabilities sum to exactly 1 (checked as an identity in eps).

  Real outputs are shown as their symbolic value: q[i] plus a named Laplace noise
  (N9 ~ Lap(eps/9, 0)), with the constraints still binding that noise.  Ask for
  the probability of events on them instead, exactly:

  dipc prob programs/laplace.dip --input q=[0,1] --events "out[1]<=0" "out[1]>-1 & out[1]<=1" --eps 1
  (an event starting with "-" must be attached: --events="-1<out[1]<=1")
  dipc prob PROGRAM --input ... --values x=-3..3     (an integer output, value by value)
"""


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = ("Build the parametric Markov chain of PROGRAM at one input and print the exact "
                          "probability of each output, for every eps at once.")
    parser.epilog = EXAMPLE
    add_program_input_arguments(parser)
    parser.add_argument("--events", nargs="+", metavar="EVENT",
                        help="print P[output in EVENT] instead of the outcomes, e.g. --events \"x<=0\" \"0<x<=2\" "
                             "\"x>=0 & y<1\" (exact closed forms in eps)")
    parser.add_argument("--values", action="append", metavar="NAME=LO..HI",
                        help="an integer output's distribution value by value: P[NAME = k] for k = LO..HI")
    parser.add_argument("--latex", action="store_true", help="print the probabilities as LaTeX")
    parser.add_argument("--chain", action="store_true",
                        help="always build the Markov chain, even for argmax/argmin of independent samples "
                             "(which otherwise take the argmax integral: the same closed forms, faster)")
    parser.add_argument("--json", action="store_true",
                        help="print the result as JSON (numbers as integers or \"p/q\", closed forms as strings; "
                             "docs/json.md); \"method\" says which path ran (\"chain\" or \"argmax-integral\"), "
                             "\"chain\" is null when no chain was built")
    parser.set_defaults(func=run)


def outcome_text(dist: Distribution, outcome) -> str:
    return dist.describe(outcome)


def run(args) -> int:
    points = parse_eps_values(args.at)
    program, env, given = load_program_input(args)
    t0 = time.perf_counter()
    dist = None if args.chain else argmax_distribution(program, env)
    chain = None
    if dist is None:
        chain = build_chain(program, env, max_states=args.max_states)
        dist = distribution_of_chain(chain)
    total = dist.total()
    ok = dist.sums_to_one()
    seconds = time.perf_counter() - t0
    events = parse_events(args, dist)
    if events:
        table = [(e, event_probability(dist, e)) for e in events]
        if args.json:
            out = {"program": program.name, "program_path": program.source,
                   "params": json_number(dict(program.params)), "inputs": json_number(given),
                   "method": dist.method,
                   "events": [{"event": e.text, "probability": str(p),
                               **({"at": {str(x): _ball(p, x) for x in points}} if points else {})}
                              for e, p in table]}
            print(json_text(out))
        else:
            params = ", ".join(f"{k}={v}" for k, v in program.params.items())
            print(f"{program.name} at {inputs_text(program, given)}" + (f"  ({params})" if params else ""))
            print(method_text(dist, chain, seconds))
            for e, p in table:
                print(f"P[{e.text}] = {p}")
                for x in points:
                    print(f"    at eps={x}: {_ball(p, x)}")
        return 0 if ok else 1
    if args.json:
        print(json_text(json_report(dist, chain, given, points, total, ok, seconds)))
    else:
        print(text_report(dist, chain, given, points, total, ok, seconds, latex=args.latex))
    if not ok:
        return 1
    return 0


def parse_events(args, dist) -> list:
    """--events and --values as `semantics.events.Event`s (empty: print the outcomes)."""
    events = [parse_event(t, dist.names) for t in args.events or []]
    count = sum(len(e.comparisons) for e in events)
    if count > limits.get("comparisons"):   # each comparison joins every outcome's constraints
        raise UserError(f"--events: {count} comparisons, more than {limits.get('comparisons')}",
                        hint="ask fewer or simpler events; " + limits.hint("comparisons"))
    for item in args.values or []:
        name, sep, rng = item.partition("=")
        lo, dots, hi = rng.partition("..")
        name = name.strip()
        try:
            lo_i, hi_i = int(lo), int(hi)
        except ValueError:
            lo_i = hi_i = None
        if not sep or not dots or lo_i is None or lo_i > hi_i or hi_i - lo_i > 10_000:
            raise UserError(f"--values {item}: write NAME=LO..HI with integers LO <= HI",
                            hint="e.g. --values x=-3..3")
        if name not in dist.names:
            raise UserError(f"--values {item}: '{name}' is not an output of the program",
                            hint=f"the outputs are {', '.join(dist.names)}")
        events += value_events(name, lo_i, hi_i)
    return events


def _ball(value, eps: Fraction) -> str:
    return ball_text(certified(value, eps))


def method_text(dist, chain, seconds) -> str:
    """The line that says which path computed the distribution, with its size and time."""
    if chain is None:
        return ("Method: argmax integral (one exact one-dimensional integral per sample; "
                f"no Markov chain built); {seconds:.2f} s")
    return (f"Method: Markov chain, {chain.stats.states} states ({chain.stats.exits} exits), "
            f"{chain.stats.edges} transitions; {seconds:.2f} s")


def text_report(dist, chain, given, points, total, ok, seconds, latex=False) -> str:
    program = dist.program
    params = ", ".join(f"{k}={v}" for k, v in program.params.items())
    lines = [f"{program.name} at {inputs_text(program, given)}" + (f"  ({params})" if params else "")]
    lines.append(method_text(dist, chain, seconds))
    lines.append("")
    if latex:
        import sympy
    for outcome, p in dist.items():
        value = sympy.latex(p.to_sympy()) if latex else str(p)
        lines.append(f"{outcome_text(dist, outcome)}:")
        lines.append(f"    {value}")
        for eps in points:
            lines.append(f"    at eps={eps}: {_ball(p, eps)}")
    legend = dist.noise_legend()
    if legend:
        lines.append("")
        lines.append(f"where {legend}")
    lines.append("")
    if ok:
        lines.append("The probabilities sum to exactly 1 (checked as an identity in eps).")
    else:
        lines.append(f"WARNING: the probabilities sum to {total}, not 1 (a bug: please report it).")
    return "\n".join(lines)


def json_report(dist, chain, given, points, total, ok, seconds) -> dict:
    def value_json(v):
        if isinstance(v, LinForm):
            return {"noise": {f"N{i}": json_number(c) for i, c in v.coeffs}, "constant": json_number(v.const),
                    "text": format_linform(v)}
        return json_number(v)

    outcomes = []
    for outcome, p in dist.items():
        entry = {
            "outputs": dict(group_outputs(dist.program, dist.names, outcome.values, value_json)),
            "constraints": [format_atom(a) for a in sorted(outcome.constraints)],
            "probability": str(p),
            "latex": _latex(p),
        }
        if points:
            entry["at"] = {str(eps): _ball(p, eps) for eps in points}
        outcomes.append(entry)
    noises = {f"N{i}": {"kind": n.kind, "rate": json_number(n.rate)} for i, n in dist.noises.items()}
    return {
        "program": dist.program.name,
        "params": {k: json_number(v) for k, v in dist.program.params.items()},
        "inputs": json_number(given),
        "method": dist.method,
        "chain": (None if chain is None else
                  {"states": chain.stats.states, "transitions": chain.stats.edges, "exits": chain.stats.exits}),
        "noises": noises,
        "outcomes": outcomes,
        "sum": str(total),
        "sums_to_one": ok,
        "seconds": round(seconds, 3),
    }


def _latex(p) -> str:
    import sympy
    return sympy.latex(p.to_sympy())
