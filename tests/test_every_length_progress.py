"""An every-length run names the check it is doing (issue 37's stop 43 note: it printed nothing
until it ended): each exact check, exact loss and family check notes its m in the ledger's
"working on" line (a run stopped by --timeout names it), in the order the decision runs them."""
from __future__ import annotations

from conftest import THEORIES

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.execution import ledger
from dipc_plus.privacy.online.every_length import decide_every_length


def noted_checks(monkeypatch, theory: str, **kw) -> tuple:
    noted = []
    monkeypatch.setattr(ledger, "working_on", lambda scope, item: noted.append((scope, item)))
    path = str(THEORIES / theory)
    res = decide_every_length(load_privacy_claim(path), path, {}, progress=True, **kw)
    assert all(scope == "length" for scope, _ in noted)
    return res, [item for _, item in noted]


def test_a_verified_bound_notes_its_cross_checks(monkeypatch):
    # the bound d is a proof only after the exact losses at m = 1, 2, 3 agree with it
    res, items = noted_checks(monkeypatch, "svt_assign_every_length.toml")
    assert res.verdict == "verified"
    assert items == ["exact loss at m = 1", "exact loss at m = 2", "exact loss at m = 3"]


def test_no_constant_notes_losses_then_the_checks_that_refute(monkeypatch):
    res, items = noted_checks(monkeypatch, "online_noisy_max_every_length.toml", lengths=(1, 2), longer=(),
                              family_limit=3, search_work=10 ** 18)
    assert res.verdict == "not private for any constant"
    assert res.counterexample[0] == 3
    assert items == ["exact loss at m = 1", "exact loss at m = 2", "pattern's inputs at m = 3"]
