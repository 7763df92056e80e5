"""`dipc merge`: join the parts of a sharded run into the JSON the unsharded run prints.

    dipc privacy theories/svt_lyu_alg1_privacy.toml --json --shard 1/3 > p1.json   # e.g. a job array
    ...
    dipc merge p1.json p2.json p3.json

Why it exists: a batch cluster runs `--shard I/N` parts as independent jobs; the
verdict is the reduction of the parts in input (pair) order - AND of verdicts, the
first counterexample, sums of the counts - which this command computes from the
parts' JSON alone.  It refuses parts that do not belong together (another claim,
other file contents, other options, a part missing or given twice), so a merged
verdict is never about less than the whole run.  The result equals the unsharded
run's JSON except "seconds", which is the sum of the parts' seconds.

Exit codes as the command that made the parts: 0 verified, 1 refuted, 5 for a
vacuous accuracy answer (the claim applies at no input; --allow-vacuous: 0), 4 with
--strict (or parts made with --strict) for a vacuous verdict; 2 for parts that
cannot be merged.

A part is untrusted data (a job's output file, perhaps cut short or edited): each is
checked against the one schema of a part (`commands.parts.schema`: types, sizes, the
counterexample's fields, the run's options), nesting depth and integer length; its counts
are recomputed from its own content; an accuracy part's reports must be exactly its
inputs, and when the claim file named in the parts is here with the same SHA-256, exactly
the claim's inputs in order (a privacy run: its pairs), and each counterexample is
re-checked exactly (`commands.parts.counterexample`).  A part that fails any of this is
exit 2 naming the part and the field, never a verdict.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from fractions import Fraction

from dipc_plus.accuracy.vacuity import Vacuity, vacuity_from
from dipc_plus.commands.common import (EXIT_VACUOUS, MAX_SHARDS, STRICT_EXIT, json_text, strict_reason_text,
                                       vacuity_lines)
from dipc_plus.commands.parts.counterexample import recheck_accuracy_counterexamples, recheck_privacy_counterexamples
from dipc_plus.commands.parts.schema import ACCURACY_SUMS, PART, PRIVACY_SUMS, SchemaError, distance, validate
from dipc_plus.errors import UserError
from dipc_plus.execution.files import read_user_file
from dipc_plus.execution.limits import clip

MAX_PARTS = 100_000
MAX_DEPTH = 32          # a part nests about 6 deep (a counterexample's array inputs)
MAX_DIGITS = 30         # counts and indices are far below 10^30

EXAMPLE = """\
examples:
  for i in 1 2 3 4; do dipc accuracy theories/sparse.toml --set m=6 --json --shard $i/4 > part$i.json; done
  dipc merge part1.json part2.json part3.json part4.json
      the JSON of the unsharded run (exit 0 verified, 1 refuted)
  dipc merge part*.json --text
      the verdict, the counts and the counterexample as lines of text

