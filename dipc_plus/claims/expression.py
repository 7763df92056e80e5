"""The one expression tree of claim strings: every formula, budget, delta, secret and prior
weight a claim file holds is read here, once, into an `Expr` tree located in the user's text.

Why it exists: a claim string is untrusted data.  Python's parser is used only to build a
syntax tree (it never runs anything); this module checks that tree against the size limits
(`digits`, `power`, `depth`, `nodes`) before anything is computed, keeps every decimal
constant as written (`WrittenFloat`), and converts it into our own small tree whose nodes
carry their column in the user's text ('^' written for a power included).  The readers
(`formula` for exact values, the alpha series and polynomials, `privacy_fields` for budgets,
`secrets` for conditions) fold over `Expr` and never see Python's `ast`; nothing a user
writes reaches eval, exec, sympify or parse_expr.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from fractions import Fraction

from dipc_plus.claims.written_numbers import WrittenFloat
from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.execution.limits import clip, too_many_digits

MAX_TEXT = 4000          # characters of one claim string (other than an accuracy formula)

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.USub: "-", ast.UAdd: "+",
        ast.Not: "not", ast.And: "and", ast.Or: "or", ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<",
        ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
ALLOWED_OPS = frozenset(_OPS.values())
RING_OPS = frozenset({"+", "-", "*", "/", "**"})      # arithmetic only: signs and binary operators
ARITHMETIC = frozenset({"number", "string", "truth", "constant", "name", "unary", "binary"})
CONDITIONS = ARITHMETIC | {"bool", "compare", "index", "call"}
_KIND_WORDS = {"call": "a function call", "index": "an index", "compare": "a comparison", "bool": "and/or"}
_NODE_WORDS = {ast.Attribute: "an attribute ('.')", ast.Lambda: "a lambda", ast.List: "a list",
               ast.Tuple: "a tuple", ast.Dict: "a dict", ast.Set: "a set", ast.JoinedStr: "an f-string",
               ast.FormattedValue: "an f-string", ast.IfExp: "an if-expression", ast.ListComp: "a comprehension",
               ast.GeneratorExp: "a comprehension", ast.SetComp: "a comprehension",
               ast.DictComp: "a comprehension", ast.NamedExpr: "an assignment (':=')", ast.Starred: "a '*'",
               ast.Await: "'await'", ast.Yield: "'yield'", ast.Slice: "a slice"}


@dataclass(frozen=True)
class Where:
    """Where a claim string sits in a claim file, for error messages."""
    file: str | None = None
    line: int | None = None
    column: int | None = None  # column of the string's first character
    key: str = "formula"

    def error(self, message: str, offset: int | None = None, hint: str | None = None) -> UserError:
        column = None if self.column is None else self.column + (offset or 0)
        return UserError(f"{self.key}: {message}", file=self.file, line=self.line, column=column, hint=hint)


@dataclass(frozen=True, eq=False)
class Expr:
    """One node of a claim string.  `kind` is number, string, truth (True/False), constant (any
    other literal), name, unary, binary, call, bool (and/or), compare, index, or other (a Python
    form no claim string may use; `value` then says which, in words).  `op` is the operator
    ('+', '**', 'not', 'and', a tuple of comparisons), the called function's name (None when
    the callee is not a plain name, which is then `value`), or how a number was written ('int',
    'float'); `col`, `end` are offsets in the user's text."""
    kind: str
    op: object
    args: tuple
    value: object
    col: int
    end: int
    keywords: bool = False               # a call with keyword arguments
    text: str = field(default="", repr=False)   # the whole claim string this node is part of

    def part(self) -> str:
        """The user's own text of this node."""
        return self.text[self.col:self.end] or self.text

    def shape(self):
        """The node's structure without locations: equal for equal subexpressions."""
        return (self.kind, self.op, self.value, tuple(a.shape() for a in self.args))


def caret_to_power(text: str):
    """(text with '^' -> '**', a function mapping a column of the new text to the old)."""
    source = text.replace("^", "**")
    starts = [k for k, ch in enumerate(text) for _ in range(2 if ch == "^" else 1)]   # new column -> old

    def back(col: int) -> int:
        if col < 0:
            return 0
        return starts[col] if col < len(starts) else len(text)
    return source, back


