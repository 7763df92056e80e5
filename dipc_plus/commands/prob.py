"""`dipc prob`: the exact output distribution of a program at one input, for every eps.

Builds the program's parametric Markov chain at the input (dipc_plus.semantics.dtmc),
solves reachability exactly (dipc_plus.semantics.reach) and prints each output with its
probability as a closed form in eps; `--at eps=27/82` adds certified decimals.  A program
that is exactly argmax/argmin of independent samples (semantics/argmax.py) takes the argmax
integral instead, the same closed forms without the chain that triples per sample; the
report says which path ran (`--chain` forces the chain).
The last line confirms that the probabilities add up to 1 as an identity in eps.

With `--symbolic --box q=[LO,HI]` the real inputs stay symbols (semantics/symbolic_distribution.py):
per output, the cells of the box where one closed form holds, as inequalities on the inputs,
and the closed form in eps and the inputs on each.
"""
from __future__ import annotations

import time
from fractions import Fraction

from dipc_plus.exact.linear import LinForm
from dipc_plus.semantics.pretty import format_atom, format_linform
from dipc_plus.semantics import inputs as inputs_mod, ir
from dipc_plus.semantics.values import show_env
from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.exact.decimals import ball_text
from dipc_plus.semantics.events import event_probability, parse_event, value_events
from dipc_plus.exact.convert import json_exact
from dipc_plus.commands.common import (add_program_input_arguments, conventional_json, declared_names, json_text,
                                       load_program_input, parse_eps_values)
from dipc_plus.semantics.distribution import certified, group_outputs, output_distribution

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

  For every input of a box at once (cells as inequalities on the inputs, a closed form
  in eps and the inputs on each):

  dipc prob --symbolic programs/noisy_max.dip --set m=3 --box q=[-1,1]
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
    parser.add_argument("--symbolic", action="store_true",
                        help="keep the real inputs as symbols: print, per output, the cells of the --box (as "
                             "inequalities on the inputs) and the closed form in eps and the inputs on each")
    parser.add_argument("--box", action="append", metavar="NAME=[LO,HI]",
                        help="with --symbolic, the range of a real input (an array: of each element), "
                             "e.g. --box q=[-1,1]; every real input needs one")
    parser.set_defaults(func=run)


def run(args) -> int:
    if args.symbolic or args.box:
        return run_symbolic(args)
    points = parse_eps_values(args.at)
    program, env, given = load_program_input(args)
    t0 = time.perf_counter()
    dist = output_distribution(program, env, max_states=args.max_states, shortcuts=not args.chain)
    total, ok = dist.total(), dist.sums_to_one()
    seconds = time.perf_counter() - t0
    events = parse_events(args, dist)
    if args.json:
        print(json_text(events_json(dist, given, events, points) if events else
                        json_report(dist, given, points, total, ok, seconds)))
    elif events:
        print("\n".join(header_lines(dist, given, seconds)
                        + [line for e in events for line in probability_lines(
                            f"P[{e.text}] = ", event_probability(dist, e), points)]))
    else:
        print(text_report(dist, given, points, total, ok, seconds, latex=args.latex))
    return 0 if ok else 1


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


def balls(value, points) -> dict:
    """{eps as text: the certified ball of `value` there} for each --eps point."""
    return {str(eps): ball_text(certified(value, eps)) for eps in points}


def probability_lines(head: str, value, points, shown: str | None = None) -> list[str]:
    """`head` then the closed form (`shown` if given), then one line per --eps point."""
    return [f"{head}{value if shown is None else shown}"] + [f"    at eps={x}: {b}" for x, b in balls(value, points).items()]


def program_line(program, where: str) -> str:
    """The first line of a report: the program, where it is evaluated, and its parameters."""
    params = ", ".join(f"{k}={v}" for k, v in program.params.items())
    return f"{program.name} {where}" + (f"  ({params})" if params else "")


def header_lines(dist, given, seconds) -> list[str]:
    """The program at its input (and parameters), then the line that says which path computed the
    distribution, with its size and time."""
    chain = dist.chain
    method = ("argmax integral (one exact one-dimensional integral per sample; no Markov chain built)"
              if chain is None else f"Markov chain, {chain.stats.states} states ({chain.stats.exits} exits), "
                                    f"{chain.stats.edges} transitions")
    return [program_line(dist.program, f"at {show_env(given, braces=False, empty='(no inputs)')}"),
            f"Method: {method}; {seconds:.2f} s"]


