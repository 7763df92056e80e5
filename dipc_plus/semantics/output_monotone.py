"""In which direction each output's probability moves with each real input, proved from the paths.

Why it exists: a privacy grid check compares P_u[o] with P_u'[o] for every neighbour u' of u.
When P[o] is monotone in every input, the smallest P_u'[o] over a box of neighbours is at one
corner, for every eps at once, so one comparison there implies all the others.

The proof reads the symbolic walk (`semantics.symbolic_chain`): P_u[out = o] is the sum over
o's paths of P[all the path's atoms hold], the noises' distributions do not depend on u (only
their means do, and a sample is its mean plus the noise, inside the atoms' linear forms), and
every atom is `form < 0` or `form <= 0`, or `==` / `!=`.  If the coefficient of q_j in `form`
is c > 0, raising q_j shrinks the atom's set of noise values (for every noise value and every
other input); c < 0 grows it.  So when every `<` / `<=` atom on every path to o that reads q_j
has coefficients of one sign, and no `==` / `!=` atom reads q_j, each path's event, hence P[o],
is monotone in q_j (non-increasing for c > 0), whatever eps is.  Otherwise o has no direction
for q_j and callers compare every neighbour.
"""
from __future__ import annotations

from dipc_plus.semantics import ir
from dipc_plus.semantics.symbolic_chain import NotSymbolic, symbolic_paths

__all__ = ["output_directions", "UP", "DOWN"]

UP = 1      # P[o] is non-decreasing in the input
DOWN = -1   # P[o] is non-increasing in the input


def output_directions(program: ir.Program) -> dict:
    """{output value tuple: {flat input name: UP or DOWN} for the inputs its atoms read, or None
    when P[o] is not proved monotone in one of them}.  Raises `NotSymbolic` where the walk does
    not apply (real inputs only: a program with Bool/DOM inputs is refused here)."""
    finite = [name for name, t in program.inputs if not isinstance(t, ir.RealT)]
    if finite:
        raise NotSymbolic(f"the input '{finite[0]}' is not real")
    walk = symbolic_paths(program, {})
    out: dict = {}
    for output in walk.paths:
        signs: dict = {}
        for k, c, op in walk.input_terms(output):
            signs.setdefault(k, set()).add((DOWN if c > 0 else UP) if op in ("<", "<=") else 0)
        if any(s != {UP} and s != {DOWN} for s in signs.values()):
            out[output] = None
        else:
            out[output] = {walk.real_inputs[k]: s.pop() for k, s in sorted(signs.items())}
    return out
