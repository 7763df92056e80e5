"""Reading the `[privacy]` table of a claim file (docs/claims.md, "Privacy claims").

Why it exists: a claim file is untrusted data.  Every value is checked here, every
string is read into the claims layer's one expression tree (`claims.expression`: checked,
located, folded by our own code, never evaluated by Python or sympy), and every
mistake is a `UserError` with the file, the line of the key and a hint.  The
`[program]` table is read by `claims.claim_file.load_claim`, which reads the file once
(this reader works on the text it read); Pufferfish tables by
`pufferfish_reader`.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from dipc_plus.claims.box import read_box
from dipc_plus.claims.claim_file import (ClaimReader, check_grid_size, grid_count, grid_values, load_claim,
                                         not_an_input_hint, to_user_value)
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.claims.adjacency import ADJACENCIES, Adjacency
from dipc_plus.semantics.values import freeze_env
from dipc_plus.claims.privacy_fields import MissingEvents, read_budget, read_delta, read_eps, read_events
from dipc_plus.claims.privacy_types import DPClaim
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import domain_values

PRIVACY_KEYS = ("kind", "adjacency", "bound", "pairs", "budget", "delta", "eps", "inputs", "events",
                "structure", "note", "length")
INPUT_KEYS = ("grid", "list", "box", "step")
BOX_HINT = ("`dipc privacy` decides box claims (the coupling bound, or a search at rational points); for other "
            "commands give the claim a grid")


def load_privacy_claim(path: str, overrides: Mapping | None = None):
    """Read the `[privacy]` table of a claim file: a `DPClaim` or a `PufferfishClaim`."""
    claim = load_claim(path, overrides)
    raw = claim.privacy
    r = ClaimReader(path, claim.text)   # the text load_claim read: the file is read once
    if raw is None:
        raise UserError("the claim file has no [privacy] table", file=path,
                        hint='add\n  [privacy]\n  adjacency = "hamming"\n  budget = "eps"')
    if not isinstance(raw, dict):
        raise r.error("privacy", "privacy must be a table", hint="write [privacy] on its own line")
    kind = r.choice("privacy.kind", raw.get("kind", "dp"), ("dp", "pufferfish"))
    program = claim.program
    if kind == "pufferfish":
        if isinstance(raw.get("inputs"), dict) and "box" in raw["inputs"]:
            raise r.error("privacy.inputs.box", "a box of inputs is for a differential-privacy claim; a Pufferfish "
                          "claim ranges over the inputs of its scenario priors",
                          hint="remove [privacy.inputs] (the scenarios list the inputs), or write a kind = \"dp\" "
                               "claim for the box")
        from dipc_plus.claims.pufferfish_reader import read_pufferfish
        return read_pufferfish(r, raw, program, path)
    return _read_dp(r, raw, program, path, frozenset(claim.params))


def _read_dp(r: ClaimReader, raw: dict, program: ir.Program, path: str, given: frozenset) -> DPClaim:
    r.check_keys(raw, PRIVACY_KEYS, "privacy")
    if "adjacency" not in raw:
        raise r.error("privacy", "[privacy] has no 'adjacency'",
                      hint='write adjacency = "hamming" (or "one-position", "linf", "l1", "pairs")')
    kind = r.choice("privacy.adjacency", raw["adjacency"], ADJACENCIES)
    bound = Fraction(1)
    if "bound" in raw:
        if kind in ("hamming", "pairs"):
            raise r.error("privacy.bound", f"bound is not used with adjacency = \"{kind}\"", hint="remove it")
        bound = r.number("privacy.bound", raw["bound"], nonnegative=True)
        if bound <= 0:
            raise r.error("privacy.bound", "bound must be positive", hint="bound = 1")
    adjacency = Adjacency(kind, bound)
    budget = read_budget(r, raw.get("budget"), program, "privacy.budget")
    eps = read_eps(r, raw.get("eps", "(0, inf)"), "privacy.eps")
    delta_text, delta = read_delta(r, raw.get("delta", "0"), program, path, eps)
    try:
        events = read_events(r, raw.get("events"), program, "privacy.events")
        every_value = False
    except MissingEvents:
        # real outputs without events (with or without finite ones): decided on their densities, every value
        types = [t for _, t in program.outputs]
        if not ExpFrac.of(delta).is_zero() or any(isinstance(t, ir.IntT) for t in types):
            raise
        events, every_value = {}, True
    if events and not ExpFrac.of(delta).is_zero():
        raise r.error("privacy.delta", f"delta = {delta_text}: (eps, delta)-DP of real or integer outputs "
                      "quantifies over every measurable set of outputs, which needs the output densities; "
                      "checking the named events only would not decide it",
                      hint="use delta = 0 (eps-DP is checked per named event), or a program with finite outputs")
    structure = raw.get("structure", True)
    if not isinstance(structure, bool):
        raise r.error("privacy.structure", "structure must be true or false", hint="structure = true")
    note = raw.get("note", "")
    if kind == "pairs":
        if "inputs" in raw:
            raise r.error("privacy.inputs", "with adjacency = \"pairs\" the inputs are the pairs' inputs",
                          hint="remove [privacy.inputs]")
        pairs = _read_pairs(r, raw.get("pairs"), program)
        adjacency.set_pairs(pairs)
        seen, points = set(), []
        for u, w in pairs:
            for x in (u, w):
                if freeze_env(x) not in seen:
                    seen.add(freeze_env(x))
                    points.append(x)
        grid = None
        points_given = points
        inputs_kind = "pairs"
    else:
        if "pairs" in raw:
            raise r.error("privacy.pairs", "pairs are only read with adjacency = \"pairs\"",
                          hint='write adjacency = "pairs" or remove the list')
        points_given, grid, inputs_kind = read_points(r, raw.get("inputs"), program, "privacy.inputs")
    every_length = _read_length(r, raw.get("length"), path)
    if inputs_kind == "box":
        _check_box_claim(r, every_length)
    claim = DPClaim(path, program, adjacency, budget, delta_text, delta, eps, points_given, grid, events,
                    structure, note if isinstance(note, str) else "", inputs_kind=inputs_kind,
                    every_length=every_length, given_params=given)
    claim.every_output_value = every_value
    return claim


def _read_length(r: ClaimReader, value, path: str) -> bool:
    """`length = "every"`: the claim is decided for every number of queries (privacy.online)."""
    if value is not None and value != "every":
        line, column = r.loc.find("privacy.length")
        raise UserError(f"privacy.length must be \"every\", not {value!r}", file=path, line=line, column=column,
                        hint='write length = "every" or remove the key')
    return value == "every"


def _check_box_claim(r: ClaimReader, every_length: bool) -> None:
    """What a box privacy claim cannot be combined with (privacy.dp.box decides one m; real outputs
    without events are decided on every output value, with events on the named ones)."""
    if every_length:
        raise r.error("privacy.length", "length = \"every\" decides a claim for every number of queries on a grid; "
                      "a box claim is decided at its own m",
                      hint="remove length = \"every\" (a box claim verified by the coupling bound names it), or "
                           "give the every-length claim a grid")


# -- inputs -----------------------------------------------------------------------------------------

def read_points(r: ClaimReader, spec, program: ir.Program, key: str) -> tuple[list | None, dict | None, str]:
    """The claimed inputs: (flat environments, None, "list") for a list, (None, {flat name: values},
    "grid") for a grid, (a `claims.box.BoxInputs`, None, "box") for a box, and (None, the finite
    domains, "domain") when no inputs are given."""
    if spec is None:
        return _grid_points(program, _domain_ranges(r, program, key)) + ("domain",)
    if not isinstance(spec, dict):
        raise r.error(key, "inputs must be a table", hint=f"write [{key}] with grid = {{...}} or list = [...]")
    r.check_keys(spec, INPUT_KEYS, key)
    given = [k for k in ("grid", "list", "box") if k in spec]
    if len(given) != 1:
        raise r.error(key, "give exactly one of 'grid', 'list' and 'box'" +
                      (f" (this table has {' and '.join(given)})" if given else ""),
                      hint="grid = { q = [-1, 1] }, list = [ { q = [0, 1, -1] } ] or box = { q = [-1, 1] } "
                           "(every real input of the box); one claim per kind of inputs")
    if "box" in spec:
        if "step" in spec:
            raise r.error(f"{key}.step", "step only applies to a grid (a box has every real value)",
                          hint="remove it")
        return read_box(r, spec["box"], program, f"{key}.box", BOX_HINT), None, "box"
    if "list" in spec:
        return _list_points(r, spec, program, key), None, "list"
    grid = spec["grid"]
    if not isinstance(grid, dict):
        raise r.error(f"{key}.grid", "grid must be a table", hint="grid = { q = [-1, 1] }")
    step = r.number(f"{key}.step", spec.get("step", 1))
    if step <= 0:
        raise r.error(f"{key}.step", "step must be positive", hint='step = "1/2"')
    return _grid_points(program, _grid_ranges(r, grid, program, key, step)) + ("grid",)


def _domain_ranges(r: ClaimReader, program: ir.Program, key: str) -> dict:
    """No inputs given: every finite input over its whole domain; a real input cannot be."""
    ranges = {}
    for name, typ in program.inputs:
        if isinstance(typ, (ir.DomT, ir.BoolT)):
            ranges[name] = list(domain_values(typ))
        else:
            raise r.error(key.rsplit(".", 1)[0], f"no inputs are given and '{name}' is real",
                          hint=f"add\n  [{key}]\n  grid = {{ {name.split('[')[0]} = [0, 1] }}")
    return ranges


def _list_points(r: ClaimReader, spec: dict, program: ir.Program, key: str) -> list:
    """`list = [ {...}, ... ]`: each entry bound as the program's inputs, repeats dropped."""
    from dipc_plus.semantics.inputs import bind_inputs
    if "step" in spec:
        raise r.error(f"{key}.step", "step only applies to a grid", hint="remove it")
    rows = spec["list"]
    if not isinstance(rows, list) or not rows or not all(isinstance(x, dict) for x in rows):
        raise r.error(f"{key}.list", "list must be a non-empty array of inline tables",
                      hint="list = [ { q = [-1, 0, 1] }, { q = [1, 1, 1] } ]")
    points, seen = [], set()
    for k, row in enumerate(rows):
        try:
            u = bind_inputs(program, {n: to_user_value(v) for n, v in row.items()})
        except UserError as exc:
            raise r.error(f"{key}.list", f"entry {k + 1}: {exc.message}", exc.hint) from None
        if freeze_env(u) not in seen:
            seen.add(freeze_env(u))
            points.append(u)
    return points