def text_report(dist, given, points, total, ok, seconds, latex=False) -> str:
    lines = header_lines(dist, given, seconds) + [""]
    for outcome, p in dist.items():
        lines.append(f"{dist.describe(outcome)}:")
        lines += probability_lines("    ", p, points, p.latex() if latex else None)
    legend = dist.noise_legend()
    if legend:
        lines += ["", f"where {legend}"]
    lines += ["", "The probabilities sum to exactly 1 (checked as an identity in eps)." if ok else
              f"WARNING: the probabilities sum to {total}, not 1 (a bug: please report it)."]
    return "\n".join(lines)


def events_json(dist, given, events, points) -> dict:
    rows = []
    for e in events:
        p = event_probability(dist, e)
        rows.append({"event": e.text, "probability": str(p), **({"at": balls(p, points)} if points else {})})
    return {**conventional_json({}, dist.program), "inputs": json_exact(given), "method": dist.method, "events": rows}


def value_json(v):
    """An output's value in JSON: a real output is its linear form in the named noises."""
    if isinstance(v, LinForm):
        return {"noise": {f"N{i}": json_exact(c) for i, c in v.coeffs}, "constant": json_exact(v.const),
                "text": format_linform(v)}
    return json_exact(v)


def json_report(dist, given, points, total, ok, seconds) -> dict:
    outcomes = [{"outputs": dict(group_outputs(dist.program, dist.names, outcome.values, value_json)),
                 "constraints": [format_atom(a) for a in sorted(outcome.constraints)],
                 "probability": str(p), "latex": p.latex(), **({"at": balls(p, points)} if points else {})}
                for outcome, p in dist.items()]
    stats = None if dist.chain is None else dist.chain.stats
    return {"program": dist.program.name, "params": json_exact(dict(dist.program.params)), "inputs": json_exact(given),
            "method": dist.method, "chain": None if stats is None else {"states": stats.states, "transitions": stats.edges,
                                                 "exits": stats.exits},
            "noises": {f"N{i}": {"kind": n.kind, "rate": json_exact(n.rate)} for i, n in dist.noises.items()},
            "outcomes": outcomes, "sum": str(total), "sums_to_one": ok, "seconds": round(seconds, 3)}


# --------------------------------------------------------------------------- --symbolic

def run_symbolic(args) -> int:
    """`prob --symbolic --box q=[-1,1]`: per output, the cells of the box and the closed form on each."""
    from dipc_plus.frontend.load import load_program
    from dipc_plus.semantics.symbolic_chain import HINT
    from dipc_plus.semantics.symbolic_distribution import bind_finite_inputs, symbolic_distribution
    if not args.symbolic:
        raise UserError("--box is for --symbolic", hint="add --symbolic, or give one input with --input")
    for flag, given in (("--events", args.events), ("--values", args.values), ("--chain", args.chain),
                        ("--eps", args.at)):
        if given:
            raise UserError(f"{flag} does not combine with --symbolic", hint=HINT)
    program = load_program(args.program, inputs_mod.parse_params(args.set), args.function)
    given = inputs_mod.parse_assignments(args.input, "--input")
    finite = bind_finite_inputs(program, given)
    box = parse_box(args.box)
    t0 = time.perf_counter()
    sd = symbolic_distribution(program, box, finite)    # refuses at once what needs too many cells
    cells = symbolic_cells_watched(sd)
    seconds = time.perf_counter() - t0
    if args.json:
        print(json_text(symbolic_json(sd, cells, box, given, seconds)))
    else:
        print(symbolic_text(sd, cells, box, given, seconds, latex=args.latex))
    return 0


