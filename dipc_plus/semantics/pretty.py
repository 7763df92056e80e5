"""Print an `ir.Program` as .dip text: the checked, desugared program.

The text is valid input again (parse -> lower -> print -> parse -> lower gives
the same program up to positions), so `dipc show` output can be edited and
run.  Parameters are already substituted; they are listed in the header and
as `param` lines (kept so the program round-trips exactly).

The same expression, rate and noise-form printers describe the states and
constraints of the parametric chain (`semantics.dtmc`, `semantics.export`), so
programs and chains are written one way.
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.exact.convert import signed_sum
from dipc_plus.exact.linear import Atom, LinForm
from dipc_plus.exact import noises
from dipc_plus.semantics import ir

INDENT = "    "

# precedence: higher binds tighter
_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "neg": 7, "atom": 8}
_CMP = ("<", "<=", ">", ">=", "==", "!=")


# --------------------------------------------------------------------------- expressions


def format_expr(e: ir.Expr) -> str:
    return _fmt(e, 0)


def _wrap(text: str, prec: int, need: int) -> str:
    return f"({text})" if prec < need else text


def _number(value, need: int) -> str:
    if isinstance(value, Fraction) and value.denominator != 1:
        return _wrap(f"{value.numerator}/{value.denominator}", _PREC["*"], need)
    value = int(value)
    return _wrap(str(value), _PREC["neg"] if value < 0 else _PREC["atom"], need)


def _fmt(e, need: int) -> str:
    if isinstance(e, ir.Const):
        v = e.value
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return v
        return _number(v, need)
    if isinstance(e, ir.Var):
        return e.name
    if isinstance(e, ir.Rate):
        return "rate"
    if isinstance(e, ir.Eps):
        return "eps"
    if isinstance(e, ir.ExpOf):
        return f"exp({_fmt(e.arg, 0)})"
    if isinstance(e, ir.Call):
        return f"{e.fn}({', '.join(_fmt(a, 0) for a in e.args)})"
    if isinstance(e, ir.Unary):
        if e.op == "abs":
            return f"abs({_fmt(e.arg, 0)})"
        if e.op == "not":
            return _wrap(f"not {_fmt(e.arg, _PREC['not'])}", _PREC["not"], need)
        return _wrap(f"-{_fmt(e.arg, _PREC['neg'])}", _PREC["neg"], need)
    if isinstance(e, ir.Binary):
        if e.op in _CMP:
            p = _PREC["cmp"]
            return _wrap(f"{_fmt(e.left, p + 1)} {e.op} {_fmt(e.right, p + 1)}", p, need)
        p = _PREC[e.op]
        return _wrap(f"{_fmt(e.left, p)} {e.op} {_fmt(e.right, p + 1)}", p, need)
    if isinstance(e, ir.Cond):
        text = f"if {_fmt(e.cond, 1)} then {_fmt(e.then, 1)} else {_fmt(e.other, 0)}"
        return _wrap(text, 0, need)
    if isinstance(e, ir.Lin):
        return _wrap(format_lin(e), _PREC["+"], need)
    raise TypeError(f"cannot print {e!r}")


def _negative(e: ir.Expr) -> ir.Expr | None:
    """If `e` reads as a negative quantity, its positive counterpart (for 'a - b' printing)."""
    if isinstance(e, ir.Const) and not isinstance(e.value, (bool, str)) and e.value < 0:
        return ir.Const(-e.value)
    if isinstance(e, ir.Unary) and e.op == "-":
        return e.arg
    return None


def _sum_spine(e: ir.Expr) -> list[tuple[bool, ir.Expr]]:
    """a - b + c as [(False, a), (True, b), (False, c)], following the left operands only."""
    if isinstance(e, ir.Binary) and e.op in ("+", "-"):
        return _sum_spine(e.left) + [(e.op == "-", e.right)]
    return [(False, e)]


def format_lin(lin: ir.Lin) -> str:
    """``c1*x1 + c2*x2 + c`` with signs folded into the operators."""
    parts: list[tuple[bool, str]] = []  # (negative?, text of the magnitude)
    for coef, var in lin.terms:
        positive = _negative(coef)
        negative = positive is not None
        magnitude = positive if negative else coef
        if isinstance(magnitude, ir.Const) and not isinstance(magnitude.value, bool) and magnitude.value == 1:
            parts.append((negative, var))
        else:
            parts.append((negative, f"{_fmt(magnitude, _PREC['*'])} * {var}"))
    c = lin.const
    if not (isinstance(c, ir.Const) and not isinstance(c.value, (bool, str)) and c.value == 0) or not parts:
        if not parts:
            parts.append((False, _fmt(c, _PREC["+"])))
        else:
            # the constant is built left to right when parsed, so its left spine of
            # + and - continues the sum without parentheses
            for k, (negative, operand) in enumerate(_sum_spine(c)):
                # only the first operand may fold its sign into the operator: later
                # ones were added as written (x + -2 is not x - 2 for the parser)
                positive = _negative(operand) if k == 0 else None
                if positive is not None:
                    parts.append((True, _fmt(positive, _PREC["+"] + 1)))
                else:
                    parts.append((negative, _fmt(operand, _PREC["+"] + 1)))
    return signed_sum([("-" if negative else "+", body) for negative, body in parts])


def format_rate(a: Fraction) -> str:
    """eps, eps/2, 3*eps, 3*eps/2: a multiple of eps as a program writes it."""
    a = Fraction(a)
    head = "eps" if a.numerator == 1 else f"{a.numerator}*eps"
    return head if a.denominator == 1 else f"{head}/{a.denominator}"


# --------------------------------------------------------------------------- types


def type_text(t: ir.Type, program: ir.Program) -> str:
    if isinstance(t, ir.DomT):
        if t.name and t.name in program.types and program.types[t.name].values == t.values:
            return t.name
        return str(ir.DomT(t.values))   # the values written out, not the name
    return str(t)


# --------------------------------------------------------------------------- statements


def format_stmt(s, depth: int = 0) -> list[str]:
    pad = INDENT * depth
    if isinstance(s, ir.Assign):
        return [f"{pad}{s.target} <- {format_expr(s.expr)}"]
    if isinstance(s, ir.Compare):
        p = _PREC["cmp"] + 1
        return [f"{pad}{s.target} <- {_fmt(s.lhs, p)} {s.op} {_fmt(s.rhs, p)}"]
    if isinstance(s, ir.Sample):
        return [f"{pad}{s.target} <- {format_distribution(s.dist)}"]
    if isinstance(s, ir.If):
        other = [f"{pad}else"] + format_block(s.other, depth + 1) if s.other else []
        return [f"{pad}if {format_expr(s.cond)} then"] + format_block(s.then, depth + 1) + other + [f"{pad}end"]
    if isinstance(s, ir.While):
        return [f"{pad}while {format_expr(s.cond)} do"] + format_block(s.body, depth + 1) + [f"{pad}end"]
    if isinstance(s, ir.Exit):
        return [f"{pad}exit"]
    raise TypeError(f"cannot print {s!r}")


def format_block(stmts, depth: int = 0) -> list[str]:
    """The lines of a statement list, each statement at `depth`."""
    return [line for s in stmts for line in format_stmt(s, depth)]


def format_distribution(d) -> str:
    if isinstance(d, ir.NoiseSample):
        return f"{noises.by_kind(d.kind).surface}({format_rate(d.rate)}, {format_lin(d.mean)})"
    if isinstance(d, ir.ExpMech):
        return f"Exp({format_rate(d.rate)}, {d.fn}({', '.join(format_expr(a) for a in d.args)}))"
    if isinstance(d, ir.Choose):
        call = f"{d.dist}({', '.join(format_expr(a) for a in d.args)})"
        return f"choose({format_rate(d.rate)}, {call})" if d.rate is not None else f"choose({call})"
    raise TypeError(f"cannot print {d!r}")


# --------------------------------------------------------------------------- noise forms (the chain's constraints)


def format_linform(form: LinForm, name=lambda i: f"N{i}") -> str:
    """A linear form over noises: 'N0 - 2*N1 + 1/2'."""
    parts = []
    for i, c in form.coeffs:
        mag = abs(c)
        body = name(i) if mag == 1 else f"{mag}*{name(i)}"
        parts.append(("-" if c < 0 else "+", body))
    if form.const != 0 or not parts:
        parts.append(("-" if form.const < 0 else "+", str(abs(form.const))))
    return signed_sum(parts)


def format_noise(nid: int, noise) -> str:
    """`N9 ~ Lap(eps/9, 0)`: a chain's noise as the chain and the distributions list it."""
    return f"N{nid} ~ {noises.by_kind(noise.kind).surface}({format_rate(noise.rate)}, 0)"