def _grid_ranges(r: ClaimReader, grid: dict, program: ir.Program, key: str, step) -> dict:
    """Every input's values on the grid: the ones it names (the real ones bounded before they are
    built), and the whole domain of a finite input it leaves out; a real input left out is an error."""
    types = dict(program.inputs)
    ranges: dict = {}
    for name, value in grid.items():
        elems = program.arrays.get(name, [name] if name in types else None)
        if elems is None or not all(e in types for e in elems):
            raise r.error(f"{key}.grid", f"'{name}' is not an input of {program.name}",
                          hint=not_an_input_hint(name, program, key))
        # bounded before any value is built, as an accuracy grid, over the real inputs only: finite
        # inputs range over the program's own domains, which independence factors
        real = [e for e in elems if not isinstance(types[e], (ir.DomT, ir.BoolT))]
        check_grid_size(r, f"{key}.grid", [grid_count(value, types[e], step) for e in real] +
                        [len(v) for e, v in ranges.items() if not isinstance(types[e], (ir.DomT, ir.BoolT))])
        for e in elems:
            ranges[e] = grid_values(r, f"{key}.grid", name, value, types[e], step)
    for name, typ in program.inputs:
        if name not in ranges:
            if isinstance(typ, (ir.DomT, ir.BoolT)):
                ranges[name] = list(domain_values(typ))
            else:
                raise r.error(f"{key}.grid", f"the grid gives no values for the real input '{name}'",
                              hint=f"add {name.split('[')[0]} = [-1, 1] to the grid")
    return ranges


