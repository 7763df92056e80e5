"""The online class by whitelist, on the lowered and checked program (`ir.Program`).

Why: a verdict for every m is only sound for programs whose every statement the bound of
docs/design/every_length.md pays for.  So nothing is accepted by default: each statement of the
prefix and of the one iteration `shape` isolates must match one of the forms below, and
each real value (the threshold, a noisy read) and each comparison result may flow only
where the bound's table has a row for it.  Anything else is refused with exit 2 naming
the statement and the rule.

Prefix (before the loop): a constant given to a finite variable or to an element of an
output array; stored real variables (thresholds), each started once by `x <- Lap(a*eps,
constant)` or `x <- constant` (the start value of a variable the loop gives a read, unshifted
by any coupling).  Several stored variables are allowed (issue 41): each comparison, draw,
store and gap below names one of them.
Iteration (position i):
  r <- Lap(b*eps, q[i] + c)       a noisy read into a real local (c a constant shift of the
                                  mean, often 0), at most one per path
  g <- r op x  /  g <- q[i] op x  a comparison (op: < <= > >=) of the read with one stored
                                  variable x, into a Boolean local, tested only as `if g` /
                                  `if not g`; one tested comparison per variable per path
  x <- Lap(a'*eps, constant)      the threshold drawn again (not between a comparison
                                  and its test, not after the read was released)
  out[i] <- constant              a symbol (or a real constant) at position i
  val[i] <- r                     the compared read released at position i
  val[i] <- r - x                 the gap between the read and the threshold released at i
  val[i] <- Lap(c*eps, q[i])      a fresh noisy value released at position i
  x <- r                          a stored variable given the read (once per variable and path,
                                  after the comparisons' tests; x is then neither compared,
                                  released in a gap nor drawn again in the step)
  v <- e, if e ...                finite variables updated and tested by expressions over
                                  finite variables and constants, staying in their range
  exit
Outputs are arrays written at position i only and never read.  Every draw is of a noise whose
registry entry states a two-sided shift cost (Laplace; discrete Laplace, whose integer draws
go to int locals and need integer inputs q: int[m]); a one-sided exponential draw is refused
with its line.  The result is the `Automaton` over the finite variables' valuations.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, replace
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.exact.noises.registry import all_noises, by_kind
from dipc_plus.privacy.online.automaton import EXIT, Automaton, Event, Step, reachable
from dipc_plus.privacy.online.shape import ELEMENT, HINT, OnlineShape, mentions
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import domain_values, eval_expr
from dipc_plus.semantics.instructions import reads

PREFIX_RULE = ("before the loop over the queries the class allows only a constant given to a finite variable or "
               "to an element of an output array, and stored variables each started once by x <- Lap(k*eps, "
               "constant) (or x <- constant for a variable the loop stores a read in)")


def refuse(pos, why: str, hint: str = HINT) -> UserError:
    return UserError.at(pos, f"cannot decide privacy for every m: {why}", hint=hint)


def _threshold_output(pos, name: str) -> UserError:
    return refuse(pos, f"a noisy value is drawn into the output '{name}'; the threshold may not be an output: the "
                  "bound's table has no row for releasing it (its value tells which comparisons were above it)")


def _guard_output(pos, name: str) -> UserError:
    return refuse(pos, f"a comparison's result is written to the output '{name}'; a comparison may reach the outputs "
                  "only through `if g then ... else ... end` writing constants at position i (the bound's table "
                  "pays for the outcome of a tested comparison, not for a stored one)",
                  hint="write  if r >= x then out[i] <- top else out[i] <- bot end, or " + HINT)


def _given_once(pos, p: "_Path", name: str) -> None:
    """Refuse a second value (a draw or a stored read) for a stored variable in one iteration."""
    if p.has("store", name) or p.has("resample", name):
        raise refuse(pos, f"the stored variable '{name}' is given a value twice in one iteration (a draw or a "
                     "read already went to it)")


def where(pos) -> str:
    return f"{pos.file}:{pos.line}"


def _form(lin) -> dict | None:
    """Variable -> rational coefficient, the constant under "", when `lin` is a linear form (`ir.Lin`)
    with a rational constant and distinct variables, else None; the patterns below compare it."""
    if not (isinstance(lin, ir.Lin) and ir.number_of(lin.const) is not None):
        return None
    form = {"": ir.number_of(lin.const), **{var: ir.number_of(coef) for coef, var in lin.terms}}
    return form if len(form) == len(lin.terms) + 1 else None


def _is_constant(lin) -> bool:
    """Whether `lin` is a real constant (a linear form without variables)."""
    return (_form(lin) or {}).keys() == {""}


def _exactly(lin, *coefs) -> tuple | None:
    """The variables (v1, v2, ...) when `lin` is exactly coefs[0]*v1 + coefs[1]*v2 + ... (constant 0,
    distinct coefficients): (r,) for the variable r itself, (r, x) for a gap r - x."""
    form = _form(lin) or {}
    if form.pop("", None) != 0 or len(form) != len(coefs) or set(form.values()) != set(coefs):
        return None
    by_coef = {c: v for v, c in form.items()}
    return tuple(by_coef[c] for c in coefs)


def _exact_var(lin) -> str | None:
    """v when `lin` is exactly the variable v (coefficient 1, constant 0)."""
    return (_exactly(lin, 1) or (None,))[0]


# A comparison of the read (or q[i]) with the stored variable `var`, made at `pos`: which outcome means
# top, the read's rate and noise, and its tested `outcome` (None: not tested yet).
_Guard = namedtuple("_Guard", "top_when_true rate noisy pos var outcome", defaults=(None,))


@dataclass(frozen=True)
class _Path:
    """One path through the iteration so far: finite values, the reads (local -> rate) and the
    comparisons (local -> `_Guard`) made, the events, whether it has exited, and the guard's position."""
    env: dict
    reads: dict
    compared: dict
    events: tuple
    done: bool
    gpos: object

    def has(self, kind: str, var: str | None = None) -> bool:
        """Whether an event of `kind` (on the stored variable `var`, when given) is on the path."""
        return any(e.kind == kind and (var is None or e.var == var) for e in self.events)

    def with_event(self, kind: str, **kw) -> "_Path":
        return replace(self, events=self.events + (Event(kind, **kw),))


