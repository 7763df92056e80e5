"""`dipc prob`: the exact output distribution of a program at one input, for every eps.

Builds the program's parametric Markov chain at the input (dipc_plus.semantics.dtmc),
solves reachability exactly (dipc_plus.semantics.reach) and prints each output with its
probability as a closed form in eps; `--at eps=27/82` adds certified decimals.
The last line confirms that the probabilities add up to 1 as an identity in eps.
"""
from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction

from dipc_plus.exact.linear import LinForm
from dipc_plus.semantics.dtmc import format_atom, format_linform
from dipc_plus.commands.common import add_program_input_arguments, inputs_text, json_number, load_program_input, parse_eps_values
from dipc_plus.semantics.distribution import Distribution, ball_text, build_chain, certified, distribution_of_chain, group_outputs

EXAMPLE = """\
example:
  dipc prob programs/noisy_max.dip --set m=3 --input q=[-1,0,0] --at eps=27/82

      out=1   5/12*e^(-1/2*eps) - ...     at eps=27/82: [0.0606... +/- 1e-35]
      ...
      The probabilities sum to exactly 1 (checked as an identity in eps).

  Real outputs are shown as their symbolic value: q[i] plus a named Laplace noise
  (N9 ~ Lap(eps/9, 0)), with the constraints still binding that noise.
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "prob",
        help="exact probability of every output at one input, as a closed form in eps",
        description="Build the parametric Markov chain of PROGRAM at one input and print the exact "
                    "probability of each output, for every eps at once.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_program_input_arguments(parser)
    parser.add_argument("--latex", action="store_true", help="print the probabilities as LaTeX")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (exact values as strings)")
    parser.set_defaults(func=run)


def outcome_text(dist: Distribution, outcome) -> str:
    return dist.describe(outcome)


def run(args) -> int:
    points = parse_eps_values(args.at)
    program, env, given = load_program_input(args)
    t0 = time.perf_counter()
    chain = build_chain(program, env, max_states=args.max_states)
    dist = distribution_of_chain(chain)
    total = dist.total()
    ok = dist.sums_to_one()
    seconds = time.perf_counter() - t0
    if args.json:
        print(json.dumps(json_report(dist, chain, given, points, total, ok, seconds), indent=2))
    else:
        print(text_report(dist, chain, given, points, total, ok, seconds, latex=args.latex))
    if not ok:
        return 1
    return 0


def _ball(value, eps: Fraction) -> str:
    return ball_text(certified(value, eps))


def text_report(dist, chain, given, points, total, ok, seconds, latex=False) -> str:
    program = dist.program
    params = ", ".join(f"{k}={v}" for k, v in program.params.items())
    lines = [f"{program.name} at {inputs_text(program, given)}" + (f"  ({params})" if params else "")]
    lines.append(f"Markov chain: {chain.stats.states} states ({chain.stats.exits} exits), "
                 f"{chain.stats.edges} transitions; {seconds:.2f} s")
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
        "chain": {"states": chain.stats.states, "transitions": chain.stats.edges, "exits": chain.stats.exits},
        "noises": noises,
        "outcomes": outcomes,
        "sum": str(total),
        "sums_to_one": ok,
        "seconds": round(seconds, 3),
    }


def _latex(p) -> str:
    import sympy
    return sympy.latex(p.to_sympy())
