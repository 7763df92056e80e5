"""Where a program's length parameter is used, read from the parsed module as positions only.

Why: the every-length check (privacy/online/shape.py) needs to know which parameter m
sizes the program's single real-array input and where m, the parameters computed from
it and the loop indices occur; that is a question about the surface syntax, so it is
answered here, in the front end, as plain facts (names and positions), and the check
that decides what those facts mean stays in privacy/.  Nothing is evaluated.
"""
from __future__ import annotations

from dataclasses import dataclass

from dipc_plus.frontend import surface as S
from dipc_plus.semantics import ir


@dataclass(frozen=True)
class LengthUse:
    """One occurrence of a length-dependent name outside the places a length may appear."""
    name: str
    kind: str               # "length" (m itself) | "computed" (a parameter computed from m) | "index" (a loop index as a value)
    pos: ir.Pos
    declared_line: int | None = None   # for "computed": the line of its `param` declaration


@dataclass(frozen=True)
class LengthUses:
    """The facts about the length parameter: `size` is None when the program does not have
    exactly one input, an array `q: real[m]` or `q: int[m]` with m a parameter (`where` then points
    at the second input, or the only one, or is None when there is no input)."""
    file: str
    size: str | None
    input: str | None
    where: ir.Pos | None
    uses: tuple = ()        # LengthUse, in source order


def length_uses(module: S.Module, explicit) -> LengthUses:
    """Which parameter sizes the single real-array input of `module`, and where it, the
    parameters computed from it (not named in `explicit`, the parameters given a number)
    and the loop indices are used other than as an array length, the end of a top-level
    `for` loop, or a whole array position."""
    inputs = [it for it in module.items if isinstance(it, S.IODecl) and it.kind == "input"]
    params = {it.name for it in module.items if isinstance(it, S.ParamDecl)}
    ok = (len(inputs) == 1 and isinstance(inputs[0].type, S.ArrayType)
          and isinstance(inputs[0].type.size, S.Name) and inputs[0].type.size.name in params
          and isinstance(inputs[0].type.elem, S.TypeName) and inputs[0].type.elem.name in ("real", "int"))
    if not ok:
        where = inputs[1].pos if len(inputs) > 1 else inputs[0].pos if inputs else None
        return LengthUses(module.file, None, None, where)
    size = inputs[0].type.size.name
    dependent = _dependent(module, size, set(explicit))
    return LengthUses(module.file, size, inputs[0].name, inputs[0].pos,
                      tuple(_uses(module, size, dependent)))


def _dependent(module: S.Module, size: str, explicit: set) -> dict:
    """Parameter -> its declaration, for m and every parameter computed from it (transitively)
    that is not given a number.  One pass in declaration order finds them all: a parameter's
    value may only use parameters declared above it (declare refuses the rest)."""
    dep = {}
    for item in module.items:
        if isinstance(item, S.ParamDecl) and (item.name == size or (
                item.name not in explicit and S.names(item.value) & dep.keys())):
            dep[item.name] = item
    return dep


def _uses(module: S.Module, size: str, dependent: dict) -> list:
    """The uses of m, of the `dependent` parameters and of loop indices, in source order, outside
    the places a length may appear."""
    found: list[LengthUse] = []

    def walk(roots, loops: frozenset):
        for x in roots:
            if isinstance(x, S.Name):
                kind = ("index" if x.name in loops else "length" if x.name == size
                        else "computed" if x.name in dependent else None)
                if kind is not None:
                    line = dependent[x.name].pos.line if kind == "computed" else None
                    found.append(LengthUse(x.name, kind, x.pos, line))
            elif isinstance(x, S.For):
                walk((x.lo, x.hi), loops)
                walk(x.body, loops | {x.var})
            elif x is not None and not (isinstance(x, S.Index) and isinstance(x.index, S.Name)
                                        and x.index.name in loops):   # q[i] with i a loop index: a whole array position
                walk(S.parts(x), loops)

    def is_size(e) -> bool:
        return isinstance(e, S.Name) and e.name == size

    for item in module.items:
        if isinstance(item, (S.IODecl, S.VarDecl)) and isinstance(item.type, S.ArrayType) and is_size(item.type.size):
            walk((item.type.elem, getattr(item, "init", None)), frozenset())
        elif isinstance(item, S.For) and is_size(item.hi):
            walk((item.lo,), frozenset())
            walk(item.body, frozenset({item.var}))
        elif not isinstance(item, S.ParamDecl):
            walk((item,), frozenset())
    return found
