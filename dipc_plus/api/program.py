"""One loaded program (`dipc_plus.load`): its chain, exact distribution, accuracy events and runs."""
from __future__ import annotations

from typing import Mapping

from dipc_plus.semantics import ir
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES, DTMC
from dipc_plus.semantics.distribution import (Distribution, Exact, argmax_distribution, to_input_value, bind,
                                              build_chain, distribution_of_chain)


class LoadedProgram:
    """A checked program; every method takes the program's inputs as keywords (``q=[-1, 0, 0]``)."""

    def __init__(self, program: ir.Program):
        self.program = program

    @staticmethod
    def from_file(path, **params) -> "LoadedProgram":
        from dipc_plus.frontend.load import load_program
        values = {k: to_input_value(v) for k, v in params.items()}
        return LoadedProgram(load_program(str(path), values))

    @property
    def name(self) -> str:
        return self.program.name

    def dtmc(self, *, max_states: int = DEFAULT_MAX_STATES, compress: bool = True, **inputs) -> DTMC:
        """The parametric DTMC at these inputs (compress=False: one state per statement)."""
        return build_chain(self.program, inputs, max_states=max_states, compress=compress)

    def distribution(self, *, max_states: int = DEFAULT_MAX_STATES, shortcuts: bool = True,
                     **inputs) -> Distribution:
        """The exact output distribution at these inputs (`shortcuts=False` forces the chain even
        where the argmax integral applies; `.method` tells which ran)."""
        if shortcuts:
            d = argmax_distribution(self.program, inputs)
            if d is not None:
                return d
        return distribution_of_chain(self.dtmc(max_states=max_states, **inputs))

    def within(self, targets: Mapping, gamma=0, *, max_states: int = DEFAULT_MAX_STATES, shortcuts: bool = True,
               **inputs) -> Exact:
        """P[every real output within gamma of its target, every finite output equal to its target]."""
        d = self.distribution(max_states=max_states, shortcuts=shortcuts, **inputs)
        return Exact(d.within(targets, gamma), f"within {gamma} of {dict(targets)}")

    def simulate(self, eps, n: int = 100_000, *, seed: int | None = None, **inputs):
        """Monte Carlo runs at one rational eps (the sampler's SampleResult)."""
        from dipc_plus.semantics.sampler import as_eps, simulate
        return simulate(self.program, bind(self.program, inputs), as_eps(to_input_value(eps)), n, seed=seed)

    def __repr__(self) -> str:
        ins = ", ".join(f"{n}: {t}" for n, t in self.program.inputs)
        outs = ", ".join(f"{n}: {t}" for n, t in self.program.outputs)
        return f"<{self.program.name} ({ins}) -> ({outs})>"