exit codes: 0 verified, 1 refuted, 2 parts that do not belong together, 4 with --strict: verified vacuously,
5 a vacuous accuracy answer (--allow-vacuous: 0)
"""

# what every part of one run repeats; everything else is per part
_PER_PART = {"verdict", "vacuous", "seconds", "counterexample", "reports", "strict", "part", "distributions",
             "work", "_inputs", "_dd_max", *PRIVACY_SUMS, *ACCURACY_SUMS}


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = ("Join the JSON parts printed by `dipc accuracy|privacy ... --json --shard I/N` into the JSON "
                          "the unsharded run prints: the first counterexample in input order, the counts summed.")
    parser.epilog = EXAMPLE
    parser.add_argument("parts", nargs="+", metavar="PART", help="the JSON outputs of the N parts (any order)")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--text", action="store_true", help="print a short text summary instead of JSON")
    form.add_argument("--json", action="store_true",
                      help="print JSON (the default), errors included: one JSON object on stdout in every case")
    parser.add_argument("--strict", action="store_true",
                        help="exit 4 when the merged verdict is verified only vacuously")
    parser.add_argument("--allow-vacuous", action="store_true",
                        help=f"exit 0, not {EXIT_VACUOUS}, when the merged accuracy answer is vacuous (the claim applies "
                             "at no input), as for `dipc accuracy`")
    parser.set_defaults(func=run)


def run(args) -> int:
    if len(args.parts) > MAX_PARTS:
        raise UserError(f"{len(args.parts)} parts: at most {MAX_PARTS}", hint="merge fewer, larger parts")
    parts = [(path, _read_part(path)) for path in args.parts]
    merged = merge_parts(parts)
    why = check_against_claim(sorted(parts, key=lambda part: part[1]["part"]["index"]))
    if why is not None:
        print(f"note: the parts were checked against each other, not against the claim ({why})", file=sys.stderr)
    if args.text:
        print(merged_text(merged))
    else:
        print(json_text(merged))
    if merged["verdict"] != "verified":
        return 1
    if merged.get("vacuity") is not None:
        if args.text:
            for line in vacuity_lines(Vacuity(**merged["vacuity"]), args):
                print(line)
        if not args.allow_vacuous:
            return EXIT_VACUOUS
    strict = merged.get("strict") or {}
    return STRICT_EXIT if (args.strict or strict.get("requested")) and strict.get("reason") else 0


class _Refused(ValueError):
    """A JSON value a part never holds, refused while parsing."""


def _parse_int(text: str) -> int:
    if len(text) > MAX_DIGITS:
        raise _Refused(f"an integer of {len(text.lstrip('-'))} digits (a part holds none over {MAX_DIGITS})")
    return int(text)


def _parse_constant(name: str):
    raise _Refused(f"{name} is not a number a part holds")


def _read_part(path: str) -> dict:
    data = read_user_file(path, "part", hint="give the JSON files printed by --json --shard I/N")
    keep = "save the standard output of `dipc ... --json --shard I/N` unchanged"
    too_deep = f"the part nests JSON deeper than a part does (at most {MAX_DEPTH} levels)"
    try:
        out = json.loads(data.decode("utf-8"), parse_int=_parse_int, parse_constant=_parse_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"the part is not JSON: {getattr(exc, 'msg', exc)}", file=path,
                        line=getattr(exc, "lineno", None), column=getattr(exc, "colno", None), hint=keep) from None
    except _Refused as exc:
        raise UserError(f"the part is not a part of a run: {exc}", file=path, hint=keep) from None
    except (RecursionError, MemoryError):
        raise UserError(too_deep, file=path, hint=keep) from None
    except ValueError as exc:   # anything else the reader refuses (e.g. Python's own digit limit)
        raise UserError(f"the part is not JSON: {clip(str(exc), 80)}", file=path, hint=keep) from None
    if not isinstance(out, dict):
        raise UserError("the part is not a JSON object", file=path, hint="give the --json output of a --shard run")
    if _depth(out) > MAX_DEPTH:
        raise UserError(too_deep, file=path, hint=keep)
    if "error" in out and "verdict" not in out:
        error = out["error"] if isinstance(out["error"], dict) else {}
        raise UserError(f"this part ended with an error: {clip(str(error.get('message', '?')), 200)}",
                        file=path, hint="run that part again (the merged verdict needs every part)")
    if not isinstance(out.get("part"), dict):
        raise UserError("this JSON is not a part of a sharded run (no \"part\" record)", file=path,
                        hint="make the parts with --json --shard I/N")
    command = out["part"].get("command")
    if command not in PART:
        raise UserError(f"parts of `{clip(str(command), 40)}` cannot be merged", file=path,
                        hint="dipc merge joins accuracy and privacy parts")
    check_part(path, out)
    return out


def _depth(value) -> int:
    """How deep `value` nests lists and objects (iteratively: the value may be deep)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                return level
            todo.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


# --------------------------------------------------------------------------- what a part must be

