"""An incomplete expression is reported as one: "expected an expression", without a noise's name
(it said "expected an expression or 'ExpNoise'": Lap and DLap were left out of the list by their
token names, the exponential noise was not)."""
from __future__ import annotations

import pytest

from dipc_plus.errors import UserError
from dipc_plus.exact import noises
from dipc_plus.frontend.load import load_program


@pytest.mark.parametrize("tail", ["q[1] +", "q[1] * (", "-"])
def test_an_incomplete_expression_names_no_noise(tmp_path, tail):
    path = tmp_path / "bad.dip"
    path.write_text(f"input q: real[1]\noutput out: real[1]\nout[1] <- {tail}\n")
    with pytest.raises(UserError) as err:
        load_program(str(path))
    assert "expected an expression" in err.value.message
    assert not any(f"'{name}'" in err.value.message for name in noises.surface_names()), err.value.message