class _Recogniser:
    def __init__(self, shape: OnlineShape):
        p = shape.program
        self.p, self.q, self.length = p, shape.input, shape.length
        self.cur = f"{shape.input}[1]"
        self.outputs = dict(p.outputs)
        # flat output element -> (array, position)
        self.elements = {n: (arr, int(ELEMENT.match(n).group(2))) for arr, flat in p.arrays.items()
                         for n in flat if n in self.outputs}
        inputs = set(p.input_names())
        local = {v: t for v, t in p.variables.items() if v not in inputs and v not in self.outputs}
        self.guards = {s.target for s in ir.statements(shape.body) if isinstance(s, ir.Compare)}
        self.finite = {v: t for v, t in local.items() if isinstance(t, (ir.BoolT, ir.DomT)) and v not in self.guards}
        # the drawn values: real, or integer for a discrete noise (an int local is only ever drawn)
        self.reals = {v for v, t in local.items() if isinstance(t, (ir.RealT, ir.IntT))}
        self.integer_draw = ""      # file:line of the first integer-valued draw, "" when none
        self.initial: dict = {}     # output element -> the constant the prefix gives it
        # the stored variables (thresholds) in order of their start, and each one's start rate (None:
        # a constant start x <- c, whose shift is 0)
        self.variables: dict = {}
        # real locals given a read's value in the loop (x <- r): those that may start at a constant
        self.stored = {s.target for s in ir.statements(shape.body) if isinstance(s, ir.Assign) and s.target in self.reals
                       and _exact_var(s.expr) in self.reals}

    # ----------------------------------------------------------------------- prefix

    def prefix(self, stmts) -> dict:
        env = {v: None for v in self.finite}
        for s in stmts:
            if isinstance(s, ir.Assign) and s.target in self.finite and isinstance(s.expr, ir.Const):
                env[s.target] = self._fit(s.target, s.expr.value, s.pos)
            elif isinstance(s, ir.Assign) and s.target in self.outputs:
                self._output_element(s.target, s.pos, any_position=True)
                if not (isinstance(s.expr, ir.Const) or _is_constant(s.expr)):
                    raise refuse(s.pos, f"the output '{s.target}' is given a value that is not a constant; "
                                 + PREFIX_RULE)
                self.initial[s.target] = s.expr.value if isinstance(s.expr, ir.Const) else s.expr.const.value
            elif isinstance(s, ir.Sample) and s.target in self.outputs:
                raise _threshold_output(s.pos, s.target)
            elif isinstance(s, ir.Sample) and s.target in self.reals and _is_constant(s.dist.mean):
                self._noise(s)
                self._start_variable(s.target, s.dist.rate, s.pos)
            elif isinstance(s, ir.Assign) and s.target in self.stored and _is_constant(s.expr):
                self._start_variable(s.target, None, s.pos)
            else:
                raise refuse(s.pos, PREFIX_RULE)
        return env

    def _start_variable(self, name, rate, pos) -> None:
        if name in self.variables:
            raise refuse(pos, f"the stored variable '{name}' is given a value twice before the loop; " + PREFIX_RULE)
        self.variables[name] = rate

    # ----------------------------------------------------------------------- helpers

    def _fit(self, name, value, pos):
        if value not in domain_values(self.finite[name]) or isinstance(value, bool) != isinstance(self.finite[name], ir.BoolT):
            raise refuse(pos, f"'{name}' would leave its range {self.finite[name]} (the control state must stay "
                         "finite and every value must be in the declared range)")
        return value

    def _output_element(self, name, pos, any_position=False):
        if name not in self.elements:
            raise refuse(pos, f"'{name}' is a scalar output: in the class every output is an array written at "
                         "position i only (a scalar keeps one value across iterations, which the bound's table "
                         "does not pay for)", hint="declare it as an array out: T[m] and write out[i], or " + HINT)
        arr, k = self.elements[name]
        if not any_position and len(self.p.arrays[arr]) != self.length:
            raise refuse(pos, f"the output array '{arr}' is written at position i but its length is not m "
                         f"(it has {len(self.p.arrays[arr])} elements at m = {self.length})")
        if not any_position and k != 1:
            raise refuse(pos, f"the output '{arr}' is written at another position than the current query's; "
                         f"outputs are written at position i only ({arr}[i])")
        return arr

    def _noise(self, s):
        """The rate of a draw whose registry entry states a two-sided shift cost, else the refusal
        saying why not.  An integer-valued draw (discrete Laplace) records its line: the coupling's
        shifts are then integers, which needs integer inputs and an integer adjacency bound."""
        d = s.dist
        spec = by_kind(d.kind) if isinstance(d, ir.NoiseSample) else None
        if spec is not None and spec.shift_cost == "two-sided" and isinstance(d.rate, Fraction) and d.rate > 0:
            if spec.value_type == "int" and not self.integer_draw:
                self.integer_draw = where(s.pos)
            return d.rate
        if spec is not None and spec.shift_cost == "one-sided":
            why = (f"{spec.title} noise {spec.surface}(..) is one-sided: shifting a draw down leaves its support "
                   "(density 0 below its mean), and the coupling bound moves each draw both ways; no one-sided "
                   "shift game is proved")
        elif spec is not None:
            why = f"{spec.title} noise {spec.surface}(..) states no two-sided shift cost in the noise registry"
        else:
            why = "this draw is not a noise of the registry with a constant rate k*eps, k > 0"
        raise refuse(s.pos, why + "; the class admits " + " and ".join(
            n.described() for n in all_noises() if n.shift_cost == "two-sided") + " with a constant k > 0")

    # ----------------------------------------------------------------------- the iteration

    def run(self, state: tuple, names: tuple, body) -> list:
        start = _Path(dict(zip(names, state)), {}, {}, (), False, None)
        out = []
        for p in self._block(body, [start]):
            dst = EXIT if p.done else tuple(p.env[n] for n in names)
            out.append(Step(state, dst, p.events, where(p.gpos) if p.gpos else "", at=p.gpos))
        return out

    def _block(self, body, paths: list) -> list:
        for s in body:
            nxt = []
            for p in paths:
                nxt.extend([p] if p.done else self._stmt(s, p))
            paths = nxt
        return paths

    def _stmt(self, s, p: _Path) -> list:
        """The paths after statement s, by its kind (an `if` may branch; the others give one path)."""
        if isinstance(s, ir.If):
            return self._if(s, p)
        for kind, handle in ((ir.Exit, lambda _, p: replace(p, done=True)), (ir.Sample, self._sample),
                             (ir.Compare, self._compare), (ir.Assign, self._assign)):
            if isinstance(s, kind):
                return [handle(s, p)]
        raise refuse(s.pos, "a loop inside the loop over the queries is outside the class (the iteration must "
                     "be a finite graph over the finite variables)")

    def _sample(self, s: ir.Sample, p: _Path) -> _Path:
        rate = self._noise(s)
        t, mean = s.target, _form(s.dist.mean) or {}
        if mean.keys() == {"", self.cur} and mean[self.cur] == 1:     # q[i] + c
            if t in self.outputs:
                arr = self._output_element(t, s.pos)
                if not isinstance(self.outputs[t], ir.RealT):
                    raise refuse(s.pos, f"'{arr}' is not a real output")
                return p.with_event("noisy_out", rate=rate)
            if t not in self.reals or t in self.variables:
                raise refuse(s.pos, f"the read of {self.cur.replace('[1]', '[i]')} must go to a real local variable")
            if p.reads:
                raise refuse(s.pos, f"the iteration reads {self.q}[i] with noise more than once (the bound's table "
                             "has one read per step)")
            return replace(p, reads={**p.reads, t: rate})
        if mean.keys() == {""}:
            if t in self.outputs:
                raise _threshold_output(s.pos, t)
            if t not in self.variables:
                raise refuse(s.pos, "a noisy value centred on a constant is drawn here; in the loop only a "
                             "stored variable started before the loop may be drawn again (x <- Lap(k*eps, constant))")
            _given_once(s.pos, p, t)
            self._all_tested(s.pos, p, "the threshold is drawn again", t)
            if p.has("disclose") or p.has("gap"):
                raise refuse(s.pos, "the threshold is drawn again after the noisy read (or its gap) was released")
            return p.with_event("resample", rate=s.dist.rate, var=t)
        raise refuse(s.pos, f"a noisy read must be centred on the current query {self.q}[i], shifted by a "
                     "constant at most (Lap(k*eps, q[i]) or Lap(k*eps, q[i] + c), no other position)")

    def _side(self, v: str | None, p: _Path):
        """One side of a comparison: a stored variable's name; (rate, noisy) for this iteration's read,
        or (0, False) for the query q[i] itself; else None."""
        if v in self.variables:
            return v
        if v in p.reads:
            return p.reads[v], True
        return (Fraction(0), False) if v == self.cur else None

    def _compare(self, s: ir.Compare, p: _Path) -> _Path:
        t = s.target
        if t in self.outputs:
            raise _guard_output(s.pos, t)
        sides = [self._side(_exact_var(e), p) for e in (s.lhs, s.rhs)]
        if sorted(map(type, sides), key=str) != sorted((str, tuple), key=str):
            raise refuse(s.pos, f"a comparison must test the noisy read of {self.q}[i] made in this iteration "
                         f"(or {self.q}[i] itself) against one stored variable (a threshold), each side exactly "
                         "one variable" + ("; two stored variables are never compared with each other"
                                           if sides.count(None) == 0 else ""))
        x = next(v for v in sides if isinstance(v, str))
        self._threshold_usable(s.pos, p, "compared", x)
        if s.op not in ("<", "<=", ">", ">="):
            raise refuse(s.pos, "a comparison must be <, <=, > or >= (equality is not in the class)")
        read_left = isinstance(sides[0], tuple)
        rate, noisy = sides[0] if read_left else sides[1]
        top_when_true = read_left if s.op in (">=", ">") else not read_left
        return replace(p, compared={**p.compared, t: _Guard(top_when_true, rate, noisy, s.pos, x)})

    def _assign(self, s: ir.Assign, p: _Path) -> _Path:
        t = s.target
        used = reads(s.expr)
        if t in self.finite:
            self._finite_only(used, p, s.pos)
            value = eval_expr(s.expr, p.env, self.p, s.pos)
            return replace(p, env={**p.env, t: self._fit(t, value, s.pos)})
        if t in self.outputs:
            arr = self._output_element(t, s.pos)
            if isinstance(self.outputs[t], ir.RealT):
                return self._release(s, p, arr, used)
            if isinstance(s.expr, ir.Const):
                return p.with_event("write", label=(arr, s.expr.value))
            if used & self.guards:
                raise _guard_output(s.pos, arr)
            raise refuse(s.pos, f"the output '{arr}' is given a value computed from variables; in the class an "
                         "output gets a constant at position i (the outcome shows through which constant)")
        if t in self.guards:
            raise refuse(s.pos, f"'{t}' holds a comparison's result and may be given no other value")
        if t in self.variables and _exact_var(s.expr) in p.reads:
            return self._store(s, p)
        if t in self.reals:
            raise refuse(s.pos, f"'{t}' is a real variable given a computed value; in the class a real variable "
                         f"is only drawn (a threshold, a read of {self.q}[i]) or, for a stored variable, given "
                         "the read (x <- r)")
        raise refuse(s.pos, "this assignment is outside the class")

    def _release(self, s: ir.Assign, p: _Path, arr: str, used: set) -> _Path:
        """A real output at position i: the read r, its gap r - x, or a constant."""
        gap = _exactly(s.expr, 1, -1)
        v, x = gap if gap and gap[1] in self.variables else (_exact_var(s.expr), "")
        if v in p.reads:
            if x:
                self._threshold_usable(s.pos, p, "released in a gap r - x", x)
            if p.has("resample"):
                raise refuse(s.pos, "the noisy read is released after the threshold was drawn again")
            if p.has("gap") or (x and p.has("disclose")):
                raise refuse(s.pos, "the gap r - x and another release of the same read on one path: "
                             "the bound's table pays for one shift of the read, fixed by the gap")
            return p.with_event("gap" if x else "disclose", rate=p.reads[v], var=x)
        if _is_constant(s.expr):
            return p.with_event("write", label=(arr, s.expr.const.value))
        if used & set(self.variables):
            raise refuse(s.pos, f"a stored variable (a threshold) reaches the output '{arr}'; the bound's "
                         "table has no row for releasing it")
        raise refuse(s.pos, f"a real output gets only the compared read r, its gap r - x to the "
                     f"threshold, a fresh Lap(c*eps, {self.q}[i]) or a constant at position i")

    def _threshold_usable(self, pos, p: _Path, how: str, x: str) -> None:
        """Refuse a use of x after x <- r in the same iteration (then x = r)."""
        if p.has("store", x):
            raise refuse(pos, f"the stored variable '{x}' is {how} after it was given the read in "
                         "the same iteration (it then equals the read)")

    def _all_tested(self, pos, p: _Path, what: str, x: str | None = None) -> None:
        """Refuse `what` (a new threshold) while a comparison (with x, when given) is not yet tested."""
        pending = [g for g, info in p.compared.items() if info.outcome is None and x in (None, info.var)]
        if pending:
            raise refuse(pos, f"{what} between the comparison '{pending[0]}' and its test; the bound needs each "
                         "comparison tested against the threshold it was made with")

    def _store(self, s: ir.Assign, p: _Path) -> _Path:
        """x <- r (r this iteration's read): the read's value becomes the threshold of the steps that follow."""
        v = _exact_var(s.expr)
        _given_once(s.pos, p, s.target)
        self._all_tested(s.pos, p, "the read is stored")
        return p.with_event("store", rate=p.reads[v], var=s.target)

    def _finite_only(self, used: set, p: _Path, pos) -> None:
        bad = sorted(used - set(self.finite))
        if bad:
            v = bad[0]
            what = ("a comparison's result (test it alone: if g / if not g)" if v in self.guards
                    else "an output (outputs are written, never read)" if v in self.outputs
                    else "a real value" if v in self.reals or v in self.p.input_names() else "not a finite variable")
            raise refuse(pos, f"'{v}' is {what}; conditions and finite updates may read only finite "
                         "variables and constants")
        unset = sorted(v for v in used if p.env.get(v) is None)
        if unset:
            raise refuse(pos, f"'{unset[0]}' is read before it is given a value")

    def _if(self, s: ir.If, p: _Path) -> list:
        # `if g` or `if not g` for a comparison's result g
        negated = isinstance(s.cond, ir.Unary) and s.cond.op == "not"
        tested = s.cond.arg if negated else s.cond
        if isinstance(tested, ir.Var) and tested.name in self.guards:
            g = tested.name
            info = p.compared.get(g)
            if info is None:
                raise refuse(s.pos, f"'{g}' is tested before its comparison in this iteration")
            if info.outcome is not None:   # tested again: the same outcome
                return self._block(s.then if info.outcome != negated else s.other, [p])
            if p.has("guard", info.var):
                raise refuse(s.pos, f"the iteration tests a second comparison with the stored variable '{info.var}' "
                             "on one path (the bound's table has one comparison per stored variable and step)")
            out = []
            for truth in (True, False):
                q = replace(p, compared={**p.compared, g: info._replace(outcome=truth)}, gpos=p.gpos or info.pos)
                q = q.with_event("guard", top=(truth == info.top_when_true), noisy=info.noisy, rate=info.rate,
                                 var=info.var)
                out += self._block(s.then if truth != negated else s.other, [q])
            return out
        self._finite_only(reads(s.cond), p, s.pos)
        value = eval_expr(s.cond, p.env, self.p, s.pos)
        return self._block(s.then if value else s.other, [p])