def _bad(path: str, message: str, hint: str = "the part was changed or cut: run that part again") -> UserError:
    return UserError(f"this part is not what `dipc ... --shard` writes: {message}", file=path, hint=hint)


def check_part(path: str, out: dict) -> None:
    """The schema of a part (`parts.schema`), its range, and the counts its own content implies."""
    try:
        validate(out, PART[out["part"]["command"]])
    except SchemaError as err:
        raise _bad(path, str(err)) from None
    part = out["part"]
    index, of, items, total = part["index"], part["of"], part["items"], part["total_items"]
    if not 1 <= index <= of <= MAX_SHARDS:
        raise UserError(f"part index {index}/{of} is outside 1..N", file=path, hint="give the parts of one run")
    from dipc_plus.execution.executor import chunks
    expected = list(chunks(total, of)[index - 1]) if index <= total else [total, total]
    if items != expected:
        raise _bad(path, f"it covers items {items[0]}..{items[1]}, but part {index}/{of} of {total} items is "
                         f"{expected[0]}..{expected[1]}")
    (_check_accuracy_part if part["command"] == "accuracy" else _check_privacy_part)(path, out, items)


def _check_accuracy_part(path: str, out: dict, items: list) -> None:
    reports = out["reports"]
    inputs, dd_max = [], None
    for k, r in enumerate(reports):
        verdict = r["verdict"]
        if (verdict == "refuted") != ("counterexample" in r):
            raise _bad(path, f"report {k} says {verdict} " +
                       ("without a counterexample" if verdict == "refuted" else "beside a counterexample"))
        if (verdict == "not applicable") == ("beta" in r):
            raise _bad(path, f"report {k} says {verdict} " +
                       ("beside a bound beta" if verdict == "not applicable" else "without a bound beta"))
        if verdict == "refuted" and r["counterexample"]["input"] != r["input"]:
            raise _bad(path, f"report {k}'s counterexample is at another input than the report")
        dd = distance(r["dd"])
        dd_max = dd if dd_max is None else max(dd_max, dd)
        key = json.dumps(r["input"], sort_keys=True)
        if not inputs or inputs[-1] != key:
            inputs.append(key)
    tally = Counter(r["verdict"] for r in reports)
    recomputed = {"obligations": len(reports), "obligations_applicable": tally["verified"] + tally["refuted"],
                  "obligations_refuted": tally["refuted"], "inputs_checked": len(inputs)}
    for key, value in recomputed.items():
        if out[key] != value:
            raise _bad(path, f"\"{key}\" is {out[key]} but its reports make {value}")
    if len(set(inputs)) != len(inputs):
        raise _bad(path, "an input's reports are not together (an input repeated)")
    if len(inputs) != items[1] - items[0]:
        raise _bad(path, f"it covers items {items[0]}..{items[1]} ({items[1] - items[0]} inputs) but reports "
                         f"{len(inputs)} input(s)")
    verdict = "refuted" if tally["refuted"] else "verified"
    if out["verdict"] != verdict:
        raise _bad(path, f"its verdict is {out['verdict']} but its reports make it {verdict}")
    if out.get("counterexample") != next((r["counterexample"] for r in reports if "counterexample" in r), None):
        raise _bad(path, "its counterexample is not its first refuted report's")
    if out["vacuous"] != (verdict == "verified" and not recomputed["obligations_applicable"]):
        raise _bad(path, "\"vacuous\" does not match its reports")
    out["_inputs"], out["_dd_max"] = inputs, dd_max


def _check_privacy_part(path: str, out: dict, items: list) -> None:
    """The counts a privacy part implies by itself: an item is a pair, or a unit checked whole by the
    point filter (many pairs), so a verified part checked at least one pair per item; the exact
    number is checked against the claim (`_check_claim_pairs`)."""
    span, pairs = items[1] - items[0], out["pairs_checked"]
    refuted = out["verdict"] == "refuted"
    if refuted != (out.get("counterexample") is not None):
        raise _bad(path, f"its verdict is {out['verdict']} " +
                   ("without a counterexample" if refuted else "beside a counterexample"))
    if refuted and pairs == 0:
        raise _bad(path, "it says refuted without checking a pair")
    if not refuted and pairs < span:
        raise _bad(path, f"it checked {pairs} pairs of the {span} items it covers (items {items[0]}..{items[1]}) "
                         "and says verified")
    if out["decisions"] > out["obligations"]:
        raise _bad(path, f"it made {out['decisions']} decisions for {out['obligations']} obligations")


