"""The iteration graph of an online program: one `Step` per path through the loop body.

Why: the bound and the non-privacy patterns reason about one loop iteration over the
finite control state (the counters), not about the unrolled program; this is the graph
they share (docs/design/every_length.md, end of section 1).  `recognise` builds it from
the lowered program.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

EXIT = "exit"   # the destination of a step that leaves the program


def reachable(start, successors) -> set:
    """Every node reachable from `start`, `successors(node)` asked once per node: the one walk of
    the control states (`recognise`, `Automaton.states`) and of the coupling game's positions."""
    seen, todo = {start}, [start]
    while todo:
        for nxt in successors(todo.pop()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


@dataclass(frozen=True)
class Event:
    """What one step does, in order.  kind: 'guard' (the read compared with the threshold:
    top when the read is >= it), 'resample' (the threshold drawn again), 'noisy_out' (a
    fresh Lap(c*eps, q[i]) written to an output), 'disclose' (the compared read written to
    an output), 'gap' (the read minus the threshold, r - x, written to an output), 'store'
    (the threshold given the read's value, x <- r), 'write' (a constant written to an output:
    `label` = (array, value)).  `rate` is the read's rate on guard, disclose, gap and store.
    `var` names the stored variable of a guard, resample, gap or store (several may exist)."""
    kind: str
    top: bool = False
    noisy: bool = True
    rate: Fraction = Fraction(0)
    label: tuple = ()
    var: str = ""


@dataclass(frozen=True)
class Step:
    src: tuple
    dst: object          # a state tuple or EXIT
    events: tuple
    where: str           # file:line of the guard's comparison (or of the loop), for messages
    at: object = field(default=None, compare=False)   # the guard's ir.Pos (with its column), for refusals

    @property
    def guard(self):
        return next((e for e in self.events if e.kind == "guard"), None)

    @property
    def guards(self) -> tuple:
        """Every comparison of the step (one per stored variable it compares with)."""
        return tuple(e for e in self.events if e.kind == "guard")

    def outcomes(self) -> tuple:
        """(variable, top) of each comparison, in order: the path's guard outcomes."""
        return tuple((e.var, e.top) for e in self.guards)

    def direction(self):
        """True when every comparison of the step is a top of a noisy read, False when every one is a
        bot of a noisy read, else None (no guard, a noise-free one, or mixed outcomes: the read lies
        between two stored variables, and moving it helps one comparison and hurts the other)."""
        gs = self.guards
        if not gs or not all(g.noisy for g in gs) or len({g.top for g in gs}) != 1:
            return None
        return gs[0].top

    def has(self, *kinds: str) -> bool:
        """Whether the step has an event of one of `kinds`."""
        return any(e.kind in kinds for e in self.events)

    def read_rate(self):
        """The rate of the step's noisy read when an event uses it (its comparison, release, gap or
        store), else None: the read's one shift is chosen, and paid, once per step."""
        return next((e.rate for e in self.events if e.kind in ("disclose", "gap", "store")
                     or (e.kind == "guard" and e.noisy)), None)

    def writes(self) -> dict:
        """Output array -> the constant this step writes at position i (the last write wins)."""
        return {e.label[0]: e.label[1] for e in self.events if e.kind == "write"}


@dataclass
class Automaton:
    loop_pos: str                 # file:line of the loop over the queries
    names: tuple                  # the finite variables, in state order
    start: tuple
    variables: tuple = ()         # the stored real variables (thresholds), in order of their start
    start_rates: tuple = ()       # per variable: the rate a0 of its draw before the loop, or None for
                                  # a constant start x <- c (its first segment's value is not shifted)
    steps: list = field(default_factory=list)
    input_name: str = "q"
    size_param: str = "m"
    derived: tuple = ()           # outputs computed after the loop from the per-step outputs (counted.py):
                                  # the graph is the sequence's, and the verdict carries over by post-processing
    integer_draw: str = ""        # file:line of the first integer-valued (discrete Laplace) draw, "" when
                                  # none: then the coupling's shifts must be integers (an integer bound)
    loop_at: object = None        # the ir.Pos of the loop's first statement (file, line, column), for refusals
    initial: dict = field(default_factory=dict)   # output element -> the constant the prefix gives it

    def constant_start(self, var: str) -> bool:
        return self.start_rates[self.variables.index(var)] is None

    def by_src(self) -> dict:
        """Control state -> the steps from it, in order."""
        out = {}
        for st in self.steps:
            out.setdefault(st.src, []).append(st)
        return out

    def states(self) -> set:
        """The control states reachable from `start`."""
        out = self.by_src()
        return reachable(self.start, lambda s: [st.dst for st in out.get(s, []) if st.dst != EXIT])

    def describe_step(self, st: Step) -> str:
        """The step as the verdicts print it: its states and, in order, what each event does (writes of
        constants are shown by the outputs, not here)."""
        many = len(self.variables) > 1
        x = lambda e: e.var if many else "x"  # noqa: E731
        said = {"guard": lambda e: ("top" if e.top else "bot") + (f" vs {e.var}" if many else "")
                + ("" if e.noisy else " (noise-free read)"),
                "resample": lambda e: f"{x(e)} resampled (rate {e.rate}*eps)",
                "noisy_out": lambda e: f"noisy output (rate {e.rate}*eps)",
                "disclose": lambda e: "outputs the noisy read",
                "gap": lambda e: "outputs the gap r - x",
                "store": lambda e: f"{x(e)} <- the noisy read"}
        parts = [said[e.kind](e) for e in st.events if e.kind in said]
        state = lambda s: (  # noqa: E731
            "exit" if s == EXIT else ", ".join(f"{n}={v}" for n, v in zip(self.names, s)) or "-")
        return f"[{state(st.src)}] -> [{state(st.dst)}]: " + ("; ".join(parts) or "no guard")
