"""decision.first_order: the preconditions FirstOrderForm checks, and the order exp_series keeps.

The series kind reads S0 (the coefficient sum of the eps-free terms) as the constant C_0 of G/eps's
series, which is sound only when an eps-free term reads no input (pair_bnb's terms count their
powers in n); and series_strip sums its balls in exp_series's key order, so a key that cancels
to 0 on the way must keep the place where it first appeared."""
from fractions import Fraction as F

import pytest

from dipc_plus.decision.first_order import MEAN_VALUE, SERIES, FirstOrderForm, exp_series


def test_a_term_whose_n_does_not_count_its_powers_is_refused():
    reads_input = [(F(1), 0, (1,), 0, ((F(1),), F(0)))]        # c x e^(eps z) with n = 0
    for kind in (SERIES, MEAN_VALUE):
        with pytest.raises(ValueError, match="counts its powers"):
            FirstOrderForm(kind, reads_input, 1, [[[F(1)]]])
    with pytest.raises(ValueError, match="bounds G/eps"):
        FirstOrderForm(SERIES, [(F(1), 1, (), 0, ((F(1),), F(0)))], 1, [[]], by_eps=False)


def test_both_kinds_read_s0_over_eps_the_same_way():
    # G = e^(eps z) - 1 + 1/2 = e^(eps z) - 1/2: S0 = 1/2 > 0, so G/eps >= 1/(2 e1) + ... on z in [0, 1]
    G = [(F(1), 0, (), 0, ((F(1),), F(0))), (F(-1, 2), 0, (), 0, ((F(0),), F(0)))]
    Z, e1 = [(F(0), F(1))], F(1, 8)
    for kind in (SERIES, MEAN_VALUE):
        low = FirstOrderForm(kind, G, 1, [[]]).lower(Z, F(0), e1)
        assert low is not None and F(4) - F(1, 10) <= low <= F(4)       # G/eps at z = 0 is 4 exactly
    negative = [(F(-1), 0, (), 0, ((F(1),), F(0)))]                   # S0 = -1: G/eps -> -inf
    assert all(FirstOrderForm(kind, negative, 1, [[]]).lower(Z, F(0), e1) is None for kind in (SERIES, MEAN_VALUE))


def test_exp_series_keeps_the_place_where_a_key_first_appeared():
    # the second term cancels the first one's eps^1 d^1 coefficient, the third adds eps^1 d^0, and the
    # last brings eps^1 d^1 back: it stays before eps^1 d^0 (dropping zeros on the way would move it after)
    terms = [(F(1), 0, {0: F(1)}, {1: F(1)}), (F(-1), 1, {1: F(1)}, {0: F(0)}), (F(1), 0, {0: F(1)}, {0: F(3)}),
             (F(2), 1, {1: F(1)}, {0: F(0)})]
    found = exp_series(terms, lambda n: 2)
    assert list(found) == [(0, 0), (1, 1), (1, 0)]
    assert found == {(0, 0): F(2), (1, 1): F(2), (1, 0): F(3)}