def _no_local_arrays(shape: OnlineShape) -> None:
    """Refuse a local array: its element at position i is fresh in each iteration, so it is
    not one finite variable carried from step to step (the automaton's control state)."""
    p = shape.program
    io = set(p.input_names()) | set(p.output_names())
    local = [n for flat in p.arrays.values() for n in flat if n not in io]
    for s in ir.statements(shape.prefix + shape.body):
        hit = next((n for n in local if mentions(s, n)), None)
        if hit is not None:
            raise refuse(s.pos, f"'{hit}' is an element of a local array; the class keeps its control state in "
                         "scalar finite variables (a local array is a different variable at every position)")


def recognise(shape: OnlineShape) -> Automaton:
    """The automaton of an online program, or a located refusal (exit 2) naming the rule."""
    r = _Recogniser(shape)
    _no_local_arrays(shape)
    env = r.prefix(shape.prefix)
    names = tuple(r.finite)
    start = tuple(env[n] for n in names)
    pos = shape.body[0].pos
    auto = Automaton(where(pos), names, start, tuple(r.variables), tuple(r.variables.values()),
                     input_name=shape.input, size_param=shape.size, derived=shape.derived, loop_at=pos)

    def successors(state):
        steps = r.run(state, names, shape.body)
        auto.steps.extend(steps)
        return [st.dst for st in steps if st.dst != EXIT]

    reachable(start, successors)
    auto.integer_draw, auto.initial = r.integer_draw, r.initial
    return auto
