"""The every-output-value route refuses, with exit 2 at the key's line, the claims it does not decide
yet (`real_output_check._refuse_unsupported`): a budget with a constant term, an eps range other
than (0, inf).  Named events decide both."""
import pytest

from conftest import PROGRAMS, run_main

BODY = ('[program]\npath = "{}"\nparams = {{ m = 2 }}\n[privacy]\nadjacency = "linf"\n{}\n'
        '[privacy.inputs]\ngrid = {{ q = [0, 1] }}\n')


@pytest.mark.parametrize("line, at, words", [
    ('budget = "eps + ln(2)"', ":6:", "a budget with a constant term is not supported"),
    ('budget = "eps"\neps = "[1, 2]"', ":7:", "every output value is decided for eps in (0, inf) only"),
])
def test_every_value_refuses_what_it_does_not_decide(tmp_path, line, at, words):
    path = tmp_path / "claim.toml"
    path.write_text(BODY.format((PROGRAMS / "gap_above_threshold.dip").as_posix(), line))
    code, out, err = run_main(["privacy", str(path)])
    assert code == 2, (out, err)
    assert err.startswith(f"{path}{at}") and words in err and "name output events" in err and "Traceback" not in err
