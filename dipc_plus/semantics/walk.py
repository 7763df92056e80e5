"""One walk of a lowered program over symbolic states, a path split wherever a comparison is open.

Four uses read a program with some values unknown: the noise-free program over symbolic
inputs (`claims.noise_free`), the monotonicity signs of the corner reduction
(`accuracy.monotone`), the atom sets of `prob --symbolic` (`semantics.symbolic_chain`) and the
whitelist of the density-ratio bound (`privacy.dp.density_ratio`). They share this walk:
Bool/DOM values are computed, Real/Int values are `LinForm`s, and a *domain* object says what
a sample is and which outcomes a comparison can have on a path (with what the path then
remembers: a condition, oriented half-spaces, atoms); the density-ratio domain reads values
of its own and leaves conditions undecided, and the walk then runs both branches.
"""
from __future__ import annotations

from dipc_plus.errors import UserError
from dipc_plus.exact.linear import LinForm, holds
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import eval_assign, eval_condition, lin_value_parts, read_before_assigned
from dipc_plus.semantics.values import freeze_env


class PathState:
    """One path so far: Bool/DOM values (`env`), Real/Int values as forms (`reals`), and what the
    domain keeps about the path (`facts`, immutable: a fork shares them)."""
    __slots__ = ("env", "reals", "facts")

    def __init__(self, env: dict, reals: dict, facts):
        self.env, self.reals, self.facts = env, reals, facts

    def fork(self, facts) -> "PathState":
        return PathState(dict(self.env), dict(self.reals), facts)


class Domain:
    """What one use of the walk says: subclasses give `sample` and `split`; a domain with values
    of its own (the density-ratio whitelist) also reads assignments, comparisons and conditions."""

    def sample(self, walk: "Walk", s: ir.Sample, st: PathState) -> None:
        raise NotImplementedError

    def split(self, st: PathState, form: LinForm, op: str) -> list:
        """[(truth of 'form op 0', the path's facts then)] for every outcome the path can take."""
        raise NotImplementedError

    def assign(self, walk: "Walk", s: ir.Assign, st: PathState) -> None:
        walk.assign(s, st)

    def compare(self, walk: "Walk", s: ir.Compare, st: PathState) -> list:
        return walk.compare(s, st)

    def condition(self, walk: "Walk", s: ir.If, st: PathState) -> bool | None:
        """The truth of an `if` condition on the path; None: not known there, both branches run."""
        return walk.test(s, st, "if")

    def enter_loop(self, s: ir.While) -> None:
        """Called at every `while`: a domain that has not made its argument for loops raises."""

    def loop_key(self, st: PathState):
        """What must differ between two visits of a loop head on one path for it to terminate."""
        return freeze_env(st.env)

    def loop_repeats(self, s: ir.While) -> Exception:
        return UserError.at(s.pos, "this loop comes back to the same state, so it never ends")

    def too_many(self, limit: int, pos=None) -> Exception:
        """The error for more than `limit` paths, at the statement (`pos`) that made one too many."""
        return UserError(f"the program has more than {limit} paths")


def linear_value(coefs: dict, const, reals: dict, pos) -> LinForm:
    """sum c * reals[v] + const: a linear expression's value over the real variables' forms
    (the one reading for every walk and the chain builder)."""
    total = LinForm.constant(const)
    for name, c in coefs.items():
        form = reals.get(name)
        if form is None:
            raise read_before_assigned(pos, name)
        total = total + form.scale(c)
    return total


def assigned_value(program: ir.Program, s: ir.Assign, env: dict, lin, *, linear_only: bool):
    """The value an assignment stores, one rule for the walks and the chain: a Bool/DOM value
    checked against the target's type, or a Real/Int target's `LinForm` (`lin` reads a linear
    expression).  A Real/Int expression that is not linear is refused with `linear_only` (the
    chain, whose forms range over noises) and stored as its constant value otherwise."""
    typ = program.variables[s.target]
    if not isinstance(typ, (ir.RealT, ir.IntT)):
        return eval_assign(s, env, program)
    if isinstance(s.expr, ir.Lin):
        return lin(s.expr)
    if linear_only:
        raise UserError.at(s.pos, f"'{s.target}' is {typ}: it needs a linear expression")
    return LinForm.constant(eval_assign(s, env, program))