def read(text: str, where: Where, *, what: str = "formula", hint: str | None = None,
         max_text: int = MAX_TEXT) -> Expr:
    """Parse, check the size limits of, and convert one claim string (located at `where`);
    `what` names it in messages."""
    hint = hint or "use numbers, names, + - * / and ** (or ^)"
    if not isinstance(text, str) or not text.strip():
        raise where.error(f"the {what} is empty", hint=hint)
    if len(text) > max_text:
        raise where.error(f"the {what} has {len(text)} characters, more than {max_text}", hint=hint)
    source, back = caret_to_power(text)
    shown = repr(clip(text))
    most = limits.get("digits")   # a number written with more digits is refused before Python converts it
    m = next((m for m in re.finditer(r"\d+", text) if len(m.group()) > most), None)   # runs, not a regex count
    if m:
        raise where.error(f"the number {clip(m.group())} has more than {most} digits", m.start(), limits.hint("digits"))
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise where.error(f"cannot read {shown}: {exc.msg}", back((exc.offset or 1) - 1), hint=hint) from None
    except (RecursionError, MemoryError):
        raise where.error(f"{shown} is nested too deeply to read", hint=limits.hint("depth")) from None
    except ValueError as exc:  # e.g. an integer literal past Python's own digit limit
        raise where.error(f"cannot read {shown}: {clip(exc, 60)}", hint=limits.hint("digits")) from None

    def error(message, col, hint_):
        return where.error(message, back(col), hint_)
    _check_sizes(tree.body, error)
    return _convert(tree.body, source, text, back, error)


def _check_sizes(root, error) -> None:
    """Refuse, before anything is computed, a tree past the nesting, size or number limits."""
    max_depth, max_nodes, max_digits = limits.get("depth"), limits.get("nodes"), limits.get("digits")
    stack, count = [(root, 1)], 0
    while stack:
        node, depth = stack.pop()
        count += 1
        col = getattr(node, "col_offset", 0)
        if count > max_nodes:
            raise error(f"the formula has more than {max_nodes} parts", col, limits.hint("nodes"))
        if depth > max_depth:
            raise error(f"the formula is nested more than {max_depth} deep", col, limits.hint("depth"))
        value = node.value if isinstance(node, ast.Constant) else None
        digits = integer_digits(value) if type(value) is int else len(repr(value)) if type(value) is float else 0
        if digits > max_digits:
            raise error(f"the number {clip(value)} has more than {max_digits} digits", col, limits.hint("digits"))
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _op(op) -> str:
    return _OPS.get(type(op), type(op).__name__)


def _convert(node, source: str, text: str, back, error) -> Expr:
    """Our located tree of a size-checked `ast` expression (floats kept as written)."""
    def make(kind, op, args, value, n=node, keywords=False):
        col = back(getattr(n, "col_offset", 0))
        end = getattr(n, "end_col_offset", None)
        return Expr(kind, op, tuple(args), value, col, len(text) if end is None else back(end), keywords, text)

    def go(n) -> Expr:
        if isinstance(n, ast.Constant):
            v = n.value
            if isinstance(v, bool):
                return make("truth", None, (), v, n)
            if isinstance(v, int):
                return make("number", "int", (), Fraction(v), n)
            if isinstance(v, float):
                segment = ast.get_source_segment(source, n)
                if segment and re.fullmatch(r"[0-9_.]+(?:[eE][+-]?[0-9_]+)?", segment):
                    too_many = too_many_digits(segment)
                    if too_many:
                        raise error(f"the number {clip(segment)} has {too_many}", n.col_offset, limits.hint("digits"))
                    v = WrittenFloat(segment)
                return make("number", "float", (), Fraction(repr(v)), n)
            if isinstance(v, str):
                return make("string", None, (), v, n)
            return make("constant", None, (), v, n)
        if isinstance(n, ast.Name):
            return make("name", None, (), n.id, n)
        if isinstance(n, ast.UnaryOp):
            return make("unary", _op(n.op), [go(n.operand)], None, n)
        if isinstance(n, ast.BinOp):
            return make("binary", _op(n.op), [go(n.left), go(n.right)], None, n)
        if isinstance(n, ast.BoolOp):
            return make("bool", _op(n.op), [go(v) for v in n.values], None, n)
        if isinstance(n, ast.Compare):
            return make("compare", tuple(_op(o) for o in n.ops), [go(n.left)] + [go(c) for c in n.comparators],
                        None, n)
        if isinstance(n, ast.Call):
            name = n.func.id if isinstance(n.func, ast.Name) else None
            callee = None if name is not None else go(n.func)
            return make("call", name, [go(a) for a in n.args], callee, n, keywords=bool(n.keywords))
        if isinstance(n, ast.Subscript):
            return make("index", None, [go(n.value), go(n.slice)], None, n)
        word = next((w for k, w in _NODE_WORDS.items() if isinstance(n, k)), type(n).__name__)
        return make("other", None, (), word, n)
    return go(node)