def check_against_claim(parts: list[tuple[str, dict]]) -> str | None:
    """The parts against their claim, when the claim and program files are here with the parts'
    SHA-256: an accuracy run's inputs, a privacy run's number of pairs.  Returns why it could not
    be checked (None: checked)."""
    from dipc_plus.execution.executor import file_digest
    path0, first = parts[0]
    files = first["part"]["files"]
    for name, digest in files.items():
        try:
            if file_digest(name) != digest:
                return f"{clip(name, 80)} here differs from the run's"
        except OSError:
            return f"{clip(name, 80)} is not here"
    args = first["part"]["options"]["args"]   # its types: `parts.schema.OPTIONS`
    if args[0] not in files:
        raise _bad(path0, "\"part.options\" does not name the claim of the run")
    params = {name: Fraction(value) for name, value in args[1]}
    if first["part"]["command"] == "accuracy":
        _check_claim_inputs(parts, args[0], params)
        recheck_accuracy_counterexamples(parts, args, params, first["part"]["options"]["kappa"])
    else:
        _check_claim_pairs(parts, args, params)
    return None


def _check_claim_pairs(parts: list[tuple[str, dict]], args: list, params: dict) -> None:
    """A privacy run's parts cover as many pairs as the claim has (the check rebuilt as a worker would), and
    their counterexamples re-check at their pairs."""
    from dipc_plus.privacy.dp.check import build_dp_work
    work = build_dp_work(args[0], tuple(params.items()), *args[2:])
    total = work.shard_range(None)[2]
    stated = parts[0][1]["part"]["total_items"]
    if stated != total:
        raise _bad(parts[0][0], f"the parts cover {stated} pairs but the claim has {total}",
                   hint="every part must be made from this claim, unchanged")
    from dipc_plus.privacy.dp.point_filter import filter_pairs
    items = work.items()
    for path, out in parts:
        a, b = out["part"]["items"]
        # an item is one pair, or a unit the point filter checks whole (eps = ln r on a grid)
        held = sum(1 if i is not None else filter_pairs(work.plan.units[k]) for k, i in items[a:b])
        pairs = out["pairs_checked"]
        if pairs > held or (pairs != held and out["verdict"] == "verified"):
            raise _bad(path, f"it checked {pairs} pairs of the {held} its items {a}..{b} hold and says "
                             f"{out['verdict']}", hint="every part must be made from this claim, unchanged")
    recheck_privacy_counterexamples(parts, work)


