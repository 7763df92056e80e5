"""Reading the fields both kinds of privacy claim share: budget, eps, delta, output events.

Why it exists: these are the claim strings with the most structure (a budget linear
in eps plus logarithms of rationals, an eps interval or point ln r, a delta formula,
intervals of real outputs).  Each is read through the claims layer's safe reader
(`claims.expression`): a checked, located tree folded by our own code, never evaluated,
with sizes bounded so that no user string builds a huge number.  Errors are
`UserError`s at the key's line (and the column inside the string when known).
"""
from __future__ import annotations

import re
from fractions import Fraction

from dipc_plus.claims.claim_file import ClaimReader
from dipc_plus.claims.expression import ARITHMETIC, TreeFold, check_rational_power, read, syntax_tree
from dipc_plus.decision.certified import infinity_sign, interval_parts
from dipc_plus.decision.decide import Interval
from dipc_plus.execution.limits import clip
from dipc_plus.frontend.scope import did_you_mean
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.claims.privacy_types import Budget, EpsRange, parse_event, read_rational
from dipc_plus.exact.log_point import rational_power, value_at_log
from dipc_plus.semantics import ir
from dipc_plus.semantics.values import distinct


# -- budget ---------------------------------------------------------------------------------------

BUDGET_HINT = ('write the budget as a multiple of eps plus optional logarithms of rationals: '
                '"eps", "2*eps", "eps/2", "ln(3)", "eps + ln(2)"')


class _BudgetFold(TreeFold):
    """Folds a budget's tree to a linear term (eps coefficient, {log base: coefficient}, constant),
    so that anything outside that linear shape fails at its node."""

    def __init__(self, params: dict, fail):
        self.params = params
        self.fail = fail

    def refuse(self, node):
        self.fail("only numbers, eps, the program's parameters, ln(rational), + - * / are allowed", node)

    def constant(self, c: Fraction) -> tuple:
        return (Fraction(0), {}, c)

    def fold_name(self, node):
        """eps, or a parameter's value; an unknown name with the closest known one as a hint."""
        if node.value in ("eps", "ε"):
            return (Fraction(1), {}, Fraction(0))
        if node.value in self.params:
            return self.constant(self.params[node.value])
        close = did_you_mean(node.value, ["eps", *self.params])
        self.fail(f"unknown name '{node.value}'" + (f" ({close})" if close else ""), node)

    def fold_call(self, node):
        """ln(r) of a positive rational constant r: one logarithm (ln 1 = 0 adds none)."""
        if node.op not in ("ln", "log"):
            return None
        if len(node.args) != 1:
            self.fail("ln takes one argument")
        a = self.value(node.args[0])
        if a[0] or a[1]:
            self.fail("ln(...) must be of a positive rational constant")
        if a[2] <= 0:
            self.fail(f"ln({a[2]}) is not defined")
        return (Fraction(0), {a[2]: Fraction(1)} if a[2] != 1 else {}, Fraction(0))

    def signed(self, op: str, term: tuple) -> tuple:
        return _scaled(-1 if op == "-" else 1, term)

    def ring(self, node, a, b):
        """+ - of any terms, * by a constant (the term stays linear)."""
        if node.op in ("+", "-"):
            s = 1 if node.op == "+" else -1
            logs = {k: a[1].get(k, 0) + s * b[1].get(k, 0) for k in {**a[1], **b[1]}}
            return (a[0] + s * b[0], logs, a[2] + s * b[2])
        if not (a[0] or a[1]):
            return _scaled(a[2], b)
        if not (b[0] or b[1]):
            return _scaled(b[2], a)
        self.fail("a product of two terms that depend on eps or ln is not linear")

    def divide(self, node, a, b):
        """Division by a nonzero constant."""
        if b[0] or b[1] or b[2] == 0:
            self.fail("divide only by a nonzero number", node)
        return (a[0] / b[2], {k: v / b[2] for k, v in a[1].items()}, a[2] / b[2])

    def power(self, node):
        """A constant to an integer power, with the size of the result bounded before it is built."""
        a, b = self.value(node.args[0]), self.value(node.args[1])
        if a[0] or a[1] or b[0] or b[1]:
            self.fail("a power of eps or of a logarithm is not linear in eps")
        if b[2].denominator != 1:
            self.fail("only integer powers of numbers are allowed", node)
        check_rational_power(a[2], int(b[2]), lambda message, hint: self.fail(message, node))
        if a[2] == 0 and b[2] < 0:
            self.fail("0 to a negative power", node)
        return (Fraction(0), {}, a[2] ** int(b[2]))


def _scaled(c, term: tuple) -> tuple:
    """c times a linear term."""
    return (c * term[0], {k: c * v for k, v in term[1].items()}, c * term[2])


def read_budget(r: ClaimReader, text, program: ir.Program, key: str) -> Budget:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        raise r.error(key, f"a bare number {text} is ambiguous as a budget",
                      hint='write "eps" for eps-DP, or "ln(3)" for the constant ln 3')
    r.typed(key, text, str, "budget must be a string", BUDGET_HINT)
    where = r.where(key)
    tree = syntax_tree(text, where, ARITHMETIC | {"call"}, calls=("ln", "log"), what="budget",
                       hint=BUDGET_HINT)
    params = {k: Fraction(v) for k, v in program.params.items()}

    def fail(msg, node=None):
        raise where.error(f"'{clip(text)}': {msg}", None if node is None else node.col,
                          hint=BUDGET_HINT)

    k, logs, const = _BudgetFold(params, fail).value(tree)
    if const != 0:
        fail(f"the constant {const} is not a logarithm of a rational; e^{const} is not rational "
             "(write ln(r) for a constant budget)")
    if k < 0:
        fail("the budget must not decrease with eps")
    if abs(k) > 1000 or k.denominator > 1000:
        fail(f"the eps coefficient {k} is too large for the exact procedure (at most 1000, denominator at most 1000)")
    factor = Fraction(1)
    for base, c in logs.items():
        if abs(c.numerator) * (base.numerator.bit_length() + base.denominator.bit_length()) > 100_000 \
                or c.denominator > 1000:
            fail(f"{c}*ln({base}) is too large to take exactly")
        p = rational_power(base, c)
        if p is None:
            fail(f"{c}*ln({base}) is not the logarithm of a rational")
        factor *= p
    if factor < 1:
        fail("the constant part of the budget is negative")
    return Budget(k, factor, text)


