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

Exit codes as the command that made the parts: 0 verified, 1 refuted, 4 with
--strict (or parts made with --strict) for a vacuous verdict; 2 for parts that
cannot be merged.
"""
from __future__ import annotations

import json

from dipc_plus.commands.common import STRICT_EXIT, json_text, strict_reason_text
from dipc_plus.errors import UserError
from dipc_plus.execution.files import read_user_file
from dipc_plus.execution.limits import clip

MAX_PARTS = 100_000

EXAMPLE = """\
examples:
  for i in 1 2 3 4; do dipc accuracy theories/sparse.toml --set m=6 --json --shard $i/4 > part$i.json; done
  dipc merge part1.json part2.json part3.json part4.json
      the JSON of the unsharded run (exit 0 verified, 1 refuted)
  dipc merge part*.json --text
      the verdict, the counts and the counterexample as lines of text

exit codes: 0 verified, 1 refuted, 2 parts that do not belong together, 4 with --strict: verified vacuously
"""

# what every part of one run repeats; everything else is per part
_PRIVACY_SUMS = ("pairs_checked", "obligations", "decisions")
_ACCURACY_SUMS = ("inputs_checked", "obligations", "obligations_applicable", "obligations_refuted")
_PER_PART = {"verdict", "vacuous", "seconds", "counterexample", "reports", "strict", "part", "distributions",
             *_PRIVACY_SUMS, *_ACCURACY_SUMS}


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = ("Join the JSON parts printed by `dipc accuracy|privacy ... --json --shard I/N` into the JSON "
                          "the unsharded run prints: the first counterexample in input order, the counts summed.")
    parser.epilog = EXAMPLE
    parser.add_argument("parts", nargs="+", metavar="PART", help="the JSON outputs of the N parts (any order)")
    parser.add_argument("--text", action="store_true", help="print a short text summary instead of JSON")
    parser.add_argument("--strict", action="store_true",
                        help="exit 4 when the merged verdict is verified only vacuously")
    parser.set_defaults(func=run)


def run(args) -> int:
    if len(args.parts) > MAX_PARTS:
        raise UserError(f"{len(args.parts)} parts: at most {MAX_PARTS}", hint="merge fewer, larger parts")
    parts = [(path, _read_part(path)) for path in args.parts]
    merged = merge_parts(parts)
    if args.text:
        print(merged_text(merged))
    else:
        print(json_text(merged))
    if merged["verdict"] != "verified":
        return 1
    strict = merged.get("strict") or {}
    return STRICT_EXIT if (args.strict or strict.get("requested")) and strict.get("reason") else 0


def _read_part(path: str) -> dict:
    data = read_user_file(path, "part", hint="give the JSON files printed by --json --shard I/N")
    try:
        out = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line, col = (getattr(exc, "lineno", None), getattr(exc, "colno", None))
        raise UserError(f"the part is not JSON: {getattr(exc, 'msg', exc)}", file=path, line=line, column=col,
                        hint="save the standard output of `dipc ... --json --shard I/N` unchanged") from None
    if not isinstance(out, dict):
        raise UserError("the part is not a JSON object", file=path, hint="give the --json output of a --shard run")
    if "error" in out and "verdict" not in out:
        raise UserError(f"this part ended with an error: {clip(str(out['error'].get('message', '?')), 200)}",
                        file=path, hint="run that part again (the merged verdict needs every part)")
    part = out.get("part")
    if not isinstance(part, dict) or not {"command", "index", "of", "files", "options", "items",
                                          "total_items"} <= set(part):
        raise UserError("this JSON is not a part of a sharded run (no \"part\" record)", file=path,
                        hint="make the parts with --json --shard I/N")
    if out.get("verdict") not in ("verified", "refuted"):
        raise UserError("the part has no verdict", file=path, hint="give the --json output of a --shard run")
    return out


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
        for key, value in out.items():
            if key not in _PER_PART and first.get(key) != value:
                raise UserError(f"this part's \"{key}\" differs from {clip(first_path, 80)}'s", file=path,
                                hint="merge only the parts of one run")
        if set(out) - _PER_PART != set(first) - _PER_PART:
            raise UserError(f"this part's fields differ from {clip(first_path, 80)}'s", file=path,
                            hint="merge only the parts of one run")
        i = p["index"]
        if not isinstance(i, int) or not 1 <= i <= n:
            raise UserError(f"part index {i} is outside 1..{n}", file=path, hint="give the parts of one run")
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
    at = 0
    for path, out in ordered:
        a, b = out["part"]["items"]
        if a != at or b < a:
            raise UserError(f"part {out['part']['index']}/{n} covers items {a}..{b}, not from {at}", file=path,
                            hint="make every part with the same --shard N and the same claim")
        at = b
    if at != head["total_items"]:
        raise UserError(f"the parts cover {at} of {head['total_items']} items", hint="give every part of the run")
    if head["command"] == "accuracy":
        return _merge_accuracy([out for _, out in ordered])
    if head["command"] == "privacy":
        return _merge_privacy([out for _, out in ordered])
    raise UserError(f"parts of `{clip(str(head['command']), 40)}` cannot be merged", file=first_path,
                    hint="dipc merge joins accuracy and privacy parts")


TIMING_KEYS = ("seconds", "class_check_ms")


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
        if key in ("part", "counterexample"):
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
    values = {key: sum(out[key] for out in parts) for key in _ACCURACY_SUMS}
    values.update(verdict=verdict, vacuous=vacuous, reports=reports,
                  seconds=round(sum(out.get("seconds", 0) for out in parts), 3))
    if "strict" in parts[0]:
        values["strict"] = _strict(parts[0], verdict, vacuous, [])
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
    values = {key: sum(out[key] for out in used) for key in _PRIVACY_SUMS}
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
    counts = [f"{k} = {merged[k]}" for k in (*_ACCURACY_SUMS, *_PRIVACY_SUMS, "distributions") if k in merged]
    lines.append(", ".join(counts) + f"; {merged.get('seconds', 0)} s over the parts")
    cex = merged.get("counterexample")
    if cex is not None:
        lines.append("counterexample: " + json.dumps(cex, sort_keys=True))
    return "\n".join(lines)
