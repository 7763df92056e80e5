"""The lowered program as a prefix and m identical iterations, with nothing depending on m.

Why: the front end lowers a program for one m (loops unrolled, parameters folded), so the
lowered program alone cannot say what the program does at another m.  Two facts make one
lowering stand for every m (docs/design/every_length.md, section 1, "m is not a
constant"), and this module checks both:

* where the length m, the parameters computed from it and loop indices occur (the front
  end's `frontend.length_uses` reports them as positions, never evaluated): m only as the length of an
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
from dipc_plus.frontend.length_uses import LengthUses, length_uses
from dipc_plus.frontend.load import lower_program, read_module
from dipc_plus.privacy.online.counted import counted_tail
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
    derived: tuple = ()        # outputs computed after the loop from the per-step ones (cut off `program`)


def online_shape(source: str, explicit: dict) -> OnlineShape:
    """Check that the program at `source` is a prefix and m identical iterations for every
    m; `explicit` holds the parameters the claim (or --set) gives a number."""
    if str(source).endswith(".py"):
        raise UserError("--every-length reads a .dip program; a Python function is translated at one m",
                        file=str(source), hint="check the claim at given values of m, or write the .dip twin "
                                               "(dipc show FILE.py --function NAME prints it)")
    module = read_module(source)
    uses = length_uses(module, explicit)
    size, qname = _size_parameter(uses)
    tails = [counted_tail(lower_program(module, {**explicit, size: Fraction(length)}), length, HINT)
             for length in LENGTHS]
    derived = tails[0].derived
    if tails[1].derived != derived:
        raise UserError.at(tails[0].at or tails[1].at,
                           f"cannot decide privacy for every m: the outputs computed after the loop differ between "
                           f"m = {LENGTHS[0]} ({', '.join(derived) or 'none'}) and m = {LENGTHS[1]} "
                           f"({', '.join(tails[1].derived) or 'none'})", hint=HINT)
    _check_uses(uses, _exempt_lines(module, derived, tails))
    (prefix, body), (_, body4) = [_split(t.program, qname, length) for t, length in zip(tails, LENGTHS)]
    if renumbered(body, 1) != renumbered(body4, 1):
        raise UserError.at(body[0].pos, "an iteration of the loop over the queries changes with the number of "
                           "queries", hint=HINT)
    return OnlineShape(tails[0].program, size, qname, prefix, body, derived=derived)


def _exempt_lines(module, derived: tuple, tails) -> frozenset:
    """The lines where m, the parameters computed from it and loop indices may occur as values: the
    post-processing tail and the declarations of the outputs it computes (counted.py says why)."""
    names = {ELEMENT.sub(r"\1", n) for n in derived}
    decls = {it.pos.line for it in module.items if isinstance(it, S.IODecl) and it.name in names}
    return frozenset(decls).union(*(t.lines for t in tails))


def program_start(program: ir.Program) -> ir.Pos:
    """Where a refusal about the program as a whole points: its first statement, or line 1, column 1
    of its file when the body is empty."""
    return program.body[0].pos if program.body else ir.Pos(program.source, 1, 1)


def input_array(program: ir.Program) -> str | None:
    """The name of the program's one input array when its inputs are exactly its elements, else None."""
    arrays = [a for a, flat in program.arrays.items() if set(flat) & set(program.input_names())]
    ok = len(arrays) == 1 and tuple(program.input_names()) == tuple(program.arrays[arrays[0]])
    return arrays[0] if ok else None


def shape_at_length(program: ir.Program, refusal=None) -> OnlineShape:
    """The prefix and the m identical iterations of a lowered program at its own m alone (a Python
    function is translated at one m, so it has no loop to read): every input is an element of one
    real array q of length m, and the body ends with m copies of one iteration, copy k reading
    position k.  What it says holds at this m only, which is all a claim at one m needs.
    `refusal(qname, real)`: the error when it does not hold, worded by a caller with another purpose
    (default: the every-length refusals, located)."""
    qname = input_array(program)
    real = qname is not None and all(isinstance(t, ir.RealT) for _, t in program.inputs)
    length = len(program.arrays[qname]) if real else 0
    found = iterations(program.body, qname, length) if real else None
    if found is None and refusal is not None:
        raise refusal(qname, real)
    if not real:
        raise UserError.at(program_start(program), "cannot decide privacy for every m: the class has exactly one "
                           "input, an array q: real[m] whose length m is a parameter", hint=HINT)
    size = "m" if program.params.get("m", length) == length else \
        next((p for p, v in program.params.items() if v == length), "m")
    return OnlineShape(program, size, qname, *(found or _split(program, qname, length)), length)


# --------------------------------------------------------------------------- where m occurs


