"""Online programs as automata: recognising the class of Chadha, Sistla & Viswanathan.

Why: `for i = 1 to m` is unrolled, so the exact engine answers for one m.  For the class
of online programs of Chadha, Sistla & Viswanathan (LICS 2021) - a finite control, one
real variable x holding a noisy threshold, one Laplace-noised read of q[i] per step,
guards comparing the noisy read with x - privacy for *every* m is decidable from the
graph of one loop iteration.  This module recognises the class on the surface syntax
of the program (the loop before unrolling) and builds that graph (`Automaton`: one
`Step` per path through the body, over the finite state); outside the class it names
the statement that breaks it (file:line).  The bound and the non-privacy patterns are
in `online_bound`, the verdict in `every_length`.  (Over 400 lines: the recogniser is one
symbolic execution of the loop body with one case per statement form.)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from dipc_plus.errors import UserError
from dipc_plus.frontend import surface as S
from dipc_plus.frontend.syntax import parse_module

EXIT = "exit"   # the destination of a step that leaves the loop


class OutsideClass(Exception):
    """The program is not an online automaton of the class; `where` names the statement."""

    def __init__(self, where, why: str):
        super().__init__(f"{where}: {why}" if where else why)
        self.where, self.why = where, why


# --------------------------------------------------------------------------- the iteration graph


@dataclass(frozen=True)
class Event:
    kind: str            # 'guard' | 'resample' | 'noisy_out' | 'disclose' | 'write'
    top: bool = False    # guard: r >= x taken (True) or r < x (False)
    noisy: bool = True   # guard: the input was read with noise
    rate: Fraction = Fraction(0)  # guard/disclose: the read's rate b; resample: a; noisy_out: c*|k|
    label: tuple = ()     # write: (output name, the symbol or constant written at position i)


@dataclass(frozen=True)
class Step:
    src: tuple
    dst: object          # a state tuple or EXIT
    events: tuple
    where: str           # the guard's position, for messages

    @property
    def guard(self):
        return next((e for e in self.events if e.kind == "guard"), None)

    def disclosed(self) -> bool:
        return any(e.kind == "disclose" for e in self.events)

    def writes(self) -> dict:
        """Output name -> the symbol this step writes at position i (the last write wins)."""
        return {e.label[0]: e.label[1] for e in self.events if e.kind == "write"}


@dataclass
class Automaton:
    loop_pos: str
    names: tuple                  # the finite variables, in state order
    start: tuple
    threshold_rate: Fraction | None  # rate a0 of the threshold sampled before the loop
    steps: list = field(default_factory=list)
    input_name: str = "q"

    def states(self) -> set:
        seen, todo = {self.start}, [self.start]
        out = {}
        for s in self.steps:
            out.setdefault(s.src, []).append(s)
        while todo:
            s = todo.pop()
            for st in out.get(s, []):
                if st.dst != EXIT and st.dst not in seen:
                    seen.add(st.dst)
                    todo.append(st.dst)
        return seen

    def describe_step(self, st: Step) -> str:
        parts = []
        for e in st.events:
            if e.kind == "guard":
                parts.append(("top" if e.top else "bot") + ("" if e.noisy else " (noise-free read)"))
            elif e.kind == "resample":
                parts.append(f"x resampled (rate {e.rate}*eps)")
            elif e.kind == "noisy_out":
                parts.append(f"noisy output (rate {e.rate}*eps)")
            elif e.kind == "disclose":
                parts.append("outputs the noisy read")
        src = ", ".join(f"{n}={v}" for n, v in zip(self.names, st.src)) or "-"
        dst = "exit" if st.dst == EXIT else (", ".join(f"{n}={v}" for n, v in zip(self.names, st.dst)) or "-")
        return f"[{src}] -> [{dst}]: " + ("; ".join(parts) or "no guard")


# --------------------------------------------------------------------------- recognition


def _pos(node) -> str:
    p = getattr(node, "pos", None)
    return f"{p.file}:{p.line}" if p is not None else ""


class _Const:
    """Constant folding of parameter expressions and of rates `k*eps` (exact)."""

    def __init__(self, params: dict):
        self.params = params

    def value(self, e):
        if isinstance(e, S.Num):
            return Fraction(e.value)
        if isinstance(e, S.Name) and e.name in self.params:
            return Fraction(self.params[e.name])
        if isinstance(e, S.UnOp) and e.op == "-":
            v = self.value(e.arg)
            return None if v is None else -v
        if isinstance(e, S.BinOp) and e.op in "+-*/":
            a, b = self.value(e.left), self.value(e.right)
            if a is None or b is None or (e.op == "/" and b == 0):
                return None
            return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if e.op == "/" else None}[e.op]
        return None

    def rate(self, e):
        """k when e is k*eps with a constant k > 0, else None."""
        if isinstance(e, S.EpsLit):
            return Fraction(1)
        if isinstance(e, S.BinOp) and e.op == "*":
            for a, b in ((e.left, e.right), (e.right, e.left)):
                k, r = self.value(a), self.rate(b)
                if k is not None and r is not None:
                    return k * r
        if isinstance(e, S.BinOp) and e.op == "/":
            k, r = self.value(e.right), self.rate(e.left)
            if k and r is not None:
                return r / k
        return None


def recognise(path: str, params: dict) -> Automaton:
    """The online automaton of the program at `path` (params: final parameter values), or
    OutsideClass naming the statement that breaks the class."""
    text = Path(path).read_text(encoding="utf-8")
    module = parse_module(text, path)
    const = _Const(params)
    finite, inputs, outputs = {}, [], {}
    stmts = []
    symbols = _symbols(module)
    for item in module.items:
        if isinstance(item, S.VarDecl):
            t = item.type
            if isinstance(t, S.RangeType):
                lo, hi = const.value(t.lo), const.value(t.hi)
                init = const.value(item.init) if item.init is not None else lo
                if lo is None or hi is None or init is None:
                    raise OutsideClass(_pos(item), f"the range of '{item.name}' is not a constant")
                finite[item.name] = (lo, hi, init)
            elif not isinstance(t, S.ArrayType) or item.init is not None:
                raise OutsideClass(_pos(item), f"'{item.name}' is neither a finite counter nor an array")
        elif isinstance(item, S.IODecl):
            (inputs if item.kind == "input" else outputs.__setitem__(item.name, item) or []).append(item)
        elif isinstance(item, S.DECLARATIONS):
            continue
        else:
            stmts.append(item)
    if len(inputs) != 1 or not isinstance(inputs[0].type, S.ArrayType):
        raise OutsideClass(_pos(inputs[0]) if inputs else "", "the class has exactly one input, an array q[m]")
    qname = inputs[0].name
    loops = [s for s in stmts if isinstance(s, S.For) and _reads(s.body, qname)]
    if len(loops) != 1:
        raise OutsideClass(_pos(loops[1]) if len(loops) > 1 else "",
                           "the class has exactly one loop that reads the input")
    loop = loops[0]
    lo, hi = const.value(loop.lo), const.value(loop.hi)
    if lo != 1 or not (isinstance(loop.hi, S.Name) and loop.hi.name == _array_size_name(inputs[0])):
        raise OutsideClass(_pos(loop), "the loop must run i = 1 to m over the whole input")
    idx = stmts.index(loop)
    # The prefix: output initialisation with constants, the threshold, constant counters.
    threshold, thr_rate = None, None
    for s in stmts[:idx]:
        if isinstance(s, S.For) and all(isinstance(b, S.Assign) and isinstance(b.target, S.Index)
                                         and b.target.name in outputs and const.value(b.value) is not None
                                         or isinstance(b, S.Assign) and isinstance(b.value, S.Name)
                                         and b.target.name in outputs and b.value.name in symbols
                                         for b in s.body):
            continue
        if isinstance(s, S.Assign) and isinstance(s.target, S.Name) and isinstance(s.value, S.SampleExpr):
            a = _threshold_rate(s.value, const)
            if a is None or threshold is not None:
                raise OutsideClass(_pos(s), "only one threshold x <- Lap(k*eps, constant) may be sampled before "
                                            "the loop")
            threshold, thr_rate = s.target.name, a
            continue
        raise OutsideClass(_pos(s), "before the loop only outputs may be initialised and the threshold sampled")
    for s in stmts[idx + 1:]:
        raise OutsideClass(_pos(s), "nothing may follow the loop (the outputs are produced step by step)")
    names = tuple(finite)
    start = tuple(finite[n][2] for n in names)
    auto = Automaton(f"{_pos(loop)}", names, start, thr_rate, input_name=qname)
    ex = _BodyExec(auto, finite, const, qname, loop.var, outputs, threshold, symbols)
    todo, seen = [start], {start}
    while todo:
        s = todo.pop()
        for st in ex.run(s, loop.body):
            auto.steps.append(st)
            if st.dst != EXIT and st.dst not in seen:
                seen.add(st.dst)
                todo.append(st.dst)
    return auto


def _symbols(module) -> set:
    """The names of the enumerated symbols (user types {a, b, ...})."""
    out = set()

    def walk(t):
        if isinstance(t, S.SetType):
            out.update(e for e, _ in t.elems if isinstance(e, str))
        elif isinstance(t, S.ArrayType):
            walk(t.elem)
    for item in module.items:
        if isinstance(item, (S.TypeDecl, S.IODecl, S.VarDecl)):
            walk(item.type)
    return out


def _array_size_name(decl) -> str | None:
    size = decl.type.size
    return size.name if isinstance(size, S.Name) else None


def _reads(body, qname) -> bool:
    found = []

    def walk(x):
        if isinstance(x, S.Index) and x.name == qname:
            found.append(x)
        if isinstance(x, tuple):
            for y in x:
                walk(y)
        elif hasattr(x, "__dataclass_fields__"):
            for f in x.__dataclass_fields__:
                walk(getattr(x, f))
    walk(body)
    return bool(found)


def _threshold_rate(e: S.SampleExpr, const: _Const):
    if e.kind != "Lap" or len(e.args) != 2:
        return None
    a = const.rate(e.args[0])
    return a if a is not None and a > 0 and const.value(e.args[1]) is not None else None


class _BodyExec:
    """Symbolic execution of one iteration over a finite state: one Step per path."""

    def __init__(self, auto, finite, const, qname, ivar, outputs, threshold, symbols):
        self.auto, self.finite, self.const, self.symbols = auto, finite, const, symbols
        self.q, self.i, self.outputs, self.x = qname, ivar, outputs, threshold

    def run(self, state, body):
        env = dict(zip(self.auto.names, state))
        return [self._step(state, env2, evs, done, where)
                for env2, evs, done, where in self._block(body, env, {}, (), False, "")]

    def _step(self, state, env, evs, done, where):
        dst = EXIT if done else tuple(env[n] for n in self.auto.names)
        return Step(state, dst, evs, where)

    # each path: (env, events, exited, where); sym maps local names to ('read', b, noisy) / ('guard', where)
    def _block(self, body, env, sym, evs, done, where):
        paths = [(env, sym, evs, done, where)]
        for s in body:
            nxt = []
            for env_, sym_, evs_, done_, where_ in paths:
                if done_:
                    nxt.append((env_, sym_, evs_, done_, where_))
                    continue
                nxt.extend(self._stmt(s, env_, sym_, evs_, where_))
            paths = nxt
        return [(e, ev, d, w) for e, _, ev, d, w in paths] if body is not None else []

    def _stmt(self, s, env, sym, evs, where):
        c = self.const
        if isinstance(s, S.Exit):
            return [(env, sym, evs, True, where)]
        if isinstance(s, S.If):
            return self._if(s, list(s.branches), env, sym, evs, where)
        if not isinstance(s, S.Assign):
            raise OutsideClass(_pos(s), "a nested loop in the body is outside the class")
        t, v = s.target, s.value
        if isinstance(t, S.Name) and t.name in self.finite:
            val = self._finite(v, env)
            lo, hi, _ = self.finite[t.name]
            if val is None:
                raise OutsideClass(_pos(s), f"'{t.name}' must be updated by a constant expression of the counters")
            if not lo <= val <= hi:
                raise OutsideClass(_pos(s), f"'{t.name}' leaves its range {lo}..{hi}")
            env = dict(env)
            env[t.name] = val
            return [(env, sym, evs, False, where)]
        if isinstance(t, S.Name) and t.name == self.x:
            a = _threshold_rate(v, c) if isinstance(v, S.SampleExpr) else None
            if a is None:
                raise OutsideClass(_pos(s), "the threshold may only be re-sampled as Lap(k*eps, constant)")
            if any(k[0] == "guard" for k in sym.values()) and not any(e.kind == "guard" for e in evs):
                raise OutsideClass(_pos(s), "the threshold is re-sampled between a comparison and its test")
            if any(e.kind == "disclose" for e in evs):
                raise OutsideClass(_pos(s), "the threshold is re-sampled after the noisy read was released")
            return [(env, sym, evs + (Event("resample", rate=a),), False, where)]
        if isinstance(t, S.Name) and isinstance(v, S.SampleExpr):
            b = self._read(v)
            if b is None:
                raise OutsideClass(_pos(s), f"the noisy read must be Lap(k*eps, {self.q}[{self.i}]) (k constant)")
            if any(k[0] == "read" for k in sym.values()):
                raise OutsideClass(_pos(s), f"the body reads {self.q}[{self.i}] with noise more than once")
            sym = dict(sym)
            sym[t.name] = ("read", b, True)
            return [(env, sym, evs, False, where)]
        if isinstance(t, S.Name) and isinstance(v, S.CmpOp):
            g = self._cmp(v, sym)
            sym = dict(sym)
            sym[t.name] = ("guard",) + g + (_pos(s),)
            return [(env, sym, evs, False, where)]
        if isinstance(t, S.Index) and t.name in self.outputs:
            if not (isinstance(t.index, S.Name) and t.index.name == self.i):
                raise OutsideClass(_pos(s), f"outputs must be written at position {self.i}")
            if c.value(v) is not None or isinstance(v, S.Name) and v.name in self.symbols \
                    and v.name not in sym and v.name not in self.finite:
                written = str(c.value(v)) if c.value(v) is not None else v.name
                return [(env, sym, evs + (Event("write", label=(t.name, written)),), False, where)]  # a symbol
            if isinstance(v, S.Name) and sym.get(v.name, ("",))[0] == "read":
                if any(e.kind == "resample" for e in evs):
                    raise OutsideClass(_pos(s), "the noisy read is released after the threshold was re-sampled")
                return [(env, sym, evs + (Event("disclose", rate=sym[v.name][1]),), False, where)]
            if isinstance(v, S.SampleExpr):
                b = self._read(v)
                if b is not None:
                    return [(env, sym, evs + (Event("noisy_out", rate=b),), False, where)]
            raise OutsideClass(_pos(s), "an output must be a symbol, the noisy read, or Lap(k*eps, q[i])")
        raise OutsideClass(_pos(s), "this assignment is outside the class (the state must stay finite)")

    def _read(self, v):
        if v.kind != "Lap" or len(v.args) != 2:
            return None
        b = self.const.rate(v.args[0])
        ctr = v.args[1]
        if b is None or b <= 0:
            return None
        if isinstance(ctr, S.Index) and ctr.name == self.q and isinstance(ctr.index, S.Name) \
                and ctr.index.name == self.i:
            return b
        return None

    def _cmp(self, v: S.CmpOp, sym):
        """('top-when-true', rate, noisy) for a comparison of the read with x."""
        def side(e):
            if isinstance(e, S.Name) and e.name == self.x:
                return "x"
            if isinstance(e, S.Name) and sym.get(e.name, ("",))[0] == "read":
                return ("r", sym[e.name][1], True)
            if isinstance(e, S.Index) and e.name == self.q and isinstance(e.index, S.Name) and e.index.name == self.i:
                return ("r", None, False)
            return None
        lt, rt = side(v.left), side(v.right)
        if self.x is None or {type(lt), type(rt)} != {str, tuple}:
            raise OutsideClass(_pos(v), "a guard must compare the read of q[i] with the threshold")
        read = lt if isinstance(lt, tuple) else rt
        read_left = isinstance(lt, tuple)
        if v.op in (">=", ">"):
            top_when_true = read_left
        elif v.op in ("<=", "<"):
            top_when_true = not read_left
        else:
            raise OutsideClass(_pos(v), "a guard must be <, <=, > or >= (equality is not in the class)")
        return (top_when_true, read[1], read[2])

    def _finite(self, e, env):
        if isinstance(e, S.Name) and e.name in env:
            return env[e.name]
        if isinstance(e, S.BinOp) and e.op in "+-":
            a, b = self._finite(e.left, env), self._finite(e.right, env)
            if a is None or b is None:
                return None
            return a + b if e.op == "+" else a - b
        return self.const.value(e)

    def _truth(self, cond, env, sym):
        """True/False for a condition on the counters, or ('guard', top_when_true, rate, noisy, where)."""
        if isinstance(cond, S.UnOp) and cond.op == "not":
            t = self._truth(cond.arg, env, sym)
            return (not t) if isinstance(t, bool) else t[:1] + (not t[1],) + t[2:]
        if isinstance(cond, S.Name) and sym.get(cond.name, ("",))[0] == "guard":
            return sym[cond.name]
        if isinstance(cond, S.CmpOp):
            a, b = self._finite(cond.left, env), self._finite(cond.right, env)
            if a is not None and b is not None:
                return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[cond.op]
            return ("guard",) + self._cmp(cond, sym) + (_pos(cond),)
        raise OutsideClass(_pos(cond), "a condition must test the guard or the counters")

    def _if(self, s, branches, env, sym, evs, where):
        if not branches:
            return self._body(s.other or (), env, sym, evs, where)
        cond, body = branches[0]
        t = self._truth(cond, env, sym)
        if isinstance(t, bool):
            return self._body(body, env, sym, evs, where) if t else self._if(s, branches[1:], env, sym, evs, where)
        _, top_when_true, rate, noisy, gwhere = t
        if any(e.kind == "guard" for e in evs):
            raise OutsideClass(_pos(cond), "the body compares with the threshold more than once")
        out = []
        for taken in (True, False):
            ev = evs + (Event("guard", top=(taken == top_when_true), noisy=noisy, rate=rate or Fraction(0)),)
            if taken:
                out += self._body(body, env, sym, ev, gwhere)
            else:
                out += self._if(s, branches[1:], env, sym, ev, gwhere)
        return out

    def _body(self, body, env, sym, evs, where):
        paths = [(env, sym, evs, False, where)]
        for st in body:
            nxt = []
            for e, sy, ev, d, w in paths:
                nxt.extend([(e, sy, ev, d, w)] if d else self._stmt(st, e, sy, ev, w))
            paths = nxt
        return paths


def hidden_guard(auto: Automaton):
    """A step whose guard outcome need not show in the outputs, or None.  The outcome of a
    guard shows when every step of the opposite outcome from the same node writes a
    different symbol to some output both write.  When all guards show, an output sequence
    determines the path through the automaton, which the non-privacy proofs of
    docs/every_length.md section 3 need (a guard whose outcomes look alike, e.g. both
    branches writing `top`, leaks nothing, however often it repeats)."""
    states = auto.states()
    for st in auto.steps:
        g = st.guard
        if g is None or st.src not in states:
            continue
        mine = st.writes()
        for other in auto.steps:
            og = other.guard
            if other.src != st.src or og is None or og.top == g.top:
                continue
            theirs = other.writes()
            if not any(k in theirs and theirs[k] != v for k, v in mine.items()):
                return st
    return None


def array_size_param(program) -> str:
    """The parameter that gives the length of the program's input array (the m of `for i = 1 to m`)."""
    text = Path(program.source).read_text(encoding="utf-8")
    for item in parse_module(text, program.source).items:
        if isinstance(item, S.IODecl) and item.kind == "input" and isinstance(item.type, S.ArrayType) \
                and isinstance(item.type.size, S.Name):
            return item.type.size.name
    raise UserError("the input array's length is not a parameter", file=program.source)
