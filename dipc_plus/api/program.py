"""A checked program from a file or from text: its chain, exact distribution, accuracy events and runs.

Why it exists: it is the object a notebook holds for one mechanism.  Inputs are
given as one mapping (``input={'q': [-1, 0, 0]}``; keywords ``q=[...]`` work too),
parameters as ``params={'m': 3}``, and every option is a keyword of its own, so an
option is never taken for an input or a parameter.
"""
from __future__ import annotations

import os
from fractions import Fraction
from typing import Any, Mapping

from dipc_plus.api.errors import in_python_words
from dipc_plus.api.keywords import INPUT_EXAMPLE, Number, mapping, parameter_values
from dipc_plus.api.symbolic import SymbolicResult
from dipc_plus.api.views import grouped, sample_result
from dipc_plus.commands.common import declared_names
from dipc_plus.errors import UserError
from dipc_plus.execution.files import user_text
from dipc_plus.semantics import ir
from dipc_plus.semantics.inputs import python_value
from dipc_plus.semantics.distribution import Distribution, Exact, bind, build_chain, output_distribution
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES, DTMC
from dipc_plus.semantics.symbolic_distribution import bind_finite_inputs, symbolic_distribution


class Program:
    """A checked, desugared DiPWhile+ program with its parameters fixed.

    Make one with `Program.from_file` or `Program.from_text` (or `dipc_plus.load`).  Every method
    takes the program's inputs as one mapping, ``input={'q': [-1, 0, 0]}`` (keywords ``q=[-1, 0, 0]``
    are accepted too), with integers, Fractions, decimal strings or floats (read as the decimal
    written).

    Examples
    --------
    >>> import dipc_plus
    >>> rr = dipc_plus.Program.from_text('''
    ... param p = 3/4
    ... distribution coin(x: bool) over bool { x: p; not x: 1 - p }
    ... input  x: bool
    ... output y: bool
    ... y <- choose(coin(x))
    ... ''', name="coin")
    >>> rr
    <Program coin (x: bool) -> (y: bool)>
    >>> print(rr.distribution(input={"x": True}))
    y=false: 1/4
    y=true: 3/4
    """

    def __init__(self, program: ir.Program, *, text: str | None = None, path: str | None = None):
        self.ir = program
        self.text = text
        self.path = path

    @classmethod
    @in_python_words()
    def from_file(cls, path: str | os.PathLike[str], params: Mapping[str, Number] | None = None,
                  **legacy_params: Number) -> "Program":
        """Read, parse and check a .dip file.

        Parameters
        ----------
        path : str or os.PathLike
            The .dip file (see `dipc_plus.example` for the bundled ones).
        params : mapping, optional
            Values of the program's ``param`` declarations, e.g. ``{'m': 3}``; the others keep their
            defaults.  (Keywords ``m=3`` are accepted too.)

        Examples
        --------
        >>> import dipc_plus
        >>> dipc_plus.Program.from_file(dipc_plus.example("programs/noisy_max.dip"), params={"m": 2})
        <Program noisy_max (q: real[2]) -> (out: 1..2)>
        """
        from dipc_plus.frontend.load import load_program
        values = parameter_values(params, legacy_params)
        return cls(load_program(str(path), values), path=os.path.abspath(path))

    @classmethod
    @in_python_words()
    def from_text(cls, text: str, params: Mapping[str, Number] | None = None, *, name: str = "program") -> "Program":
        """Parse and check a program given as text; errors name `name` with their line and column.

        Parameters
        ----------
        text : str
            The program in the .dip language (docs/language.md).
        params : mapping, optional
            Values of its ``param`` declarations.
        name : str
            The program's name in reports and error messages (default ``"program"``).

        Examples
        --------
        >>> import dipc_plus
        >>> dipc_plus.Program.from_text("input x: real\\noutput y: real\\ny <- Lap(eps, x)\\n", name="lap")
        <Program lap (x: real) -> (y: real)>
        >>> dipc_plus.Program.from_text("output y: real\\ny <- Lap(eps, z)\\n", name="bad")
        Traceback (most recent call last):
        ...
        dipc_plus.errors.UserError: bad:2:15: error: unknown name 'z'
          hint: declare variables with input/output/var, parameters with param, symbols in a type
        """
        from dipc_plus.frontend.load import parse_program
        text = user_text(text, "program", str(name))
        values = parameter_values(params)
        program = parse_program(text, str(name), values)
        return cls(program, text=text)

    @classmethod
    @in_python_words()
    def from_python(cls, func_or_source: Any, function: str | None = None,
                    params: Mapping[str, Number] | None = None) -> "Program":
        """Read a Python function of the subset of docs/python.md (its source is parsed, never run).

        Parameters
        ----------
        func_or_source : function, str or os.PathLike
            A function object (its file's source is read with `inspect`), the path of a ``.py``
            file, or Python source text.
        function : str, optional
            The function's name (needed for a file or text; a function object names itself).
        params : mapping
            ``m`` (the number of queries, required) and the function's other parameters.

        Examples
        --------
        >>> import dipc_plus
        >>> src = '''
        ... def noisy_max(prng, queries, epsilon):
        ...     noisy = [q + prng.laplace(scale=2.0 / epsilon) for q in queries]
        ...     return max(range(len(noisy)), key=lambda i: noisy[i])
        ... '''
        >>> dipc_plus.Program.from_python(src, "noisy_max", params={"m": 2})
        Traceback (most recent call last):
        ...
        dipc_plus.errors.UserError: <python>:4:12: error: the call max(...) is outside the Python subset dipc reads
          hint: the subset offers prng.laplace(loc=..., scale=c/epsilon) and prng.exponential(scale=c/epsilon); len, sum, max, min, np.argmax, np.argmin over a list; out.append(...)
        """
        import inspect

        from dipc_plus.frontend.load import lower_program
        from dipc_plus.frontend.python.load import parse_python, read_python_module
        values = parameter_values(params)
        path: str | None = None     # a file to read; None: func_or_source is the source text
        if callable(func_or_source):
            path = inspect.getsourcefile(func_or_source)
            function = function or func_or_source.__name__
            if path is None or not os.path.isfile(path):
                raise UserError(f"the source of {function} is not in a file", hint="pass its source text")
        elif isinstance(func_or_source, os.PathLike) or (isinstance(func_or_source, str)
                                                         and func_or_source.endswith(".py")):
            path = os.fspath(func_or_source)
        elif not isinstance(func_or_source, (str, bytes)):
            raise UserError(f"from_python takes a function, a .py path or source text, not "
                            f"{type(func_or_source).__name__}", hint="pass the function itself")
        module = (read_python_module(path, function, values) if path is not None else parse_python(
            user_text(func_or_source, "Python source", "<python>"), "<python>", function, values))
        program = lower_program(module, values, function)
        return cls(program, text=module.text, path=None if path is None else os.path.abspath(path))

    # ----------------------------------------------------------------- what it is

    @property
    def program(self) -> ir.Program:
        """The core IR (for the library's own stages)."""
        return self.ir

    @property
    def name(self) -> str:
        return self.ir.name

    def _declared(self, flat: list) -> dict[str, str]:
        """{name: type} with an array's elements folded back into ``q: real[3]``."""
        types, arrays = dict(flat), self.ir.arrays
        return {n: f"{types[arrays[n][0]]}[{len(arrays[n])}]" if n in arrays else str(types[n])
                for n in declared_names(self.ir, list(types))}

    @property
    def inputs(self) -> dict[str, str]:
        """{input name: its type}, arrays as ``real[3]``."""
        return self._declared(list(self.ir.inputs))

    @property
    def outputs(self) -> dict[str, str]:
        """{output name: its type}, arrays as ``real[3]``."""
        return self._declared(list(self.ir.outputs))

    @property
    def params(self) -> dict[str, Any]:
        """The parameter values this program was checked with."""
        return grouped(None, dict(self.ir.params))

    # ----------------------------------------------------------------- exact answers

    @in_python_words()
    def dtmc(self, input: Mapping[str, Any] | None = None, *, max_states: int = DEFAULT_MAX_STATES,
             compress: bool = True, **inputs: Any) -> DTMC:
        """The parametric Markov chain at one input (``compress=False``: one state per statement)."""
        given = mapping(input, "input", INPUT_EXAMPLE, inputs)
        return build_chain(self.ir, given, max_states=max_states, compress=compress)

    @in_python_words()
    def distribution(self, input: Mapping[str, Any] | None = None, *, max_states: int = DEFAULT_MAX_STATES,
                     shortcuts: bool = True, **inputs: Any) -> Distribution:
        """The exact output distribution at one input, every probability a closed form in eps.

        Parameters
        ----------
        input : mapping
            The input, e.g. ``{'q': [-1, 0, 0]}``.
        max_states : int
            Refuse Markov chains with more states (the command's ``--max-states``).
        shortcuts : bool
            Use the argmax integral where it applies (``False`` forces the chain); ``.method`` of the
            result tells which ran.

        Examples
        --------
        >>> import dipc_plus
        >>> nm = dipc_plus.load(dipc_plus.example("programs/noisy_max.dip"), params={"m": 2})
        >>> d = nm.distribution(input={"q": [0, 0]})
        >>> d.method, str(d[1])
        ('argmax-integral', '1/2')
        """
        given = mapping(input, "input", INPUT_EXAMPLE, inputs)
        return output_distribution(self.ir, given, max_states=max_states, shortcuts=shortcuts)

    @in_python_words()
    def symbolic(self, box: Mapping[str, Any], input: Mapping[str, Any] | None = None, *,
                 max_cells: int | None = None) -> SymbolicResult:
        """The output distribution for every input of a box of the real inputs: per output, the
        cells of the box and a closed form in eps and the inputs on each (``dipc prob --symbolic``).

        Parameters
        ----------
        box : mapping
            ``{'q': (-1, 1)}``: the range of each real input (an array: of each element).
        input : mapping, optional
            Values of the Bool/DOM inputs, if any.
        max_cells : int, optional
            Refuse an output needing more cells (default: the ``cells`` limit).

        Examples
        --------
        >>> import dipc_plus
        >>> nm = dipc_plus.load(dipc_plus.example("programs/noisy_max.dip"), params={"m": 2})
        >>> s = nm.symbolic(box={"q": (-1, 1)})
        >>> [len(cells) for cells in s.cells.values()]
        [2, 2]
        >>> s.at(input={"q": [0, 0]})[1] == nm.distribution(input={"q": [0, 0]})[1]
        True
        """
        bounds = {}
        for name, pair in mapping(box, "box", "box={'q': (-1, 1)}").items():
            two = isinstance(pair, (tuple, list)) and len(pair) == 2
            ends = tuple(python_value(x, f"--box {name}") for x in pair) if two else ()
            if not two or not all(isinstance(x, Fraction) for x in ends):
                raise UserError(f"--box {name}: give two numbers (lo, hi), not {pair!r}",
                                hint="e.g. box={'q': (-1, 1)}")
            bounds[str(name)] = ends
        finite = bind_finite_inputs(self.ir, {k: python_value(v, f"--input {k}")
                                               for k, v in mapping(input, 'input', "input={'b': True}").items()})
        return SymbolicResult(symbolic_distribution(self.ir, bounds, finite, max_cells))

    @in_python_words()
    def within(self, targets: Mapping[str, Any], gamma: Number = 0, input: Mapping[str, Any] | None = None, *,
               max_states: int = DEFAULT_MAX_STATES, shortcuts: bool = True, **inputs: Any) -> Exact:
        """P[every real output within `gamma` of its target and every finite output equal to it], exactly.

        N ~ Lap(eps): P[|N| <= 1] = 1 - e^(-eps), and P[N > 1] = e^(-eps)/2 (the Laplace tail):

        >>> import dipc_plus
        >>> lap = dipc_plus.Program.from_text("input x: real\\noutput y: real\\ny <- Lap(eps, x)\\n", name="lap")
        >>> print(lap.within({"y": 0}, 1, input={"x": 0}))
        1 - e^(-eps)
        >>> tail = dipc_plus.Program.from_text('''
        ... input x: real
        ... output b: bool
        ... var z: real
        ... z <- Lap(eps, x)
        ... b <- z > 1
        ... ''', name="tail")
        >>> print(tail.distribution(input={"x": 0}))
        b=false: 1 - 1/2*e^(-eps)
        b=true: 1/2*e^(-eps)
        """
        d = self.distribution(input, max_states=max_states, shortcuts=shortcuts, **inputs)
        return Exact(d.within(targets, gamma), f"within {gamma} of {dict(targets)}")

    @in_python_words()
    def simulate(self, eps: Number, n: int = 100_000, input: Mapping[str, Any] | None = None, *,
                 seed: int | None = None, chunk: int | None = None, max_iterations: int | None = None,
                 **inputs: Any) -> Any:
        """Monte Carlo: `n` runs at one rational `eps` (the command ``dipc simulate``); a `SampleResult`.

        Examples
        --------
        >>> import dipc_plus
        >>> nm = dipc_plus.load(dipc_plus.example("programs/noisy_max.dip"), params={"m": 2})
        >>> nm.simulate(1, 1000, input={"q": [0, 1]}, seed=7)
        <SampleResult noisy_max: 1000 runs at eps=1, q=[0, 1]>
        """
        from dipc_plus.semantics.sampler import DEFAULT_CHUNK, DEFAULT_MAX_ITERATIONS, as_eps, simulate
        given = bind(self.ir, mapping(input, "input", INPUT_EXAMPLE, inputs))
        raw = simulate(self.ir, given, as_eps(python_value(eps, "--eps")), n, seed=seed,
                       chunk=DEFAULT_CHUNK if chunk is None else chunk,
                       max_iterations=DEFAULT_MAX_ITERATIONS if max_iterations is None else max_iterations)
        return sample_result(raw)

    def __repr__(self) -> str:
        ins = ", ".join(f"{n}: {t}" for n, t in self.inputs.items())
        outs = ", ".join(f"{n}: {t}" for n, t in self.outputs.items())
        return f"<Program {self.ir.name} ({ins}) -> ({outs})>"


LoadedProgram = Program   # the name of earlier versions


def load(path: str | os.PathLike[str], params: Mapping[str, Number] | None = None, **legacy_params: Number) -> Program:
    """Read, parse and check a .dip file: ``Program.from_file(path, params)``.

    Examples
    --------
    >>> import dipc_plus
    >>> dipc_plus.load(dipc_plus.example("programs/noisy_min.dip"), params={"m": 2})
    <Program noisy_min (q: real[2]) -> (out: 1..2)>
    """
    return Program.from_file(path, params, **legacy_params)
