"""`dipc privacy`: decide a differential-privacy (or Pufferfish) claim for every eps at once.

    dipc privacy programs/rr_clients.dip theories/rr_clients_privacy.toml
    dipc privacy programs/svt_lyu_alg4.dip theories/svt_lyu_alg4_privacy.toml --json

Exit code 0: the claim holds for every adjacent pair, output (or set of outputs,
when delta != 0) and eps of the claim, on the claim's inputs (its scope, printed);
1: refuted, with a counterexample (u, u', v or S, eps) whose probabilities were
re-checked by an independent evaluation; 2: a usage or input error, or a result that
could not be certified; 4 (only with --strict): verified, but vacuously (no pair of
neighbouring inputs) or only on named events of real outputs.
"""
from __future__ import annotations

from dipc_plus.commands.common import (EXIT_UNDECIDED, add_privacy_arguments, add_strict_argument, certified_or_exit_2,
                                       executor_of, exit_status, load_privacy, part_json, print_json,
                                       print_verdict_tail, run_options, strict_json, verdict_exit)

EXAMPLE = """\
examples:
  dipc privacy programs/rr_clients.dip theories/rr_clients_privacy.toml --set n=20
      randomized response for 20 clients: independent components, seconds
  dipc privacy programs/svt_lyu_alg4.dip theories/svt_lyu_alg4_privacy.toml
      refuted: a pair of neighbouring inputs, an output and the simplest rational eps
  dipc privacy programs/truncated_geometric_count.dip theories/truncated_geometric_count_pufferfish.toml
      a Pufferfish claim (secrets, discriminative pairs, scenarios with a symbolic p)
  dipc privacy PROGRAM CLAIM --json
      one JSON object: "verdict", "scope", and for a refutation "counterexample" (schema: docs/claims.md)
  dipc privacy programs/laplace.dip theories/laplace_privacy.toml --strict
      exit 4: verified only on the named events of the real output
  dipc privacy theories/svt_lyu_alg1_privacy_box.toml
      a box claim: every pair of real inputs of [-1, 1]^3 (coupling bound, docs/claims.md)

exit codes: 0 verified (on the printed scope), 1 refuted, 2 usage/input error or not certified,
4 with --strict: verified vacuously or only on named events, 6 a box claim undecided
"""


def register(parser) -> None:
    """Fill in the parser cli.py made from this command's entry in COMMANDS."""
    parser.description = ("Decide the [privacy] claim of a claim file (theories/*.toml) exactly: every adjacent pair "
                          "of inputs, every output and every eps of the claim's interval.")
    parser.epilog = EXAMPLE
    add_privacy_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object (schema: docs/claims.md)")
    add_strict_argument(parser)
    parser.add_argument("--every-length", action="store_true",
                        help="decide the claim for every number of queries m (online programs; docs/every_length.md)")
    parser.set_defaults(func=run)


def run(args) -> int:
    """The claim through `privacy.decide.decide_privacy`; printed, and its exit status by route."""
    from dipc_plus.privacy.decide import decide_privacy
    options = run_options(args)
    executor = executor_of(options)
    claim, params = load_privacy(args)
    with certified_or_exit_2():
        outcome = decide_privacy(claim, options, params, every_length=args.every_length,
                                 structure=False if args.no_structure else None, executor=executor)
    result = outcome.part
    code = exit_code(outcome, args)
    if args.json:
        out = outcome.to_json(options.mode_json())
        if outcome.route in ("box", "every value"):
            out["exit"] = code
        elif outcome.strict_applies:
            out["strict"] = strict_json(result, args)
        if options.shard is not None:
            out["part"] = part_json("privacy", options.shard, outcome.source, result.part[2])
            out["part"]["tables"] = table_digests(result.tables_used)
        print_json(out, claim.program)
    else:
        print(outcome.report())
        if outcome.strict_applies:
            print_verdict_tail(result, args)
    return code


OPEN_EXIT = {"box": EXIT_UNDECIDED, "every value": 2, "every length": 2}   # a verdict left open, by route


def exit_code(outcome, args) -> int:
    """0 verified; 1 refuted; a box undecided 6, a real-output or every-length verdict left open 2;
    with --strict, 4 for a vacuous or events-only verdict of a grid or Pufferfish claim."""
    if outcome.strict_applies:
        return exit_status(outcome.part, args)
    return verdict_exit(outcome.verdict, open_exit=OPEN_EXIT[outcome.route])


def table_digests(used: dict) -> dict:
    """{unit: sorted short digests of the output tables a part used}: `dipc merge` counts their
    union as "distributions", as the unsharded run counts each table once."""
    import hashlib
    return {str(k): sorted(hashlib.sha256(repr(key).encode()).hexdigest()[:20] for key in keys)
            for k, keys in sorted(used.items())}