def symbolic_cells_watched(sd) -> dict:
    """sd.cells() with a progress bar on stderr (cells done of at least how many) and, under the
    guard, the cell being worked on in the ledger, so that a stop after --timeout names it."""
    from dipc_plus.execution import ledger
    from dipc_plus.execution.progress import progress_bar
    least = sd.cells_at_least()
    finished: dict = {}     # output -> pieces done, for the bar's total across outputs
    with progress_bar(sum(b.count for b in least.values()), "prob --symbolic (at least)", "cell") as bar:

        def on_cell(output, cell, done):
            finished[output] = done
            bar.update(sum(finished.values()) - bar.n)
            if ledger.active():
                ledger.working_on("cell", f"{sd.output_text(output)}: cell {done + 1} of at least "
                                          f"{least[output].count} ({sd.cell_text(cell)})")
        cells = {}
        for output in sd.outputs():
            cells[output] = sd.pieces(output, lambda cell, done, output=output: on_cell(output, cell, done))
            if ledger.active():
                ledger.record("output", [(f"{sd.output_text(output)} ({len(cells[output])} cells)", "computed")])
    return cells


def parse_box(items) -> dict:
    """--box q=[-1,1] (repeatable) -> {'q': (Fraction(-1), Fraction(1))}."""
    out = {}
    for name, value in inputs_mod.parse_assignments(items, "--box").items():
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(x, Fraction) and not isinstance(x, bool) for x in value)):
            raise UserError(f"--box {name}: write NAME=[LO,HI] with two numbers",
                            hint="e.g. --box q=[-1,1]; run without --symbolic for the per-point path")
        out[name] = (value[0], value[1])
    return out


def _symbolic_header(sd, box, given, cells, seconds) -> list:
    where = ", ".join(f"{n} in [{lo}, {hi}]" for n, (lo, hi) in box.items()) + (
        f", {show_env(given, braces=False)}" if given else "")
    pairs = sum(len(v) for v in cells.values())
    paths = sum(len(v) for v in sd.paths.paths.values())
    real = real_outputs(sd)
    return [program_line(sd.program, f"for every {where}"),
            f"Method: symbolic inputs ({paths} paths), {pairs} (output, cell) pairs; {seconds:.2f} s",
            "Each output's cells partition the box (constraints beyond the box shown); on each cell "
            "the probability is one exact closed form in eps and the inputs."] + (
                [f"The real outputs ({', '.join(real)}) are summed out."] if real else [])


def real_outputs(sd) -> list:
    """The real outputs the symbolic report sums out (arrays by their name)."""
    return declared_names(sd.program, [n for n, t in sd.program.outputs if isinstance(t, (ir.RealT, ir.IntT))])


def symbolic_text(sd, cells, box, given, seconds, latex=False) -> str:
    lines = _symbolic_header(sd, box, given, cells, seconds)
    for output, pieces in cells.items():
        lines.append("")
        lines.append(f"{sd.output_text(output)}:  {len(pieces)} cell{'s' if len(pieces) != 1 else ''}")
        for piece in pieces:
            lines.append(f"  where {sd.cell_text(piece.cell)}:")
            lines.append(f"    {symbolic_latex(sd, piece.form) if latex else piece.form.text(sd.input_names)}")
    return "\n".join(lines)


def symbolic_latex(sd, form) -> str:
    """The closed form as LaTeX, the inputs as q_{1}, ... (the elements' flat names)."""
    import sympy
    names = [n.replace("[", "_{").replace("]", "}") for n in sd.input_names]
    symbols = [sympy.Symbol(n, real=True) for n in names]
    return sympy.latex(form.to_sympy(symbols, sympy.Symbol("epsilon", positive=True)))


def symbolic_json(sd, cells, box, given, seconds) -> dict:
    outcomes = []
    for output, pieces in cells.items():
        outcomes.append({
            "outputs": dict(group_outputs(sd.program, sd.output_names, output, json_exact)),
            "cells": [{"constraints": sd.cell_text(pc.cell).split(" and ") if pc.cell != sd.root else [],
                       "equality": any(op == "==" for _, op in pc.cell.constraints),
                       "probability": pc.form.text(sd.input_names),
                       "latex": symbolic_latex(sd, pc.form)} for pc in pieces],
        })
    return {**conventional_json({}, sd.program), "inputs": json_exact(given),
            "box": {n: [json_exact(lo), json_exact(hi)] for n, (lo, hi) in box.items()},
            "method": "symbolic", "input_names": sd.input_names, "summed_out": real_outputs(sd),
            "outcomes": outcomes, "cells": sum(len(v) for v in cells.values()),
            "seconds": round(seconds, 3)}
