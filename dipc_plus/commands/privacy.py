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

import os

from dipc_plus.commands.common import (EXIT_UNDECIDED, add_privacy_arguments, add_strict_argument, certified_or_exit_2, executor_of,
                                       exit_status, load_privacy, part_json, print_json, run_options,
                                       pufferfish_source, strict_json, strict_line, worker_source)
from dipc_plus.errors import UserError
from dipc_plus.semantics.inputs import parse_params

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
    add_privacy_arguments(parser, execution=True)
    parser.add_argument("--json", action="store_true", help="print one JSON object (schema: docs/claims.md)")
    add_strict_argument(parser)
    parser.add_argument("--every-length", action="store_true",
                        help="decide the claim for every number of queries m (online programs; docs/every_length.md)")
    parser.set_defaults(func=run)


def run(args) -> int:
    options = run_options(args)
    shard = options.shard
    executor = executor_of(options)
    claim = load_privacy(args)
    every_length = args.every_length or claim.every_length
    if getattr(claim, "inputs_kind", "") == "box":
        return run_box(args, claim, options, every_length)
    if shard is not None and (every_length or claim.kind == "pufferfish"):
        raise UserError(f"--shard splits the pairs of a DP claim; {'--every-length' if every_length else 'a Pufferfish claim'}"
                        " is one decision that cannot be cut into parts", hint="leave out --shard")
    if every_length:
        return run_every_length(args, claim, executor, options)
    if getattr(claim, "every_output_value", False):
        return run_every_output_value(args, claim, options)
    structure = False if args.no_structure or options.reference else None
    progress = options.progress
    with certified_or_exit_2():
        if claim.kind == "pufferfish":
            from dipc_plus.privacy.pufferfish.check import check_pufferfish
            result = check_pufferfish(claim, executor=executor, source=pufferfish_source(args, claim),
                                      progress=progress)
        else:
            from dipc_plus.privacy.dp.check import build_dp_work, check_dp
            source = worker_source(build_dp_work, (os.path.abspath(claim.file), tuple(parse_params(args.set).items()),
                                                   structure, args.max_states), claim.file, claim.program.source)
            result = check_dp(claim, structure=structure, max_states=args.max_states, executor=executor,
                              source=source, shard=shard, progress=progress, options=options)
    if args.json:
        out = {**result.to_json(), **options.mode_json()}
        out["strict"] = strict_json(result, args)
        if shard is not None:
            a, b, total = result.part
            out["part"] = part_json("privacy", shard, source, {"args": list(source.args)}, (a, b), total)
            out["part"]["tables"] = table_digests(result.tables_used)
        print_json(out, claim.program)
    else:
        print(result.report())
        if strict_line(result, args):
            print(strict_line(result, args))
    return exit_status(result, args)



def run_box(args, claim, options, every_length: bool) -> int:
    """A box claim (every pair of real inputs of a box): decided by `privacy.dp.box`.
    Exit 0 verified, 1 refuted, 6 undecided (what is missing is printed)."""
    from dipc_plus.privacy.dp.box import decide_box_privacy
    if options.shard is not None or every_length:
        raise UserError(f"{'--shard' if options.shard is not None else '--every-length'} does not apply to a box claim: "
                        "it is decided as a whole, at its own m", file=claim.file,
                        hint="leave it out, or give the claim a grid")
    with certified_or_exit_2():
        result = decide_box_privacy(claim, max_states=args.max_states, options=options,
                                    progress=not args.no_progress and not args.json)
    code = {"verified": 0, "refuted": 1}.get(result.verdict, EXIT_UNDECIDED)
    if args.json:
        out = {**result.to_json(), **options.mode_json()}
        out["exit"] = code
        print_json(out, claim.program)
    else:
        print(result.report())
    return code


def run_every_output_value(args, claim, options) -> int:
    """Real outputs without named events: decided on their densities (privacy.dp.real_output_check)."""
    from dipc_plus.privacy.dp.real_output_check import check_real_outputs
    with certified_or_exit_2():
        result = check_real_outputs(claim, options)
    if args.json:
        out = {**result.to_json(), **options.mode_json()}
        out["exit"] = {"verified": 0, "refuted": 1}.get(result.verdict, 2)
        print_json(out, claim.program)
    else:
        print(result.report())
    return {"verified": 0, "refuted": 1}.get(result.verdict, 2)


def table_digests(used: dict) -> dict:
    """{unit: sorted short digests of the output tables a part used}: `dipc merge` counts their
    union as "distributions", as the unsharded run counts each table once."""
    import hashlib
    return {str(k): sorted(hashlib.sha256(repr(key).encode()).hexdigest()[:20] for key in keys)
            for k, keys in sorted(used.items())}


def run_every_length(args, claim, executor, options) -> int:
    """`--every-length` / `length = "every"`: the verdict for every m (issue 11); the exact checks
    at each m run on `executor`."""
    from dipc_plus.privacy.online.every_length import decide_every_length
    with certified_or_exit_2():
        res = decide_every_length(claim, claim.file, parse_params(args.set) or {}, executor=executor)
    if args.json:
        out = {**res.to_json(), **options.mode_json()}
        if res.counterexample is not None:
            out["counterexample"] = res.counterexample[1].to_json()
        print_json(out, claim.program)
    else:
        print(res.report())
        if res.counterexample is not None:
            print(res.counterexample[1].report())
    return {"verified": 0, "undecided": 2}.get(res.verdict, 1)
