"""Reading a Pufferfish `[privacy]` table (kind = "pufferfish"): parameters, secrets,
discriminative pairs and scenarios.

Why it exists: the Pufferfish table carries the most user text of any claim (secret
conditions and prior weights that are polynomials in symbolic parameters).  Every
weight is read by `claims.formula.parse_polynomial` and every secret by
`secrets.read_predicate`; both fold over a checked `claims.expression` tree and never
evaluate text, so
a weight like '[__import__("os").system(...), 1 - p][1]' is refused, not run.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import re
from fractions import Fraction

from dipc_plus.claims.claim_file import ANY, MAX_POINTS, ClaimReader, Key, naming_hint, note_of
from dipc_plus.claims.formula import parse_polynomial
from dipc_plus.claims.privacy_fields import BUDGET_HINT, read_budget, read_eps, read_events
from dipc_plus.claims.privacy_types import read_rational
from dipc_plus.claims.privacy_types import PufferfishClaim, Scenario
from dipc_plus.exact.convert import fmt_q
from dipc_plus.exact.param_poly import poly_mul
from dipc_plus.claims.secrets import read_predicate
from dipc_plus.decision.certified import interval_parts, interval_text
from dipc_plus.decision.param_decide import negative_point
from dipc_plus.semantics import ir
from dipc_plus.semantics.values import distinct

_SECRETS_HINT = 'secrets = { sick = "x[1] == 1", healthy = "x[1] == 0" }'
_PAIRS_HINT = 'pairs = [["sick", "healthy"]]'
PUFFERFISH_KEYS = {
    "kind": ANY, "budget": Key(required=BUDGET_HINT), "eps": Key(default="(0, inf)"),
    "parameters": Key(dict, {}, message="parameters must be a table", hint='parameters = { p = "(0, 1)" }'),
    "secrets": Key(dict, required=_SECRETS_HINT, message="give the secrets as a table", hint=_SECRETS_HINT,
                   nonempty=True),
    "pairs": Key(list, required=_PAIRS_HINT, message="give the discriminative pairs of secrets", hint=_PAIRS_HINT,
                 nonempty=True),
    "scenarios": Key(required='[[privacy.scenarios]]\n  name = "independent"\n  independent = { x = { "0" = "1 - p", '
                              '"1" = "p" } }'),
    "events": ANY, "note": ANY,
}
SCENARIO_KEYS = dict.fromkeys(("name", "prior", "independent", "note"), ANY)


def read_pufferfish(r: ClaimReader, raw: dict, program: ir.Program, path: str) -> PufferfishClaim:
    """The checked `PufferfishClaim` of a `[privacy]` table with kind = "pufferfish"."""
    table = r.table(raw, "privacy", PUFFERFISH_KEYS)
    budget = read_budget(r, table["budget"], program, "privacy.budget")
    eps = read_eps(r, table["eps"], "privacy.eps")
    events = read_events(r, table["events"], program, "privacy.events")
    parameters = {}
    for name, text in table["parameters"].items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", name) or name in ("eps",) or name in program.params:
            raise r.error(f"privacy.parameters.{name}", f"'{name}' cannot name a symbolic parameter",
                          hint="use a fresh name such as p, different from eps and the program's params")
        parameters[name] = _read_param_interval(r, f"privacy.parameters.{name}", text)
    secrets = {}
    for name, text in table["secrets"].items():
        secrets[name] = read_predicate(r.where(f"privacy.secrets.{name}"), name, text, program)
    pairs = []
    for k, pr in enumerate(table["pairs"]):
        if not (isinstance(pr, list) and len(pr) == 2 and all(isinstance(x, str) for x in pr)):
            raise r.error("privacy.pairs", f"pair {k + 1} must be two secret names", hint='["sick", "healthy"]')
        for x in pr:
            if x not in secrets:
                raise r.error("privacy.pairs", f"'{x}' is not a secret",
                              hint=naming_hint(x, secrets, f"the secrets are: {', '.join(secrets)}"))
        if pr[0] == pr[1]:
            raise r.error("privacy.pairs", f"pair {k + 1} compares '{pr[0]}' with itself",
                          hint="a discriminative pair names two different secrets")
        pairs.append((pr[0], pr[1]))
    sc_raw = r.rows("privacy.scenarios", table["scenarios"], "give at least one scenario as [[privacy.scenarios]]",
                    PUFFERFISH_KEYS["scenarios"].required)
    scenarios: list[Scenario] = []
    for k, sc in enumerate(sc_raw):
        scenario = _read_scenario(r.entry(k), k, sc, program, parameters)
        same = [j for j, other in enumerate(scenarios) if other.name == scenario.name]
        if same:   # verdicts, notes and counterexamples name the scenario
            raise r.entry(k).error("privacy.scenarios.name", f"scenarios {same[0] + 1} and {k + 1} are both "
                                   f"named '{scenario.name}'", hint="give each scenario its own name")
        scenarios.append(scenario)
    pairs = distinct(pairs, key=frozenset)   # each is checked in both directions: a reversed pair is the same
    return PufferfishClaim(path, program, budget, eps, {n: interval_text(*iv) for n, iv in parameters.items()},
                           parameters, secrets, pairs, scenarios, events, note_of(raw))


def _read_param_interval(r: ClaimReader, key: str, text):
    hint = 'write an interval with rational ends, e.g. "(0, 1)" or "[1/4, 3/4]"'
    r.typed(key, text, str, "the range must be a string", hint)
    left, right, lo_closed, hi_closed = interval_parts(text) or ("", "", False, False)
    lo, hi = read_rational(left), read_rational(right)
    if lo is None or hi is None:
        raise r.error(key, f"cannot read the range {text!r}", hint=hint)
    if hi <= lo:
        raise r.error(key, f"the range {text!r} is empty or a point", hint=hint)
    return (lo, hi, lo_closed, hi_closed)



def _read_scenario(r: ClaimReader, k: int, sc: dict, program: ir.Program, parameters: dict) -> Scenario:
    """One scenario: its name, and its prior given as a list of weighted inputs or independently per
    position.  Every written weight must be >= 0 on the whole parameter box (decided exactly): a
    product of negative per-position weights is positive, so checking the prior's products would
    pass a marginal of -1."""
    params = list(parameters)
    key = "privacy.scenarios"
    r.table(sc, key, SCENARIO_KEYS)
    name = sc.get("name", f"scenario {k + 1}")
    if ("prior" in sc) == ("independent" in sc):
        raise r.error(key, f"{name}: give exactly one of 'prior' (a list of inputs with weights) and "
                           "'independent' (a distribution per input position)",
                      hint='prior = [ { input = { x = [0, 0] }, weight = "1 - p" }, ... ]')
    where = r.where(f"{key}.{'prior' if 'prior' in sc else 'independent'}")
    lined = dataclasses.replace(where, column=None)   # a weight's column is not the table's: name the line only

    def weight(text, at):
        poly = parse_polynomial(text, params, lined, what=f"weight ({name}: {at})")
        point = negative_point(poly, list(parameters.values()))
        if point is not None:
            at_point = ", ".join(f"{p} = {fmt_q(v)}" for p, v in zip(params, point))
            raise r.error(where.key, f"{name}: the prior weight {text} ({at}) is negative"
                                     + (f" at {at_point}" if any(any(e) for e in poly) else ""),
                          hint="weights must be probabilities (>= 0) for every parameter value")
        return poly

    if "prior" in sc:
        support = _prior_support(r, key, name, sc["prior"], program, weight)
    else:
        support = _independent_support(r, key, name, sc["independent"], program, params, weight)
    support = [(u, w) for u, w in support if w]
    if not support:
        raise r.error(key, f"{name}: every prior weight is 0", hint="give some input a positive weight")
    return Scenario(name, support, note_of(sc))


def _prior_support(r: ClaimReader, key: str, name: str, rows, program: ir.Program, weight) -> list:
    """`prior = [ {input, weight}, ... ]`: (input, weight polynomial) per entry, each input once."""
    r.rows(key, rows, f"{name}: prior must be a list of {{ input = ..., weight = ... }}",
           'prior = [ { input = { x = [0, 0] }, weight = "1 - p" } ]')
    support = []
    seen = set()
    for j, row in enumerate(rows):
        r.exact_keys(key, row, ("input", "weight"), f"{name}: prior entry {j + 1}",
                     '{ input = { x = [0, 0] }, weight = "1 - p" }')
        u = r.bind(key, program, row["input"], f"{name}: prior entry {j + 1}")
        seen.add(r.first_time(key, seen, u, f"{name}: prior entry {j + 1}"))
        support.append((u, weight(row["weight"], f"prior entry {j + 1}")))
    return support


def _independent_support(r: ClaimReader, key: str, name: str, spec, program: ir.Program, params: list,
                         weight) -> list:
    """`independent = { x = {value = weight, ...} }`: a distribution per input position, and the
    prior is their product (bounded by MAX_POINTS before it is built)."""
    r.typed(key, spec, dict, f"{name}: independent must be a table",
            'independent = { x = { "0" = "1 - p", "1" = "p" } }')
    per = _position_distributions(r, key, name, spec, program, weight)
    missing = [n for n in program.input_names() if n not in per]
    if missing:
        raise r.error(key, f"{name}: no distribution for the input(s) {', '.join(missing)}",
                      hint="give every input position a distribution")
    names = program.input_names()
    total = math.prod(len(per[n]) for n in names)
    if total > MAX_POINTS:
        raise r.error(key, f"{name}: the prior has {total} inputs, too many", hint="use fewer positions")
    support = []
    for combo in itertools.product(*(per[n] for n in names)):
        product = functools.reduce(poly_mul, (w for _, w in combo), {(0,) * len(params): Fraction(1)})
        support.append(({n: v for n, (v, _) in zip(names, combo)}, product))
    return support


def _position_distributions(r: ClaimReader, key: str, name: str, spec: dict, program: ir.Program,
                            weight) -> dict:
    """{input position: [(value, weight polynomial)]}; an array's distribution applies to each element."""
    types = dict(program.inputs)
    per: dict = {}
    given: dict = {}
    for nm, dist in spec.items():
        elems = r.named_once(key, program, nm, given, label=f"{name}: ")
        r.typed(key, dist, dict, f"{name}: {nm}: give {{ value = weight, ... }}",
                f'{nm} = {{ "0" = "1 - p", "1" = "p" }}', nonempty=True)
        for e in elems:
            choices = []
            for val_text, w in dist.items():
                val = r.value(key, val_text, types[e], f"value of {e}", f"{name}: ")
                choices.append((val, weight(w, f"{nm} = {val_text}")))
            per[e] = choices
    return per


# -- polynomials in the symbolic parameters: {exponent tuple: Fraction} ------------------------------------

