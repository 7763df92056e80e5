"""Behaviour-unchanged check for the notebook API: every face of every report on shipped claims.

    python experiments/api_identity.py --write /tmp/api_base.json --only laplace sparse ...   # start point
    python experiments/api_identity.py --compare /tmp/api_base.json --only laplace sparse ... # after

`experiments/json_identity.py` runs the `dipc` command, which never imports `dipc_plus.api`; this
script runs the API's checks (check_accuracy and sweep for an [accuracy] table, check_privacy and
privacy_loss for a [privacy] table) in this checkout and records what a user reads: repr, str,
the text with verbose=True, _repr_html_, to_json() (timing removed), summary, the verdict fields,
and the repr, str, HTML and fields of every counterexample, region and kappa* view.  An exception
is recorded as its type and message.  The checkout's folder is written "$ROOT".
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import dipc_plus  # noqa: E402
from dipc_plus.commands.merge import without_timing  # noqa: E402

REPORT_FACES = ("verdict", "verified", "vacuous", "strict_reason", "summary", "repr", "str", "verbose", "html",
                "json", "mode", "every_length", "best_kappa", "capped", "loss", "budget_holds",
                "undecided_share", "kappa_star_is_box_infimum", "kappa_star_note", "kappa")
VIEW_FACES = ("repr", "str", "html", "latex", "float", "json", "input", "neighbour", "output", "outputs",
              "output_set", "eps", "alpha", "gamma", "kappa", "error_probability", "bound", "probability",
              "neighbour_probability", "w", "event", "region", "det", "verdict", "method", "share", "reason",
              "box_infimum", "text", "lo", "hi", "exact", "infinite", "where")
SECONDS = re.compile(r"\d+(?:\.\d+)? ?m?s\b")      # timings in the text reports
VIEW_LISTS = ("counterexample", "kappa_star", "regions", "region_kappa_stars", "undecided_regions")


def face(obj, name: str):
    """One face of `obj` as JSON-able text; a missing attribute or a raised error is recorded too."""
    special = {"repr": repr, "str": str, "html": lambda o: o._repr_html_(), "latex": lambda o: o._repr_latex_(),
               "float": float, "summary": lambda o: o.summary(), "verbose": lambda o: o.text(verbose=True),
               "json": lambda o: without_timing(o.to_json())}
    try:
        value = special[name](obj) if name in special else getattr(obj, name)
    except Exception as exc:   # recorded: the same error before and after is identical behaviour
        return f"!{type(exc).__name__}: {exc}"
    value = value() if callable(value) and name in ("summary",) else value
    text = json.dumps(value, sort_keys=True, default=repr) if not isinstance(value, str) else value
    return SECONDS.sub("T s", text.replace(ROOT, "$ROOT"))


def faces(report) -> dict:
    """Every face of a report and of the views it holds."""
    out = {name: face(report, name) for name in REPORT_FACES}
    for attr in VIEW_LISTS:
        held = getattr(report, attr, None)
        views = held if isinstance(held, list) else [] if held is None else [held]
        out[attr] = [{name: face(v, name) for name in VIEW_FACES} for v in views]
        if held is not None and isinstance(held, list) and held and hasattr(held[0], "kappa_star"):
            out[attr + ".kappa_star"] = [{n: face(v.kappa_star, n) for n in VIEW_FACES} for v in held]
    return out


def run_claim(path: str) -> dict:
    """The API's checks of one claim file."""
    text = open(path, encoding="utf-8").read()
    tables = {line.strip() for line in text.splitlines() if line.startswith("[")}
    calls = []
    if "[accuracy]" in tables:
        calls += [("check_accuracy", dipc_plus.check_accuracy), ("sweep", dipc_plus.sweep),
                  ("check_accuracy kappa=8", lambda p: dipc_plus.check_accuracy(p, kappa=8))]   # a refuted grid
    if "[privacy]" in tables:
        calls += [("check_privacy", dipc_plus.check_privacy), ("privacy_loss", dipc_plus.privacy_loss)]
    out = {}
    for name, call in calls:
        try:
            out[name] = faces(call(path))
        except Exception as exc:
            out[name] = f"!{type(exc).__name__}: {exc}".replace(ROOT, "$ROOT")
        print(f"  {os.path.basename(path)} {name}", flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE")
    group.add_argument("--compare", metavar="FILE")
    parser.add_argument("--only", nargs="+", required=True, help="claim stems (theories/STEM.toml)")
    args = parser.parse_args()
    now = {stem: run_claim(os.path.join(ROOT, "theories", stem + ".toml")) for stem in args.only
           if glob.glob(os.path.join(ROOT, "theories", stem + ".toml"))}
    if args.write:
        with open(args.write, "w", encoding="utf-8") as handle:
            json.dump(now, handle, indent=1, sort_keys=True)
        return 0
    with open(args.compare, encoding="utf-8") as handle:
        base = json.load(handle)
    different = 0
    for stem in args.only:
        for call in sorted(set(base.get(stem, {})) | set(now.get(stem, {}))):
            a, b = base.get(stem, {}).get(call), now.get(stem, {}).get(call)
            same = a == b
            different += not same
            print(f"{stem:45s} {call:15s} {'identical' if same else 'DIFFERENT'}")
            if not same and isinstance(a, dict) and isinstance(b, dict):
                for key in sorted(set(a) | set(b)):
                    if a.get(key) != b.get(key):
                        print(f"    {key}: {str(a.get(key))[:300]!r}\n    now: {str(b.get(key))[:300]!r}")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
