"""`program=` of the checks and of Claim.from_text is read by one function (api.claim.program_file): a
path or a Program read from a file names the claim's program; a Program made from text is written to a
file only where a claim text is being made (a check refuses it); anything else is refused."""
from __future__ import annotations

import pytest

import dipc_plus
from dipc_plus.errors import UserError

LAPLACE = dipc_plus.example("theories/laplace_privacy.toml")


def test_claim_from_text_refuses_a_value_that_is_no_program():
    with pytest.raises(UserError) as err:
        dipc_plus.Claim.from_text("[privacy]\n", program=5)
    assert err.value.message == "program must be a dipc_plus.Program or the path of a .dip file, not int"


@pytest.mark.parametrize("check", [dipc_plus.check_privacy, dipc_plus.privacy_loss, dipc_plus.check_accuracy])
def test_a_program_made_from_text_names_no_file_for_a_check(check):
    claim = LAPLACE if check is not dipc_plus.check_accuracy else dipc_plus.example("theories/laplace.toml")
    text = dipc_plus.Program.from_text("input q: real[1]\noutput out: real[1]\nout[1] <- Lap(eps, q[1])\n")
    with pytest.raises(UserError) as err:
        check(claim, program=text)
    assert err.value.message == "program= names the claim's program file; this Program was made from text"


def test_claim_from_text_writes_a_program_made_from_text_to_a_file_it_names():
    text = dipc_plus.Program.from_text(open(dipc_plus.example("programs/laplace.dip")).read(), name="lap")
    without_path = open(LAPLACE).read().replace('path = "../programs/laplace.dip"\n', "")   # params stay
    claim = dipc_plus.Claim.from_text(without_path, program=text)
    assert claim.program_path.endswith("lap.dip") and dipc_plus.check_privacy(claim).verdict == "verified"


def test_the_claims_program_given_as_a_path_or_a_program_is_accepted():
    laplace = dipc_plus.example("programs/laplace.dip")
    by_path = dipc_plus.check_privacy(LAPLACE, program=laplace, params={"sens": "1/2"})
    by_program = dipc_plus.check_privacy(LAPLACE, program=dipc_plus.load(laplace), params={"sens": "1/2"})
    assert by_path.verdict == by_program.verdict == "refuted"


@pytest.mark.parametrize("check", [dipc_plus.check_privacy, dipc_plus.privacy_loss, dipc_plus.check_accuracy])
def test_a_check_refuses_a_value_that_is_no_program_by_its_type(check):
    """program=5 said "this Program was made from text" (a check has no folder to write one to)."""
    claim = LAPLACE if check is not dipc_plus.check_accuracy else dipc_plus.example("theories/laplace.toml")
    with pytest.raises(UserError) as err:
        check(claim, program=5)
    assert err.value.message == "program must be a dipc_plus.Program or the path of a .dip file, not int"