def _check_claim_inputs(parts: list[tuple[str, dict]], claim_path: str, params: dict) -> None:
    """An accuracy run's reported inputs against the claim (see the module docstring)."""
    path0, first = parts[0]
    from dipc_plus.accuracy.checker import accuracy_table
    from dipc_plus.accuracy.report import env_json
    from dipc_plus.claims.claim_file import load_claim, to_user_value
    from dipc_plus.claims.scope import inputs_scope
    from dipc_plus.semantics.inputs import bind_inputs
    claim = load_claim(claim_path, params)
    acc = accuracy_table(claim)   # the refusal every accuracy entry point gives, naming the claim file
    program = acc.program
    stated = first.get("scope")
    # the scope the parts state must be the scope of the inputs they report (with --input, a list)
    flats, last = [], None
    for path, out in parts:
        for r in out["reports"]:
            key = json.dumps(r["input"], sort_keys=True)
            if key == last:
                continue
            last = key
            try:
                flats.append(bind_inputs(program, {k: to_user_value(v) for k, v in r["input"].items()}))
            except UserError as err:
                raise _bad(path, f"a report's input is not an input of the program: {err.message}") from None
    eps = str(acc.eps)
    if not any(inputs_scope(program, points=flats, kind=kind, eps=eps).to_json() == stated
               for kind in ("grid", "list")):
        raise _bad(path0, "the parts' \"scope\" is not the scope of the inputs they report",
                   hint="every part must be made from this claim, unchanged")
    if stated != inputs_scope(program, points=list(acc.points), kind="grid" if acc.inputs_kind == "grid" else "list",
                              eps=eps).to_json():
        return None   # a run on other inputs than the claim's (--input): its scope says which
    expected = [json.dumps(env_json(program, u), sort_keys=True) for u in acc.points]
    total = first["part"]["total_items"]
    if len(expected) != total:
        raise _bad(path0, f"the parts cover {total} inputs but the claim has {len(expected)}",
                   hint="every part must be made from this claim, unchanged")
    for path, out in parts:
        a, b = out["part"]["items"]
        if out["_inputs"] != expected[a:b]:
            raise _bad(path, f"its reports are not the claim's inputs {a}..{b}",
                       hint="every part must be made from this claim, unchanged")
    return None


def merge_parts(parts: list[tuple[str, dict]]) -> dict:
    """The unsharded run's JSON from its parts (see the module docstring); a UserError names the part
    that does not belong."""
    first_path, first = parts[0]
    head = first["part"]
    n = head["of"]
    by_index: dict = {}
    for path, out in parts:
        p = out["part"]
        for key in ("command", "of", "files", "options", "total_items"):
            if p.get(key) != head.get(key):
                raise UserError(f"this part belongs to another run than {clip(first_path, 80)}: its "
                                f"\"{key}\" differs", file=path,
                                hint="merge only the parts of one run (same claim, files, options and N)")
        differs = sorted(key for key in set(out) ^ set(first) | {k for k in out if out[k] != first.get(k, out)}
                         if key not in _PER_PART)
        if differs:
            raise UserError(f"this part's \"{differs[0]}\" differs from {clip(first_path, 80)}'s", file=path,
                            hint="merge only the parts of one run")
        i = p["index"]
        if i in by_index:
            raise UserError(f"part {i}/{n} is given twice (also {clip(by_index[i][0], 80)})", file=path,
                            hint="give each part once")
        by_index[i] = (path, out)
    missing = [i for i in range(1, n + 1) if i not in by_index]
    if missing:
        shown = ", ".join(f"{i}/{n}" for i in missing[:10]) + (" ..." if len(missing) > 10 else "")
        raise UserError(f"{len(missing)} part(s) missing: {shown}",
                        hint="every part is needed: a verdict about fewer inputs is not the claim's verdict")
    ordered = [by_index[i] for i in range(1, n + 1)]   # their items join: each is its chunk (check_part)
    if head["command"] == "accuracy":
        seen: dict = {}
        for path, out in ordered:
            for key in out.get("_inputs", ()):
                if key in seen:
                    raise _bad(path, f"it reports an input that {clip(seen[key], 80)} reports too")
                seen[key] = path
        return _merge_accuracy([out for _, out in ordered])
    return _merge_privacy([out for _, out in ordered])


# "work" (accuracy.classes: how points shared their work) is bookkeeping like the timings: a
# sharded run's parts and an unsharded run decide the same things with different sharing
TIMING_KEYS = ("seconds", "class_check_ms", "work")


def without_timing(value):
    """JSON minus its timing fields: what a merged run (or any executor) must reproduce exactly."""
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def _rebuild(template: dict, values: dict, counterexample, before: str) -> dict:
    """`template`'s keys in order with `values` put in, "part" dropped, and "counterexample" (if any)
    placed before the key `before`, as the unsharded command orders them."""
    out = {}
    for key, value in template.items():
        if key in ("part", "counterexample", "_inputs", "_dd_max", "vacuity_basis"):
            continue
        if key == before and counterexample is not None:
            out["counterexample"] = counterexample
        out[key] = values.get(key, value)
    if counterexample is not None and "counterexample" not in out:
        out["counterexample"] = counterexample
    return out


