"""A corner piece that is one point d on the corner path is proved by its sentence at v(d); when that
sentence fails and the per-point re-check finds no counterexample, the two computations disagree, and
the piece must not be counted as proved (box_bnb.decide_piece counted it as 'corner point sentence';
BoxDecider.along raises CertificationError in the same situation)."""
from __future__ import annotations

import pytest

import dipc_plus
from dipc_plus.accuracy import box_bnb
from dipc_plus.accuracy.box import BoxDecider, decide_box
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.decision.certified import CertificationError

BOX = str(dipc_plus.example("theories/numeric_sparse_box.toml"))


def test_a_failed_point_sentence_without_a_counterexample_is_an_internal_error(monkeypatch):
    real_d_range = box_bnb.d_range

    def one_point(*args):          # every cell meets the corner path in one point (its upper end)
        span = real_d_range(*args)
        return None if span is None else (span[2], True, span[2], True)

    monkeypatch.setattr(box_bnb, "d_range", one_point)
    monkeypatch.setattr(BoxDecider, "at_point", lambda self, det, u, alpha, gamma: False)
    monkeypatch.setattr(BoxDecider, "recheck", lambda self, u: None)
    with pytest.raises(CertificationError, match="fails its sentence but does not re-check"):
        decide_box(load_claim(BOX).accuracy)
