"""The declarations at the top of a translated program: parameters, inputs, outputs, locals.

Why a module of its own: what a translation pass learned (list lengths, the range of each
integer variable, the kinds of returned values) becomes the program's declarations here, and
nothing else reads that record.  A list that `break` may cut short is an output padded with
`none`; a list of numbers cannot be (a real output has no `none`) and is refused.
"""
from __future__ import annotations

from dipc_plus.execution import limits
from dipc_plus.frontend.python.source import error_at
from dipc_plus.frontend.python.values import BOOL, CONST, INT, REAL, ListVar


class Declarations:
    """Mixed into the translator: its declarations from the state of one pass."""


    def declare_var(self, name: str, kind: str, node) -> str:
        old = self.vars.get(name)
        if old is not None and old != kind:
            raise self.refuse(node, f"'{name}' holds {old} values and is given a {kind} value",
                              "use a new name for a value of another kind")
        self.vars[name] = kind
        return kind

    def learned(self) -> dict:
        out = {}
        for name in set(self.int_ranges) | set(self.int_steps):
            lo, hi = self.int_ranges.get(name, [0, 0])
            down, up = self.int_steps.get(name, [0, 0])
            out[("int", name)] = (lo + down, hi + up)
        for name, lst in self.lists.items():
            if not lst.is_input:
                out[("list", name)] = (lst.base, lst.lo, lst.hi)
        for name, (kind, lo, hi) in self.results.items():
            out[("result", name)] = (lo, hi)
        return out

    def int_domain(self, name: str) -> tuple[int, int]:
        return self.known.get(("int", name), (0, 0))

    def assemble(self) -> tuple[str, list[tuple[int, int]]]:
        where_def = (self.fn.node.lineno, self.fn.node.col_offset + 1)
        head: list[str] = [f"param m = {self.params['m']}"]
        for name in self.param_order:
            head.append(f"param {self.dip_name(name)} = {self.bindings[name][1].value}")
        inputs = [b[1] for b in self.bindings.values() if b[0] == "input"]
        for lst in inputs:
            head.append(f"input {lst.name}: real[m]")
        types, outs, locals_ = [], [], []
        output_names = {n for how, n in self.outputs if how == "name"}
        for how, name in self.outputs:
            decl = self.output_declaration(how, name, types)
            outs.append(f"output {decl}")
        for name, lst in self.lists.items():
            if not lst.is_input and name not in output_names:
                locals_.append(f"var {self.list_declaration(lst, types if self.is_padded_list(lst) else None)}")
        for name, kind in self.vars.items():
            if name not in output_names:
                locals_.append(f"var {self.dip_name(name)}: {self.kind_type(name, kind)}")
        locals_ += [f"var {n}: {t}" for n, t in self.extra_vars]
        head = head + types + outs + locals_
        body = ["    " * depth + text for depth, text, _ in self.lines]
        where = [where_def] * len(head) + [w for _, _, w in self.lines]
        return "\n".join(head + body) + "\n", where

    def kind_type(self, name: str, kind: str) -> str:
        return type_text(kind, *self.int_domain(name))

    def output_declaration(self, how: str, name: str, types: list) -> str:
        if how == "result":
            kind, lo, hi = self.results.get(name, (REAL, 0, 0))
            return f"{name}: " + type_text(kind, *self.known.get(("result", name), (lo, hi)))
        if name in self.lists:
            return self.list_declaration(self.lists[name], types)
        if name in self.vars:
            return f"{self.dip_name(name)}: {self.kind_type(name, self.vars[name])}"
        raise error_at(self.path, self.fn.node, f"the returned name '{name}' is never assigned",
                       "return a variable the function sets")

    def list_declaration(self, lst: ListVar, types: list | None) -> str:
        """`name: T[n]`; an output list cut short by `exit` pads with `none` (refused for numbers)."""
        n, lo, hi = self.known.get(("list", self.list_key(lst)), (0, 0, 0))
        n, lo, hi = max(n, 1), lo or 0, hi or 0
        if types is None:
            return f"{lst.name}: {type_text(lst.elem or BOOL, lo, hi)}[{n}]"
        pad = self.exits
        if lst.elem in (BOOL, None):
            name = "PyBool" if not pad else "PyBoolOrNone"
            decl = f"type {name} = {{{'none, ' if pad else ''}False, True}}"
        elif lst.elem == INT:
            if hi - lo >= limits.get("tokens"):     # a token per value
                raise self.too_long(self.fn.node)
            name = f"{lst.name}_values"
            decl = f"type {name} = {{{'none, ' if pad else ''}{', '.join(str(v) for v in range(lo, hi + 1))}}}"
        else:
            if pad:
                raise error_at(self.path, self.fn.node, f"a list of numbers ({lst.name}) that `break` or an "
                               "early `return` may cut short", "return a list of bools or indices when the loop "
                               "can stop early, or let the loop run to the end")
            return f"{lst.name}: real[{n}]"
        if decl not in types:
            types.append(decl)
        return f"{lst.name}: {name}[{n}]"

    def list_key(self, lst: ListVar) -> str | None:
        return next((k for k, v in self.lists.items() if v is lst), None)


def type_text(kind: str | None, lo: int, hi: int) -> str:
    """The .dip type of a scalar of this kind (an integer: its range lo..hi)."""
    return f"{lo}..{hi}" if kind == INT else "real" if kind in (REAL, CONST) else "bool"
