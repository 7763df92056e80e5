"""Privacy boxes whose bounds are tiny, huge or have long denominators (issue 36, item 5).

Each bound becomes an exponent of a closed form, so 1e-50 or 10^59 gave FLINT a polynomial of
astronomical degree in e^(eps/L): its gcd failed silently (a raw ZeroDivisionError, exit 3), and
1/10000 ran for minutes.  The box's points are now measured (`box_scale`) before the exact check,
and the exact kernel refuses such a reduction itself (`exp_degree`): exit 2 naming the limit.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import ROOT, THEORIES, run_main

import dipc_plus
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac, ExpPoly

HOSTILE_BOUNDS = [
    "[-1e-50, 1e-50]",
    "[-0.1, 0.30000000000000000000000000000001]",
    '["0", "1/' + "9" * 40 + '"]',
    "[-1e59, 1e59]",
    '[0, "1/10000"]',
]


def laplace_box(tmp_path, bounds: str):
    text = (THEORIES / "laplace_privacy_box.toml").read_text()
    text = text.replace("box = { q = [-1, 1] }", f"box = {{ q = {bounds} }}")
    text = text.replace('"../programs/', f'"{ROOT / "programs"}/')
    path = tmp_path / "box.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("bounds", HOSTILE_BOUNDS)
def test_hostile_bounds_exit_2_naming_the_limit(tmp_path, bounds):
    code, out, err = run_main(["privacy", laplace_box(tmp_path, bounds), "--timeout", "0", "--max-memory", "0"])
    assert code == 2 and "Traceback" not in err and "internal error" not in err
    assert "--limit box_scale=N" in err and "too costly" in err and out == ""


@pytest.mark.parametrize("bounds", HOSTILE_BOUNDS[:2])
def test_api_raises_the_same_user_error(tmp_path, bounds):
    with pytest.raises(UserError, match="too costly") as info:
        dipc_plus.check_privacy(laplace_box(tmp_path, bounds))
    assert "box_scale" in info.value.hint
    box_line = laplace_box(tmp_path, bounds).read_text().splitlines().index(f"box = {{ q = {bounds} }}") + 1
    assert info.value.line == box_line and info.value.column == len("box = ") + 1   # the box key's value


def test_small_denominators_are_still_decided_and_the_limit_is_named(tmp_path):
    path = laplace_box(tmp_path, '[0, "1/100"]')
    code, out, _ = run_main(["privacy", path, "--timeout", "0", "--max-memory", "0"])
    assert code == 0 and "VERIFIED" in out
    code, _, err = run_main(["privacy", path, "--timeout", "0", "--max-memory", "0", "--limit", "box_scale=50"])
    assert code == 2 and "100, more than 50" in err


def test_a_huge_box_checks_its_smallest_points_only(tmp_path):
    """The size is that of the points checked: [-1, 10^9] checks -1, 0, 1 and is verified."""
    code, out, _ = run_main(["privacy", laplace_box(tmp_path, "[-1, 1000000000]"), "--timeout", "0",
                             "--max-memory", "0"])
    assert code == 0 and "VERIFIED" in out


def test_the_exact_kernel_refuses_an_unaffordable_reduction():
    """The root cause: FLINT's gcd of polynomials in t = e^(eps/10^50) failed and returned 0."""
    tiny = Fraction(1, 10**50)
    num = ExpPoly.exp(tiny) - 1
    den = ExpPoly.exp(Fraction(1)) + ExpPoly.exp(tiny)
    with pytest.raises(UserError, match="degree") as info:
        ExpFrac(num, den)
    assert "exp_degree" in info.value.hint
    assert str(ExpFrac(ExpPoly.exp(Fraction(1, 2)) - 1, ExpPoly.exp(Fraction(1)) - 1)) == "(1) / (e^(1/2*eps) + 1)"