def _grid_points(program: ir.Program, ranges: dict) -> tuple[None, dict]:
    """A grid stays a grid (expanded lazily): symmetry and independence avoid expanding it."""
    names = [n for n, _ in program.inputs]
    return None, {n: ranges[n] for n in names}


def _read_pairs(r: ClaimReader, rows, program: ir.Program) -> list:
    from dipc_plus.semantics.inputs import bind_inputs
    key = "privacy.pairs"
    if not isinstance(rows, list) or not rows or not all(isinstance(x, dict) for x in rows):
        raise r.error(key if rows is not None else "privacy", "adjacency = \"pairs\" needs a list of pairs",
                      hint="pairs = [ { input = { q = [0, 1] }, neighbour = { q = [1, 1] } } ]")
    out = []
    for k, row in enumerate(rows):
        if set(row) != {"input", "neighbour"}:
            raise r.error(key, f"pair {k + 1} must have exactly 'input' and 'neighbour'",
                          hint="{ input = { q = [0, 1] }, neighbour = { q = [1, 1] } }")
        try:
            u = bind_inputs(program, {n: to_user_value(v) for n, v in row["input"].items()})
            w = bind_inputs(program, {n: to_user_value(v) for n, v in row["neighbour"].items()})
        except UserError as exc:
            raise r.error(key, f"pair {k + 1}: {exc.message}", exc.hint) from None
        if freeze_env(u) == freeze_env(w):
            raise r.error(key, f"pair {k + 1} is an input with itself", hint="neighbours must differ")
        out.append((u, w))
    return out


