"""The calls of the Python subset: noise (numpy's scale c/eps as the .dip rate eps/c), len, sum,
max, min, argmax and argmin.

Why a module of its own: the noise calls carry the subset's one subtle reading (a scale is
1/rate; `scale=epsilon` reads like a rate and is refused), and `mean + noise` folds into one
.dip sample; the reductions over lists write the helper statements they need.
"""
from __future__ import annotations

import ast
from fractions import Fraction

from dipc_plus.execution import limits
from dipc_plus.semantics.pretty import format_rate
from dipc_plus.frontend.python.values import BOOL, CONST, INT, REAL, ListVar, Value, const

NUMPY = ("np", "numpy")
_NOISES = {"laplace": "Lap", "exponential": "ExpNoise"}
OFFERS_NOISE = "the subset offers prng.laplace(loc=..., scale=c/epsilon) and prng.exponential(scale=c/epsilon)"


class Calls:
    """Mixed into the translator: the call expressions."""


    def call(self, node) -> Value:
        noise = self.noise_of(node)
        if noise is not None:
            surface, rate, loc = noise
            name = self.new_local("n")
            if loc is not None and not loc.mean:
                self.emit(f"{name} <- {surface}({rate}, 0)", node)
                return Value(f"({loc.text} + {name})", REAL)
            self.emit(f"{name} <- {surface}({rate}, {loc.text if loc is not None else 0})", node)
            return Value(name, REAL, mean=True)
        func = node.func
        fname = func.id if isinstance(func, ast.Name) else \
            f"{func.value.id}.{func.attr}" if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
        if fname == "len" and len(node.args) == 1:
            lst = self.list_of(node.args[0])
            return const(self.list_length(lst, node), "m" if lst.is_input else None)
        if fname in ("np.argmax", "numpy.argmax", "np.argmin", "numpy.argmin", "max", "min") and len(node.args) == 1 \
                and not node.keywords:
            return self.reduce(fname.split(".")[-1], self.list_of(node.args[0]), node)
        if fname == "sum" and len(node.args) == 1 and not node.keywords:
            return self.total(self.list_of(node.args[0]), node)
        if isinstance(func, ast.Attribute) and func.attr == "count" and isinstance(func.value, ast.Name) \
                and func.value.id in self.lists and len(node.args) == 1:
            value = self.scalar(node.args[0])
            if value.text not in ("true", "false") or self.lists[func.value.id].elem != BOOL:
                raise self.refuse(node, "count of something other than True or False in a list of bools",
                                  "write out.count(True) or out.count(False)")
            return self.total(self.lists[func.value.id], node, counted=value.text == "true")
        raise self.refuse(node, f"the call {fname or 'of an expression'}(...)",
                          OFFERS_NOISE + "; len, sum, max, min, np.argmax, np.argmin over a list; out.append(...)")

    def noise_of(self, node):
        """(surface, rate text, loc Value or None) of a noise call, None for any other call."""
        func = node.func
        if not isinstance(func, ast.Attribute):
            return None
        owner = func.value
        is_rng = isinstance(owner, ast.Name) and self.bindings.get(owner.id, ("",))[0] == "rng"
        is_np = isinstance(owner, ast.Attribute) and owner.attr == "random" and isinstance(owner.value, ast.Name) \
            and owner.value.id in NUMPY
        if not (is_rng or is_np):
            return None
        if func.attr not in _NOISES:
            raise self.refuse(node, f"the distribution `{func.attr}`", OFFERS_NOISE +
                              " (Laplace and one-sided exponential noise are what the exact engines integrate)")
        names = ["loc", "scale"] if func.attr == "laplace" else ["scale"]
        given = dict(zip(names, node.args))
        if len(node.args) > len(names):
            raise self.refuse(node, "a noise call with a size or extra arguments", "draw one value per call")
        for kw in node.keywords:
            if kw.arg not in names or kw.arg in given:
                raise self.refuse(kw.value if kw.arg else node, f"the argument {kw.arg}= of {func.attr}",
                                  f"{func.attr} takes {' and '.join(n + '=' for n in names)} here")
            given[kw.arg] = kw.value
        if "scale" not in given:
            raise self.refuse(node, f"{func.attr} without a scale", "write scale=c/epsilon")
        loc = self.scalar(given["loc"]) if "loc" in given else None
        if loc is not None and loc.kind not in (REAL, CONST):
            raise self.refuse(given["loc"], "a noise location that is not a number", "write loc=q")
        return _NOISES[func.attr], self.rate(given["scale"]), loc

    def rate(self, node) -> str:
        """numpy's scale c/epsilon as the .dip rate eps/c; any other dependence on epsilon is refused."""
        coef, power = self.monomial(node)
        if power == 1:
            raise self.refuse(node, "a scale that grows with epsilon (it reads like a rate)",
                              "numpy's scale is 1/rate: write scale=c/epsilon for noise of rate epsilon/c")
        if power != -1:
            raise self.refuse(node, "a noise scale that is not c/epsilon",
                              "write scale=c/epsilon with c a positive constant (a parameter, a number)")
        if coef <= 0:
            raise self.refuse(node, "a scale that is not positive", "write scale=c/epsilon with c > 0")
        return format_rate(1 / coef)

    def monomial(self, node) -> tuple[Fraction, int]:
        """A scale as coef * epsilon**power (constants, parameters, epsilon, * and /)."""
        if isinstance(node, ast.Name) and self.bindings.get(node.id, ("",))[0] == "eps":
            return Fraction(1), 1
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            (a, p), (b, q) = self.monomial(node.left), self.monomial(node.right)
            if isinstance(node.op, ast.Mult):
                return a * b, p + q
            if b == 0:
                raise self.refuse(node, "a division by zero", "write scale=c/epsilon")
            return a / b, p - q
        value = self.scalar(node)
        if value.kind != CONST:
            raise self.refuse(node, "a noise scale that depends on the data",
                              "write scale=c/epsilon with c a constant or a parameter")
        return value.value, 0

    def folded_sample(self, node) -> str | None:
        """`Lap(rate, mean)` when `node` is a noise call or `mean + noise` that .dip writes as one sample."""
        call, other = None, None
        if isinstance(node, ast.Call):
            call = node
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if isinstance(a, ast.Call) and self.noise_of(a) is not None:
                    call, other = a, b
                    break
        if call is None:
            return None
        noise = self.noise_of(call)
        if noise is None:
            return None
        surface, rate, loc = noise
        if other is not None and any(isinstance(n, (ast.Call, ast.ListComp)) for n in ast.walk(other)):
            return None      # evaluated once, by the general path
        if other is None:
            if loc is not None and not loc.mean:
                return None
            return f"{surface}({rate}, {loc.text if loc is not None else 0})"
        mean = self.scalar(other)
        if loc is not None or not mean.mean or mean.kind not in (REAL, CONST):
            return None
        return f"{surface}({rate}, {mean.text})"

    def reduce(self, how: str, lst: ListVar, node) -> Value:
        """argmax/argmin (the 0-based index, ties to the first) or max/min of a list."""
        n = self.list_length(lst, node)
        if n < 1:
            raise self.refuse(node, f"{how} of an empty list", "give m >= 1")
        if (lst.elem or REAL) not in (REAL, INT):
            raise self.refuse(node, f"{how} of a list of bools", "take argmax of numbers")
        best = self.new_local("a", f"1..{n}")
        word = "argmax" if how in ("argmax", "max") else "argmin"
        self.emit(f"{best} <- {word}({lst.name})", node)
        if how in ("argmax", "argmin"):
            return Value(f"({best} - 1)", INT, lo=0, hi=n - 1)
        kind = lst.elem or REAL
        picked = self.new_local("v", "real" if kind == REAL else f"{lst.lo}..{lst.hi}")
        self.emit(f"{picked} <- {lst.name}[1]", node)
        for k in range(2, n + 1):
            self.emit(f"if {best} == {k} then {picked} <- {lst.name}[{k}] end", node)
        return Value(picked, kind, lo=lst.lo, hi=lst.hi, mean=kind == REAL)

    def total(self, lst: ListVar, node, counted: bool = True) -> Value:
        """sum of a list: count(...) of the True (or, `counted` False, the False) entries of a list
        of bools; a running real sum of numbers.  A padded list is counted over its declared
        length (its entries never appended are `none`), so also where it is still growing."""
        if lst.elem == BOOL and self.is_padded_list(lst):
            n = max(self.known.get(("list", self.list_key(lst)), (0,))[0], 1)
            if n > limits.get("tokens"):       # tokens per counted entry
                raise self.too_long(node)
            items = ", ".join(f"EQ({lst.name}[{k}], {counted})" for k in range(1, n + 1))
            return Value(f"count({items})", INT, lo=0, hi=n)
        n = self.list_length(lst, node)
        if lst.elem == BOOL:
            text = f"count({lst.name})" if counted else f"{n} - count({lst.name})"
            return Value(text, INT, lo=0, hi=n)
        if (lst.elem or REAL) != REAL:
            raise self.refuse(node, "sum of a list of integers", "sum numbers or count bools")
        acc = self.new_local("s")
        self.emit(f"{acc} <- 0", node)
        for k in range(1, n + 1):
            self.emit(f"{acc} <- {acc} + {lst.name}[{k}]", node)
        return Value(acc, REAL, mean=True)
