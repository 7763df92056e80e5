"""The counterexample of a part of a sharded run, checked field by field before `dipc merge` prints it.

Why it exists: a part is untrusted data, and its counterexample is what a refuted merge shows as
proof.  A part edited to say `"verdict": "refuted"` with a counterexample that has no input, no
output or an eps that is not an exact rational must not merge into REFUTED (exit 1).  Each field is
checked against docs/claims.md ("counterexample" of `dipc accuracy --json` and of `dipc privacy
--json`): the exact numbers in the JSON encoding of docs/json.md (an integer, or a canonical
"p/q" string), the closed forms and balls as strings, nothing else.  When the claim and program
files of the run are here with the run's digests, an accuracy counterexample is also re-checked
exactly: the per-point path is run again at its input (`accuracy.box_result.recheck`, the path
every accuracy counterexample comes from), and it must give this very counterexample; a privacy
counterexample is checked again at its pair, output and eps by the per-pair check
(`privacy.dp.restate`), and it too must give this very counterexample.
"""
from __future__ import annotations

import json
import re
from fractions import Fraction

from dipc_plus.errors import UserError
from dipc_plus.execution.limits import clip

__all__ = ["check_counterexample", "recheck_accuracy_counterexamples", "recheck_privacy_counterexamples"]

MAX_DIGITS = 60                 # digits of a numerator or denominator a counterexample's number may have
MAX_TEXT = 1_000_000            # characters of a closed form or ball
_HINT = "the part was changed or cut: run that part again"
_RATIONAL = re.compile(r"-?[1-9][0-9]*/[1-9][0-9]*")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_LOG_POINT = re.compile(r"ln\((?:[1-9][0-9]*|[1-9][0-9]*/[1-9][0-9]*)\)")

_ACCURACY_TEXTS = ("error_probability", "bound", "error_probability_value", "bound_value")
_PRIVACY_TEXTS = ("probability", "neighbour_probability", "probability_value", "neighbour_probability_value",
                  "bound_value", "ratio_value")


def _refuse(path: str, where: str, message: str) -> UserError:
    return UserError(f"this part is not what `dipc ... --shard` writes: \"{where}\" {message}", file=path, hint=_HINT)


