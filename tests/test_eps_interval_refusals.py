"""An accuracy claim's eps interval is read by `certified.Interval.parse`: each refusal is exit 2 with
the key's line and a hint, never a traceback (the privacy reader checks its ends before that)."""
import pytest

from conftest import ROOT, run_main

CLAIM = """[program]
path = "{program}"
params = {{ k = 2, sens = 1 }}

[accuracy]
det = "noise-free"
input_distance = "zero-one"
output_distance = "linf"
alpha = 0
gamma = [1]
beta = "k*exp(-gamma*eps/sens)"
eps = "{eps}"

[accuracy.inputs]
grid = {{ q = [-1, 1] }}
"""


@pytest.mark.parametrize("eps, message, hint", [
    ("[1/10, 1e999999999]", "1e999999999 has far more than 60 digits", "--limit digits=N"),
    ("[1/10, ten]", "'ten' is not a rational number or inf", "[1/10, 5]"),
    ("[inf, 2]", "the lower end of an eps interval cannot be inf", "(0, inf)"),
    ("(0, inf]", "an interval cannot be closed at inf", "inf)"),
    ("[2, 1]", "the interval [2, 1] is empty", ""),
])
def test_a_bad_eps_interval_is_refused_at_its_line(tmp_path, eps, message, hint):
    claim = tmp_path / "claim.toml"
    claim.write_text(CLAIM.format(program=ROOT / "programs" / "laplace.dip", eps=eps))
    code, out, err = run_main(["accuracy", claim])
    assert code == 2 and "Traceback" not in err
    assert "claim.toml:12:7: error: accuracy.eps: " in err and message in err and hint in err
