"""The state of one translation pass and the Python expressions of the subset in DiPWhile+.

Why a module of its own: expressions (arithmetic, comparisons, noise calls, argmax, lists)
and the declarations they need are one concern; the statements (`translate.py`) build on it.
A noise call becomes a sample statement written before the statement that uses it (or, as
`x = q + prng.laplace(scale=2/eps)`, the sample `x <- Lap(eps/2, q)` itself; inside a larger
expression, `q + prng.laplace(...)` becomes one fresh sample centred at q); numpy's scale
c/eps becomes the .dip rate eps/c.  Number literals are read from the source text, exactly.
"""
from __future__ import annotations

import ast
import re
from contextlib import contextmanager
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.execution import limits
from dipc_plus.frontend.python.calls import Calls
from dipc_plus.frontend.python.declarations import Declarations
from dipc_plus.frontend.python.source import PythonFunction, error_at
from dipc_plus.frontend.python.values import BOOL, CONST, INT, REAL, ListVar, Value, const, number_text, widened
from dipc_plus.frontend.syntax_errors import is_reserved
from dipc_plus.semantics.evaluate import ARITHMETIC, COMPARISON

RANDOMNESS = ("prng", "rng")
EPSILON = ("epsilon", "eps")
_BUILTIN_NAMES = frozenset("count min max abs argmax argmin EQ none False True m".split())
# Python's operators as .dip writes them (the evaluator's tables fold constants)
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


