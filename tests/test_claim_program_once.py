"""A claim file's program is read and parsed once, and lowered once with the claim's parameters."""
import pytest

from dipc_plus.claims import claim_file
from dipc_plus.errors import UserError
from dipc_plus.frontend import load


def _count(monkeypatch, name):
    calls = []
    real = getattr(load, name)

    def counted(*a, **k):
        calls.append(a)
        return real(*a, **k)
    monkeypatch.setattr(load, name, counted)
    return calls


def test_sparse_claim_parses_and_lowers_its_program_once(monkeypatch):
    parsed = _count(monkeypatch, "parse_module")
    lowered = _count(monkeypatch, "lower_module")
    claim = claim_file.load_claim("theories/sparse.toml", overrides={"m": 2})
    assert len(parsed) == 1 and len(lowered) == 1
    assert claim.program.params["m"] == 2


def test_unknown_parameter_still_named_with_a_suggestion():
    with pytest.raises(UserError) as exc:
        claim_file.load_claim("theories/sparse.toml", overrides={"mm": 2})
    assert "'mm' is not a parameter of sparse" in exc.value.message
    assert "did you mean 'm'?" in exc.value.hint
