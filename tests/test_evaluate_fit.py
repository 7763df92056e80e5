"""evaluate.fit, the one check of a run-time value against its type: what each type takes, as
what, and the words of each refusal (pinned when fit became one table)."""
from fractions import Fraction as F

import pytest

from dipc_plus.errors import UserError
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import fit

AT = ir.Pos("p.dip", 3, 5)


@pytest.mark.parametrize("typ, value, want", [
    (ir.BoolT(), True, True), (ir.RatT(), 2, F(2)), (ir.IntT(), F(4, 2), 2),
    (ir.RealT(), F(1, 2), F(1, 2)), (ir.DomT((1, 2, "a")), F(2), 2), (ir.DomT((1, 2, "a")), "a", "a")])
def test_fit_takes(typ, value, want):
    got = fit(value, typ, AT, "the value")
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize("typ, value, words", [
    (ir.BoolT(), 1, "the value should be true or false, not 1"),
    (ir.RatT(), "a", "the value should be a number, not a"),
    (ir.IntT(), F(1, 2), "the value should be an integer, not 1/2"),
    (ir.IntT(), True, "the value should be an integer, not true"),
    (ir.RealT(), True, "the value should be a number, not true"),
    (ir.DomT((1, 2)), 3, "the value is 3, outside the domain 1..2")])
def test_fit_refuses(typ, value, words):
    with pytest.raises(UserError) as info:
        fit(value, typ, AT, "the value")
    assert words in str(info.value) and (info.value.line, info.value.column) == (3, 5)
