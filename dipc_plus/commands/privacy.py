"""`dipc privacy`: decide a differential-privacy (or Pufferfish) claim for every eps at once.

    dipc privacy programs/rr_clients.dip theories/rr_clients_privacy.toml
    dipc privacy programs/svt_lyu_alg4.dip theories/svt_lyu_alg4_privacy.toml --json

Exit code 0: the claim holds for every adjacent pair, output and eps of the claim;
1: refuted, with a counterexample (u, u', v, eps) whose probabilities were
re-checked by an independent evaluation; 2: a usage or input error.
"""
from __future__ import annotations

import argparse

from dipc_plus.commands.common import add_privacy_arguments, load_privacy, print_json

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
    add_privacy_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object (schema: docs/claims.md)")
    parser.set_defaults(func=run)


def run(args) -> int:
    claim = load_privacy(args)
    structure = False if args.no_structure else None
    if claim.kind == "pufferfish":
        from dipc_plus.privacy.pufferfish import check_pufferfish
        result = check_pufferfish(claim)
    else:
        from dipc_plus.privacy.dp import check_dp
        result = check_dp(claim, structure=structure, max_states=args.max_states)
    if args.json:
        print_json(result.to_json(), claim.program)
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
