"""Refusals of the box route that a user reaches from the command line, each an exit 2 with the check named.

Why: a coverage run found these paths reached by no test; each is a user's claim or option,
not an internal state, so each keeps its message and exit status.
"""
from __future__ import annotations

from conftest import THEORIES, run_main


def test_dd_over_grid_on_a_box_is_refused_by_name():
    """`--dd-over grid` replaces the claim's dd over the reals after the claim file was read;
    the corner reduction then refuses it (a box has no grid), as exit 2."""
    code, out, err = run_main(["accuracy", f"{THEORIES}/threshold_half_box.toml", "--dd-over", "grid", "--no-progress"])
    assert code == 2 and "Traceback" not in err
    assert "corner reduction, check 'box-region': det must be the noise-free program with dd over the reals" in err


def test_a_loop_on_the_box_route_is_refused_by_name(tmp_path):
    """A while loop: the paths of the program are not enumerated, so the monotonicity argument is refused."""
    (tmp_path / "loop.dip").write_text(
        "input q: real\noutput out: bool\nout <- false\nx <- Lap(eps, q)\n"
        "while x < 0 and not out do\n  out <- true\nend\n")
    (tmp_path / "loop.toml").write_text(
        '[program]\npath = "loop.dip"\n\n[accuracy]\ndet = "noise-free"\ninput_distance = "linf"\n'
        'output_distance = "zero-one"\nalpha = "dd"\ngamma = 0\nbeta = "exp(-alpha*eps)"\neps = "[1, 2]"\n\n'
        '[accuracy.inputs]\nbox = { q = [-1, 1] }\n')
    code, out, err = run_main(["accuracy", str(tmp_path / "loop.toml"), "--no-progress"])
    assert code == 2 and "Traceback" not in err, err
    assert "check 'program-shape': a While statement" in err