def format_atom(a: Atom, name=lambda i: f"N{i}") -> str:
    """`form op 0` written as `terms op constant`."""
    terms = LinForm(a.form.coeffs, Fraction(0))
    rhs = -a.form.const
    return f"{format_linform(terms, name)} {a.op} {rhs}"


# --------------------------------------------------------------------------- programs


def _by_array(entries, program: ir.Program) -> list[tuple[str, str, int | None]]:
    """(array or scalar name, its type's text, the array's size or None) from (flat name, type) pairs,
    in order: the declarations and the header list variables this way."""
    owner = {flat: name for name, flats in program.arrays.items() for flat in flats}
    groups: dict[str, list] = {}
    for flat, typ in entries:
        groups.setdefault(owner.get(flat, flat), []).append(typ)
    return [(name, type_text(types[0], program), len(types) if name in program.arrays else None)
            for name, types in groups.items()]


def _declarations(kind: str, entries, program: ir.Program) -> list[str]:
    """`input q: real[3]` for an array, one line per scalar."""
    return [f"{kind} {name}: {typ}" + (f"[{size}]" if size is not None else "")
            for name, typ, size in _by_array(entries, program)]


def _signature(params, program) -> str:
    return ", ".join(f"{n}: {type_text(t, program)}" for n, t in params)


