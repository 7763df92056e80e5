"""Box claims: `[accuracy.inputs] box = { q = [-1, 1] }` (and `[privacy.inputs] box`),
every real input of a box.

Why: a grid verdict says nothing between its points (issue 28).  A box names, per real
input, a closed interval [lo, hi] with rational ends; the claim is then about every real
input vector of the product (for privacy: every pair of them under the adjacency).  This
module reads and checks that table for both claim kinds (every mistake a located
`UserError`) and holds the result as `BoxInputs`, the `points` of an `AccuracyClaim` (the
`explicit_points` of a `DPClaim`) whose `inputs_kind` is "box".  A box has no finite list
of points: iterating it raises the claim's own error, so no grid path enumerates it by
accident; `accuracy.box` and `privacy.dp.box` decide such claims.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.semantics import ir

ACCURACY_HINT = ("`dipc accuracy` decides box claims (corner reduction); for one input use --input, for other "
                 "commands give the claim a grid")
_INFINITE = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}


@dataclass(eq=False, repr=False)
class BoxInputs:
    """The box of a claim: `bounds` maps every real input (flat name) to (lo, hi), lo <= hi.
    Always closed, so plain pairs; `claims.box_dd.Box` is the box whose ends may be open."""
    bounds: dict
    file: str = ""
    hint: str = ACCURACY_HINT     # what to do instead of enumerating the box

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:    # a box is never empty (lo <= hi), though it lists no points
        return True

    def __getitem__(self, index=None):
        raise UserError("a box claim has no finite list of inputs to enumerate", file=self.file, hint=self.hint)

    __iter__ = __getitem__     # iterating or indexing it is the same mistake


def read_box(reader, spec, program: ir.Program, key: str = "accuracy.inputs.box",
             hint: str = ACCURACY_HINT) -> BoxInputs:
    """The box of `[accuracy.inputs] box = {...}` or of `key` (`reader` is a `claim_file.ClaimReader`);
    `hint` says, when something tries to enumerate it, which command decides it."""
    if not isinstance(spec, dict) or not spec:
        raise reader.error(key, "box must be a non-empty table of ranges", hint="box = { q = [-1, 1] }")
    types = dict(program.inputs)
    bounds: dict = {}
    given: dict = {}
    for name, value in spec.items():
        elems = reader.named_once(key, program, name, given)
        finite = [e for e in elems if not isinstance(types[e], ir.RealT)]
        if finite:
            raise reader.error(key, f"'{name}' is not a real input (it is {_type_name(types[finite[0]])}): a box "
                                    "covers real inputs only",
                               hint=f"give the finite input '{name}' a grid instead (grid = {{ {name} = \"all\" }})")
        lo, hi = _range(reader, key, name, value)
        for e in elems:
            bounds[e] = (lo, hi)
    for name, typ in program.inputs:
        if name in bounds:
            continue
        if isinstance(typ, ir.RealT):
            raise reader.error(key, f"the box gives no range for the real input '{name}'",
                               hint=f"add {name.split('[')[0]} = [-1, 1] to the box")
        raise reader.error(key, f"{program.name} has the finite input '{name}' ({_type_name(typ)}), which a box "
                                "cannot range over",
                           hint="box claims are for programs whose inputs are all real; use a grid here")
    return BoxInputs({n: bounds[n] for n, _ in program.inputs}, reader.path, hint)


def _type_name(typ) -> str:
    return {ir.BoolT: "Boolean", ir.IntT: "an integer"}.get(type(typ), "a finite domain")


def _range(reader, key: str, name: str, value) -> tuple[Fraction, Fraction]:
    if not (isinstance(value, list) and len(value) == 2):
        raise reader.error(key, f"{name}: a box range is [low, high]",
                           hint=f"{name} = [-1, 1] (every real value from -1 to 1), or [\"-1/2\", \"1/2\"]")
    ends = []
    for v in value:
        if _infinite(v):
            raise reader.error(key, f"{name}: the bound {v} is infinite; a box is bounded",
                               hint=f"give finite rational bounds, e.g. {name} = [-10, 10]")
        ends.append(reader.number(key, v))
    lo, hi = ends
    if lo > hi:
        raise reader.error(key, f"{name}: the range [{lo}, {hi}] is empty (low > high)",
                           hint="write [low, high] with low <= high")
    return lo, hi


def _infinite(v) -> bool:
    if isinstance(v, float) and not isinstance(v, bool):
        return v in (float("inf"), float("-inf"))
    return isinstance(v, str) and v.strip().lower() in _INFINITE
