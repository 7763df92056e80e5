"""Exact output tables: {output: probability} of a (sub-)program at one input.

Why it exists: every privacy question compares output probabilities of neighbouring
inputs.  This module turns an exact output distribution (`semantics`) into such a
table -- finite outputs by value, real/integer outputs by the claim's named events --
and caches tables per input (`TableSource`), through a kernel chain with shared
prefixes when the program has one and many inputs are wanted.  It sits at the top of
`privacy/` because `dp`, `loss` and `pufferfish` all build on these tables.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

from dipc_plus.exact.constraints import probability as constraints_probability
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.linear import LinForm, atom
from dipc_plus.exact.sparse import accumulate
from dipc_plus.claims.privacy_types import EventInterval
from dipc_plus.exact.log_point import rational_at_log
from dipc_plus.semantics import ir
from dipc_plus.semantics.distribution import output_distribution
from dipc_plus.semantics.values import freeze_value
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES
from dipc_plus.semantics.structure import KernelChain

ZERO = ExpFrac.of(ExpPoly.ZERO)
ONE = ExpFrac.of(ExpPoly.ONE)
CHAIN_THRESHOLD = 12   # inputs to evaluate before a kernel chain pays off


# --------------------------------------------------------------------------- output tables


def outcome_table(dist, events: dict) -> dict:
    """{output key: exact probability} from a `semantics.Distribution`: finite outputs by
    value, real/integer outputs by the named event (an interval label)."""
    names = dist.names
    real_idx = [i for i, n in enumerate(names) if isinstance(dist.types[n], (ir.RealT, ir.IntT))]
    table: dict = {}
    for outcome, entry in dist.entries.items():
        for combo in itertools.product(*(events[names[i]] for i in real_idx)):
            chosen = dict(zip(real_idx, combo))
            p = _event_probability(outcome, entry, chosen, dist.noises)
            if p is not None:
                accumulate(table, tuple(chosen[i].label if i in chosen else v for i, v in enumerate(outcome.values)), p)
    return {k: v for k, v in table.items() if not v.is_zero()}


def _event_probability(outcome, entry, chosen: dict, noises) -> ExpFrac | None:
    """The probability that the outcome's output i lies in the event chosen[i] for every real output
    i, or None when it cannot (a constant outside its event, or probability 0)."""
    extra = []
    for i, ev in chosen.items():
        v = outcome.values[i]
        if isinstance(v, LinForm) and not v.is_constant():
            extra += interval_atoms(v, ev)
        else:
            c = v.const if isinstance(v, LinForm) else v
            if c is None or not ev.contains(Fraction(c)):
                return None
    if not extra:
        return entry.probability
    p = ExpFrac.of(constraints_probability(list(outcome.constraints) + extra, noises))
    return None if p.is_zero() else entry.weight * p


def interval_atoms(form: LinForm, ev: EventInterval) -> list:
    """The atoms saying that the noisy value `form` lies in the interval `ev`."""
    out = []
    if ev.lo is not None:
        out.append(atom(form, ">=" if ev.lo_closed else ">", LinForm.constant(ev.lo)))
    if ev.hi is not None:
        out.append(atom(form, "<=" if ev.hi_closed else "<", LinForm.constant(ev.hi)))
    return out


class TableSource:
    """Exact output tables of one (sub-)program, cached per input; a kernel chain
    (shared prefixes) when the program has one and many inputs are wanted."""

    def __init__(self, program: ir.Program, events: dict, *, use_chain: bool, expected: int,
                 max_states: int = DEFAULT_MAX_STATES):
        self.program = program
        self.events = {k: v for k, v in events.items() if k in dict(program.outputs)}
        self.max_states = max_states
        self.names = tuple(program.input_names())
        finite_out = all(isinstance(t, (ir.BoolT, ir.DomT)) for _, t in program.outputs)
        self.chain = KernelChain.build(program, max_states) if use_chain and finite_out else None
        self.use_chain = self.chain is not None and expected >= CHAIN_THRESHOLD
        self.cache: dict = {}
        self.chains_built = 0
        self._point = None        # (r, the kernel chain at eps = ln r), for the tables at that point
        self.used: set = set()    # the tables a check asked for: its 'distributions', whichever process

    def key_of(self, env: dict) -> tuple:
        """The cache key of an input: its values of this (sub-)program's inputs, frozen."""
        return tuple(freeze_value(env[n]) for n in self.names)

    def __call__(self, env: dict) -> dict:
        return self._cached(self.key_of(env), env, self._table)

    def at_log(self, env: dict, r: Fraction) -> dict:
        """{output key: exact rational probability at eps = ln r} (a `UserError` where one is irrational)."""
        return self._cached((r,) + self.key_of(env), env, lambda sub: self._table_at_log(sub, r))

    def _cached(self, key: tuple, env: dict, make) -> dict:
        """The table cached under `key`, made by `make(env restricted to this program's inputs)` when
        first asked; every key asked is `used`."""
        self.used.add(key)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = make({n: env[n] for n in self.names})
        return found

    def _table(self, sub: dict) -> dict:
        if self.use_chain:
            return {k: v for k, v in self.chain.distribution(sub).items() if not v.is_zero()}
        dist = output_distribution(self.program, sub, max_states=self.max_states)
        if dist.method == "chain":  # the argmax integral builds no chain
            self.chains_built += 1
        return outcome_table(dist, self.events)

    def _table_at_log(self, sub: dict, r: Fraction) -> dict:
        if not self.use_chain:
            return {k: rational_at_log(v, r) for k, v in self(sub).items()}
        if self._point is None or self._point[0] != r:
            self._point = (r, self.chain.at_point(lambda f: rational_at_log(f, r)))
        return {k: v for k, v in self._point[1].distribution(sub).items() if v != 0}

    @property
    def markov_chains(self) -> int:
        return self.chains_built + (self.chain.kernel_chains_built if self.chain is not None else 0)