class Walk:
    """Walks `program` for a `domain`; `run(start)` gives the states at its end (fall-through,
    then exited), failing once more than `max_paths` paths are live."""

    def __init__(self, program: ir.Program, domain: Domain, max_paths: int):
        self.program = program
        self.domain = domain
        self.max_paths = max_paths
        self.live = 1

    def run(self, start: PathState) -> list[PathState]:
        normal, exited = self.block(self.program.body, [start])
        return normal + exited

    def lin(self, lin: ir.Lin, st: PathState, pos) -> LinForm:
        coefs, const = lin_value_parts(lin, st.env, self.program, pos)
        return linear_value(coefs, const, st.reals, pos)

    def block(self, stmts, states: list) -> tuple[list, list]:
        """Run `stmts` from each state: (states that fall through, states that exited)."""
        running, exited = states, []
        for stmt in stmts:
            nxt = []
            for st in running:
                normal, ex = self.stmt(stmt, st)
                nxt.extend(normal)
                exited.extend(ex)
            running = nxt
            if not running:
                break
        return running, exited

    def stmt(self, s, st: PathState) -> tuple[list, list]:
        kind = type(s)
        if kind is ir.Assign:
            self.domain.assign(self, s, st)
            return [st], []
        if kind is ir.Sample:
            self.domain.sample(self, s, st)
            return [st], []
        if kind is ir.Compare:
            return self.domain.compare(self, s, st), []
        if kind is ir.If:
            truth = self.domain.condition(self, s, st)
            if truth is None:
                return self.both(s, st)
            return self.block(s.then if truth else s.other, [st])
        if kind is ir.While:
            self.domain.enter_loop(s)
            return self.loop(s, st)
        if kind is ir.Exit:
            return [], [st]
        raise TypeError(f"unknown statement {s!r}")

    def assign(self, s: ir.Assign, st: PathState) -> None:
        value = assigned_value(self.program, s, st.env, lambda e: self.lin(e, st, s.pos), linear_only=False)
        (st.reals if isinstance(value, LinForm) else st.env)[s.target] = value

    def both(self, s: ir.If, st: PathState) -> tuple[list, list]:
        """Both branches of an `if` whose condition the domain does not know (then first)."""
        self.count(1, s.pos)
        then_normal, then_exited = self.block(s.then, [st.fork(st.facts)])
        normal, exited = self.block(s.other, [st])
        return then_normal + normal, then_exited + exited

    def count(self, forks: int, pos) -> None:
        self.live += forks
        if self.live > self.max_paths:
            raise self.domain.too_many(self.max_paths, pos)

    def test(self, s, st: PathState, word: str) -> bool:
        return eval_condition(s.cond, st.env, self.program, s.pos, f"the condition of '{word}'")

    def compare(self, s: ir.Compare, st: PathState) -> list:
        form = self.lin(s.lhs, st, s.pos) - self.lin(s.rhs, st, s.pos)
        if form.is_constant():
            st.env[s.target] = holds(form.const, s.op)
            return [st]
        outcomes = self.domain.split(st, form, s.op)
        out = []
        for k, (truth, facts) in enumerate(outcomes):
            new = st if k == len(outcomes) - 1 else st.fork(facts)
            new.facts = facts
            new.env[s.target] = truth
            out.append(new)
        self.count(len(out) - 1, s.pos)
        return out

    def loop(self, s: ir.While, st: PathState) -> tuple[list, list]:
        """Unroll `s` on every path; a path whose loop-head state repeats never ends."""
        done, exited = [], []
        frontier = [(st, frozenset())]
        while frontier:
            nxt = []
            for cur, seen in frontier:
                if not self.test(s, cur, "while"):
                    done.append(cur)
                    continue
                key = self.domain.loop_key(cur)
                if key in seen:
                    raise self.domain.loop_repeats(s)
                normal, ex = self.block(s.body, [cur])
                exited.extend(ex)
                nxt.extend((n, seen | {key}) for n in normal)
            frontier = nxt
        return done, exited
