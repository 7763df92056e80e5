"""What the names of a program mean, once its declarations are read.

A `Scope` is filled by dipc_plus.frontend.declare and completed by type inference;
lowering and the checks look names up here.  It also makes the did-you-mean
suggestions, so every "unknown name" message offers the same kind of help.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from dipc_plus.errors import UserError
from dipc_plus.semantics import ir
from dipc_plus.frontend import surface as S

BUILTIN_TYPES = {"bool": ir.BoolT(), "int": ir.IntT(), "real": ir.RealT(), "rational": ir.RatT()}   # name -> type

_INDEX_HINT = "indices and loop bounds use numbers, parameters and for-loop indices"
# Why a name cannot stand in a compile-time constant, by where the constant is needed: the
# message and hint for a variable, then for an unknown name (the hint when no name is close).
_NOT_CONSTANT = {
    "rate": ("a rate must be a constant multiple of eps, but '{}' is a variable",
             "use numbers and parameters: eps/2, 2*eps/(9*c)",
             "unknown name '{}' in a rate", "rates use numbers, parameters and eps"),
    "size": ("'{}' is a variable, but a compile-time constant is needed here",
             "sizes, bounds and indices use numbers, parameters and for-loop indices",
             "unknown parameter '{}'", "declare it: 'param {} = 3'"),
    "index": ("'{}' is a variable, but this must be a compile-time constant", _INDEX_HINT,
              "unknown name '{}'", _INDEX_HINT),
}


@dataclass
class Scope:
    file: str
    params: dict = field(default_factory=dict)          # name -> Fraction
    param_pos: dict = field(default_factory=dict)       # name -> Pos
    types: dict = field(default_factory=dict)           # user type name -> DomT
    symbols: dict = field(default_factory=dict)         # symbol -> Pos of its first declaration
    arrays: dict = field(default_factory=dict)          # array name -> tuple of flat names
    variables: dict = field(default_factory=dict)       # flat name -> ir.Type (declared, inferred, fresh)
    declared: dict = field(default_factory=dict)        # declared variable/array name -> Pos
    inputs: list = field(default_factory=list)          # (flat name, Type)
    outputs: list = field(default_factory=list)         # (flat name, Type)
    output_pos: dict = field(default_factory=dict)      # flat output name -> Pos of its declaration
    functions: dict = field(default_factory=dict)       # name -> ir.Function
    declared_functions: dict = field(default_factory=dict)  # every function declared in the file -> Pos
    distributions: dict = field(default_factory=dict)   # name -> ir.DistDef

    def elements(self, node) -> list:
        """The names a surface name reads: a whole array (an argument of a built-in) reads each of
        its elements, at the name's position; any other node stands for itself."""
        if isinstance(node, S.Name) and node.name in self.arrays and node.name not in self.variables:
            return [S.Name(flat, node.pos) for flat in self.arrays[node.name]]
        return [node]

    def not_constant(self, node: S.Name, where: str) -> UserError:
        """The error for a name that is not a parameter in a constant needed `where` ("rate",
        "size" of an array or a range, "index" or loop bound): a variable, or unknown."""
        variable, variable_hint, unknown, unknown_hint = _NOT_CONSTANT[where]
        if node.name in self.variables or node.name in self.arrays:
            return UserError.at(node.pos, variable.format(node.name), hint=variable_hint)
        return UserError.at(node.pos, unknown.format(node.name),
                            hint=did_you_mean(node.name, self.params) or unknown_hint.format(node.name))

    def value_names(self) -> list[str]:
        """Every name that may stand for a value: variables as the user writes them (an array once,
        without an index), parameters, symbols."""
        variables = {n.split("[")[0] for n in self.variables}
        return sorted(variables | set(self.arrays) | set(self.params) | set(self.symbols))


def did_you_mean(name: str, candidates) -> str | None:
    """A hint naming the closest candidate, if any is close enough."""
    pool = sorted({c for c in candidates if c != name})
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in pool}
        if name.lower() in lowered:
            close = [lowered[name.lower()]]
    return f"did you mean '{close[0]}'?" if close else None


def type_words(typ: ir.Type) -> str:
    """A type as the user reads it in messages."""
    return f"of domain {typ}" if isinstance(typ, ir.DomT) else str(typ)
