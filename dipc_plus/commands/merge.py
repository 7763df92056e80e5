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
the claim's inputs in order (a privacy run: its pairs), and the merged counterexample is
re-checked exactly, once (`commands.parts.claim`).  A part that fails any of this is
exit 2 naming the part and the field, never a verdict.
"""
from __future__ import annotations

import json
import sys

from dipc_plus.accuracy.vacuity import Vacuity, vacuity_from
from dipc_plus.commands.common import EXIT_VACUOUS, json_text, strict_reason_text, vacuity_lines, verdict_exit
from dipc_plus.commands.parts.claim import check_against_claim
from dipc_plus.commands.parts.schema import (ACCURACY_SUMS, PART, PRIVACY_SUMS, accuracy_summary, check_part, distance,
                                             input_keys, part_error, run_fields_differing)
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
    ordered = join_parts(parts)
    merged = merge_parts(ordered)
    why = check_against_claim(ordered, merged)
    if why is not None:
        print(f"note: the parts were checked against each other, not against the claim ({why})", file=sys.stderr)
    if args.text:
        print(merged_text(merged))
    else:
        print(json_text(merged))
    vacuous = merged["verdict"] == "verified" and merged.get("vacuity") is not None
    if vacuous and args.text:
        for line in vacuity_lines(Vacuity(**merged["vacuity"]), args):
            print(line)
    strict = merged.get("strict") or {}
    return verdict_exit(merged["verdict"], vacuous=vacuous, allow_vacuous=args.allow_vacuous,
                        strict_failure=(args.strict or strict.get("requested")) and strict.get("reason"))


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


# --------------------------------------------------------------------------- the parts together

def join_parts(parts: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The parts of one run in index order, each once and none missing (a UserError names the part that
    does not belong); their items then join into the run's (each is its chunk: `check_part`)."""
    first_path, first = parts[0]
    n = first["part"]["of"]
    by_index: dict = {}
    for path, out in parts:
        differs = run_fields_differing(out, first)
        if differs:
            raise UserError(f"this part belongs to another run than {clip(first_path, 80)}: its \"{differs[0]}\" "
                            "differs", file=path, hint="merge only the parts of one run (same claim, files, options "
                                                       "and N)")
        i = out["part"]["index"]
        if i in by_index:
            raise UserError(f"part {i}/{n} is given twice (also {clip(by_index[i][0], 80)})", file=path,
                            hint="give each part once")
        by_index[i] = (path, out)
    missing = [i for i in range(1, n + 1) if i not in by_index]
    if missing:
        shown = ", ".join(f"{i}/{n}" for i in missing[:10]) + (" ..." if len(missing) > 10 else "")
        raise UserError(f"{len(missing)} part(s) missing: {shown}",
                        hint="every part is needed: a verdict about fewer inputs is not the claim's verdict")
    ordered = [by_index[i] for i in range(1, n + 1)]
    seen: dict = {}
    for path, out in ordered:
        for key in input_keys(out.get("reports", [])):
            if key in seen:
                raise part_error(path, f"it reports an input that {clip(seen[key], 80)} reports too")
            seen[key] = path
    return ordered


# --------------------------------------------------------------------------- the merged run

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


def merge_parts(ordered: list[tuple[str, dict]]) -> dict:
    """The unsharded run's JSON from its joined parts: the first part's fields in its order, "part"
    dropped, the per-part fields (`parts.schema.PER_PART`) made from the parts the unsharded run would have run
    (a privacy run stops at its first failure), "counterexample" where the unsharded command puts it."""
    parts = [out for _, out in ordered]
    accuracy = parts[0]["part"]["command"] == "accuracy"
    refuted = next((k for k, out in enumerate(parts) if out["verdict"] == "refuted"), len(parts))
    used = parts if accuracy else parts[:refuted + 1]
    values = _merge_accuracy(parts) if accuracy else _merge_privacy(used)
    values["seconds"] = round(sum(out.get("seconds", 0) for out in used), 3)
    if "strict" in parts[0]:   # the parts' request, the reason recomputed
        reasons = [] if accuracy else [(out.get("strict") or {}).get("reason") for out in parts]
        vacuous_reason = strict_reason_text["vacuous"]
        reason = None if values["verdict"] != "verified" else vacuous_reason if values["vacuous"] else \
            next((r for r in reasons if r and r != vacuous_reason), None)
        values["strict"] = {"requested": bool((parts[0].get("strict") or {}).get("requested")), "reason": reason}
    cex, before = values.pop("counterexample", None), "reports" if accuracy else "strict"
    out = {}
    for key, value in parts[0].items():
        if key in ("part", "counterexample", "vacuity_basis"):
            continue
        if key == before and cex is not None:
            out["counterexample"] = cex
        out[key] = values.get(key, value)
    if cex is not None and "counterexample" not in out:
        out["counterexample"] = cex
    return out


def _merge_accuracy(parts: list[dict]) -> dict:
    """What the joined reports make (`accuracy_summary`), the vacuity recomputed, the work added up."""
    reports = [r for out in parts for r in out["reports"]]
    values = {**accuracy_summary(reports), "reports": reports}
    if values["vacuous"]:
        dd_max = max((distance(r["dd"]) for r in reports), default=None)
        values["vacuity"] = vacuity_from(parts[0]["vacuity_basis"], values["inputs_checked"], dd_max).to_json()
    if isinstance(parts[0].get("work"), dict):   # what the parts did, added up (no part shares with another)
        work = dict(parts[0]["work"])
        for key in ("inputs", "distributions", "decisions"):
            if all(isinstance((out.get("work") or {}).get(key), int) for out in parts):
                work[key] = sum(out["work"][key] for out in parts)
        values["work"] = work
    return values


def _merge_privacy(used: list[dict]) -> dict:
    """The sums and the tables' distributions of the parts the unsharded run would have run."""
    values = {key: sum(out[key] for out in used) for key in PRIVACY_SUMS}
    tables: dict = {}
    for out in used:
        for unit, digests in (out["part"].get("tables") or {}).items():
            tables.setdefault(unit, set()).update(digests)
    values["distributions"] = sum(len(d) for d in tables.values())
    verdict = used[-1]["verdict"]
    values.update(verdict=verdict, vacuous=verdict == "verified" and values["pairs_checked"] == 0,
                  counterexample=used[-1].get("counterexample"))
    return values


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
