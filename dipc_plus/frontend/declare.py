"""Read the declarations of a module into a `Scope`: parameters, types, variables,
functions and distributions.

Parameters are resolved first (an override from `--set` or the claim's params, else the default:
a default is evaluated only when it is used, so one that fails cannot break a run that overrides
it), because every size, bound and domain may depend on them.  Declarations are global:
they may appear anywhere at the top level, except that a parameter may only
use parameters above it and a function only call functions above it (so
there is no recursion).
"""
from __future__ import annotations

from fractions import Fraction

from dipc_plus.semantics import ir
from dipc_plus.frontend import surface as S
from dipc_plus.frontend.consteval import const_int, const_value
from dipc_plus.frontend.constant_size import within_digits
from dipc_plus.errors import UserError
from dipc_plus.frontend.exprs import Lowerer
from dipc_plus.frontend.scope import BUILTIN_TYPES, Scope, did_you_mean
from dipc_plus.semantics.evaluate import BUILTINS

MAX_ARRAY = 100_000
MAX_DOMAIN = 100_000

_VALUES = ((ir.RealT, ir.BoolT, ir.IntT, ir.DomT), "real, int, bool or a finite domain")
_CONSTANTS = ((ir.BoolT, ir.DomT, ir.RatT, ir.IntT), "bool, int, rational or a finite domain")
# Each role a declared type plays: how a refusal names it (with its article: "an input", not
# "a input"), the types it may have and how a refusal lists them.
_ROLES = {
    "input": ("an input", *_VALUES), "output": ("an output", *_VALUES), "var": ("a local variable", *_VALUES),
    "parameter": ("a parameter", *_CONSTANTS), "result": ("a function's result", *_CONSTANTS),
    "over": ("a distribution's values", (ir.BoolT, ir.DomT), "bool or a finite domain"),
    "type": ("a type", (ir.DomT,), "a finite domain (a range lo..hi or a set {a, b})"),
}


def declare(module: S.Module, overrides: dict | None = None) -> Scope:
    scope = Scope(module.file)
    items = module.items
    _params(scope, items, dict(overrides or {}))
    _symbols(scope, items)
    for kinds, read in ((S.TypeDecl, _type_decl), ((S.IODecl, S.VarDecl), _variable)):   # types, then variables
        for item in items:
            if isinstance(item, kinds):
                read(scope, item)
    if not scope.outputs:
        raise UserError(f"{module.file} declares no output", file=module.file, line=1, column=1,
                        hint="declare what the program publishes, e.g. 'output out: 1..m'")
    for item in items:
        if isinstance(item, S.FunctionDecl):
            scope.declared_functions.setdefault(item.name, item.pos)
    for item in items:
        if isinstance(item, S.FunctionDecl):
            _function(scope, item)
        elif isinstance(item, S.DistDecl):
            _distribution(scope, item)
    return scope


# --------------------------------------------------------------------------- parameters


def _params(scope: Scope, items, overrides: dict):
    for item in items:
        if not isinstance(item, S.ParamDecl):
            continue
        if item.name in scope.params:
            raise UserError.at(item.pos, f"parameter '{item.name}' is declared twice "
                               f"(first at line {scope.param_pos[item.name].line})")
        if item.name in overrides:   # the default is not evaluated: it may fail or be huge (param n = 1/0)
            value = within_digits(Fraction(overrides.pop(item.name)), item.pos, f"value of --set {item.name}")
        else:
            value = const_value(item.value, scope.params, f"the value of parameter '{item.name}'",
                                explain=lambda n: _param_name_error(scope, n, items))
        scope.params[item.name] = value
        scope.param_pos[item.name] = item.pos
    if overrides:
        name = sorted(overrides)[0]
        known = ", ".join(scope.params) or "(none)"
        extra = did_you_mean(name, scope.params)
        raise UserError(f"--set {name}: the program has no parameter '{name}'",
                        hint=(extra + " " if extra else "") + f"its parameters are: {known}")


