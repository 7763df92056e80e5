"""Core intermediate representation of a checked, desugared DiPWhile+ program.

This is the contract between the front end (syntax, checks, lowering) and every
back end (sampler, DTMC semantics, accuracy, privacy).  After lowering there are
no parameters, arrays, `for` loops or user sugar left: arrays are flattened to
scalar variables named ``q[1]``, ``q[2]``, ... (1-based, as in the paper), loop
variables are substituted, and every comparison of samples is a `Compare`
statement whose target is a Boolean variable.

Values at run time:
  Bool -> Python bool;  DOM -> int or str (a named symbol);  rationals -> Fraction;
  Int samples -> int;   Real samples -> float (sampler) or a symbolic form (DTMC).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Union


# --------------------------------------------------------------------------- positions

@dataclass(frozen=True)
class Pos:
    """A place in a source file, for messages that point at the user's text."""
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Pos("<builtin>", 0, 0)

# --------------------------------------------------------------------------- types


@dataclass(frozen=True)
class BoolT:
    def __str__(self) -> str:
        return "bool"


@dataclass(frozen=True)
class DomT:
    """A finite domain: integers of a range and/or named symbols, in declared order."""
    values: tuple  # of int | str
    name: str | None = None  # the user's type name, if any, for printing

    def __str__(self) -> str:
        if self.name:
            return self.name
        if self.values and all(isinstance(v, int) for v in self.values):
            lo, hi = min(self.values), max(self.values)
            if list(self.values) == list(range(lo, hi + 1)):
                return f"{lo}..{hi}"
        return "{" + ", ".join(str(v) for v in self.values) + "}"


@dataclass(frozen=True)
class IntT:
    """Integer-valued samples (DLap) and integer linear expressions over them."""
    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True)
class RealT:
    """Real-valued samples (Lap), real inputs and real linear expressions."""
    def __str__(self) -> str:
        return "real"


@dataclass(frozen=True)
class RatT:
    """Rational results of user functions (scores); never a variable's type."""
    def __str__(self) -> str:
        return "rational"


Type = Union[BoolT, DomT, IntT, RealT, RatT]

# --------------------------------------------------------------------------- expressions
# Deterministic expressions over Bool/DOM variables and constants.  They are
# evaluated concretely (see dipc_plus.semantics.evaluate) by both the sampler and the DTMC.


@dataclass(frozen=True)
class Const:
    value: object  # bool | int | Fraction | str (symbol)


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Unary:
    op: str  # 'not' | '-' | 'abs'
    arg: "Expr"


@dataclass(frozen=True)
class Binary:
    op: str  # 'and' 'or' '+' '-' '*' '/' '==' '!=' '<' '<=' '>' '>='
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Cond:
    """``if c then a else b`` as an expression (function bodies, sugar)."""
    cond: "Expr"
    then: "Expr"
    other: "Expr"


@dataclass(frozen=True)
class Call:
    """A built-in (EQ, min, max, ...) or user-defined finite function."""
    fn: str
    args: tuple  # of Expr


# Only inside distribution weights: the sampling rate a*eps of the `choose`
# call (Rate), eps itself (Eps), and exp(.) of a term linear in them.
@dataclass(frozen=True)
class Rate:
    pass


@dataclass(frozen=True)
class Eps:
    pass


@dataclass(frozen=True)
class ExpOf:
    arg: "Expr"


@dataclass(frozen=True)
class Lin:
    """A linear form  sum(coef_i * var_i) + const  over Real (or Int) variables.

    Coefficients and the constant are deterministic expressions (rational or DOM
    valued: the paper's ``q·R``, ``E·R``, ``R + q``, ``R + E``).  Variables are
    Real (kind 'real') or Int (kind 'int') program variables, including real
    inputs.  A real/int constant is a Lin with no terms.  Syntax, not a value (so not an
    `exact.linear.LinForm`): the walks evaluate its coefficients on each path into a LinForm.
    """
    kind: str  # 'real' | 'int'
    terms: tuple  # of (Expr coefficient, str variable)
    const: "Expr" = Const(Fraction(0))


Expr = Union[Const, Var, Unary, Binary, Cond, Call, Rate, Eps, ExpOf, Lin]

# --------------------------------------------------------------------------- distributions


@dataclass(frozen=True)
class NoiseSample:
    """`mean` plus a noise of rate `rate`*eps whose distribution is the one registered as
    `kind` in exact/noises/ (Lap, ExpNoise, DLap, ...): every stage reads what it needs
    of the distribution (value type, draws, engine reading) from that registry."""
    kind: str       # a registered noise kind: 'lap', 'exp', 'dlap', ...
    rate: Fraction  # a > 0, the multiple of eps
    mean: Lin       # of the noise's value type ('real' or 'int'); an int mean's constant must evaluate to an integer


@dataclass(frozen=True)
class ExpMech:
    """Exponential mechanism: candidate v of the target's DOM type drawn with
    probability proportional to exp(rate*eps * fn(*args, v))."""
    rate: Fraction
    fn: str
    args: tuple  # of Expr


@dataclass(frozen=True)
class Choose:
    """A user distribution over the target's DOM type (see Program.distributions)."""
    rate: Fraction | None  # None when the call gives no rate; weights then may not use `rate`
    dist: str
    args: tuple  # of Expr


