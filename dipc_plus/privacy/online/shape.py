"""The lowered program as a prefix and m identical iterations, with nothing depending on m.

Why: the front end lowers a program for one m (loops unrolled, parameters folded), so the
lowered program alone cannot say what the program does at another m.  Two facts make one
lowering stand for every m (docs/design/every_length.md, section 1, "m is not a
constant"), and this module checks both:

* where the length m, the parameters computed from it and loop indices occur (read from
  the parsed module, only as locations, never evaluated): m only as the length of an
  array and as the end of a top-level `for` loop; a parameter computed from m (and not
  given a number by the claim) nowhere; a loop index only as a whole array position.
  Then no rate, range, cutoff or constant changes with m, and iteration k differs from
  iteration 1 only in the positions it reads and writes;
* the lowered program at two lengths ends with exactly that many copies of one
  iteration, position k in copy k (`online_shape`): a prefix, then the loop over the
  queries, then nothing.

Anything else is refused with a located `UserError` (exit 2) stating the rule.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields, is_dataclass, replace
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.frontend import surface as S
from dipc_plus.frontend.load import lower_program, read_module
from dipc_plus.semantics import ir

LENGTHS = (3, 4)   # the two lengths lowered; the first is the one the automaton is read from
HINT = "decide one m at a time without --every-length (docs/every_length.md lists the class)"
ELEMENT = re.compile(r"^(.+)\[(\d+)\]$")


@dataclass(frozen=True)
class OnlineShape:
    program: ir.Program   # lowered at length LENGTHS[0]
    size: str             # the parameter m: the input array's length
    input: str            # the input array's name
    prefix: tuple         # the statements before the loop over the queries
    body: tuple           # the first iteration (position 1) of that loop
    length: int = LENGTHS[0]   # the m `program` was lowered at


def online_shape(source: str, explicit: dict) -> OnlineShape:
    """Check that the program at `source` is a prefix and m identical iterations for every
    m; `explicit` holds the parameters the claim (or --set) gives a number."""
    module = read_module(source)
    size, qname = _size_parameter(module)
    dependent = _dependent(module, size, explicit)
    _check_uses(module, size, dependent)
    shapes = []
    for length in LENGTHS:
        program = lower_program(module, {**explicit, size: Fraction(length)})
        shapes.append(_split(program, qname, length))
    (p3, prefix, body), (_, _, body4) = shapes
    if _normalise(body, 1) != _normalise(body4, 1):
        raise UserError.at(body[0].pos, "an iteration of the loop over the queries changes with the number of "
                           "queries", hint=HINT)
    return OnlineShape(p3, size, qname, prefix, body)


# --------------------------------------------------------------------------- where m occurs


def _size_parameter(module) -> tuple[str, str]:
    inputs = [it for it in module.items if isinstance(it, S.IODecl) and it.kind == "input"]
    params = {it.name for it in module.items if isinstance(it, S.ParamDecl)}
    ok = (len(inputs) == 1 and isinstance(inputs[0].type, S.ArrayType)
          and isinstance(inputs[0].type.size, S.Name) and inputs[0].type.size.name in params
          and isinstance(inputs[0].type.elem, S.TypeName) and inputs[0].type.elem.name == "real")
    if not ok:
        where = inputs[1].pos if len(inputs) > 1 else inputs[0].pos if inputs else None
        err = UserError("cannot decide privacy for every m: the class has exactly one input, an array "
                        "q: real[m] whose length m is a parameter", file=module.file, hint=HINT)
        if where is not None:
            err.line, err.column = where.line, where.column
        raise err
    return inputs[0].type.size.name, inputs[0].name


def _names(node) -> set:
    out = set()

    def walk(x):
        if isinstance(x, S.Name):
            out.add(x.name)
        elif isinstance(x, tuple):
            for y in x:
                walk(y)
        elif is_dataclass(x) and not isinstance(x, type):
            for f in fields(x):
                if f.name != "pos":
                    walk(getattr(x, f.name))
    walk(node)
    return out


def _dependent(module, size: str, explicit: dict) -> dict:
    """Parameter -> its declaration, for m and every parameter computed from it (transitively)
    that the claim does not give a number."""
    decls = {it.name: it for it in module.items if isinstance(it, S.ParamDecl)}
    dep = {size: decls[size]}
    changed = True
    while changed:
        changed = False
        for name, decl in decls.items():
            if name not in dep and name not in explicit and _names(decl.value) & set(dep):
                dep[name] = decl
                changed = True
    return dep


def _check_uses(module, size: str, dependent: dict) -> None:
    def refuse_dependent(node: S.Name):
        if node.name == size:
            why = f"'{size}' (the number of queries) is used here"
            hint = HINT
        else:
            why = (f"'{node.name}' is computed from the number of queries {size} "
                   f"(param {node.name}, line {dependent[node.name].pos.line}) and used here")
            hint = f"give '{node.name}' a number in the claim's params (params = {{ {node.name} = 2 }}), or " + HINT
        raise UserError.at(node.pos, f"cannot decide privacy for every m: {why}; a rate, range, cutoff or "
                           f"constant that depends on {size} is not folded at one {size}: {size} may appear only "
                           f"as the length of an array and as the end of the loop `for i = 1 to {size}`",
                           hint=hint)

    def refuse_index(node: S.Name):
        raise UserError.at(node.pos, f"cannot decide privacy for every m: the loop index '{node.name}' is used "
                           "as a value here; in the every-length class it may appear only as a whole array "
                           f"position (q[{node.name}], out[{node.name}]), so that every iteration does the same",
                           hint=f"an output holding the index (idx <- {node.name}) is outside the class: write "
                                f"out[{node.name}] <- top at the position instead, or " + HINT)

    def walk(x, loops: frozenset):
        if isinstance(x, S.Index) and isinstance(x.index, S.Name) and x.index.name in loops:
            return
        if isinstance(x, S.Name):
            if x.name in loops:
                refuse_index(x)
            if x.name in dependent:
                refuse_dependent(x)
            return
        if isinstance(x, S.For):
            walk(x.lo, loops)
            walk(x.hi, loops)
            walk(x.body, loops | {x.var})
            return
        if isinstance(x, tuple):
            for y in x:
                walk(y, loops)
        elif is_dataclass(x) and not isinstance(x, type):
            for f in fields(x):
                if f.name != "pos":
                    walk(getattr(x, f.name), loops)

    def is_size(e) -> bool:
        return isinstance(e, S.Name) and e.name == size

    for item in module.items:
        if isinstance(item, S.ParamDecl):
            continue
        if isinstance(item, (S.IODecl, S.VarDecl)) and isinstance(item.type, S.ArrayType) and is_size(item.type.size):
            walk(item.type.elem, frozenset())
            walk(getattr(item, "init", None), frozenset())
        elif isinstance(item, S.For) and is_size(item.hi):
            walk(item.lo, frozenset())
            walk(item.body, frozenset({item.var}))
        else:
            walk(item, frozenset())


# --------------------------------------------------------------------------- the lowered iterations


def _normalise(node, k: int):
    """The IR node with every flat element name X[k] written X[#] (other positions kept)."""
    if isinstance(node, str):
        hit = ELEMENT.match(node)
        return f"{hit.group(1)}[#]" if hit and int(hit.group(2)) == k else node
    if isinstance(node, tuple):
        return tuple(_normalise(x, k) for x in node)
    if is_dataclass(node) and not isinstance(node, type):
        return replace(node, **{f.name: _normalise(getattr(node, f.name), k) for f in fields(node)
                                if f.name != "pos"})
    return node


def mentions(node, name: str) -> bool:
    """Whether the IR node reads or writes the variable `name` (positions ignored)."""
    if isinstance(node, str):
        return node == name
    if isinstance(node, tuple):
        return any(mentions(x, name) for x in node)
    if is_dataclass(node) and not isinstance(node, type):
        return any(mentions(getattr(node, f.name), name) for f in fields(node) if f.name != "pos")
    return False


def _split(program: ir.Program, qname: str, length: int) -> tuple:
    """(program, prefix, first iteration): the body ends with `length` copies of one
    iteration, copy k reading position k; refused otherwise."""
    body = program.body
    for n in range(1, len(body) // length + 1):
        tail = body[len(body) - length * n:]
        blocks = [tail[j * n:(j + 1) * n] for j in range(length)]
        first = _normalise(blocks[0], 1)
        if mentions(blocks[0], f"{qname}[1]") and all(_normalise(b, k) == first
                                                        for k, b in enumerate(blocks[1:], 2)):
            return program, body[:len(body) - length * n], blocks[0]
    reading = [s for s in body if any(mentions(s, f"{qname}[{k}]") for k in range(1, length + 1))]
    where = reading[0].pos if reading else (body[-1].pos if body else None)
    message = ("cannot decide privacy for every m: the program must end with one loop `for i = 1 to m` over the "
               "queries whose iterations differ only in the position i; from here on the statements do not "
               "split into m such iterations (a loop that does not start at 1, a statement after the loop, or a "
               f"read of {qname} at another position)")
    if where is None:
        raise UserError(message, file=program.source, hint=HINT)
    raise UserError.at(where, message, hint=HINT)
