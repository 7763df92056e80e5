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

from typing import Mapping

from dipc_plus.claims.box import read_box
from dipc_plus.claims.claim_file import ANY, ClaimReader, Key, load_claim, note_of, read_input_table, with_finite_domains
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.claims.adjacency import ADJACENCIES, Adjacency
from dipc_plus.semantics.values import distinct, freeze_env
from dipc_plus.claims.privacy_fields import BUDGET_HINT, read_budget, read_delta, read_eps, read_events
from dipc_plus.claims.privacy_types import DPClaim
from dipc_plus.semantics import ir

PRIVACY_KEYS = {
    "kind": ANY, "adjacency": Key(required='write adjacency = "hamming" (or "one-position", "linf", "l1", "pairs")'),
    "bound": Key(default=1), "pairs": ANY, "budget": Key(required=BUDGET_HINT), "delta": Key(default="0"),
    "eps": Key(default="(0, inf)"), "inputs": ANY, "events": ANY,
    "structure": Key(bool, True, message="structure must be true or false", hint="structure = true"),
    "note": ANY, "length": ANY,
}
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
    r.typed("privacy", raw, dict, "privacy must be a table", "write [privacy] on its own line")
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
    dp = r.table(raw, "privacy", PRIVACY_KEYS)
    kind = r.choice("privacy.adjacency", dp["adjacency"], ADJACENCIES)
    r.unused(raw, "privacy.bound", kind not in ("hamming", "pairs"), f"bound is not used with adjacency = \"{kind}\"")
    bound = r.number("privacy.bound", dp["bound"], nonnegative=True)
    if bound <= 0:
        raise r.error("privacy.bound", "bound must be positive", hint="bound = 1")
    adjacency = Adjacency(kind, bound)
    budget = read_budget(r, dp["budget"], program, "privacy.budget")
    eps = read_eps(r, dp["eps"], "privacy.eps")
    delta_text, delta = read_delta(r, dp["delta"], program, eps)
    delta_zero = ExpFrac.of(delta).is_zero()
    # real outputs without events (with or without finite ones) are decided on their densities, every value
    events = read_events(r, dp["events"], program, "privacy.events",
                         densities=delta_zero and not any(isinstance(t, ir.IntT) for _, t in program.outputs))
    every_value, events = events is None, events or {}
    if events and not delta_zero:
        raise r.error("privacy.delta", f"delta = {delta_text}: (eps, delta)-DP of real or integer outputs "
                      "quantifies over every measurable set of outputs, which needs the output densities; "
                      "checking the named events only would not decide it",
                      hint="use delta = 0 (eps-DP is checked per named event), or a program with finite outputs")
    r.unused(raw, "privacy.inputs", kind != "pairs", "with adjacency = \"pairs\" the inputs are the pairs' inputs",
             hint="remove [privacy.inputs]")
    r.unused(raw, "privacy.pairs", kind == "pairs", "pairs are only read with adjacency = \"pairs\"",
             hint='write adjacency = "pairs" or remove the list')
    if kind == "pairs":
        pairs = _read_pairs(r, dp["pairs"], program)
        adjacency.set_pairs(pairs)
        points_given, grid, inputs_kind = distinct([x for pair in pairs for x in pair]), None, "pairs"
    else:
        points_given, grid, inputs_kind = read_points(r, dp["inputs"], program, "privacy.inputs")
    every_length = _read_length(r, dp["length"])
    if inputs_kind == "box":
        _check_box_claim(r, every_length)
    return DPClaim(path, program, adjacency, budget, delta_text, delta, eps, points_given, grid, events,
                   dp["structure"], note_of(raw), inputs_kind=inputs_kind,
                   every_length=every_length, given_params=given, every_output_value=every_value)


def _read_length(r: ClaimReader, value) -> bool:
    """`length = "every"`: the claim is decided for every number of queries (privacy.online)."""
    if value is not None and value != "every":
        raise r.error("privacy.length", f"must be \"every\", not {value!r}", hint='write length = "every" or remove the key')
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
    "grid") for a grid (expanded lazily: symmetry and independence avoid expanding it), (a
    `claims.box.BoxInputs`, None, "box") for a box, and (None, the finite domains, "domain") when no
    inputs are given."""
    if spec is None:   # every finite input over its whole domain; a real input cannot be
        return None, with_finite_domains(program, {}, lambda name: r.error(
            key.rsplit(".", 1)[0], f"no inputs are given and '{name}' is real",
            hint=f"add\n  [{key}]\n  grid = {{ {name.split('[')[0]} = [0, 1] }}")), "domain"
    kind, given = read_input_table(r, spec, program, key, bound_product=True)
    if kind == "box":
        return read_box(r, given, program, f"{key}.box", BOX_HINT), None, "box"
    if kind == "list":
        return given, None, "list"
    return None, given, "grid"


def _read_pairs(r: ClaimReader, rows, program: ir.Program) -> list:
    key = "privacy.pairs"
    r.rows(key, rows, "adjacency = \"pairs\" needs a list of pairs",
           "pairs = [ { input = { q = [0, 1] }, neighbour = { q = [1, 1] } } ]", at=None if rows is not None else "privacy")
    out = []
    for k, row in enumerate(rows):
        r.exact_keys(key, row, ("input", "neighbour"), f"pair {k + 1}",
                     "{ input = { q = [0, 1] }, neighbour = { q = [1, 1] } }")
        u, w = (r.bind(key, program, row[side], f"pair {k + 1}") for side in ("input", "neighbour"))
        if freeze_env(u) == freeze_env(w):
            raise r.error(key, f"pair {k + 1} is an input with itself", hint="neighbours must differ")
        out.append((u, w))
    # each pair is used in both orders: one written twice, or reversed, is the same pair of neighbours
    return distinct(out, key=lambda pair: frozenset(map(freeze_env, pair)))


