"""`dipc dtmc` refuses option combinations it cannot honour, and --claim files it cannot use,
with exit 2 and a message that names the problem (never a traceback, never a file written)."""
from __future__ import annotations

from conftest import PROGRAMS, ROOT, run_main

NOISY_MIN = [PROGRAMS / "noisy_min.dip", "--set", "m=3", "--input", "q=[-1,0,0]"]


def _refused(argv) -> str:
    code, out, err = run_main(["dtmc", *argv])
    assert code == 2 and out == "" and "Traceback" not in err
    return err


def test_two_eps_values_are_refused():
    err = _refused([*NOISY_MIN, "--eps", "1", "--eps", "2"])
    assert "dtmc export takes at most one --eps" in err and "give a single --eps VALUE" in err


def test_parametric_needs_prism_and_no_eps(tmp_path):
    for extra in (["--format", "dot"], ["--format", "prism", "--eps", "1/2"]):
        err = _refused([*NOISY_MIN, "--parametric", *extra])
        assert "--parametric goes with --format prism and no --eps" in err and "drop --parametric or --eps" in err


def test_claim_needs_a_prism_file(tmp_path):
    claim = ROOT / "theories" / "noisy_min.toml"
    for extra in (["--format", "prism"], ["--format", "dot", "-o", tmp_path / "m.dot"]):
        err = _refused([*NOISY_MIN, "--claim", claim, *extra])
        assert "--claim adds P[correct] to the .props file of --format prism -o FILE" in err
        assert "add --format prism -o FILE.pm" in err
    assert not list(tmp_path.iterdir())


def test_claim_must_be_a_zero_one_accuracy_claim(tmp_path):
    claim = ROOT / "theories" / "laplace.toml"     # output_distance = "linf"
    err = _refused([PROGRAMS / "laplace.dip", "--input", "q=[0,1]", "--claim", claim,
                    "--format", "prism", "-o", tmp_path / "l.pm"])
    assert '--claim needs an accuracy claim with output_distance = "zero-one"' in err
    assert "laplace.toml" in err and "other output distances compare real outputs" in err


def test_claim_must_be_about_the_program_exported(tmp_path):
    claim = ROOT / "theories" / "noisy_min.toml"   # about programs/noisy_min.dip
    err = _refused([PROGRAMS / "noisy_max.dip", "--set", "m=3", "--input", "q=[-1,0,0]", "--claim", claim,
                    "--format", "prism", "-o", tmp_path / "m.pm"])
    assert "the claim is about" in err and "noisy_min.dip, not" in err and "noisy_max.dip" in err