# -- eps -----------------------------------------------------------------------------------------

def read_eps(r: ClaimReader, text, key: str) -> EpsRange:
    r.typed(key, text, str, "eps must be a string", 'write eps = "(0, inf)", "[1/10, 5]" or "ln(2)"')
    s = text.strip()
    m = re.fullmatch(r"(?:ln|log)\(\s*([0-9/.]+)\s*\)", s)
    if m:
        base = read_rational(m.group(1))
        if base is None:
            raise r.error(key, f"cannot read {text!r}", hint='eps = "ln(2)"')
        if base <= 1:
            raise r.error(key, f"eps = ln({m.group(1)}) is not positive", hint="the logarithm's argument must exceed 1")
        return EpsRange(log_of=base)
    if s and s[0] not in "([":
        q = read_rational(s)
        if q is not None:
            if q <= 0:
                raise r.error(key, "eps must be positive", hint='eps = "1/2"')
            return EpsRange(Interval(q, q, True, True))
    parts = interval_parts(s)
    if parts is None or any(read_rational(e) is None and not infinity_sign(e) for e in parts[:2]):
        raise r.error(key, f"cannot read the interval {text!r}",
                      hint='write eps = "(0, inf)", "[1/10, 5]", "1/2" or "ln(2)" (rational ends)')
    with r.located(key):
        return EpsRange(Interval.parse(s))


def read_delta(r: ClaimReader, text, program: ir.Program, eps: EpsRange):
    from dipc_plus.claims.formula import parse as parse_formula
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = str(text)
    r.typed("privacy.delta", text, str, "delta must be a formula in a string", 'delta = "0" or "exp(-eps)/100"')
    where = r.where("privacy.delta")
    # read with the delta's own limits, then checked once and folded as an exact formula
    hint = 'delta is a formula in eps and the parameters, e.g. "0", "1/100" or "exp(-eps)/100"'
    tree = read(text, where, what="delta", hint=hint)
    formula = parse_formula(text, [p for p in program.params if p != "eps"], where, tree=tree, what="delta",
                            hint=hint)
    value = formula.exact(dict(program.params))
    value = ExpFrac.of(value)
    if eps.is_log_point and value_at_log(value, eps.log_of) is None:
        raise r.error("privacy.delta", f"delta = {text} is not rational at {eps}",
                      hint="at eps = ln(r) delta must be a rational function of e^eps")
    return text, value


# -- events on real outputs -----------------------------------------------------------------------------

def _event_key(event) -> tuple:
    return event.lo, event.hi, event.lo_closed, event.hi_closed


def _refuse_overlapping(r: ClaimReader, key: str, name: str, events: list) -> None:
    """Two events of one output that share a point are refused, at the later one: the verdict
    covers the unions of the events, which follows from the per-event inequalities only when the
    events are disjoint (an event written twice is one event, not an overlap)."""
    for j, b in enumerate(events):
        for a in events[:j]:
            if _event_key(a) != _event_key(b) and a.overlaps(b):
                raise r.item_error(key, name, j, f"{name}: the events '{a}' and '{b}' overlap",
                                   hint="give disjoint events (a verdict covers their unions): split them where "
                                        "they meet, e.g. \"(-inf, 0]\", \"(0, 1]\", \"(1, inf)\" instead of "
                                        "\"(-inf, 1]\", \"(0, inf)\"")


def read_events(r: ClaimReader, spec, program: ir.Program, key: str, *, densities: bool = False) -> dict | None:
    """{flat real or integer output: its events}; with `densities` (a DP claim that can decide real outputs
    on their densities, at every value) None when some real output has none, otherwise an error."""
    types = dict(program.outputs)
    events: dict = {}
    given: dict = {}
    if spec is not None:
        r.typed(key, spec, dict, "events must be a table", 'events = { out = ["(-inf, 0]", "(0, inf)"] }')
        for name, value in spec.items():
            targets = r.named_once(key, program, name, given, "output")
            r.typed(key, value, list, f"{name}: give a non-empty list of intervals",
                    f'{name} = ["(-inf, 0]", "(0, inf)"]', nonempty=True)
            with r.located(key, f"{name}: "):
                written = [parse_event(v) for v in value]
            _refuse_overlapping(r, key, name, written)
            ivs = distinct(written, key=_event_key)   # an interval written twice (however spaced) is one event
            for t in targets:
                if not isinstance(types[t], (ir.RealT, ir.IntT)):
                    raise r.error(key, f"'{t}' is a finite output: its values are checked one by one",
                                  hint="events are only for real or integer outputs")
                events[t] = ivs
    missing = [n for n, t in program.outputs if isinstance(t, (ir.RealT, ir.IntT)) and n not in events]
    if missing and densities:
        return None
    if missing:
        raise r.error(key if spec is not None else "privacy",
                      f"the real output(s) {', '.join(missing)} need output events",
                      hint=f'add events = {{ {missing[0].split("[")[0]} = ["(-inf, 0]", "(0, 1]", "(1, inf)"] }}: '
                           "the claim is checked for each named event (a real output has no finite set of values)")
    return events
