"""Every value of a real output without a finite output beside it (issue 38, item 5): a claim
without events on a program whose outputs are all real is decided on every output value, and the
verdicts keep their order against the same claim on named events."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from conftest import PROGRAMS, run_main
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.dp.box import REFUTED, VERIFIED, decide_box_privacy

EVENTS = 'events = { out = ["(-inf, 0]", "(0, 1]", "(1, inf)"] }\n'
CASES = [("laplace_histogram.dip", "m = 2, r = 1", "l1"), ("laplace_histogram.dip", "m = 2, r = 2", "l1"),
         ("partial_sums.dip", "m = 2", "one-position"), ("smart_sum.dip", "m = 2, b = 2", "one-position"),
         ("laplace.dip", "k = 2, sens = 1", "linf")]


def claim_file(tmp_path, program: str, params: str, adjacency: str, events: str, inputs: str) -> str:
    path = tmp_path / f"{program}.{len(events)}.{len(inputs)}.toml"
    box_name = "x" if program == "smart_sum.dip" else "q"
    path.write_text(f'[program]\npath = "{PROGRAMS}/{program}"\nparams = {{ {params} }}\n\n[privacy]\n'
                    f'adjacency = "{adjacency}"\nbound = 1\nbudget = "eps"\n{events}\n[privacy.inputs]\n'
                    + inputs.replace("NAME", box_name) + "\n")
    return str(path)


def test_a_claim_on_real_outputs_only_needs_no_events(tmp_path):
    path = claim_file(tmp_path, "laplace_histogram.dip", "m = 2, r = 1", "l1", "", "box = { NAME = [0, 2] }")
    claim = load_privacy_claim(path)
    assert claim.every_output_value and claim.events == {}
    grid = claim_file(tmp_path, "laplace_histogram.dip", "m = 2, r = 1", "l1", "", "grid = { NAME = [0, 1] }")
    code, out, _ = run_main(["privacy", grid])
    assert code == 0 and "sup over eps and output values of L(eps)/eps = 1" in out


@pytest.mark.parametrize("program, params, adjacency", CASES)
def test_every_value_verdict_implies_the_events_verdict(tmp_path, program, params, adjacency):
    box = "box = { NAME = [0, 2] }"
    every = decide_box_privacy(load_privacy_claim(claim_file(tmp_path, program, params, adjacency, "", box)))
    events = decide_box_privacy(load_privacy_claim(claim_file(tmp_path, program, params, adjacency, EVENTS, box)))
    assert every.every_value and not events.every_value
    if every.verdict == VERIFIED:
        assert events.verdict == VERIFIED
    if events.verdict == REFUTED:
        assert every.verdict == REFUTED
    assert every.verdict in (VERIFIED, REFUTED)       # each of these is decided, not left undecided
    expected = REFUTED if "r = 2" in params or "sens = 1" in params else VERIFIED   # loss 2*eps
    assert every.verdict == expected
