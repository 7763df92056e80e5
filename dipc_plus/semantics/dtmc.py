"""The finite parametric DTMC of a program at one concrete input (Theorem 10).

Variables hold linear forms over noises and a state keeps the ordering constraints its
path has taken, so the chain is exact and finite; dead variables are forgotten, spent
constraint components dropped into edge factors, and expansions replayed across inputs.
Over 700 lines because the chain and its builder share one state representation.
Design: docs/design/markov_chain.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from dipc_plus.execution.lazy import lazy_import

nx = lazy_import("networkx")   # for cyclic chains only (see digraph.py)

from dipc_plus.semantics import evaluate, ir
from dipc_plus.semantics.digraph import Digraph
from dipc_plus.semantics.identity_cache import by_identity
from dipc_plus.semantics.values import show_env
from dipc_plus.exact import noises
from dipc_plus.exact.linear import LinForm, Noise, atom, negate
from dipc_plus.exact.constraints import probability as constraints_probability
from dipc_plus.errors import ResourceLimit, UserError
from dipc_plus.exact.expoly import FRAC_ONE as ONE, ExpFrac
from dipc_plus.semantics.instructions import assigned, compiled, describe_instr, reads
from dipc_plus.semantics.pretty import format_atom, format_linform, format_noise  # one printer for programs and chains
from dipc_plus.semantics.transitions import memo_for
from dipc_plus.semantics.walk import assigned_value, linear_value
from dipc_plus.semantics.weight_check import checked_weights

EXIT = -1
DEFAULT_MAX_STATES = 200_000
_MAX_DETERMINISTIC_STEPS = 1_000_000


_CONSTANT_PARTS: dict = {}


def _lin_parts(lin: ir.Lin, env: dict, program: ir.Program, pos) -> tuple:
    """lin_value_parts, remembered for forms whose coefficients read no variable (most of them;
    None is remembered for the others)."""
    def constant_parts():
        return None if reads([c for c, _ in lin.terms] + [lin.const]) else evaluate.lin_value_parts(lin, env, program, pos)
    parts = by_identity(_CONSTANT_PARTS, (lin, program), constant_parts, limit=100_000)
    return parts if parts is not None else evaluate.lin_value_parts(lin, env, program, pos)


# --------------------------------------------------------------------------- states


class State(NamedTuple):
    """A canonical, hashable DTMC state (see the module docstring)."""
    pc: int
    env: tuple
    reals: tuple
    constraints: frozenset
    serial: int = 0  # only non-zero when merging is switched off (a tree of paths)


@dataclass(slots=True)
class _Work:
    """A mutable copy of a state while statements execute on an edge."""
    pc: int
    env: list
    reals: dict
    comps: list

    def copy(self, comps: list | None = None) -> "_Work":
        """An independent copy, with `comps` as its components when given."""
        return _Work(self.pc, list(self.env), dict(self.reals), list(self.comps if comps is None else comps))


@dataclass(slots=True)
class _Recording:
    """What an expansion did besides computing its successors, so a replay can do it too: the real
    inputs it read (names, in order, repeats allowed), the noises it declared and the constraint
    probabilities it stored."""
    reads: list = field(default_factory=list)
    noises: list = field(default_factory=list)
    probs: list = field(default_factory=list)


@dataclass
class BuildStats:
    states: int = 0
    edges: int = 0
    exits: int = 0
    dropped_components: int = 0
    merged: int = 0  # edges that reached an already known state


# --------------------------------------------------------------------------- the chain


class DTMC:
    """The chain of `program` at `inputs` (flat names -> values, see inputs.bind_inputs).

    ``graph`` is a `digraph.Digraph` (the interface of a networkx.DiGraph) on integer
    nodes; node attribute ``state`` (a `State`) and ``components`` (the constraint
    components), edge attribute ``factor`` (an ExpFrac, see the module docstring).  ``initial`` is the
    initial node, ``exits`` the exit nodes in order of discovery.
    """

    def __init__(self, program: ir.Program, inputs: dict, *, max_states: int = DEFAULT_MAX_STATES,
                 compress: bool = True, merge: bool = True, drop: bool = True):
        self.program = program
        self.inputs = dict(inputs)
        self.max_states = max_states
        self.compress = compress
        self.merge = merge
        self.outputs = program.output_names()
        self.code, live = compiled(program.body, self.outputs)
        self.live = live if drop else None
        self.exit_live = frozenset(self.outputs)
        self.finite_vars = [v for v, t in program.variables.items() if isinstance(t, (ir.BoolT, ir.DomT))]
        self.finite_index = {v: i for i, v in enumerate(self.finite_vars)}
        self.noises: dict[int, Noise] = {}
        self._comp_prob: dict[frozenset, ExpFrac] = {}
        self._comp_noises: dict[frozenset, frozenset] = {}
        # real inputs no statement assigns: the only part of a state that differs between inputs
        # without being read, so the successor memo (semantics.transitions) leaves them out
        written = assigned(program.body)
        self._input_reals = frozenset(name for name, typ in program.inputs
                                      if isinstance(typ, (ir.RealT, ir.IntT)) and name not in written)
        self._input_forms: dict = {}
        self._live_inputs: dict = {}
        self._memo = memo_for(program, self.code) if compress and merge and drop else None
        self._recording: _Recording | None = None
        self.graph = Digraph()
        self.stats = BuildStats()
        self._index: dict[State, int] = {}
        self._serial = 0
        self.initial = -1
        self.exits: list[int] = []
        self._build()
        self._check_termination()
        self.stats.states = self.graph.number_of_nodes()
        self.stats.edges = self.graph.number_of_edges()
        self.stats.exits = len(self.exits)

    # ----------------------------------------------------------------- probabilities

    def component_noises(self, comp: frozenset) -> frozenset:
        return _cached(self._comp_noises, comp, lambda: frozenset().union(*(a.noises() for a in comp)))

    def component_probability(self, comp: frozenset) -> ExpFrac:
        return _cached(self._comp_prob, comp, lambda: ExpFrac.of(constraints_probability(comp, self.noises)))

    def constraint_probability(self, node: int) -> ExpFrac:
        """P[C] for the constraints of a node (1 when it has none)."""
        data = self.graph.nodes[node]
        return _cached(data, "pc_prob",
                       lambda: math.prod(map(self.component_probability, data["components"]), start=ONE))

    def edge_probability(self, u: int, v: int) -> ExpFrac:
        """The transition probability u -> v (a quotient: only for display, export and checks)."""
        data = self.graph.edges[u, v]
        return _cached(data, "prob",
                       lambda: data["factor"] * self.constraint_probability(v) / self.constraint_probability(u))

    # ----------------------------------------------------------------- evaluation helpers

    def _env_dict(self, work: _Work) -> dict:
        return {name: value for name, value in zip(self.finite_vars, work.env) if value is not None}

    def _lin(self, lin: ir.Lin, work: _Work, env: dict, pos) -> LinForm:
        """The symbolic value of a linear expression: sum coef * definition + const."""
        coefs, const = _lin_parts(lin, env, self.program, pos)
        total = linear_value(coefs, const, work.reals, pos)
        if self._recording is not None:
            self._recording.reads.extend(var for var in coefs if var in self._input_reals)
        return total

    def _set(self, work: _Work, s, value) -> _Work:
        """Store a Bool/DOM value in the statement's target (checked against its type) and go on."""
        idx = self.finite_index.get(s.target)
        if idx is None:
            raise UserError.at(s.pos, f"'{s.target}' is not a Bool or DOM variable")
        work.env[idx] = evaluate.fit(value, self.program.variables[s.target], s.pos,
                                     f"the value assigned to '{s.target}'")
        work.pc += 1
        return work

    # ----------------------------------------------------------------- one instruction

    def _step(self, work: _Work, branch_ok: bool):
        """Execute the instruction at work.pc.

        Returns a list of (factor, work') — for a deterministic step the single
        entry is (ONE, work) with `work` updated in place — or None when the
        instruction is a genuine random choice and `branch_ok` is False.
        """
        instr = self.code[work.pc]
        op = instr.op
        s = instr.stmt
        if op == "sample":
            return self._sample(work, s, branch_ok)
        if op == "compare":
            return self._compare(work, s, branch_ok)
        if op == "jump":
            work.pc = instr.target
        elif op == "branch":
            value = evaluate.eval_condition(instr.cond, self._env_dict(work), self.program, s.pos)
            work.pc = work.pc + 1 if value else instr.target
        elif op == "assign":
            env = self._env_dict(work)
            value = assigned_value(self.program, s, env, lambda e: self._lin(e, work, env, s.pos), linear_only=True)
            if isinstance(value, LinForm):
                work.reals[s.target] = value
                work.pc += 1
            else:
                self._set(work, s, value)
        else:
            raise AssertionError(f"step at {op}")
        return [(ONE, work)]

    def _sample(self, work: _Work, s: ir.Sample, branch_ok: bool):
        d = s.dist
        if isinstance(d, ir.NoiseSample):
            env = self._env_dict(work)
            mean = self._lin(d.mean, work, env, s.pos)
            spec = noises.by_kind(d.kind)
            if spec.value_type == "int" and (mean.const.denominator != 1
                                             or any(c.denominator != 1 for _, c in mean.coeffs)):
                raise UserError.at(s.pos, f"the mean of {spec.surface} is {mean}, not an integer",
                                   hint=f"a {spec.title} sample needs an integer mean")
            nid = work.pc
            self.noises[nid] = Noise(d.kind, Fraction(d.rate))
            if self._recording is not None:
                self._recording.noises.append((nid, self.noises[nid]))
            work.reals[s.target] = mean + LinForm.symbol(nid)
            work.pc += 1
            return [(ONE, work)]
        outcomes = self._finite_outcomes(work, s)
        if len(outcomes) == 1:
            return [(ONE, self._set(work, s, outcomes[0][0]))]
        if not branch_ok:
            return None
        return [(p, self._set(work.copy(), s, value)) for value, p in outcomes]

    def _finite_outcomes(self, work: _Work, s: ir.Sample) -> list:
        """(value, exact probability > 0) of an Exp or choose draw."""
        from dipc_plus.exact import weights
        env = self._env_dict(work)
        d = s.dist
        try:
            if isinstance(d, ir.ExpMech):
                typ = self.program.variables[s.target]
                candidates = evaluate.domain_values(typ)
                scores = evaluate.expmech_scores(d, candidates, env, self.program, s.pos)
                probs = weights.exp_mechanism(Fraction(d.rate), dict(scores))
            else:   # an ir.Choose: noise draws (ir.NoiseSample) never come here (see _sample)
                probs = weights.normalise(dict(checked_weights(d, env, self.program, s.pos)))
        except ValueError as exc:
            raise UserError.at(s.pos, str(exc)) from None
        except UserError as exc:
            if exc.line is None:
                exc.file, exc.line, exc.column = s.pos.file, s.pos.line, s.pos.column
            raise
        # exp_mechanism and normalise both give {value: probability}
        out = [(value, p) for value, p in zip(probs, map(ExpFrac.of, probs.values())) if not p.is_zero()]
        if not out:
            raise UserError.at(s.pos, "every outcome of this draw has probability 0")
        return out

    def _compare(self, work: _Work, s: ir.Compare, branch_ok: bool):
        env = self._env_dict(work)
        a = atom(self._lin(s.lhs, work, env, s.pos), s.op, self._lin(s.rhs, work, env, s.pos))
        if a.form.is_constant():
            return [(ONE, self._set(work, s, a.holds_constant()))]
        na = negate(a)
        ids = a.noises()
        touched = [c for c in work.comps if self.component_noises(c) & ids]
        merged = frozenset().union(*touched)
        if a in merged:
            return [(ONE, self._set(work, s, True))]
        if na in merged:
            return [(ONE, self._set(work, s, False))]
        base = math.prod(map(self.component_probability, touched), start=ONE)
        both = self.component_probability(merged | {a})
        if both.is_zero():
            return [(ONE, self._set(work, s, False))]
        if both == base:
            return [(ONE, self._set(work, s, True))]
        if not branch_ok:
            return None
        with_a = merged | {a}
        with_na = merged | {na}
        if with_na not in self._comp_prob:
            self._comp_prob[with_na] = base - both  # no gcd when both are polynomials (ExpFrac.__add__)
        if self._recording is not None:
            self._recording.probs += ((with_a, both), (with_na, self._comp_prob[with_na]))
        rest = [c for c in work.comps if not (self.component_noises(c) & ids)]
        return [(ONE, self._set(work.copy(rest + [comp]), s, value))
                for value, comp in ((True, with_a), (False, with_na))]

    def _advance(self, work: _Work, certain: bool = False) -> _Work:
        """Run deterministic instructions until a random choice or an exit (compressed chains).

        A deterministic run that comes back to a loop test with the same values
        loops forever: on every run when it starts at the initial state
        (`certain`), otherwise on the runs that reach this point.
        """
        seen: set = set()
        steps = 0
        while True:
            instr = self.code[work.pc]
            if instr.op == "exit":
                return work
            if instr.loop_head:
                key = (work.pc, tuple(work.env))
                if key in seen:
                    raise self._nontermination(instr.stmt, certain=certain)
                seen.add(key)
            steps += 1
            if steps > _MAX_DETERMINISTIC_STEPS:  # pragma: no cover - guarded by `seen`
                raise self._nontermination(instr.stmt, certain=certain)
            if self._step(work, branch_ok=False) is None:
                return work

    # ----------------------------------------------------------------- canonical states

    def _canon(self, work: _Work) -> tuple[State, tuple, ExpFrac]:
        """(state, its constraint components, factor of the components dropped here)."""
        pc = EXIT if self.code[work.pc].op == "exit" else work.pc
        live = self._live_at(pc)
        env = tuple(v if live is None or name in live else None for name, v in zip(self.finite_vars, work.env))
        reals = tuple(sorted((n, f) for n, f in work.reals.items() if live is None or n in live))
        live_noises = {i for _, f in reals for i, _ in f.coeffs}
        dropped = [] if live is None else [c for c in work.comps if not self.component_noises(c) & live_noises]
        kept = sorted((c for c in work.comps if c not in dropped), key=_comp_key)
        self.stats.dropped_components += len(dropped)
        factor = math.prod(map(self.component_probability, dropped), start=ONE)
        return State(pc, env, reals, frozenset().union(*kept)), tuple(kept), factor

    def _live_at(self, pc: int) -> frozenset | None:
        """The variables a state at `pc` keeps (at EXIT the outputs); None: every one (drop=False)."""
        if self.live is None:
            return None
        return self.exit_live if pc == EXIT else self.live[pc]

    def _intern(self, state: State, comps: tuple) -> tuple[int, bool]:
        if not self.merge:
            self._serial += 1
            state = state._replace(serial=self._serial)
        node = self._index.get(state)
        if node is not None:
            return node, False
        node = len(self._index)
        if node >= self.max_states:
            raise ResourceLimit(
                f"the Markov chain of {self.program.name} has more than {self.max_states} states",
                hint="raise the limit with --max-states N (memory and time grow with it), "
                     "or use smaller parameters")
        self._index[state] = node
        self.graph.add_node(node, state=state, components=comps)
        if state.pc == EXIT:
            self.exits.append(node)
        return node, True

    def _initial_work(self) -> _Work:
        env = [None] * len(self.finite_vars)
        reals = {}
        for name, typ in self.program.inputs:
            value = self.inputs[name]
            if isinstance(typ, (ir.RealT, ir.IntT)):
                reals[name] = LinForm.constant(Fraction(value))
                if name in self._input_reals:
                    self._input_forms[name] = reals[name]
            else:
                env[self.finite_index[name]] = value
        return _Work(0, env, reals, [])

    def _build(self) -> None:
        work = self._initial_work()   # the start is remembered too, keyed by the finite inputs
        # nothing to drop at the start: no constraints yet
        [(_, state, comps)] = self._remembered(("start", tuple(work.env)),
                                               lambda: [self._settle(ONE, work, certain=True)])
        self.initial, _ = self._intern(state, comps)
        stack = [self.initial]
        while stack:
            node = stack.pop()
            data = self.graph.nodes[node]
            state = data["state"]
            if state.pc == EXIT:
                continue
            for f, cstate, ccomps in self._successors(state, data["components"]):
                target, new = self._intern(cstate, ccomps)
                if self.graph.has_edge(node, target):
                    self.graph.edges[node, target]["factor"] = self.graph.edges[node, target]["factor"] + f
                else:
                    self.graph.add_edge(node, target, factor=f)
                if new:
                    stack.append(target)
                else:
                    self.stats.merged += 1


    def _settle(self, factor: ExpFrac, work: _Work, certain: bool = False) -> tuple:
        """(factor, state, components) of `work` run up to its next random choice (on
        compressed chains), the components it no longer needs dropped into the factor."""
        if self.compress:
            self._advance(work, certain)
        state, comps, dropped = self._canon(work)
        return factor * dropped, state, comps

    def _successors(self, state: State, comps: tuple) -> list:
        """[(factor, state, its components)] one random choice from `state`
        (then the deterministic statements up to the next one, on compressed chains), remembered
        across the chains of this program at other inputs (semantics.transitions): a remembered
        expansion is replayed with this input's values."""
        def expand() -> list:
            work = _Work(state.pc, list(state.env), dict(state.reals), list(comps))
            return [self._settle(factor, child) for factor, child in self._step(work, branch_ok=True)]
        return self._remembered(self._without_inputs(state), expand)

    def _remembered(self, key, expand) -> list:
        """expand(), or its replay when the memo has it for this key and these input values."""
        if self._memo is None:
            return expand()
        found = self._memo.find(key, self._input_value)
        if found is not None:
            return self._replay(found)
        self._recording = recording = _Recording()
        dropped_before = self.stats.dropped_components
        try:
            out = expand()
        finally:
            self._recording = None
        reads = [(name, self._input_value(name)) for name in dict.fromkeys(recording.reads)]
        self._memo.add(key, reads, (tuple(recording.noises), tuple(recording.probs),
                                    self.stats.dropped_components - dropped_before,
                                    tuple((f, self._without_inputs(s), c) for f, s, c in out)))
        return out

    def _replay(self, expansion) -> list:
        """A remembered expansion, done again in this chain with this input's real inputs."""
        noises, probs, dropped, outcomes = expansion
        self.noises.update(noises)
        self._comp_prob.update(probs)
        self.stats.dropped_components += dropped
        return [(f, self._with_inputs(s), c) for f, s, c in outcomes]

    def _input_value(self, name: str):
        return self._input_forms[name].const

    def _without_inputs(self, state: State) -> State:
        """The state without the real inputs no statement assigns (a memo key, a remembered state)."""
        reals = tuple(r for r in state.reals if r[0] not in self._input_reals)
        return state if len(reals) == len(state.reals) else state._replace(reals=reals)

    def _with_inputs(self, state: State) -> State:
        """A state of `_without_inputs` with this input's live real inputs back (as `_canon` has them)."""
        names = _cached(self._live_inputs, state.pc,
                        lambda: tuple(n for n in self._input_reals if n in self._live_at(state.pc)))
        if not names:
            return state
        reals = state.reals + tuple((n, self._input_forms[n]) for n in names)
        return state._replace(reals=tuple(sorted(reals, key=_name)))

    # ----------------------------------------------------------------- termination

    def _nontermination(self, stmt, certain: bool) -> UserError:
        what = "never terminates" if certain else "may not terminate (with positive probability it loops forever)"
        shown = show_env(self.inputs, braces=False, empty="(none)")
        return UserError.at(getattr(stmt, "pos", None), f"{self.program.name} {what} on the input {shown}",
                            hint="every run must end with probability 1: make sure the loop condition can become false")

    def _check_termination(self) -> None:
        """A reachable bottom SCC that is not an exit state means runs that never end (an exit state
        has no successors, so it is an SCC of its own, and every other state has a statement)."""
        g = self.graph
        if all(g.out_degree(u) or g.nodes[u]["state"].pc == EXIT for u in g) and g.topological_order() is not None:
            return  # every bottom SCC of an acyclic graph is a sink, and every sink is an exit
        cond = nx.condensation(g.to_networkx())
        for c in cond.nodes:
            pc = g.nodes[min(cond.nodes[c]["members"])]["state"].pc
            if cond.out_degree(c) == 0 and pc != EXIT:
                raise self._nontermination(self._enclosing_loop(pc), certain=False)

    def _enclosing_loop(self, pc: int):
        """The innermost loop around `pc` (the last enclosing head), else pc's own statement."""
        heads = [instr.stmt for head, instr in enumerate(self.code) if instr.loop_head and head <= pc < instr.target]
        return heads[-1] if heads else self.code[pc].stmt

    # ----------------------------------------------------------------- description

    def outputs_at(self, node: int) -> tuple:
        """The outputs at an exit node, in output order: a real output's LinForm, a finite one's value."""
        st: State = self.graph.nodes[node]["state"]
        env, reals = dict(zip(self.finite_vars, st.env)), dict(st.reals)
        return tuple(reals[n] if n in reals else env.get(n) for n in self.outputs)

    def describe(self, node: int) -> str:
        """A few lines: position, Bool/DOM values, real definitions, constraints."""
        st: State = self.graph.nodes[node]["state"]
        lines = []
        if st.pc == EXIT:
            lines.append("exit")
        else:
            instr = self.code[st.pc]
            pos = getattr(instr.stmt, "pos", None)
            lines.append(f"pc {st.pc}: {describe_instr(instr)}" + (f"  (line {pos.line})" if pos else ""))
        env = show_env({n: v for n, v in zip(self.finite_vars, st.env) if v is not None}, braces=False)
        if env:
            lines.append(env)
        if st.reals:
            lines.append(", ".join(f"{n} = {format_linform(f)}" for n, f in st.reals))
        if st.constraints:
            lines.append(" and ".join(format_atom(a) for a in sorted(st.constraints)))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<DTMC of {self.program.name}: {self.stats.states} states, {self.stats.edges} transitions, "
                f"{self.stats.exits} exits>")

    def __str__(self) -> str:
        """Every state (up to 200) with its description and exact outgoing probabilities."""
        lines = [repr(self)]
        for u in sorted(self.graph.nodes)[:200]:
            tag = " (initial)" if u == self.initial else ""
            lines.append(f"s{u}{tag}: " + self.describe(u).replace("\n", "\n    "))
            for v in sorted(self.graph.succ[u]):
                lines.append(f"    -> s{v} with {self.edge_probability(u, v)}")
        if self.stats.states > 200:
            lines.append(f"... {self.stats.states - 200} more states")
        if self.noises:
            lines.append("noises: " + ", ".join(format_noise(i, self.noises[i]) for i in sorted(self.noises)))
        return "\n".join(lines)


def _cached(table: dict, key, make):
    """table[key], made by make() and stored there the first time it is asked for."""
    found = table.get(key)
    if found is None:
        found = table[key] = make()
    return found


def _name(item: tuple) -> str:
    return item[0]


def _comp_key(comp: frozenset):
    return tuple(sorted(comp))