def _size_parameter(uses: LengthUses) -> tuple[str, str]:
    """(m, the input's name), or the refusal when the program has no single input q: real[m]
    (or q: int[m], the integer inputs discrete noise needs)."""
    if uses.size is None:
        raise UserError("cannot decide privacy for every m: the class has exactly one input, an array "
                        "q: real[m] (or q: int[m]) whose length m is a parameter", file=uses.file,
                        line=getattr(uses.where, "line", None), column=getattr(uses.where, "column", None), hint=HINT)
    return uses.size, uses.input


def _check_uses(uses: LengthUses, exempt: frozenset = frozenset()) -> None:
    """Refuse the first use of m, of a parameter computed from it or of a loop index as a value
    (outside the `exempt` lines: a post-processing tail)."""
    left = [u for u in uses.uses if u.pos.line not in exempt]
    if not left:
        return
    use, size = left[0], uses.size
    if use.kind == "index":
        raise UserError.at(use.pos, f"cannot decide privacy for every m: the loop index '{use.name}' is used "
                           "as a value here; in the every-length class it may appear only as a whole array "
                           f"position (q[{use.name}], out[{use.name}]), so that every iteration does the same",
                           hint=f"an output holding the index (idx <- {use.name}) is outside the class: write "
                                f"out[{use.name}] <- top at the position instead, or " + HINT)
    if use.kind == "length":
        why = f"'{size}' (the number of queries) is used here"
        hint = HINT
    else:
        why = (f"'{use.name}' is computed from the number of queries {size} "
               f"(param {use.name}, line {use.declared_line}) and used here")
        hint = f"give '{use.name}' a number in the claim's params (params = {{ {use.name} = 2 }}), or " + HINT
    raise UserError.at(use.pos, f"cannot decide privacy for every m: {why}; a rate, range, cutoff or "
                       f"constant that depends on {size} is not folded at one {size}: {size} may appear only "
                       f"as the length of an array and as the end of the loop `for i = 1 to {size}`",
                       hint=hint)


# --------------------------------------------------------------------------- the lowered iterations


def _rewritten(node, name_of):
    """The IR node with every string s (a variable, an element, an operator) written name_of(s),
    source positions kept: the one walk behind `renumbered` and `mentions`."""
    if isinstance(node, str):
        return name_of(node)
    if isinstance(node, tuple):
        return tuple(_rewritten(x, name_of) for x in node)
    if is_dataclass(node) and not isinstance(node, type):
        return replace(node, **{f.name: _rewritten(getattr(node, f.name), name_of) for f in fields(node)
                                if f.name != "pos"})
    return node


def renumbered(node, k: int):
    """The IR node with every flat element name X[k] written X[#] (other positions kept): copies of
    one iteration at positions k and j compare equal."""
    def at_k(name: str) -> str:
        hit = ELEMENT.match(name)
        return f"{hit.group(1)}[#]" if hit and int(hit.group(2)) == k else name
    return _rewritten(node, at_k)


def mentions(node, name: str) -> bool:
    """Whether the IR node reads or writes the variable `name` (positions ignored): renaming it
    changes the node."""
    return _rewritten(node, lambda s: s + "'" if s == name else s) != node


def iterations(body: list, qname: str, length: int) -> tuple | None:
    """(prefix, first iteration) when `body` ends with `length` copies of one iteration, copy k
    reading position k of `qname` where the first reads position 1; else None."""
    for n in range(1, len(body) // length + 1):
        tail = body[len(body) - length * n:]
        blocks = [tail[j * n:(j + 1) * n] for j in range(length)]
        first = renumbered(blocks[0], 1)
        if mentions(blocks[0], f"{qname}[1]") and all(renumbered(b, k) == first
                                                        for k, b in enumerate(blocks[1:], 2)):
            return body[:len(body) - length * n], blocks[0]
    return None


def _split(program: ir.Program, qname: str, length: int) -> tuple:
    """(prefix, first iteration): the body ends with `length` copies of one iteration, copy k
    reading position k; refused otherwise, at the first statement reading the input (or the program's
    last statement, or its start when the body is empty)."""
    body = program.body
    found = iterations(body, qname, length)
    if found is not None:
        return found
    reading = [s for s in body if any(mentions(s, f"{qname}[{k}]") for k in range(1, length + 1))]
    raise UserError.at(reading[0].pos if reading else body[-1].pos if body else program_start(program),
                       "cannot decide privacy for every m: the program must end with one loop `for i = 1 to m` "
                       "over the queries whose iterations differ only in the position i; from here on the "
                       "statements do not split into m such iterations (a loop that does not start at 1, a "
                       f"statement after the loop, or a read of {qname} at another position)", hint=HINT)