class NodeCheck:
    """The one check of a read tree against what its reader takes: node kinds, operators,
    literals, calls and the size of powers, visited in source order so that the first mistake
    in the text is the one reported.  A reader with rules of its own (the accuracy formula:
    known names, exp's one argument, no logarithms) overrides `name`, `call` or `power`."""

    def __init__(self, where: Where, allowed=ARITHMETIC, *, calls: tuple = (), strings: bool = False,
                 ops=ALLOWED_OPS, what: str = "formula", hint: str | None = None):
        self.where, self.allowed, self.calls, self.strings, self.ops = where, allowed, calls, strings, ops
        self.what, self.hint = what, hint or "use numbers, names, + - * / and ** (or ^)"
        self.text = ""

    def fail(self, node: Expr, message: str, hint: str | None = None):
        raise self.where.error(message, node.col, hint=hint or self.hint)

    def run(self, tree: Expr) -> Expr:
        """Check every node of `tree` (kind, literal, name, call, power) and operator; returns `tree`."""
        self.text = tree.text
        stack: list = [tree]       # nodes, and (node, operator) pairs, visited in source order, last first
        while stack:
            node = stack.pop()
            if isinstance(node, tuple):
                node, op = node
                if op not in self.ops:
                    self.fail(node, f"the operator in '{clip(node.part())}' is not allowed in the {self.what}")
                continue
            self.check(node)
            if node.kind == "binary":
                stack += [node.args[0], (node, node.op), node.args[1]]
            elif node.kind in ("unary", "bool"):
                stack += [(node, node.op), *node.args]
            elif node.kind == "compare":
                stack += [node.args[0], *((node, op) for op in node.op), *node.args[1:]]
            else:
                stack.extend(node.args)
        return tree

    def check(self, node: Expr) -> None:
        """One node: its kind must be allowed, a literal a number (or, when `strings`, a string)."""
        if node.kind not in self.allowed:
            word = _KIND_WORDS.get(node.kind) or node.value
            self.fail(node, f"{word} is not allowed in the {self.what} {self.text!r}")
        if node.kind in ("truth", "constant") or (node.kind == "string" and not self.strings):
            self.fail(node, f"{node.value!r} is not a number, in the {self.what} {self.text!r}")
        if node.kind == "name":
            self.name(node)
        elif node.kind == "call":
            self.call(node)
        elif node.kind == "binary" and node.op == "**":
            self.power(node)

    def name(self, node: Expr) -> None:
        """Any name passes here: the fold that reads the tree knows its names."""

    def call(self, node: Expr) -> None:
        """A call must be a plain name in `calls`, without keyword arguments."""
        if node.op not in self.calls or node.keywords:
            known = ", ".join(self.calls) if self.calls else "none"
            self.fail(node, f"'{node.op or 'this call'}(...)' is not allowed in the {self.what} {self.text!r} "
                            f"(functions: {known})")

    def power(self, node: Expr) -> None:
        """A power of numbers must stay within the `power` limit."""
        exponent = bounded_constant(node.args[1])
        if exponent is not None and abs(exponent) > limits.get("power"):
            self.fail(node, f"the power in the {self.what} {clip(self.text)!r} has an exponent above "
                            f"{limits.get('power')}", limits.hint("power"))