def _param_name_error(scope: Scope, node: S.Name, items) -> UserError:
    later = [i for i in items if isinstance(i, S.ParamDecl) and i.name == node.name]
    if later:
        return UserError.at(node.pos, f"parameter '{node.name}' is used before its declaration "
                            f"(line {later[0].pos.line})", hint="declare parameters before the ones that use them")
    return UserError.at(node.pos, f"'{node.name}' is not a parameter: a parameter's value may only use numbers "
                        "and earlier parameters", hint=did_you_mean(node.name, scope.params))


# --------------------------------------------------------------------------- types


def _symbols(scope: Scope, items):
    """Every name listed in a set type anywhere is a symbol (its first listing is its position)."""
    for node in S.nodes(items):
        if isinstance(node, S.SetType):
            for value, pos in node.elems:
                if isinstance(value, str):
                    scope.symbols.setdefault(value, pos)
    for name, pos in scope.symbols.items():
        if name in scope.params:
            raise UserError.at(pos, f"'{name}' is both a parameter and a domain symbol", hint="rename one of them")


def resolve_type(scope: Scope, t: S.TypeExpr, role: str, name: str | None = None):
    """A surface type -> ir type, or ('array', element type, size) when `role` allows arrays."""
    if isinstance(t, S.ArrayType):
        if role not in ("input", "output", "var"):
            raise UserError.at(t.pos, f"{_ROLES[role][0]} cannot be an array",
                               hint="arrays are inputs, outputs or locals")
        elem = resolve_type(scope, t.elem, role)
        if isinstance(elem, tuple):
            raise UserError.at(t.pos, "arrays of arrays are not supported", hint="use one flat array")
        size = const_int(t.size, scope.params, "an array size", explain=lambda n: scope.not_constant(n, "size"))
        if size < 1:
            raise UserError.at(t.size.pos, f"an array size must be at least 1, but it is {size}",
                               hint="check the parameter values (--set)")
        if size > MAX_ARRAY:
            raise UserError.at(t.size.pos, f"an array of {size} elements is too large (at most {MAX_ARRAY})",
                               hint="check the parameter values (--set)")
        return ("array", elem, size)
    typ = _base_type(scope, t, name)
    role_words, allowed, words = _ROLES[role]
    if not isinstance(typ, allowed):
        raise UserError.at(t.pos, f"{role_words} cannot have type {typ}", hint=f"use {words}")
    return typ


def _base_type(scope: Scope, t: S.TypeExpr, name: str | None) -> ir.Type:
    if isinstance(t, S.TypeName):
        if t.name in BUILTIN_TYPES:
            return BUILTIN_TYPES[t.name]
        if t.name in scope.types:
            return scope.types[t.name]
        raise UserError.at(t.pos, f"unknown type '{t.name}'",
                           hint=did_you_mean(t.name, list(scope.types) + list(BUILTIN_TYPES))
                           or "declare it first: 'type Ans = {bot, top}' or 'type Idx = 1..m'")
    if isinstance(t, S.RangeType):
        explain = lambda n: scope.not_constant(n, "size")  # noqa: E731
        lo = const_int(t.lo, scope.params, "a range bound", explain)
        hi = const_int(t.hi, scope.params, "a range bound", explain)
        if lo > hi:
            raise UserError.at(t.pos, f"the range {lo}..{hi} is empty", hint="a domain needs lo <= hi; check --set values")
        if hi - lo >= MAX_DOMAIN:
            raise UserError.at(t.pos, f"the range {lo}..{hi} has {hi - lo + 1} values, more than {MAX_DOMAIN}",
                               hint="domains must be small and finite; check the parameter values (--set)")
        return ir.DomT(tuple(range(lo, hi + 1)), name)
    if isinstance(t, S.SetType):
        seen = {}
        for value, pos in t.elems:
            if value in seen:
                raise UserError.at(pos, f"'{value}' is listed twice in this domain")
            seen[value] = pos
        return ir.DomT(tuple(seen), name)
    raise TypeError(t)


