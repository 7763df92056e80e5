"""The every-length verdict reads the same in text and JSON (issue 42, surfaces round 3): the
text's verdict line opens with the JSON `verdict` in capitals - "NOT PRIVATE FOR ANY CONSTANT",
not "REFUTED for every constant" beside "not private for any constant"."""
from __future__ import annotations

import json

import pytest

from conftest import THEORIES, run_main

VERDICT_OPENINGS = ("VERIFIED", "REFUTED", "NOT PRIVATE FOR ANY CONSTANT", "UNDECIDED")


@pytest.mark.parametrize("claim, verdict", [
    ("gap_above_threshold_every_length.toml", "verified"),
    ("svt_lyu_alg4_privacy.toml", "refuted"),
    ("svt_lyu_alg5_privacy.toml", "not private for any constant"),
])
def test_text_verdict_line_opens_with_the_json_verdict(claim, verdict):
    code, out, _ = run_main(["privacy", THEORIES / claim, "--every-length", "--json"])
    assert code in (0, 1) and json.loads(out)["verdict"] == verdict
    code_text, text, _ = run_main(["privacy", THEORIES / claim, "--every-length"])
    assert code_text == code
    # the every-length verdict line comes before the counterexample's own report
    first = next(line for line in text.splitlines() if line.startswith(VERDICT_OPENINGS))
    assert first.startswith(verdict.upper())