def _strict(template: dict, verdict: str, vacuous: bool, reasons: list) -> dict:
    """The "strict" record of the merged run: the parts' request, the reason recomputed."""
    reason = None
    if verdict == "verified":
        reason = strict_reason_text["vacuous"] if vacuous else \
            next((r for r in reasons if r and r != strict_reason_text["vacuous"]), None)
    return {"requested": bool((template.get("strict") or {}).get("requested")), "reason": reason}


def _merge_accuracy(parts: list[dict]) -> dict:
    reports = [r for out in parts for r in out.get("reports", [])]
    failing = [r for r in reports if r.get("verdict") == "refuted"]
    verdict = "refuted" if failing else "verified"
    vacuous = verdict == "verified" and not any("beta" in r for r in reports)
    values = {key: sum(out[key] for out in parts) for key in ACCURACY_SUMS}
    values.update(verdict=verdict, vacuous=vacuous, reports=reports,
                  seconds=round(sum(out.get("seconds", 0) for out in parts), 3))
    if "strict" in parts[0]:
        values["strict"] = _strict(parts[0], verdict, vacuous, [])
    if vacuous:
        seen = [out["_dd_max"] for out in parts if out["_dd_max"] is not None]
        values["vacuity"] = vacuity_from(parts[0]["vacuity_basis"], values["inputs_checked"],
                                         max(seen) if seen else None).to_json()
    if isinstance(parts[0].get("work"), dict):   # what the parts did, added up (no part shares with another)
        work = dict(parts[0]["work"])
        for key in ("inputs", "distributions", "decisions"):
            if all(isinstance((out.get("work") or {}).get(key), int) for out in parts):
                work[key] = sum(out["work"][key] for out in parts)
        values["work"] = work
    cex = failing[0].get("counterexample") if failing else None
    return _rebuild(parts[0], values, cex, "reports")


def _merge_privacy(parts: list[dict]) -> dict:
    """Up to and including the first refuted part: the unsharded run stops at its first failure."""
    used = []
    for out in parts:
        used.append(out)
        if out["verdict"] == "refuted":
            break
    verdict = used[-1]["verdict"]
    values = {key: sum(out[key] for out in used) for key in PRIVACY_SUMS}
    tables: dict = {}
    for out in used:
        for unit, digests in (out["part"].get("tables") or {}).items():
            tables.setdefault(unit, set()).update(digests)
    values["distributions"] = sum(len(d) for d in tables.values())
    vacuous = verdict == "verified" and values["pairs_checked"] == 0
    values.update(verdict=verdict, vacuous=vacuous, seconds=round(sum(out.get("seconds", 0) for out in used), 3))
    if "strict" in parts[0]:
        values["strict"] = _strict(parts[0], verdict, vacuous, [(out.get("strict") or {}).get("reason")
                                                                for out in parts])
    return _rebuild(parts[0], values, used[-1].get("counterexample"), "strict")


def merged_text(merged: dict) -> str:
    lines = [f"{merged['verdict'].upper()}{' (vacuously)' if merged.get('vacuous') else ''}: "
             f"{merged.get('statement', '')}"]
    scope = merged.get("scope")
    if isinstance(scope, dict) and scope.get("summary"):
        lines.append(f"scope: {scope['summary']}")
    keys = dict.fromkeys((*ACCURACY_SUMS, *PRIVACY_SUMS, "distributions"))   # "obligations" is in both
    counts = [f"{k} = {merged[k]}" for k in keys if k in merged]
    lines.append(", ".join(counts) + f"; {merged.get('seconds', 0)} s over the parts")
    cex = merged.get("counterexample")
    if cex is not None:
        lines.append("counterexample: " + json.dumps(cex, sort_keys=True))
    return "\n".join(lines)
