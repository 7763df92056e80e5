"""`dipc privacy`: decide a differential-privacy (or Pufferfish) claim for every eps at once.

    dipc privacy programs/rr_clients.dip theories/rr_clients_privacy.toml
    dipc privacy programs/svt_lyu_alg4.dip theories/svt_lyu_alg4_privacy.toml --json

Exit code 0: the claim holds for every adjacent pair, output and eps of the claim;
1: refuted, with a counterexample (u, u', v, eps) whose probabilities were
re-checked by an independent evaluation; 2: a usage or input error.
"""
from __future__ import annotations

import argparse
import json
import os

from dipc_plus.semantics import inputs as inputs_mod
from dipc_plus.semantics.dtmc import DEFAULT_MAX_STATES
from dipc_plus.errors import UserError

EXAMPLE = """\
examples:
  dipc privacy programs/rr_clients.dip theories/rr_clients_privacy.toml --set n=20
      randomized response for 20 clients: independent components, seconds
  dipc privacy programs/svt_lyu_alg4.dip theories/svt_lyu_alg4_privacy.toml
      refuted: a pair of neighbouring inputs, an output and the simplest rational eps
  dipc privacy programs/truncated_geometric_count.dip theories/truncated_geometric_count_pufferfish.toml
      a Pufferfish claim (secrets, discriminative pairs, scenarios with a symbolic p)
  dipc privacy PROGRAM CLAIM --json
      one JSON object: "verdict", and for a refutation "counterexample" (schema: docs/claims.md)
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "privacy",
        help="decide a differential-privacy or Pufferfish claim for every eps: verified or a counterexample",
        description="Decide the [privacy] claim of a claim file (theories/*.toml) exactly: every adjacent pair "
                    "of inputs, every output and every eps of the claim's interval.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_claim_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object (schema: docs/claims.md)")
    parser.add_argument("--every-length", action="store_true",
                        help="decide the claim for every number of queries m (online programs; docs/every_length.md)")
    parser.set_defaults(func=run)


def add_claim_arguments(parser) -> None:
    parser.add_argument("program", metavar="PROGRAM", help="the .dip program (must be the claim's program)")
    parser.add_argument("claim", metavar="CLAIM", help="a claim file with a [privacy] table")
    parser.add_argument("--set", action="append", metavar="NAME=VALUE",
                        help="override a parameter of the program and claim, e.g. --set n=12")
    parser.add_argument("--no-structure", action="store_true",
                        help="one Markov chain per input: no independent components, kernel chains or symmetry "
                             "(for measurements)")
    parser.add_argument("--max-states", type=int, default=DEFAULT_MAX_STATES, metavar="N",
                        help=f"refuse Markov chains with more than N states (default {DEFAULT_MAX_STATES})")


def load(args):
    """The privacy claim named on the command line (a DPClaim or PufferfishClaim)."""
    from dipc_plus.privacy.claim import load_privacy_claim
    if args.max_states <= 0:
        raise UserError("--max-states must be positive", hint="use e.g. --max-states 200000")
    params = inputs_mod.parse_params(args.set)
    if not os.path.exists(args.program):
        raise UserError(f"cannot read the program: no file {args.program}", hint="give the path of a .dip file")
    if not os.path.exists(args.claim):
        raise UserError(f"cannot read the claim file: no file {args.claim}",
                        hint="claims live in theories/*_privacy.toml")
    claim = load_privacy_claim(args.claim, params)
    program_path = claim.program.source
    if not os.path.exists(program_path) or not os.path.samefile(args.program, program_path):
        raise UserError(f"the claim is about {os.path.relpath(program_path)}, not {args.program}",
                        file=args.claim,
                        hint=f"run it with PROGRAM = {os.path.relpath(program_path)}, or copy the claim and change "
                             f"its [program] path")
    return claim


def run(args) -> int:
    claim = load(args)
    from dipc_plus.privacy.every_length import wants_every_length
    if getattr(args, "every_length", False) or wants_every_length(args.claim):
        return run_every_length(args, claim)
    structure = False if args.no_structure else None
    if claim.kind == "pufferfish":
        from dipc_plus.privacy.pufferfish import check_pufferfish
        result = check_pufferfish(claim)
    else:
        from dipc_plus.privacy.dp import check_dp
        result = check_dp(claim, structure=structure, max_states=args.max_states)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(result.report() if hasattr(result, "report") else text_report(result))
    return 0 if result.verdict == "verified" else 1


def text_report(result) -> str:
    from dipc_plus.privacy.dp import _num_text, show_env, show_outputs
    from dipc_plus.privacy.claim import constant_value
    claim = result.claim
    program = claim.program
    lines = [f"claim:  {claim.describe()}"]
    if claim.note:
        lines.append(f"note:   {claim.note}")
    for note in result.plan.notes:
        lines.append(f"structure: {note}")
    lines.append(f"checked {result.pairs} pair(s) of neighbouring inputs (up to symmetry), "
                 f"{result.obligations} (pair, output) obligation(s), {result.decisions} decided by the "
                 f"certified procedure; {result.evaluations} distribution(s); {result.seconds:.2f} s")
    if result.verified:
        lines.append(f"VERIFIED: P[P(u)=v] <= e^({claim.budget}) P[P(u')=v]"
                     f"{'' if claim.delta_is_zero else ' + ' + claim.delta_text} for every neighbouring pair, "
                     f"every output and {claim.eps if claim.eps.is_log_point else 'every eps in ' + str(claim.eps)}")
        if claim.events:
            lines.append("        (real outputs: for the named output events)")
        return "\n".join(lines)
    cex = result.counterexample
    lines.append("REFUTED (re-checked by an independent evaluation):")
    if cex.component:
        lines.append(f"  found in {cex.component}; the other components' outputs are completed with their "
                     "most likely values")
    lines.append(f"  input      {show_env(cex.input, program)}")
    lines.append(f"  neighbour  {show_env(cex.neighbour, program)}")
    lines.append(f"  output     {show_outputs(cex.output, program)}")
    eps_note = ""
    if all(constant_value(x) is not None for x in (cex.p, cex.q)) and claim.budget.k == 0:
        eps_note = "  (the probabilities do not depend on eps: the claim fails for every eps)"
    lines.append(f"  eps        {cex.eps_text()}{eps_note}")
    lines.append(f"  P[P(input) = output]     = {cex.p}")
    lines.append(f"                           = {_num_text(cex.p_at)}")
    lines.append(f"  P[P(neighbour) = output] = {cex.q}")
    lines.append(f"                           = {_num_text(cex.q_at)}")
    bound = f"e^({claim.budget}) * P[P(neighbour) = output]" + ("" if claim.delta_is_zero else " + delta")
    lines.append(f"  {bound} = {_num_text(cex.bound_at)}  <  P[P(input) = output]")
    lines.append(f"  ratio      {_num_text(cex.ratio_at)}")
    return "\n".join(lines)


def run_every_length(args, claim) -> int:
    """`--every-length` / `length = "every"`: the verdict for every m (issue 11)."""
    from dipc_plus.privacy.every_length import decide_every_length
    res = decide_every_length(claim, args.claim, inputs_mod.parse_params(args.set) or {})
    if args.json:
        out = res.to_json()
        if res.counterexample is not None:
            out["counterexample"] = res.counterexample[1].to_json()
        print(json.dumps(out, indent=2))
    else:
        print(res.report())
        if res.counterexample is not None:
            print(text_report(res.counterexample[1]))
    return 0 if res.verdict == "verified" else 1