def exact_number(value) -> Fraction | None:
    """`value` as an exact number of the JSON encoding (an integer, or a 'p/q' string in lowest
    terms with q > 1, at most MAX_DIGITS digits each), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value) if len(str(abs(value))) <= MAX_DIGITS else None
    if not isinstance(value, str) or len(value) > 2 * MAX_DIGITS + 2 or not _RATIONAL.fullmatch(value):
        return None
    q = Fraction(value)
    return q if q.denominator > 1 and f"{q.numerator}/{q.denominator}" == value else None


def eps_number(value) -> Fraction | None:
    """An eps as a counterexample writes it: a string, "p/q" or an integer ("20"), canonical; else None."""
    if isinstance(value, str) and _INTEGER.fullmatch(value) and len(value) <= MAX_DIGITS:
        return Fraction(int(value))
    return exact_number(value) if isinstance(value, str) else None


def _number(path: str, cex: dict, key: str, where: str, allow_inf: bool = False, positive: bool = False) -> None:
    value = cex.get(key)
    if allow_inf and value == "inf":
        return
    q = eps_number(value) if key == "eps" else exact_number(value)
    if q is None:
        raise _refuse(path, where + key, f"is {clip(json.dumps(value), 40)}, not an exact number "
                                        "(an integer or \"p/q\")")
    if positive and q <= 0:
        raise _refuse(path, where + key, f"is {clip(json.dumps(value), 40)}, not a positive number")


def _text(path: str, cex: dict, key: str, where: str) -> None:
    value = cex.get(key)
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT:
        raise _refuse(path, where + key, f"is {clip(json.dumps(value), 40)}, not a closed form or value")


def _values(path: str, value, where: str) -> None:
    """An input or output object: names to values (numbers, symbols, Booleans, arrays of them)."""
    if not isinstance(value, dict) or not value:
        raise _refuse(path, where, f"is {clip(json.dumps(value), 40)}, not an object of values")
    for name, v in value.items():
        for item in (v if isinstance(v, list) else [v]):
            if not (isinstance(item, (bool, str)) or exact_number(item) is not None):
                raise _refuse(path, f"{where}.{clip(name, 20)}", f"holds {clip(json.dumps(item), 40)}, not a value")


def _keys(path: str, cex: dict, where: str, required: tuple, optional: tuple) -> None:
    missing = [key for key in required if key not in cex]
    if missing:
        raise _refuse(path, where.rstrip("."), f"has no \"{missing[0]}\"")
    extra = sorted(set(cex) - set(required) - set(optional))
    if extra:
        raise _refuse(path, where + clip(extra[0], 30), "is not a field of a counterexample")


def check_counterexample(path: str, command: str, cex: dict, where: str = "counterexample.") -> None:
    """Every field of an accuracy or privacy (eps-DP) counterexample, as docs/claims.md lists them;
    a UserError naming the part and the field otherwise."""
    if command == "accuracy":
        _keys(path, cex, where, ("input", "eps", "alpha", "gamma", "kappa", *_ACCURACY_TEXTS), ("alpha_strict",))
        _values(path, cex["input"], where + "input")
        _number(path, cex, "eps", where, positive=True)
        _number(path, cex, "alpha", where, allow_inf=True)
        _number(path, cex, "gamma", where)
        if "alpha_strict" in cex:
            _number(path, cex, "alpha_strict", where, allow_inf=True)
        kappa = cex["kappa"]   # an integer, as the report's
        if isinstance(kappa, bool) or not isinstance(kappa, int) or not 1 <= kappa <= 10 ** 9:
            raise _refuse(path, where + "kappa", f"is {clip(json.dumps(kappa), 40)}, not a positive integer")
        texts = _ACCURACY_TEXTS
    else:
        set_form = "output" not in cex and "outputs" in cex   # delta != 0: a set S of outputs
        _keys(path, cex, where, ("input", "neighbour", *(("output_set", "outputs") if set_form else ("output",)),
                                 "eps", *_PRIVACY_TEXTS), ())
        _values(path, cex["input"], where + "input")
        _values(path, cex["neighbour"], where + "neighbour")
        if not set_form:
            _values(path, cex["output"], where + "output")
        else:
            _text(path, cex, "output_set", where)
            outputs = cex["outputs"]
            if not isinstance(outputs, list) or not outputs:
                raise _refuse(path, where + "outputs", f"is {clip(json.dumps(outputs), 40)}, not a list of outputs")
            for k, output in enumerate(outputs):
                _values(path, output, f"{where}outputs[{k}]")
        eps = cex["eps"]
        if not (isinstance(eps, str) and _LOG_POINT.fullmatch(eps) and len(eps) <= 2 * MAX_DIGITS + 5):
            _number(path, cex, "eps", where, positive=True)
        texts = _PRIVACY_TEXTS
    for key in texts:
        _text(path, cex, key, where)


def recheck_accuracy_counterexamples(parts: list[tuple[str, dict]], args: list, params: dict, kappa) -> None:
    """Each part's counterexample recomputed by the per-point path at its input, from the claim file
    here (the caller checked its digest): it must be refuted there with this very counterexample."""
    refuted = [(path, out) for path, out in parts if out.get("counterexample") is not None]
    if not refuted:
        return
    path0 = parts[0][0]
    dd_over, boundary, max_states = args[2], args[3], args[4]
    if (dd_over not in (None, "reals", "grid") or not isinstance(boundary, bool) or isinstance(max_states, bool)
            or not isinstance(max_states, int) or max_states <= 0 or isinstance(kappa, bool)
            or not isinstance(kappa, int) or not 1 <= kappa <= 10 ** 9):
        raise UserError("this part is not what `dipc ... --shard` writes: \"part.options\" are not the options of "
                        "an accuracy run", file=path0, hint=_HINT)
    from dipc_plus.accuracy.box_result import recheck
    from dipc_plus.accuracy.checker import build_checker
    from dipc_plus.claims.claim_file import to_user_value
    from dipc_plus.semantics.inputs import bind_inputs
    checker = build_checker(args[0], tuple(params.items()), dd_over, boundary, max_states)
    for path, out in refuted:
        stated = out["counterexample"]
        try:
            u = bind_inputs(checker.program, {k: to_user_value(v) for k, v in stated["input"].items()})
        except UserError as err:
            raise _refuse(path, "counterexample.input", f"is not an input of the program: {err.message}") from None
        again = recheck(checker, u, kappa)
        if again is None:
            raise UserError("this part's counterexample does not refute the claim: the claim holds at its input "
                            "when checked again here", file=path, hint=_HINT)
        if json.loads(json.dumps(again.to_json())) != stated:
            raise UserError("this part's counterexample is not the one the claim gives at its input when checked "
                            "again here (a field was changed)", file=path, hint=_HINT)


def recheck_privacy_counterexamples(parts: list[tuple[str, dict]], work) -> None:
    """Each part's privacy counterexample names an input and a neighbour of the program here, and
    is the counterexample the claim gives at that pair when checked again exactly
    (`privacy.dp.restate`, from the claim file here: the caller checked its digest)."""
    from dipc_plus.claims.claim_file import to_user_value
    from dipc_plus.privacy.dp.restate import why_not_a_counterexample
    from dipc_plus.semantics.inputs import bind_inputs
    for path, out in parts:
        cex = out.get("counterexample")
        if cex is None:
            continue
        pair = []
        for key in ("input", "neighbour"):
            try:
                pair.append(bind_inputs(work.claim.program, {k: to_user_value(v) for k, v in cex[key].items()}))
            except UserError as err:
                raise _refuse(path, f"counterexample.{key}", f"is not an input of the program: {err.message}") from None
        why = why_not_a_counterexample(work, pair[0], pair[1], cex)
        if why is not None:
            raise UserError(f"this part's counterexample does not re-check: \"counterexample.{clip(why[0], 30)}\" "
                            f"{why[1]}", file=path, hint=_HINT)
