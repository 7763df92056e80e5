"""A program flattened to instructions with jumps, and which variables each one needs.

The parametric chain (`semantics.dtmc`) steps through this code: `while` becomes a
branch and a jump back, so a state is just a position `pc` plus values.  Liveness
(which variables are read again before being overwritten) lets the chain forget dead
values, so paths that differ only in them merge.
"""

from __future__ import annotations

from dataclasses import dataclass

from dipc_plus.semantics import ir
from dipc_plus.semantics.identity_cache import by_identity
from dipc_plus.semantics.pretty import format_expr, format_stmt


@dataclass(frozen=True)
class Instr:
    """One instruction of the flattened program.

    op: 'assign' | 'sample' | 'compare' | 'branch' (go to `target` when `cond`
    is false, else fall through) | 'jump' | 'exit'.  `stmt` is the IR statement
    it comes from (for positions and descriptions).
    """
    op: str
    stmt: object = None
    cond: object = None
    target: int = -1
    loop_head: bool = False  # a `while` test: deterministic loops are detected here


_SIMPLE = {ir.Assign: "assign", ir.Sample: "sample", ir.Compare: "compare", ir.Exit: "exit"}


def compile_program(body: tuple) -> list[Instr]:
    """Flatten structured statements into instructions with jumps; a final 'exit'."""
    code: list[Instr] = []

    def emit(stmts):
        for s in stmts:
            if type(s) in _SIMPLE:
                code.append(Instr(_SIMPLE[type(s)], s))
            elif isinstance(s, ir.If):
                at = len(code)
                code.append(None)  # patched below
                emit(s.then)
                if s.other:
                    jump_at = len(code)
                    code.append(None)
                    else_pc = len(code)
                    emit(s.other)
                    code[jump_at] = Instr("jump", s, target=len(code))
                else:
                    else_pc = len(code)
                code[at] = Instr("branch", s, cond=s.cond, target=else_pc)
            elif isinstance(s, ir.While):
                head = len(code)
                code.append(None)
                emit(s.body)
                code.append(Instr("jump", s, target=head))
                code[head] = Instr("branch", s, cond=s.cond, target=len(code), loop_head=True)
            else:
                raise TypeError(f"unknown statement {s!r}")

    emit(body)
    code.append(Instr("exit", None))
    return code


def reads(node, terms: bool = True) -> set:
    """Variables an expression (or linear form, or list of them) reads.

    terms=False leaves out a `Lin`'s term variables (its Real/Int values) and keeps what its
    coefficients and constant read: the sampler groups runs by those alone.
    """
    out: set = set()
    stack = [node]
    while stack:
        e = stack.pop()
        if isinstance(e, ir.Var):
            out.add(e.name)
        elif isinstance(e, (tuple, list)):
            stack.extend(e)
        else:
            if terms and isinstance(e, ir.Lin):
                out.update(var for _, var in e.terms)
            stack.extend(ir.children(e))
    return out


def assigned(stmts) -> set:
    """Every variable some statement of the body may assign, at any depth.

    >>> assigned([ir.Assign("x", ir.Const(1), ir.NOWHERE)])
    {'x'}
    """
    return {s.target for s in ir.statements(stmts) if isinstance(s, (ir.Assign, ir.Sample, ir.Compare))}


def contains_exit(stmts) -> bool:
    return any(isinstance(s, ir.Exit) for s in ir.statements(stmts))


def contains_while(stmts) -> bool:
    return any(isinstance(s, ir.While) for s in ir.statements(stmts))


def own_reads(s, terms: bool = True) -> set:
    """Variables a statement's own expressions read (of `if` and `while`, the condition only)."""
    if isinstance(s, ir.Assign):
        return reads(s.expr, terms)
    if isinstance(s, ir.Sample):
        d = s.dist
        return reads(d.mean if isinstance(d, ir.NoiseSample) else d.args, terms)
    if isinstance(s, ir.Compare):
        return reads((s.lhs, s.rhs), terms)
    if isinstance(s, (ir.If, ir.While)):
        return reads(s.cond, terms)
    return set()


def stmts_read(stmts) -> set:
    """Every variable some of `stmts` may read (nested statements included)."""
    out: set = set()
    for t in ir.statements(stmts):
        out |= own_reads(t)
    return out


def _uses_defs(instr: Instr, outputs: frozenset) -> tuple[set, set]:
    if instr.op in ("assign", "sample", "compare"):
        return own_reads(instr.stmt), {instr.stmt.target}
    if instr.op == "branch":
        return reads(instr.cond), set()
    if instr.op == "exit":
        return set(outputs), set()
    return set(), set()


def _successors(code: list[Instr], pc: int) -> list[int]:
    op = code[pc].op
    if op == "exit":
        return []
    if op == "jump":
        return [code[pc].target]
    if op == "branch":
        return [pc + 1, code[pc].target]
    return [pc + 1]


def liveness(code: list[Instr], outputs) -> list[frozenset]:
    """Variables live before each instruction (read later before being overwritten)."""
    outputs = frozenset(outputs)
    ud = [_uses_defs(i, outputs) for i in code]
    succ = [_successors(code, pc) for pc in range(len(code))]
    live = [frozenset()] * len(code)
    changed = True
    while changed:
        changed = False
        for pc in range(len(code) - 1, -1, -1):
            use, defs = ud[pc]
            out = set()
            for t in succ[pc]:
                out |= live[t]
            new = frozenset(use | (out - defs))
            if new != live[pc]:
                live[pc] = new
                changed = True
    return live


_COMPILED: dict = {}


def compiled(body: tuple, outputs) -> tuple[list, list]:
    """(code, liveness) of a program body, computed once per body object (grids build
    many chains of one program)."""
    def make() -> tuple[list, list]:
        code = compile_program(body)
        return code, liveness(code, outputs)
    return by_identity(_COMPILED, (body,), make, limit=65, extra=tuple(outputs))


def describe_instr(instr: Instr) -> str:
    s = instr.stmt
    if instr.op == "exit":
        return "exit"
    if instr.op == "jump":
        return "end while" if isinstance(s, ir.While) else "end if-branch"
    if instr.op == "branch":
        return ("while " if instr.loop_head else "if ") + format_expr(instr.cond)
    return format_stmt(s)[0]   # an assignment, a draw or a comparison: one line