Distribution = Union[NoiseSample, ExpMech, Choose]

# --------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class Assign:
    """Deterministic assignment: Bool/DOM target with an Expr, Real/Int target with a Lin."""
    target: str
    expr: Expr
    pos: Pos


@dataclass(frozen=True)
class Sample:
    target: str
    dist: Distribution
    pos: Pos


@dataclass(frozen=True)
class Compare:
    """b <- lhs op rhs, where lhs and rhs are Lin of the same kind (real or int).

    op is one of '<', '<=', '>', '>=', '==', '!='.  This is the only
    probabilistic Boolean assignment.
    """
    target: str
    lhs: Lin
    op: str
    rhs: Lin
    pos: Pos


@dataclass(frozen=True)
class If:
    cond: Expr  # deterministic Bool expression
    then: tuple  # of Stmt
    other: tuple  # of Stmt
    pos: Pos


@dataclass(frozen=True)
class While:
    cond: Expr  # deterministic Bool expression
    body: tuple  # of Stmt; never assigns Real or Int variables
    pos: Pos


@dataclass(frozen=True)
class Exit:
    pos: Pos


Stmt = Union[Assign, Sample, Compare, If, While, Exit]


def statements(stmts):
    """Every statement of `stmts` at any depth, each before the statements nested in it: the one
    syntactic walk that "does the body contain / assign / read ..." questions share."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from statements(s.then)
            yield from statements(s.other)
        elif isinstance(s, While):
            yield from statements(s.body)

def children(e) -> tuple:
    """The sub-expressions an expression holds (of a `Lin`, its coefficients and constant): the
    one list of them that the expression walks (reads, uses of eps) follow."""
    if isinstance(e, (Unary, ExpOf)):
        return (e.arg,)
    if isinstance(e, Binary):
        return (e.left, e.right)
    if isinstance(e, Cond):
        return (e.cond, e.then, e.other)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, Lin):
        return tuple(c for c, _ in e.terms) + (e.const,)
    return ()


def number_of(e) -> int | Fraction | None:
    """The rational value of a numeric constant, else None (a Boolean, a symbol, any other
    expression): what the shape recognisers match a coefficient or a constant against.

    >>> number_of(Const(Fraction(1, 2))), number_of(Const(True)), number_of(Const("top")), number_of(Var("x"))
    (Fraction(1, 2), None, None, None)
    """
    value = e.value if isinstance(e, Const) else None
    return value if isinstance(value, (int, Fraction)) and not isinstance(value, bool) else None


def renamed(obj, var_map: dict | None = None):
    """The same IR with variables renamed by `var_map` and every position erased: the shape of a
    piece of program, which two pieces share when they do the same (kernel blocks, recognised loops)."""
    var_map = var_map or {}
    if isinstance(obj, Pos):
        return NOWHERE
    if isinstance(obj, Var):
        return Var(var_map.get(obj.name, obj.name))
    if isinstance(obj, Lin):
        return Lin(obj.kind, tuple((renamed(c, var_map), var_map.get(v, v)) for c, v in obj.terms),
                   renamed(obj.const, var_map))
    if isinstance(obj, tuple):
        return tuple(renamed(x, var_map) for x in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if f.name == "target" and isinstance(value, str):
                changes[f.name] = var_map.get(value, value)
            else:
                changes[f.name] = renamed(value, var_map)
        return dataclasses.replace(obj, **changes)
    return obj

# --------------------------------------------------------------------------- definitions


@dataclass(frozen=True)
class Function:
    """A user-defined finite function: params -> result, body a deterministic Expr."""
    name: str
    params: tuple  # of (name, Type)
    result: Type
    body: Expr
    pos: Pos


@dataclass(frozen=True)
class DistDef:
    """A user distribution over `over`: each outcome (a deterministic Expr of the
    params, giving a value of `over`) has an unnormalised weight, an Expr that may
    use Rate, Eps and ExpOf.  Weights of equal outcomes add up (each is checked >= 0 alone)."""
    name: str
    params: tuple  # of (name, Type)
    over: DomT  # or BoolT for a distribution over bool (`over bool`)
    outcomes: tuple  # of (Expr value, Expr weight)
    pos: Pos
    # where each outcome's weight is written (one Pos per outcome; empty when not known), so that
    # a weight refused at a draw is shown at the weight; not part of the distribution's identity
    weight_pos: tuple = field(default=(), compare=False)

    def weight_at(self, k: int) -> Pos:
        """Where outcome k's weight is written (the declaration when that is not known)."""
        return self.weight_pos[k] if k < len(self.weight_pos) else self.pos


@dataclass
class Program:
    name: str
    source: str                      # path of the .dip file
    params: dict                     # name -> Fraction (resolved values)
    inputs: tuple                    # of (flat name, Type), in declaration order
    outputs: tuple                   # of (flat name, Type), in declaration order
    arrays: dict                     # array name -> tuple of flat element names
    variables: dict                  # every variable (inputs, outputs, locals) -> Type
    functions: dict                  # name -> Function (user-defined only)
    distributions: dict              # name -> DistDef
    body: tuple                      # of Stmt
    types: dict = field(default_factory=dict)  # user type names -> DomT

    def input_names(self) -> list[str]:
        return [n for n, _ in self.inputs]

    def output_names(self) -> list[str]:
        return [n for n, _ in self.outputs]
