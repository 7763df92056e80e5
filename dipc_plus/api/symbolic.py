"""The notebook view of a program over a box of its real inputs (`Program.symbolic`).

Why it exists: `dipc prob --symbolic` prints, per output, the cells of the box and a closed
form in eps and the inputs on each; a notebook wants the same as an object it can ask for
one input's closed forms (`at`), iterate (`cells`) and show as LaTeX.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from dipc_plus.api.errors import in_python_words
from dipc_plus.api.keywords import mapping
from dipc_plus.exact.cells import Cell
from dipc_plus.exact.symbolic_terms import SymbolicForm
from dipc_plus.errors import UserError
from dipc_plus.semantics.distribution import Exact
from dipc_plus.semantics.inputs import python_value
from dipc_plus.semantics.symbolic_distribution import SymbolicDistribution


@dataclass
class SymbolicCell:
    """One cell of the box for one output: its constraints beyond the box (text on the inputs),
    the `Cell` itself and the closed form on it.

    A Laplace read of x compared with 0 is true with probability 1 - e^(-x eps)/2 where x >= 0
    (the Laplace CDF, by hand):

    >>> import dipc_plus
    >>> sign = dipc_plus.Program.from_text("input x: real\\noutput b: bool\\nn <- Lap(eps, x)\\nb <- n > 0\\n")
    >>> print(sign.symbolic(box={"x": (-1, 1)}).cells[True][0])
    where x >= 0: 1 - 1/2*e^(-x*eps)
    """
    constraints: str
    cell: Cell
    form: SymbolicForm
    names: tuple

    def __str__(self) -> str:
        return f"where {self.constraints}: {self.form.text(self.names)}"


class SymbolicResult:
    """Per output, the cells of the box and the closed form on each.

    ``cells``: {output value: [SymbolicCell]} (a single finite output is keyed by its value,
    several by the tuple of their values); ``at(input)``: {output value: `Exact`} at one input
    of the box, equal to ``Program.distribution(input)``'s probabilities there.

    >>> import dipc_plus
    >>> sign = dipc_plus.Program.from_text("input x: real\\noutput b: bool\\nn <- Lap(eps, x)\\nb <- n > 0\\n")
    >>> s = sign.symbolic(box={"x": (-1, 1)})
    >>> print(s)
    b=false:
      where x <= 0: 1 - 1/2*e^(x*eps)
      where x > 0: 1/2*e^(-x*eps)
    b=true:
      where x >= 0: 1 - 1/2*e^(-x*eps)
      where x < 0: 1/2*e^(x*eps)
    >>> s.at(input={"x": 0})
    {False: Exact(1/2), True: Exact(1/2)}
    """

    def __init__(self, dist: SymbolicDistribution):
        self.dist = dist
        self._single = len(dist.output_names) == 1

    def _key(self, output: tuple):
        return output[0] if self._single else output

    @in_python_words()
    def _by_output(self) -> list[tuple[Any, str, list[SymbolicCell]]]:
        """(output value, its text, its cells) per output: what `cells`, `latex` and `str` show."""
        names = tuple(self.dist.input_names)
        return [(o, self.dist.output_text(o), [SymbolicCell(self.dist.cell_text(pc.cell), pc.cell, pc.form, names)
                                               for pc in pieces]) for o, pieces in self.dist.cells().items()]

    @property
    def cells(self) -> dict:
        return {self._key(o): cells for o, _, cells in self._by_output()}

    @in_python_words()
    def at(self, input: Mapping[str, Any] | None = None, **inputs: Any) -> dict:
        """{output value: its exact probability at this input} (every output, 0 included)."""
        program = self.dist.program
        given = mapping(input, "input", "at(input={'q': [0, 1]})", inputs)
        flat: dict = {}
        for name, value in given.items():
            elems = program.arrays.get(name)
            if elems is not None and isinstance(value, (list, tuple)) and len(value) == len(elems):
                flat.update(zip(elems, value))
            else:
                flat[name] = value
        missing = [n for n in self.dist.input_names if n not in flat]
        extra = [n for n in flat if n not in self.dist.input_names]
        if missing or extra:
            raise UserError(f"at(): give the real inputs {', '.join(self.dist.input_names)}"
                            + (f" ('{extra[0]}' is not one of them)" if extra else ""),
                            hint="e.g. at(input={'q': [0, 1]})")
        q = [python_value(flat[n]) for n in self.dist.input_names]
        if not all(isinstance(x, Fraction) for x in q):
            raise UserError(f"at(): the real inputs must be numbers, not {q}")
        return {self._key(o): Exact(form) for o, form in self.dist.at(q).items()}

    def latex(self) -> str:
        """An array of (output, cell, closed form) rows, the forms as `dipc prob --symbolic --latex` prints them."""
        from dipc_plus.commands.prob import symbolic_latex
        rows = []
        for _, output, cells in self._by_output():
            label = "\\text{" + output.replace("_", "\\_") + "}"
            for c in cells:
                where = "\\text{" + c.constraints.replace("_", "\\_") + "}"
                rows.append(f"{label} & {where} & {symbolic_latex(self.dist, c.form)}")
        return "\\begin{array}{lll}\n" + " \\\\\n".join(rows) + "\n\\end{array}"

    def _repr_latex_(self) -> str:   # Jupyter
        return "$" + self.latex() + "$"

    def __str__(self) -> str:
        lines: list[str] = []
        for _, output, cells in self._by_output():
            lines += [f"{output}:", *(f"  {c}" for c in cells)]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<SymbolicResult of {self.dist.program.name}: {len(self.dist.outputs())} outputs>"
