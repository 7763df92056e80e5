"""Structure in a program that lets privacy checks scale: independent parts,
shared sub-chains and symmetric inputs.

One chain per input would cost 2^n chains for n clients; independent components,
kernel chains (blocks between finite cuts, prefixes shared in a trie) and symmetric
runs of commuting kernels cut that down, each proved from the program, never assumed.
Design: docs/design/program_structure.md.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass

from dipc_plus.semantics import ir
from dipc_plus.semantics.values import distinct, freeze_value
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES, DTMC
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.semantics.instructions import (assigned, compile_program, contains_exit, contains_while, liveness,
                                              stmts_read)
from dipc_plus.semantics.distribution import distribution_of_chain
from dipc_plus.exact.constraints import linked_groups
from dipc_plus.exact.sparse import accumulate

HALT = "__halted"


# --------------------------------------------------------------------------- reads and writes


def must_write(s) -> set:
    if isinstance(s, (ir.Assign, ir.Sample, ir.Compare)):
        return {s.target}
    if isinstance(s, ir.If):
        return set().union(*map(must_write, s.then)) & set().union(*map(must_write, s.other))
    return set()


def exposed_reads(stmts) -> set:
    """Variables a statement list may read before writing them: the live ones on entry."""
    return set(liveness(compile_program(tuple(stmts)), ())[0])


# --------------------------------------------------------------------------- independent components


@dataclass
class Component:
    """An independent part of a program: a sub-program over some inputs and outputs."""
    program: ir.Program
    inputs: tuple   # flat input names it reads
    outputs: tuple  # flat output names it writes


def _sub_program(program: ir.Program, body, inputs, outputs, name: str, extra_vars=None) -> ir.Program:
    variables = dict(program.variables)
    variables.update(extra_vars or {})
    return dataclasses.replace(program, name=name, body=tuple(body), inputs=tuple(inputs),
                               outputs=tuple(outputs), variables=variables)


def components(program: ir.Program) -> list[Component] | None:
    """The independent components of `program`, or None when it does not split."""
    body = program.body
    if contains_exit(body) or len(body) < 2:
        return None
    input_names = set(program.input_names())
    links: dict[int, list[int]] = {}   # statement -> itself and the earlier statements it depends on
    last: dict[str, int] = {}   # the latest statement that may write each variable
    for j, s in enumerate(body):
        written = assigned([s])
        # a statement that writes a variable on some of its paths only keeps its old value on the
        # others, so it depends on the earlier writers as a read does
        links[j] = sorted({j} | {last[v] for v in (exposed_reads([s]) - input_names) | (written - must_write(s))
                                 if v in last})
        last.update(dict.fromkeys(written, j))
    groups = linked_groups(links)
    group_of = {j: k for k, idx in enumerate(groups) for j in idx}
    out_owner = {o: group_of[last[o]] for o in program.output_names() if o in last}
    comps = []
    for k, idx in enumerate(groups):
        outs = [o for o in program.output_names() if out_owner.get(o) == k]
        stmts = [body[j] for j in idx]
        if not outs:
            if contains_while(stmts):
                return None  # a loop's termination mass would be lost by dropping it
            continue
        read = stmts_read(stmts)
        ins = [(n, t) for n, t in program.inputs if n in read]
        outs_t = [(n, t) for n, t in program.outputs if n in outs]
        sub = _sub_program(program, stmts, ins, outs_t, f"{program.name}#{len(comps) + 1}")
        comps.append(Component(sub, tuple(n for n, _ in ins), tuple(outs)))
    if len(comps) < 2:
        return None
    return comps


# --------------------------------------------------------------------------- IR renaming (shape keys)


def _replace_exits(stmts) -> tuple:
    out = []
    for s in stmts:
        if isinstance(s, ir.Exit):
            out.append(ir.Assign(HALT, ir.Const(True), s.pos))
            out.append(s)
        elif isinstance(s, ir.If):
            out.append(dataclasses.replace(s, then=_replace_exits(s.then), other=_replace_exits(s.other)))
        elif isinstance(s, ir.While):
            out.append(dataclasses.replace(s, body=_replace_exits(s.body)))
        else:
            out.append(s)
    return tuple(out)


# --------------------------------------------------------------------------- kernel chains


@dataclass
class Block:
    stmts: tuple
    inputs: tuple     # program inputs the block reads (flat names, program order)
    live_in: tuple    # state variables before the block
    live_out: tuple   # state variables after it
    shape: object = None  # statements with the inputs renamed, positions erased
    program: ir.Program | None = None


@dataclass
class SymmetricRun:
    """Input positions whose values may be permuted without changing the output distribution."""
    inputs: tuple      # flat input names, one per block of the run
    values: tuple      # the input values the commutation was checked for

    def __str__(self) -> str:
        return f"permutations of ({', '.join(self.inputs)})"


class KernelChain:
    """The program as a chain of finite kernels (see the module doc); `build` returns None
    when it has fewer than two blocks."""

    def __init__(self, program: ir.Program, blocks: list[Block], has_exit: bool,
                 max_states: int = DEFAULT_MAX_STATES):
        self.program = program
        self.blocks = blocks
        self.has_exit = has_exit
        self.max_states = max_states
        self.types = program.variables
        self.outputs = tuple(program.output_names())
        self._rows: dict = {}
        self._trie: dict = {}
        self.kernel_chains_built = 0
        self.transform = None      # maps each kernel entry (an ExpFrac) to a number, see at_point
        self._base = None

    def at_point(self, transform) -> "KernelChain":
        """The same chain with every kernel entry mapped by `transform` (e.g. its exact rational
        value at eps = ln 2), so pushing distributions through it is plain rational arithmetic."""
        other = KernelChain(self.program, self.blocks, self.has_exit, self.max_states)
        other.transform = transform
        other._base = self
        return other

    # -- construction ------------------------------------------------------------------
    @staticmethod
    def build(program: ir.Program, max_states: int = DEFAULT_MAX_STATES) -> "KernelChain | None":
        body = program.body
        if len(body) < 2:
            return None
        inputs = set(program.input_names())
        outputs = program.output_names()
        starts = [len(compile_program(body[:j])) - 1 for j in range(len(body) + 1)]
        code = compile_program(body)
        live = liveness(code, outputs)
        order = {v: i for i, v in enumerate(program.variables)}

        def live_at(j):
            if j == len(body):
                return tuple(outputs)
            names = [v for v in live[starts[j]] if v not in inputs]
            return tuple(sorted(names, key=lambda v: order.get(v, len(order))))

        cuts = [0]     # where every live variable is finite (Bool/DOM), so a kernel's state is a finite tuple
        for j in range(1, len(body)):
            if all(isinstance(program.variables.get(v), (ir.BoolT, ir.DomT)) for v in live_at(j)):
                cuts.append(j)
        cuts.append(len(body))
        pieces = [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]
        # pieces that read no input join the previous one; leading ones form a prefix block
        merged: list[list[int]] = []
        for a, b in pieces:
            if merged and not stmts_read(body[a:b]) & inputs:
                merged[-1][1] = b
            else:
                merged.append([a, b])
        blocks = []
        for a, b in merged:
            stmts = body[a:b]
            read = stmts_read(stmts)
            ins = tuple(n for n in program.input_names() if n in read)
            rename = {x: f"__x{i}" for i, x in enumerate(ins)}
            blocks.append(Block(stmts, ins, live_at(a), live_at(b), shape=(ir.renamed(stmts, rename),
                                                                            live_at(a), live_at(b))))
        if sum(1 for blk in blocks if blk.inputs) < 2:
            return None  # one block reads every input: nothing to share
        has_exit = contains_exit(body)
        chain = KernelChain(program, blocks, has_exit, max_states)
        for k, blk in enumerate(blocks):
            blk.program = chain._block_program(k, blk)
        return chain

    def _block_program(self, k: int, blk: Block) -> ir.Program:
        p = self.program
        types = p.variables
        ins = [(v, types[v]) for v in blk.live_in] + [(x, dict(p.inputs)[x]) for x in blk.inputs]
        outs = [(v, types[v]) for v in blk.live_out]
        stmts = blk.stmts
        extra = {}
        if self.has_exit:
            stmts = (ir.Assign(HALT, ir.Const(False), ir.NOWHERE),) + _replace_exits(stmts)
            outs.append((HALT, ir.BoolT()))
            extra[HALT] = ir.BoolT()
            # after an exit the outputs are read as they are: keep them in the state
            for o in self.outputs:
                if o not in blk.live_out:
                    outs.append((o, types[o]))
        return _sub_program(p, stmts, ins, outs, f"{p.name}@block{k + 1}", extra)

    # -- kernels -----------------------------------------------------------------------------
    def row(self, k: int, xs: tuple, state: tuple) -> dict:
        """{next state: probability} from `state` through block k with its inputs = xs."""
        key = (self.blocks[k].shape, xs, state)
        found = self._rows.get(key)
        if found is None:
            found = self._rows[key] = self._row(k, xs, state)
        return found

    def _row(self, k: int, xs: tuple, state: tuple) -> dict:
        if self._base is not None:
            return {t: self.transform(p) for t, p in self._base.row(k, xs, state).items()}
        blk = self.blocks[k]
        if state and state[0] == HALT:
            return {state: ExpFrac.of(1)}
        env = dict(zip(blk.live_in, state))
        env.update(zip(blk.inputs, xs))
        chain = DTMC(blk.program, env, max_states=self.max_states)
        self.kernel_chains_built += 1
        dist = distribution_of_chain(chain)
        found = {}
        for outcome, p in dist.items():
            values = dict(zip(dist.names, outcome.values))
            if self.has_exit and values.get(HALT):
                nxt = (HALT,) + tuple(values.get(o) for o in self.outputs)
            else:
                nxt = tuple(values[v] for v in blk.live_out)
            accumulate(found, nxt, p)
        return found

    def _step(self, k: int, xs: tuple, before: dict) -> dict:
        after: dict = {}
        for state, p in before.items():
            for nxt, q in self.row(k, xs, state).items():
                accumulate(after, nxt, p * q)
        return after

    def state_after(self, k: int, env: dict) -> dict:
        """The state distribution after blocks 0..k at the input env (shared prefixes cached)."""
        key = tuple(tuple(env[x] for x in self.blocks[j].inputs) for j in range(k + 1))
        found = self._trie.get(key)
        if found is not None:
            return found
        one = ExpFrac.of(1) if self.transform is None else self.transform(ExpFrac.of(1))
        before = {(): one} if k == 0 else self.state_after(k - 1, env)
        found = self._step(k, key[-1], before)
        self._trie[key] = found
        return found

    def distribution(self, env: dict) -> dict:
        """{tuple of output values (program order): probability} at the flat input env."""
        final = self.state_after(len(self.blocks) - 1, env)
        last = self.blocks[-1]
        out: dict = {}
        for state, p in final.items():
            if state and state[0] == HALT:
                values = state[1:]
            else:
                named = dict(zip(last.live_out, state))
                values = tuple(named[o] for o in self.outputs)
            accumulate(out, values, p)
        return out

    # -- symmetry ------------------------------------------------------------------------------
    def symmetric_runs(self, points) -> list[SymmetricRun]:
        """Runs of blocks whose inputs may be permuted (proved by exact commutation of kernels
        on every reachable state, for the input values that occur in `points`: a list of flat
        environments, or a grid {flat name: values})."""
        runs = []
        blocks = self.blocks
        k = 0
        while k < len(blocks):
            b = blocks[k]
            if len(b.inputs) != 1 or b.live_in != b.live_out:
                k += 1
                continue
            end = k + 1
            t0 = dict(self.program.inputs)[b.inputs[0]]
            while (end < len(blocks) and blocks[end].shape == b.shape and len(blocks[end].inputs) == 1
                   and dict(self.program.inputs)[blocks[end].inputs[0]] == t0):
                end += 1
            if end - k >= 2:
                run = self._check_run(k, end, points)
                if run is not None:
                    runs.append(run)
            k = end
        return runs

    def _check_run(self, start: int, end: int, points: list[dict]) -> SymmetricRun | None:
        names = tuple(self.blocks[j].inputs[0] for j in range(start, end))
        before = [x for j in range(start) for x in self.blocks[j].inputs]
        grid = isinstance(points, dict)
        values = distinct([v for x in names for v in points[x]] if grid else [u[x] for u in points for x in names],
                          key=freeze_value)
        if grid:
            if math.prod(len(points[x]) for x in before) > 4096:
                return None
            prefixes = [dict(zip(before, c)) for c in itertools.product(*(points[x] for x in before))]
        else:
            prefixes = points
        def prefix(u):
            return tuple(tuple(u[x] for x in self.blocks[j].inputs) for j in range(start))

        # states at the start of the run, over every prefix of the given points
        reach: set = set()
        for u in distinct(prefixes, key=prefix):
            reach |= set(self.state_after(start - 1, u)) if start else {()}
        # a transposition of blocks j, j+1 (start <= j < end - 1) acts on the states before block j
        layer = set(reach)
        check = set(layer)
        for _ in range(end - start - 2):
            nxt_layer = set()
            for s in layer:
                for a in values:
                    nxt_layer |= set(self.row(start, (a,), s))
            layer = nxt_layer - check
            check |= nxt_layer
        for s in check:
            for a, b in itertools.combinations(values, 2):
                ab = self._step(start, (b,), self.row(start, (a,), s))
                ba = self._step(start, (a,), self.row(start, (b,), s))
                if set(ab) != set(ba) or any(ab[t] != ba[t] for t in ab):
                    return None
        return SymmetricRun(names, tuple(values))