def _header(program: ir.Program) -> list[str]:
    def listing(entries):
        return ", ".join(f"{name}{f'[1..{size}]' if size is not None else ''}: {typ}"
                         for name, typ, size in _by_array(entries, program)) or "(none)"

    params = ", ".join(f"{n} = {v}" for n, v in program.params.items()) or "(none)"
    return [f"# {program.name}: checked and desugared from {program.source}",
            f"# params:  {params}",
            f"# inputs:  {listing(program.inputs)}",
            f"# outputs: {listing(program.outputs)}"]


def format_program(program: ir.Program, header: bool = True) -> str:
    lines: list[str] = _header(program) + [""] if header else []
    if program.params:
        lines.append("# parameters, already substituted in the text below (so --set has no effect on it)")
    for name, v in program.params.items():
        lines.append(f"param {name} = {v}")
    for name, t in program.types.items():
        lines.append(f"type {name} = {ir.DomT(t.values)}")
    for f in program.functions.values():
        lines.append(f"function {f.name}({_signature(f.params, program)}) -> {type_text(f.result, program)} = "
                     f"{format_expr(f.body)}")
    for d in program.distributions.values():
        outcomes = "; ".join(f"{format_expr(v)}: {format_expr(w)}" for v, w in d.outcomes)
        lines.append(f"distribution {d.name}({_signature(d.params, program)}) over {type_text(d.over, program)} "
                     f"{{ {outcomes} }}")
    lines += _declarations("input", program.inputs, program)
    lines += _declarations("output", program.outputs, program)
    io = {n for n, _ in program.inputs} | {n for n, _ in program.outputs}
    local = [(n, t) for n, t in program.variables.items() if n not in io]
    lines += _declarations("var", local, program)
    if len(lines) > (5 if header else 0):
        lines.append("")
    lines += format_block(program.body)
    return "\n".join(lines) + "\n"
