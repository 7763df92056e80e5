"""The Python front end folds arithmetic and comparisons of constants exactly, and refuses the
other operations on constants (division by zero, **, //, %) at the operation, with one wording."""
from fractions import Fraction

import pytest

from dipc_plus.errors import UserError
from dipc_plus.frontend.python.load import python_to_dip


def translate(body: str) -> str:
    text = (f"def f(prng, queries, epsilon):\n    {body}\n"
            "    out = queries[0] + prng.laplace(scale=1/epsilon)\n    return out\n")
    return python_to_dip(text, "f.py", "f", {"m": Fraction(2)})[0]


def test_constants_fold_exactly():
    dip = translate("x = 1 + 2 * 3 - 4 / 8\n    y = 3 > 2\n    z = 2 <= 1\n    w = 1 == 1\n"
                    "    v = 1 != 1\n    u = 1 < 2\n    t = 2 >= 3")
    assert "x <- (13/2)" in dip
    for name, truth in zip("yzwvut", ("true", "false", "true", "false", "true", "false")):
        assert f"{name} <- {truth}" in dip


@pytest.mark.parametrize("body, op", [("x = 1 / 0", "Div"), ("x = 2 ** 3", "Pow"), ("x = 7 // 2", "FloorDiv"),
                                      ("x = 7 % 2", "Mod")])
def test_other_operations_on_constants_are_refused(body, op):
    with pytest.raises(UserError) as err:
        translate(body)
    assert (err.value.line, err.value.column) == (2, 9)
    assert err.value.message == f"the operation `{op}` on constants is outside the Python subset dipc reads"
    assert err.value.hint == "use + - * / (not by zero)"
