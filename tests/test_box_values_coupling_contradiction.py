"""A box claim on every output value stops without a verdict when the coupling bound is below an
exact candidate of the loss: the cross-check on the box's integer points (`box.check_bound`) runs
`check_real_outputs`, which computes the same coupling bound for those points and raises
BoundContradiction itself (exit 3)."""
from fractions import Fraction as F

import pytest

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.privacy.dp import coupling
from dipc_plus.privacy.dp.box import decide_box_privacy
from dipc_plus.privacy.online.bound import Bound
from dipc_plus.privacy.online.every_length import BoundContradiction
from conftest import PROGRAMS, run_main


def test_a_wrong_coupling_bound_on_a_box_of_real_outputs_gives_no_verdict(tmp_path, monkeypatch):
    body = ('[program]\npath = "{}"\nparams = {{ m = 2 }}\n[privacy]\nadjacency = "linf"\nbudget = "eps"\n'
            '[privacy.inputs]\nbox = {{ q = [0, 1] }}\n').format((PROGRAMS / "gap_above_threshold.dip").as_posix())
    path = tmp_path / "gap2_box.toml"
    path.write_text(body)
    claim = load_privacy_claim(str(path))
    assert claim.every_output_value and coupling.coupling_for(claim).bound == F(1, 2)
    monkeypatch.setattr(coupling, "coupling_bound", lambda auto, m: Bound(F(1, 8), m, {}))
    with pytest.raises(BoundContradiction):
        decide_box_privacy(claim)
    code, out, _ = run_main(["privacy", str(path)])
    assert code == 3 and "VERIFIED" not in out and "REFUTED" not in out
