"""The schema of a part of a sharded run, as one table, and the one validator that reads it.

Why it exists: a part is untrusted data (a job's output file, perhaps cut short or edited), so
`dipc merge` checks every field it reads - type, size, nesting, the exact numbers of docs/json.md,
the counterexample fields of docs/claims.md - against this table before it reads it.  What ties one
object's fields together (a refuted verdict has a counterexample, an accuracy part's counts are what its
reports make, its items are its chunk of the run) is a rule of that object here; what ties parts together
(the same run, each part once, a counterexample re-checked) is merge's.

A spec is an atom (a function: value -> None when it fits, else what the value should be), an
`Obj` (its fields in the order they are checked, a name ending in "?" may be absent, then its
`rules`), a `ListOf`, a `Tuple`, a `MapOf`, `Maybe(spec)` (null allowed) or a `Switch` (one of two
object forms).
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from dipc_plus.commands.common import MAX_SHARDS
from dipc_plus.errors import UserError
from dipc_plus.execution.executor import shard_chunk
from dipc_plus.execution.limits import clip

CHANGED = "the part was changed or cut: run that part again"
MAX_COUNT = 10 ** 18
MAX_DIGITS = 60                 # digits of a numerator or denominator a counterexample's number may have
MAX_TEXT = 1_000_000            # characters of a closed form or ball
_RATIONAL = re.compile(r"-?[1-9][0-9]*/[1-9][0-9]*")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_LOG_POINT = re.compile(r"ln\((?:[1-9][0-9]*|[1-9][0-9]*/[1-9][0-9]*)\)")


class SchemaError(ValueError):
    """A value that does not fit the schema, said of its path `where` ("part.items", "reports[0].dd"; ""
    the object itself: "it ..."; None: the message alone), with its own `hint` when it has one."""

    def __init__(self, where: str | None, message: str, hint: str | None = None):
        super().__init__(message if where is None else f"\"{where}\" {message}" if where else f"it {message}")
        self.hint = hint


@dataclass(frozen=True)
class Obj:
    fields: dict
    closed: bool = False        # a field the table does not list is refused
    what: str = "an object"
    rules: tuple = ()           # functions: the object (its fields fit) -> None, or what is wrong with it
    #                             (a rule of a part may raise its own SchemaError, said of a field or whole)


@dataclass(frozen=True)
class ListOf:
    item: object


@dataclass(frozen=True)
class Tuple:
    """A list of fixed length whose k-th element fits items[k]."""
    items: tuple
    what: str


@dataclass(frozen=True)
class MapOf:
    value: object
    what: str
    nonempty: bool = True


@dataclass(frozen=True)
class Maybe:
    """`spec`, or null."""
    spec: object


@dataclass(frozen=True)
class Switch:
    """`when(value)` picks `then`, else `otherwise` (e.g. a privacy counterexample's set form)."""
    when: Callable
    then: object
    otherwise: object


def validate(value, spec, where: str = "") -> None:
    """Raise SchemaError at the first field (in table order) that does not fit `spec`."""
    if isinstance(spec, Maybe):
        return None if value is None else validate(value, spec.spec, where)
    if isinstance(spec, Switch):
        return validate(value, spec.then if isinstance(value, dict) and spec.when(value) else spec.otherwise, where)
    if isinstance(spec, Obj):
        return _validate_obj(value, spec, where)
    if isinstance(spec, ListOf):
        if not isinstance(value, list):
            return _refuse(value, where, "a list")
        for k, item in enumerate(value):
            validate(item, spec.item, f"{where}[{k}]")
        return None
    if isinstance(spec, Tuple):
        if not isinstance(value, list) or len(value) != len(spec.items):
            return _refuse(value, where, spec.what)
        for k, (item, field) in enumerate(zip(value, spec.items)):
            validate(item, field, f"{where}[{k}]")
        return None
    if isinstance(spec, MapOf):
        if not isinstance(value, dict) or (spec.nonempty and not value):
            return _refuse(value, where, spec.what)
        for key, item in value.items():
            validate(item, spec.value, f"{where}.{clip(key, 20)}")
        return None
    what = spec(value)
    return None if what is None else _refuse(value, where, what)


def _validate_obj(value, spec: Obj, where: str) -> None:
    if not isinstance(value, dict):
        return _refuse(value, where, spec.what)
    at = f"{where}." if where else ""
    for name, field in spec.fields.items():
        key = name.rstrip("?")
        if key in value:
            validate(value[key], field, at + key)
        elif key == name:
            raise SchemaError(where, f"has no \"{key}\"")
    extra = sorted(set(value) - {name.rstrip("?") for name in spec.fields}) if spec.closed else ()
    if extra:
        raise SchemaError(at + clip(extra[0], 30), f"is not a field of {spec.what}")
    for rule in spec.rules:
        wrong = rule(value)
        if wrong is not None:
            raise SchemaError(where, wrong)
    return None


def part_error(path: str, message: str, hint: str = CHANGED) -> UserError:
    """The refusal of a part that is not what a sharded run writes, naming the part."""
    return UserError(f"this part is not what `dipc ... --shard` writes: {message}", file=path, hint=hint)


def check_part(path: str, out: dict) -> None:
    """Refuse the part at `path` unless it fits the schema of a part of its command (`PART`)."""
    try:
        validate(out, PART[out["part"]["command"]])
    except SchemaError as err:
        if err.hint is not None:   # a refusal in its own words (a part index outside 1..N)
            raise UserError(str(err), file=path, hint=err.hint) from None
        raise part_error(path, str(err)) from None


def _refuse(value, where: str, what: str):
    raise SchemaError(where, f"is {clip(json.dumps(value), 40)}, not {what}")


# --------------------------------------------------------------------------- atoms

def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def exact_number(value) -> Fraction | None:
    """`value` as an exact number of the JSON encoding (an integer, or a 'p/q' string in lowest
    terms with q > 1, at most MAX_DIGITS digits each), else None."""
    if is_int(value):
        return Fraction(value) if len(str(abs(value))) <= MAX_DIGITS else None
    if not isinstance(value, str) or len(value) > 2 * MAX_DIGITS + 2 or not _RATIONAL.fullmatch(value):
        return None
    q = Fraction(value)
    return q if q.denominator > 1 and f"{q.numerator}/{q.denominator}" == value else None


def rational(value) -> Fraction | None:
    """A rational written as text ('p/q' or an integer, of a sane length), else None."""
    if not isinstance(value, str) or len(value) > 2 * MAX_DIGITS + 2:
        return None
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        return None


def distance(value) -> Fraction | float | None:
    """A report's dd(u) (an integer, a 'p/q' text or "inf") as a number, else None."""
    if value == "inf":
        return math.inf
    return Fraction(value) if is_int(value) else rational(value)


def atom(what: str, fits: Callable) -> Callable:
    return lambda value: None if fits(value) else what


def one_of(*choices) -> Callable:
    return atom(" or ".join(json.dumps(c) for c in choices), lambda v: isinstance(v, str) and v in choices)


EXACT_WHAT = "an exact number (an integer or \"p/q\")"
COUNT = atom("a count", lambda v: is_int(v) and 0 <= v <= MAX_COUNT)
BOOL = atom("true or false", lambda v: isinstance(v, bool))
TEXT = atom("a text", lambda v: isinstance(v, str))
CLOSED_FORM = atom("a closed form or value", lambda v: isinstance(v, str) and 0 < len(v) <= MAX_TEXT)
SECONDS = atom("a number of seconds", lambda v: not isinstance(v, bool) and isinstance(v, (int, float))
               and math.isfinite(v) and v >= 0)
DIGEST = atom("a SHA-256 digest", lambda v: isinstance(v, str) and len(v) == 64)
DISTANCE = atom("a distance", lambda v: distance(v) is not None)
EXACT = atom(EXACT_WHAT, lambda v: exact_number(v) is not None)
EXACT_OR_INF = atom(EXACT_WHAT, lambda v: v == "inf" or exact_number(v) is not None)
KAPPA = atom("a positive integer", lambda v: is_int(v) and 1 <= v <= 10 ** 9)
ALPHA = atom("\"dd\" or a rational", lambda v: v == "dd" or rational(v) is not None)
VALUE = atom("a value or an array of values", lambda v: all(isinstance(x, (bool, str)) or exact_number(x) is not None
                                                            for x in (v if isinstance(v, list) else [v])))
VALUES = MapOf(VALUE, "an object of values")
ANY_OBJECT = Obj({})


def positive_eps(value) -> str | None:
    """An eps as a counterexample writes it: a string, "p/q" or an integer ("20"), canonical and positive."""
    if not isinstance(value, str):
        return EXACT_WHAT
    q = Fraction(int(value)) if _INTEGER.fullmatch(value) and len(value) <= MAX_DIGITS else exact_number(value)
    return EXACT_WHAT if q is None else (None if q > 0 else "a positive number")


def privacy_eps(value) -> str | None:
    if isinstance(value, str) and len(value) <= 2 * MAX_DIGITS + 5 and _LOG_POINT.fullmatch(value):
        return None
    return positive_eps(value)


# --------------------------------------------------------------------------- the table

_ACCURACY_TEXTS = ("error_probability", "bound", "error_probability_value", "bound_value")
_PRIVACY_TEXTS = ("probability", "neighbour_probability", "probability_value", "neighbour_probability_value",
                  "bound_value", "ratio_value")

ACCURACY_COUNTEREXAMPLE = Obj({"input": VALUES, "eps": positive_eps, "alpha": EXACT_OR_INF, "gamma": EXACT,
                               "kappa": KAPPA, **dict.fromkeys(_ACCURACY_TEXTS, CLOSED_FORM),
                               "alpha_strict?": EXACT_OR_INF}, closed=True, what="a counterexample")
_PRIVACY_PAIR = {"input": VALUES, "neighbour": VALUES}
_PRIVACY_REST = {"eps": privacy_eps, **dict.fromkeys(_PRIVACY_TEXTS, CLOSED_FORM)}
PRIVACY_COUNTEREXAMPLE = Switch(
    lambda cex: "output" not in cex and "outputs" in cex,      # delta != 0: a set S of outputs
    Obj({**_PRIVACY_PAIR, "output_set": CLOSED_FORM, "outputs": ListOf(VALUES), **_PRIVACY_REST}, closed=True,
        what="a counterexample"),
    Obj({**_PRIVACY_PAIR, "output": VALUES, **_PRIVACY_REST}, closed=True, what="a counterexample"))
COUNTEREXAMPLE = {"accuracy": ACCURACY_COUNTEREXAMPLE, "privacy": PRIVACY_COUNTEREXAMPLE}

_PARAMS = ListOf(Tuple((TEXT, atom("a number", lambda v: is_int(v) or rational(v) is not None)), "NAME, VALUE"))
_MAX_STATES = atom("a positive integer", lambda v: is_int(v) and v > 0)
OPTIONS = {   # what a worker rebuilds the check from (`commands.accuracy`, `commands.privacy`)
    "accuracy": Obj({"args": Tuple((TEXT, _PARAMS, Maybe(one_of("reals", "grid")), BOOL, _MAX_STATES),
                                   "the claim and options of an accuracy run"), "kappa": KAPPA}),
    "privacy": Obj({"args": Tuple((TEXT, _PARAMS, Maybe(BOOL), _MAX_STATES), "the claim and options of a privacy run")}),
}


def _part_record(command: str) -> Obj:
    return Obj({"command": one_of(command), "index": COUNT, "of": COUNT,
                "files": MapOf(DIGEST, "an object of file digests"), "options": OPTIONS[command],
                "items": Tuple((COUNT, COUNT), "a list of 2"), "total_items": COUNT,
                "tables?": MapOf(ListOf(atom("a digest", lambda v: isinstance(v, str) and len(v) <= 64)),
                                 "an object of table digests", nonempty=False)})


def present_when(field: str, verdicts: tuple, what: str) -> Callable:
    """The rule "`field` is present (not null) exactly when the verdict is one of `verdicts`".

    >>> rule = present_when("counterexample", ("refuted",), "a counterexample")
    >>> rule({"verdict": "refuted"}), rule({"verdict": "verified", "counterexample": {}})
    ('says refuted without a counterexample', 'says verified beside a counterexample')
    """
    def rule(obj: dict) -> str | None:
        has = obj.get(field) is not None
        if has == (obj["verdict"] in verdicts):
            return None
        return f"says {obj['verdict']} {'beside' if has else 'without'} {what}"
    return rule


def _counterexample_at_the_input(report: dict) -> str | None:
    cex = report.get("counterexample")
    if cex is None or cex["input"] == report["input"]:
        return None
    return "has a counterexample at another input than the report"


STRICT = Obj({"requested": BOOL, "reason?": Maybe(TEXT)})
REPORT = Obj({"verdict": one_of("verified", "refuted", "not applicable"), "input": ANY_OBJECT,
              "counterexample?": ACCURACY_COUNTEREXAMPLE, "beta?": TEXT, "dd": DISTANCE}, what="a report",
             rules=(present_when("counterexample", ("refuted",), "a counterexample"),
                    present_when("beta", ("verified", "refuted"), "a bound beta"), _counterexample_at_the_input))
VACUITY_BASIS = Obj({"alpha": ALPHA, "boundary": BOOL, "input_distance": TEXT, "dd_over": TEXT, "given_inputs": BOOL},
                    closed=True, what="an object of the claim's alpha, distance and options")
ACCURACY_SUMS = ("inputs_checked", "obligations", "obligations_applicable", "obligations_refuted")
PRIVACY_SUMS = ("pairs_checked", "obligations", "decisions")


def _index_in_range(part: dict) -> None:
    index, of = part["part"]["index"], part["part"]["of"]
    if not 1 <= index <= of <= MAX_SHARDS:
        raise SchemaError(None, f"part index {index}/{of} is outside 1..N", hint="give the parts of one run")


def _items_are_its_chunk(part: dict) -> str | None:
    """A part covers its chunk of the run's items, as `--shard I/N` cut them."""
    record = part["part"]
    index, of, items, total = record["index"], record["of"], record["items"], record["total_items"]
    expected = list(shard_chunk(total, (index, of)))
    if items == expected:
        return None
    return (f"covers items {items[0]}..{items[1]}, but part {index}/{of} of {total} items is "
            f"{expected[0]}..{expected[1]}")


def _part(command: str, fields: dict, rules: tuple = (), then: tuple = ()) -> Obj:
    """A part's schema: its own `rules`, its index and items, then the rules (`then`) that read its items."""
    return Obj({"part": _part_record(command), "verdict": one_of("verified", "refuted"), "seconds?": SECONDS,
                "vacuous": BOOL, "counterexample?": Maybe(COUNTEREXAMPLE[command]), "strict?": Maybe(STRICT),
                **fields}, rules=(*rules, _index_in_range, _items_are_its_chunk, *then))


def input_keys(reports: list) -> list[str]:
    """The inputs of a run's reports, once each in order (an input's reports are consecutive)."""
    keys = [json.dumps(r["input"], sort_keys=True) for r in reports]
    return [key for k, key in enumerate(keys) if k == 0 or keys[k - 1] != key]


def accuracy_summary(reports: list) -> dict:
    """What a list of accuracy reports makes: the counts, the verdict, "vacuous" and the counterexample
    (the first refuted report's).  A part must say what its own reports make; the merged run says what
    the joined reports make."""
    tally = Counter(r["verdict"] for r in reports)
    applicable = tally["verified"] + tally["refuted"]
    verdict = "refuted" if tally["refuted"] else "verified"
    return {"obligations": len(reports), "obligations_applicable": applicable, "obligations_refuted": tally["refuted"],
            "inputs_checked": len(input_keys(reports)), "verdict": verdict,
            "counterexample": next((r["counterexample"] for r in reports if "counterexample" in r), None),
            "vacuous": verdict == "verified" and not applicable}


def _reports_make_the_part(part: dict) -> str | None:
    """An accuracy part's fields are what its reports make, an input's reports together, one input per item."""
    inputs, (a, b) = input_keys(part["reports"]), part["part"]["items"]
    if len(set(inputs)) != len(inputs):
        raise SchemaError(None, "an input's reports are not together (an input repeated)")
    for key, value in accuracy_summary(part["reports"]).items():
        if part.get(key) != value:
            raise SchemaError(key, f"is {clip(json.dumps(part.get(key)), 40)} but its reports make "
                                   f"{clip(json.dumps(value), 40)}")
    if len(inputs) == b - a:
        return None
    return f"covers items {a}..{b} ({b - a} inputs) but reports {len(inputs)} input(s)"


def _a_pair_per_item(part: dict) -> str | None:
    """An item is a pair, or a unit the point filter checks whole (many pairs), so a verified part
    checked at least one pair per item; the exact number is checked against the claim (merge)."""
    (a, b), pairs = part["part"]["items"], part["pairs_checked"]
    if part["verdict"] == "verified" and pairs < b - a:
        return f"checked {pairs} pairs of the {b - a} items it covers (items {a}..{b}) and says verified"
    return None


def _privacy_counts(part: dict) -> str | None:
    """A refuted privacy part checked a pair, and no part made more decisions than its obligations."""
    if part["verdict"] == "refuted" and not part["pairs_checked"]:
        return "says refuted without checking a pair"
    if part["decisions"] > part["obligations"]:
        return f"made {part['decisions']} decisions for {part['obligations']} obligations"
    return None


# Same across parts: what every part of one run repeats is its part record's RUN_RECORD and its fields
# but PER_PART (which each part has its own, and merge makes from every part)
RUN_RECORD = ("command", "of", "files", "options", "total_items")
PER_PART = {"verdict", "vacuous", "seconds", "counterexample", "reports", "strict", "part", "distributions", "work",
            *PRIVACY_SUMS, *ACCURACY_SUMS}


def run_fields_differing(part: dict, other: dict) -> list[str]:
    """The fields of the run that two parts do not repeat alike: its record's in order, then its own sorted."""
    record = [k for k in RUN_RECORD if part["part"].get(k) != other["part"].get(k)]
    return record + sorted(k for k in set(part) | set(other)
                           if k not in PER_PART and part.get(k, part) != other.get(k, part))


PART = {
    "accuracy": _part("accuracy", {**dict.fromkeys(ACCURACY_SUMS, COUNT), "reports": ListOf(REPORT),
                                   "vacuity_basis": VACUITY_BASIS}, then=(_reports_make_the_part,)),
    "privacy": _part("privacy", dict.fromkeys((*PRIVACY_SUMS, "distributions"), COUNT),
                     rules=(present_when("counterexample", ("refuted",), "a counterexample"),
                            _privacy_counts), then=(_a_pair_per_item,)),
}