class TreeFold:
    """The one walk of a checked claim-string tree to a value.  Why: the exact value of a
    formula, a polynomial weight, a linear budget and the truth of a secret are the same
    recursion over the same nodes; only what a leaf is and how two values combine differ.
    A subclass gives those as methods (`fold_<kind>` for a leaf or a node kind of its own,
    `ring`, `divide`, `power`); a kind or operator it does not take is `refuse`d at its node."""

    operators = RING_OPS    # the binary operators the fold takes

    def value(self, node: Expr):
        """The fold of `node`: its kind's method, or `refuse` when there is none or it gives None."""
        method = getattr(self, "fold_" + node.kind, None)
        out = None if method is None else method(node)
        if out is None:
            self.refuse(node)
        return out

    def constant(self, c):
        """A number as a value of the fold (itself by default)."""
        return c

    def fold_number(self, node: Expr):
        return self.constant(node.value)

    def fold_unary(self, node: Expr):
        """- and + of the operand's value; `not` only where `logical_not` takes it."""
        if node.op == "not":
            return self.logical_not(node)
        return self.signed(node.op, self.value(node.args[0]))

    def signed(self, op: str, v):
        return -v if op == "-" else v

    def logical_not(self, node: Expr):
        return None

    def fold_binary(self, node: Expr):
        """A binary operator of `operators`: powers see the node (some read the exponent
        unevaluated), the others get the two operands' values."""
        if node.op not in self.operators:
            return None
        if node.op == "**":
            return self.power(node)
        a, b = self.value(node.args[0]), self.value(node.args[1])
        return self.divide(node, a, b) if node.op == "/" else self.ring(node, a, b)

    def ring(self, node: Expr, a, b):
        return ring(node.op, a, b)


def ring(op: str, a, b):
    """a op b for the ring operators + - * (of any exact values)."""
    return a + b if op == "+" else a - b if op == "-" else a * b


def bounded_constant(node: Expr) -> Fraction | None:
    """The value of a subtree made of numbers and + - * / ** only (None when it uses a name or a
    call), computed with every power's exponent at most the `power` limit in absolute value and
    every number below 2^100000 -- so checking a claim string never builds a huge number."""
    if node.kind == "number":
        return node.value
    if node.kind == "unary" and node.op in ("-", "+"):
        v = bounded_constant(node.args[0])
        return None if v is None else (-v if node.op == "-" else v)
    if node.kind == "binary":
        a, b = bounded_constant(node.args[0]), bounded_constant(node.args[1])
        if a is None or b is None:
            return None
        if node.op == "**":
            if b.denominator != 1 or abs(b) > limits.get("power") or (a == 0 and b < 0):
                return Fraction(limits.get("power") + 1)        # reported by the caller as too large
            if abs(b) * (a.numerator.bit_length() + a.denominator.bit_length()) > 100_000:
                return Fraction(limits.get("power") + 1)
            return a ** int(b)
        if node.op in ("+", "-", "*"):
            return ring(node.op, a, b)
        if node.op == "/":
            return a / b if b else None
    return None


def integer_digits(n: int) -> int:
    """The decimal digits of |n|, counted exactly (10**50 has 51); a number of far more bits than the
    `digits` limit allows is only bounded (its digits are then certainly over the limit)."""
    bits = abs(n).bit_length()
    if bits > 4 * limits.get("digits") + 8:   # 2^(bits-1) > 10^(digits+1): over the limit, not printed
        return (bits - 1) * 3 // 10 + 1
    return len(str(abs(n)))


def check_rational_power(base: Fraction | None, n: int, fail) -> None:
    """Call fail(message, hint) unless base**n is within the `power` and `digits` limits (a power certainly
    past the limit is refused before it is computed; one that may fit is computed and its digits counted).
    A base that is no number (None) is held to the `power` limit only."""
    if abs(n) > limits.get("power"):
        fail(f"the exponent {clip(n)} is larger than {limits.get('power')}", limits.hint("power"))
    if base is None:
        return
    most = limits.get("digits")
    widest = max(abs(base.numerator).bit_length(), base.denominator.bit_length())
    if widest <= 1:   # 0, 1 or -1: so is every power
        return
    if (widest - 1) * abs(n) * 3 // 10 > most:   # |p| or q >= 2^(widest-1): at least that many digits
        digits = most + 1
    else:   # at most 2 (widest - 1) n bits, a few times the limit: count its digits exactly
        value = base ** abs(n)
        digits = max(integer_digits(value.numerator), integer_digits(value.denominator))
    if digits > most:
        fail(f"{clip(base)}**{clip(n)} has more than {most} digits", limits.hint("digits"))


def syntax_tree(text, where: Where, allowed=ARITHMETIC, *, calls: tuple = (), strings: bool = False,
                what: str = "formula", hint: str | None = None) -> Expr:
    """`read` and `NodeCheck` in one step: the checked tree of a budget, secret or weight."""
    tree = read(text, where, what=what, hint=hint)
    return NodeCheck(where, allowed, calls=calls, strings=strings, what=what, hint=hint).run(tree)