class ExpressionTranslator(Declarations, Calls):
    """One pass's state (bindings, lists, declarations, emitted lines) and the expression cases."""

    def __init__(self, fn: PythonFunction, params: dict[str, Fraction], known: dict):
        self.fn, self.path, self.params, self.known = fn, fn.path, dict(params), known
        self.bindings: dict = {}        # parameter / loop names -> ("param", Value) | ("input", ListVar) | ...
        self.lists: dict[str, ListVar] = {}
        self.vars: dict[str, str] = {}  # scalar local -> kind
        self.int_ranges: dict = {}
        self.int_steps: dict = {}
        self.results: dict = {}
        self.lines: list[tuple[int, str, tuple[int, int]]] = []
        self.extra_vars: list[tuple[str, str]] = []
        self.mult: list[int] = []
        self.loops: list[bool] = []
        self.depth, self.fresh = 0, 0
        self.terminated = self.exits = False
        self.outputs: list = []
        self.param_order: list[str] = []

    # ------------------------------------------------------------------ basics

    def refuse(self, node, what: str, offers: str) -> UserError:
        return error_at(self.path, node, f"{what} is outside the Python subset dipc reads", offers)

    def emit(self, text: str, node) -> None:
        """Write a .dip line for `node`; past `tokens` lines the text is refused before it grows further (each
        line is a token or more, so parsing would refuse it: a reduction over m = 10^8 queries wrote 10^8 lines)."""
        if len(self.lines) >= limits.get("tokens"):
            raise self.too_long(node)
        self.lines.append((self.depth, text, (getattr(node, "lineno", self.fn.node.lineno),
                                              getattr(node, "col_offset", self.fn.node.col_offset) + 1)))

    def too_long(self, node) -> UserError:
        """The parser's refusal of a text past the `tokens` limit, given before such a text is written."""
        most = limits.get("tokens")
        return error_at(self.path, node, f"the program has more than {most} tokens (words, numbers and symbols) "
                        f"(in the DiPWhile+ program translated from {self.fn.node.name})", limits.hint("tokens"))

    def new_name(self, prefix: str) -> str:
        self.fresh += 1
        return f"_{prefix}{self.fresh}"

    def new_local(self, prefix: str, type_text: str = "real") -> str:
        """A fresh helper variable, declared with `type_text` at the top."""
        name = self.new_name(prefix)
        self.extra_vars.append((name, type_text))
        return name

    @contextmanager
    def unrolled(self, loop, node):
        """Emit the `for` head of `loop` and bind its names (one level deeper) while the body is written."""
        index, _, _, start, trips, _ = loop
        self.emit(f"for {index} = {start} to {start} + {trips} - 1 do", node)
        saved = dict(self.bindings)
        self.bind_iteration(loop)
        self.mult.append(trips)
        self.depth += 1
        yield
        self.depth -= 1
        self.mult.pop()
        self.bindings = saved

    def dip_name(self, name: str) -> str:
        if not name.isascii():
            raise error_at(self.path, self.fn.node, f"the name '{name}' is not ASCII", "use ASCII names")
        if is_reserved(name) or name in _BUILTIN_NAMES or name.startswith(("_", "PyBool")) \
                or re.fullmatch(r"result\d*", name):     # the names the translation itself declares
            return "py_" + name.lstrip("_")
        return name

    def read_signature(self) -> None:
        """Classify the parameters: randomness, epsilon, query lists (used as lists), the rest `params`."""
        args = self.fn.node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise self.refuse(self.fn.node, "*args, **kwargs or keyword-only parameters",
                              "write plain parameters: def f(prng, queries, epsilon, N, T)")
        if "m" not in self.params:
            raise error_at(self.path, self.fn.node, "the number of queries m has no value",
                           "give it in the claim's [program] params = { m = 3 } (or --set m=3)")
        used_as_list = self.list_uses()
        defaults = dict(zip([a.arg for a in args.args][len(args.args) - len(args.defaults):], args.defaults))
        m = self.params["m"]
        if m.denominator != 1 or m < 0:
            raise error_at(self.path, self.fn.node, f"m = {m} is not a number of queries", "give m = 3")
        self.bindings["m"] = ("param", const(m, "m"))
        for a in args.args:
            self.bind_parameter(a, used_as_list, defaults)

    def bind_parameter(self, a: ast.arg, used_as_list: set, defaults: dict) -> None:
        name = a.arg
        if name in RANDOMNESS:
            self.bindings[name] = ("rng",)
        elif name in EPSILON:
            self.bindings[name] = ("eps",)
        elif name in self.params or (name in defaults and name not in used_as_list):
            value = self.params.get(name)
            if value is None:
                value = self.literal(defaults[name])
                if value is None:
                    raise self.refuse(defaults[name], f"the default of '{name}' is not a number",
                                      f"give {name} in params")
            self.param_order.append(name)
            self.bindings[name] = ("param", const(value, self.dip_name(name)))
        elif name in used_as_list or name == "queries":
            self.bindings[name] = ("input", ListVar(self.dip_name(name), REAL, is_input=True,
                                                   length=int(self.params["m"])))
        else:
            raise error_at(self.path, a, f"the parameter '{name}' has no value",
                           f"give it in the claim's params = {{ {name} = ... }}, or use it as the query list")

    def list_uses(self) -> set:
        """Parameter names the body uses as lists (iterated, indexed, len(...))."""
        out = set()
        for node in ast.walk(self.fn.node):
            if isinstance(node, (ast.For, ast.comprehension)):
                it = node.iter
                if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args:
                    it = it.args[0]
                if isinstance(it, ast.Name):
                    out.add(it.id)
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                out.add(node.value.id)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                    and node.args and isinstance(node.args[0], ast.Name):
                out.add(node.args[0].id)
        return out

    def literal(self, node) -> Fraction | None:
        """A number literal read exactly from the source text (`0.1` is 1/10, not the double)."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.literal(node.operand)
            return None if inner is None else -inner
        if not isinstance(node, ast.Constant) or isinstance(node.value, bool) \
                or not isinstance(node.value, (int, float)):
            return None
        text = ast.get_source_segment(self.fn.text, node) or repr(node.value)
        text = text.replace("_", "")
        too_many = limits.too_many_digits(text)     # before Fraction(text): 1e999999999 would compute 10^999999999
        if too_many:
            raise error_at(self.path, node, f"the number {limits.clip(text)} has {too_many}", limits.hint("digits"))
        try:
            return Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise self.refuse(node, f"the number {text}", "write integers and decimals (1, 0.5, 2.0)") from None

    # ------------------------------------------------------------------ lists

    def new_list(self, name: str) -> ListVar:
        return ListVar(self.dip_name(name), None)

    def is_padded_list(self, lst: ListVar) -> bool:
        """An output list, or a list the final return counts (`return out.count(False)`): `exit` may
        cut it short, so it is declared with `none` for the entries never appended."""
        if any(how == "name" and self.lists.get(n) is lst for how, n in self.outputs):
            return True
        key = self.list_key(lst)
        final = getattr(self, "final_return", None)
        return key is not None and final is not None and any(
            isinstance(n, ast.Call) and _counted_list(n) == key for n in ast.walk(final))

    def init_list(self, lst: ListVar, node) -> None:
        """A padded list (`is_padded_list`) that `exit` may cut short starts as `none` everywhere."""
        if not self.is_padded_list(lst):
            return
        n = self.known.get(("list", self.list_key(lst)), (0,))[0]
        if self.will_exit():
            k = self.new_name("k")
            self.emit(f"for {k} = 1 to {max(n, 1)} do {lst.name}[{k}] <- none end", node)

    def will_exit(self) -> bool:
        body = self.fn.node.body
        return any(isinstance(n, ast.Break) for s in body for n in ast.walk(s)) or \
            sum(1 for s in body for n in ast.walk(s) if isinstance(n, ast.Return)) > 1

    def list_state(self):
        return {name: (lst.base, dict(lst.terms)) for name, lst in self.lists.items()}

    def restore_lists(self, state) -> None:
        for name, (base, terms) in state.items():
            self.lists[name].base, self.lists[name].terms = base, dict(terms)

    def append(self, lst: ListVar, value_node, node) -> None:
        self.store(lst, lst.index_text(), value_node, node)
        lst.base += 1

    def store(self, lst: ListVar, index_text: str, value_node, node) -> None:
        target = f"{lst.name}[{index_text}]"
        sample = self.folded_sample(value_node)
        if sample is not None:
            self.set_elem(lst, REAL, value_node)
            self.emit(f"{target} <- {sample}", node)
            return
        value = self.scalar(value_node)
        kind = self.kind_of(value, value_node)
        self.set_elem(lst, kind, value_node)
        if kind == INT:
            lst.lo, lst.hi = widened((lst.lo, lst.hi), value.bounds())
        if kind == BOOL and self.is_padded_list(lst):
            if value.text in ("true", "false"):
                self.emit(f"{target} <- {'True' if value.text == 'true' else 'False'}", node)
            else:
                self.emit(f"if {value.text} then {target} <- True else {target} <- False end", node)
            return
        self.emit(f"{target} <- {value.text}", node)

    def set_elem(self, lst: ListVar, kind: str, node) -> None:
        if lst.elem is None:
            lst.elem = kind
        elif lst.elem != kind:
            raise self.refuse(node, f"a list mixing {lst.elem} and {kind} values",
                              "keep each list to one kind: bools, numbers or indices")

    def comprehension(self, name: str, comp: ast.ListComp, node, generated: bool = False) -> None:
        """`name = [e for x in ...]` (`generated`: a returned comprehension, output `name` as given)."""
        if len(comp.generators) != 1 or comp.generators[0].ifs or comp.generators[0].is_async:
            raise self.refuse(comp, "a comprehension with several `for`s or an `if`",
                              "write [EXPR for x in queries] or [EXPR for i in range(len(queries))]")
        gen = comp.generators[0]
        loop = self.iteration(gen.target, gen.iter)
        index, _, _, start, trips, _ = loop
        lst = ListVar(name, None) if generated else self.new_list(name)
        self.lists[name] = lst
        self.init_list(lst, node)
        lst.base, lst.terms = -start, {index: 1}
        with self.unrolled(loop, comp):
            self.store(lst, lst.index_text(), comp.elt, comp)
        self.emit("end", comp)
        lst.base, lst.terms = trips, {}

    # ------------------------------------------------------------------ loops

    def iteration(self, target, it):
        """(.dip index name, Python index name or None, Python element name or None, start, trip
        count, element list or None) of a `for` or a comprehension."""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate":
            if len(it.args) != 1 or it.keywords or not isinstance(target, ast.Tuple) or len(target.elts) != 2 \
                    or not all(isinstance(e, ast.Name) for e in target.elts):
                raise self.refuse(it, "this use of enumerate", "write for i, x in enumerate(queries)")
            element = self.list_of(it.args[0])
            index, item = target.elts[0].id, target.elts[1].id
            return self.dip_name(index), index, item, 0, self.list_length(element, it), element
        if not isinstance(target, ast.Name):
            raise self.refuse(target, "a loop over several names", "write for x in queries or for i in range(m)")
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
            if it.keywords or not 1 <= len(it.args) <= 2:
                raise self.refuse(it, "range with a step", "write range(n) or range(a, b)")
            bounds = [self.constant(a) for a in it.args]
            start, stop = (0, bounds[0]) if len(bounds) == 1 else bounds
            return self.dip_name(target.id), target.id, None, start, max(0, stop - start), None
        element = self.list_of(it)
        return self.new_name("i"), None, target.id, 0, self.list_length(element, it), element

    def bind_iteration(self, loop) -> None:
        """Bind the loop's Python names for its body: the index as a constant of the unrolled loop,
        the element as the list's entry at that index."""
        index, py_index, item, start, trips, element = loop
        for name in (py_index, item):
            if name is not None and (name in self.vars or name in self.lists):
                raise error_at(self.path, self.fn.node, f"the loop variable '{name}' is also a variable of the function",
                               "give the loop variable a name of its own")
        if py_index is not None:
            self.bindings[py_index] = ("loop", Value(index, INT, lo=start, hi=start + trips - 1))
        if item is not None:
            self.bindings[item] = ("elem", element, index)

    def constant(self, node) -> int:
        value = self.scalar(node)
        if value.kind != CONST or value.value.denominator != 1:
            raise self.refuse(node, "a loop bound that is not a whole number known before the run",
                              "loop over range(m), range(len(queries)), range(N) for a parameter N, or the queries")
        return int(value.value)

    def list_of(self, node) -> ListVar:
        if isinstance(node, ast.Name):
            b = self.bindings.get(node.id)
            if b is not None and b[0] == "input":
                return b[1]
            if node.id in self.lists:
                return self.lists[node.id]
        raise self.refuse(node, "a loop or call over something that is not the queries or a list of the function",
                          "iterate over the query list or a list built by a comprehension or appends")

    def list_length(self, lst: ListVar, node) -> int:
        if lst.is_input:
            return lst.length
        if lst.terms:
            raise self.refuse(node, "the length of a list that is still growing", "use it after the loop")
        return lst.base

    def index(self, node, lst: ListVar, where) -> str:
        """The .dip index text of `lst[node]` (Python counts from 0, .dip from 1)."""
        value = self.scalar(node)
        if value.kind == CONST:
            if value.value.denominator != 1 or value.value < 0:
                raise self.refuse(node, "an index that is negative or not whole", "index from 0: queries[i]")
            return str(int(value.value) + 1)
        if value.kind != INT:
            raise self.refuse(node, "an index that is not an integer", "index with a loop variable: queries[i]")
        return f"{value.text} + 1"

    # ------------------------------------------------------------------ expressions

    def condition(self, node) -> Value:
        value = self.scalar(node)
        if value.kind != BOOL:
            raise self.refuse(node, "a condition that is not a comparison or a bool",
                              "compare values: if x >= t:")
        return value

    def scalar(self, node) -> Value:
        """A non-list expression as a Value (noise calls written before the current statement)."""
        handler = {ast.Constant: self.constant_value, ast.Name: self.name_value, ast.BinOp: self.binop,
                   ast.UnaryOp: self.unaryop, ast.Compare: self.compare, ast.BoolOp: self.boolop,
                   ast.Call: self.call, ast.Subscript: self.subscript}.get(type(node))
        if handler is None:
            raise self.refuse(node, f"the expression `{type(node).__name__}`",
                              "the subset offers numbers, names, + - and * / by constants, comparisons, "
                              "and/or/not, noise calls, len, argmax, max, min and sum")
        return handler(node)

    def constant_value(self, node) -> Value:
        if isinstance(node.value, bool):
            return Value("true" if node.value else "false", BOOL)
        value = self.literal(node)
        if value is None:
            raise self.refuse(node, f"the constant {type(node.value).__name__}", "use numbers and True/False")
        return const(value)

    def name_value(self, node) -> Value:
        b = self.bindings.get(node.id)
        if b is not None:
            if b[0] in ("param", "loop"):
                return b[1]
            if b[0] == "elem":
                return Value(f"{b[1].name}[{b[2]} + 1]", REAL, mean=True)
            raise self.refuse(node, f"'{node.id}' used as a value", "use the queries' elements, not the list, "
                              "and epsilon only in a noise scale")
        if node.id in self.vars:
            kind = self.vars[node.id]
            text = self.dip_name(node.id)
            if kind == INT:
                lo, hi = self.int_domain(node.id)
                return Value(text, INT, lo=lo, hi=hi)
            return Value(text, kind, mean=kind == REAL)
        if node.id in ("True", "False"):
            return Value(node.id.lower(), BOOL)
        raise self.refuse(node, f"the name '{node.id}' before it is assigned (or a list used as a number)",
                          "assign it first; lists are read by index, len, sum, max, min or argmax")

    def binop(self, node) -> Value:
        folded = self.folded_sample(node) if isinstance(node.op, ast.Add) else None
        if folded is not None:     # `q + noise` is one draw centred at q: a noisy read the deciders know
            name = self.new_local("n")
            self.emit(f"{name} <- {folded}", node)
            return Value(name, REAL, mean=True)
        left, right = self.scalar(node.left), self.scalar(node.right)
        if BOOL in (left.kind, right.kind):
            raise self.refuse(node, "arithmetic on a bool", "use if/else or sum() to count bools")
        if left.kind == CONST and right.kind == CONST:
            return self.fold(node, left.value, right.value)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            op, (a, b), (c, d) = _ARITH[type(node.op)], left.bounds(), right.bounds()
            if REAL in (left.kind, right.kind) or _fraction(left) or _fraction(right):
                return Value(f"({left.text} {op} {right.text})", REAL)  # an index plus 1/2 is no integer
            lo, hi = (a + c, b + d) if op == "+" else (a - d, b - c)
            return Value(f"({left.text} {op} {right.text})", INT, lo=lo, hi=hi)
        if isinstance(node.op, ast.Mult) and CONST in (left.kind, right.kind):
            c, other = (left, right) if left.kind == CONST else (right, left)
            if other.kind == INT and c.value.denominator != 1:
                raise self.refuse(node, "an integer times a fraction", "keep integer arithmetic whole")
            lo, hi = sorted(int(b * c.value) for b in (other.lo, other.hi)) if other.kind == INT else (None, None)
            return Value(f"({number_text(c.value)} * {other.text})", other.kind, lo=lo, hi=hi)
        if isinstance(node.op, ast.Div) and right.kind == CONST and left.kind == REAL and right.value != 0:
            return Value(f"({number_text(1 / right.value)} * {left.text})", REAL)
        raise self.refuse(node, f"the operation `{type(node.op).__name__}` here",
                          "the subset is linear: + and -, and * or / by a constant")

    def fold(self, node, a: Fraction, b: Fraction) -> Value:
        op = type(node.op)
        if op in _ARITH and (op is not ast.Div or b != 0):
            return const(ARITHMETIC[_ARITH[op]](a, b))
        raise self.refuse(node, f"the operation `{op.__name__}` on constants", "use + - * / (not by zero)")

    def unaryop(self, node) -> Value:
        value = self.scalar(node.operand)
        if isinstance(node.op, ast.Not) and value.kind == BOOL:
            return Value(f"(not {value.text})", BOOL)
        if isinstance(node.op, ast.USub) and value.kind != BOOL:
            if value.kind == CONST:
                return const(-value.value)
            lo, hi = (None, None) if value.kind != INT else (-value.hi, -value.lo)
            return Value(f"(-{value.text})", value.kind, lo=lo, hi=hi)
        if isinstance(node.op, ast.UAdd) and value.kind != BOOL:
            return value
        raise self.refuse(node, f"the operator `{type(node.op).__name__}` here", "use - on numbers, not on bools")

    def compare(self, node) -> Value:
        if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
            raise self.refuse(node, "a chained comparison or `is`/`in`", "compare two values: a >= b")
        left, right = self.scalar(node.left), self.scalar(node.comparators[0])
        if (left.kind == BOOL) != (right.kind == BOOL):
            raise self.refuse(node, "a comparison of a bool with a number", "compare numbers with numbers")
        if left.kind == CONST and right.kind == CONST:
            truth = COMPARISON[_COMPARE[type(node.ops[0])]](left.value, right.value)
            return Value("true" if truth else "false", BOOL)
        return Value(f"({left.text} {_COMPARE[type(node.ops[0])]} {right.text})", BOOL)

    def boolop(self, node) -> Value:
        values = [self.condition(v) for v in node.values]
        word = " and " if isinstance(node.op, ast.And) else " or "
        return Value("(" + word.join(v.text for v in values) + ")", BOOL)

    def subscript(self, node) -> Value:
        lst = self.list_of(node.value)
        index = self.index(node.slice, lst, node)
        kind = lst.elem or REAL
        if kind == INT:
            return Value(f"{lst.name}[{index}]", INT, lo=lst.lo, hi=lst.hi)
        return Value(f"{lst.name}[{index}]", kind, mean=kind == REAL and lst.is_input)


def _counted_list(call: ast.Call) -> str | None:
    """The list name X of a call `X.count(...)` or `sum(X)`, else None."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "count" and isinstance(func.value, ast.Name):
        return func.value.id
    if isinstance(func, ast.Name) and func.id == "sum" and len(call.args) == 1 and isinstance(call.args[0], ast.Name):
        return call.args[0].id
    return None


def _fraction(value: Value) -> bool:
    """A constant that is not whole: added to an integer, the sum is a number, not an index."""
    return value.kind == CONST and value.value.denominator != 1