def _type_decl(scope: Scope, item: S.TypeDecl):
    if item.name in scope.types or item.name in BUILTIN_TYPES:
        raise UserError.at(item.pos, f"type '{item.name}' is declared twice" if item.name in scope.types
                           else f"'{item.name}' is a built-in type")
    typ = resolve_type(scope, item.type, "type", item.name)
    scope.types[item.name] = ir.DomT(typ.values, item.name)


# --------------------------------------------------------------------------- variables


def _variable(scope: Scope, item):
    name = item.name
    if name in scope.declared:
        raise UserError.at(item.pos, f"'{name}' is declared twice (first at line {scope.declared[name].line})",
                           hint="give each variable one declaration")
    for kind, table in (("parameter", scope.params), ("domain symbol", scope.symbols)):
        if name in table:
            raise UserError.at(item.pos, f"'{name}' is already a {kind}", hint="choose another name")
    role = item.kind if isinstance(item, S.IODecl) else "var"
    typ = resolve_type(scope, item.type, role)
    scope.declared[name] = item.pos
    flats = (name,)
    if isinstance(typ, tuple):     # an array: one scalar variable per element
        _, typ, size = typ
        flats = scope.arrays[name] = tuple(f"{name}[{i}]" for i in range(1, size + 1))
    for flat in flats:
        scope.variables[flat] = typ
        if role == "input":
            scope.inputs.append((flat, typ))
        elif role == "output":
            scope.outputs.append((flat, typ))
            scope.output_pos[flat] = item.pos


# --------------------------------------------------------------------------- functions and distributions


def _callable(scope: Scope, item, kind: str) -> tuple[dict, Lowerer]:
    """The parameters of a new function or distribution (`kind`) and the lowerer of its body: its
    name must be new and not a built-in, its parameters distinct and not domain symbols."""
    if item.name in BUILTINS:
        raise UserError.at(item.pos, f"'{item.name}' is a built-in function", hint="choose another name")
    if item.name in scope.functions or item.name in scope.distributions:
        raise UserError.at(item.pos, f"'{item.name}' is declared twice")
    owner = f"{kind} '{item.name}'"
    params = {}
    for p in item.params:
        if p.name in params:
            raise UserError.at(p.pos, f"{owner} has two parameters named '{p.name}'")
        if p.name in scope.symbols:
            raise UserError.at(p.pos, f"'{p.name}' is a domain symbol; choose another parameter name")
        params[p.name] = resolve_type(scope, p.type, "parameter")
    return params, Lowerer(scope, local_types=params, owner=owner)


def _function(scope: Scope, item: S.FunctionDecl):
    params, lowerer = _callable(scope, item, "function")
    result = resolve_type(scope, item.result, "result")
    body = lowerer.det(item.body, f"the body of '{item.name}'")
    lowerer.check_fits(body, result, item.body, f"the result of '{item.name}'")
    scope.functions[item.name] = ir.Function(item.name, tuple(params.items()), result, body.expr, item.pos)


def _distribution(scope: Scope, item: S.DistDecl):
    params, lowerer = _callable(scope, item, "distribution")
    over = resolve_type(scope, item.over, "over")
    if not item.outcomes:
        raise UserError.at(item.pos, f"distribution '{item.name}' lists no outcome",
                           hint="write 'distribution D(x: bool) over bool { x: 3; not x: 1 }'")
    outcomes = []
    for value_node, weight_node in item.outcomes:
        value = lowerer.det(value_node, "an outcome")
        lowerer.check_fits(value, over, value_node, f"an outcome of '{item.name}'")
        outcomes.append((value.expr, lowerer.weight(weight_node)))
    scope.distributions[item.name] = ir.DistDef(item.name, tuple(params.items()), over, tuple(outcomes), item.pos,
                                                tuple(w.pos for _, w in item.outcomes))
