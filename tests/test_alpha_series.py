"""A claim's beta read without computer algebra (claims/formula.py over exact/alpha_series.py):
its closed form, its limit as alpha -> infinity and the sign of its slope in alpha.

Cross-checks are independent: sympy (symbolic limit and substitution of the same text, as
the reader did before) and mpmath (the text evaluated in high precision at large alpha)."""
from fractions import Fraction as F

import mpmath
import pytest
import sympy

from dipc_plus.claims.formula import Where, parse
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac

NAMES = ["alpha", "gamma", "m", "c"]
VALUES = {"m": 3, "c": 2, "gamma": F(1, 2)}

LIMITS = [
    "2*m*c*exp(-alpha*eps/(8*c))",
    "2*m*c*exp(-alpha*eps/(9*c)) + c*exp(-gamma*eps/(9*c))",
    "1/(1 + alpha)",
    "(2 + alpha)/(1 + alpha)",
    "alpha^2*exp(-alpha*eps/3) + eps/(1 + exp(-eps))",
    "exp(alpha*eps)/(1 + exp(alpha*eps))",
    "(eps + 1)*alpha/(3*alpha + exp(-eps))",
    "m*e^(-alpha*eps/2) + exp(-gamma*eps)",
    "(1 - exp(-alpha*eps))^3 * exp(-eps)",
]


def _sympy_of(text, values):
    syms = {n: sympy.Symbol(n, nonnegative=True) for n in NAMES}
    syms["eps"] = sympy.Symbol("eps", positive=True)
    env = dict(syms, exp=sympy.exp, e=sympy.E, E=sympy.E)
    for k, v in values.items():
        env[k] = sympy.Rational(F(v).numerator, F(v).denominator)
    return sympy.sympify(text.replace("^", "**"), locals=env), syms   # test-only: our own texts


@pytest.mark.parametrize("text", LIMITS)
def test_limit_in_alpha_agrees_with_sympy_and_mpmath(text):
    ours = ExpFrac.of(parse(text, NAMES, Where()).limit("alpha", VALUES))
    expr, syms = _sympy_of(text, VALUES)
    reference = sympy.limit(expr, syms["alpha"], sympy.oo)
    for eps in (F(1, 10), F(1), F(5, 2)):
        got = ours.arb_value(eps, 200)
        want = reference.subs(syms["eps"], sympy.Rational(eps.numerator, eps.denominator))
        assert abs(float(got.mid()) - float(want)) < 1e-20 + 1e-12 * abs(float(want))
        # and the text itself, at a large alpha, in high precision
        with mpmath.workdps(60):
            env = {k: mpmath.mpf(F(v).numerator) / F(v).denominator for k, v in VALUES.items()}
            env.update(eps=mpmath.mpf(eps.numerator) / eps.denominator, alpha=mpmath.mpf(10) ** 6,
                       exp=mpmath.exp, e=mpmath.e)
            near = eval(text.replace("^", "**"), {"__builtins__": {}}, env)   # test-only: our own texts
        assert abs(float(got.mid()) - float(near)) < 1e-4


@pytest.mark.parametrize("text", LIMITS + ["eps/(1 + exp(-eps))**2 - 1/3", "0.25*exp(-eps*gamma) / (2 - exp(-eps))"])
def test_closed_form_at_fixed_alpha_agrees_with_sympy(text):
    values = dict(VALUES, alpha=F(7, 3))
    ours = ExpFrac.of(parse(text, NAMES, Where()).exact(values))
    expr, syms = _sympy_of(text, values)
    for eps in (F(1, 7), F(2), F(9)):
        want = expr.subs(syms["eps"], sympy.Rational(eps.numerator, eps.denominator))
        got = ours.arb_value(eps, 200)
        assert abs(float(got.mid()) - float(want)) <= 1e-12 * max(1.0, abs(float(want)))


@pytest.mark.parametrize("text,sign", [
    ("2*m*c*exp(-alpha*eps/(8*c))", "nonpositive"),
    ("1/(1 + alpha)", "nonpositive"),
    ("exp(-gamma*eps) + 7", "nonpositive"),                      # does not depend on alpha
    ("exp(alpha*eps)", "nonnegative"),
    ("alpha", "nonnegative"),
    ("exp(-alpha*eps) - exp(-2*alpha*eps)", "unknown"),           # rises, then falls
    ("alpha*exp(-alpha*eps)", "unknown"),                         # rises while alpha*eps < 1
])
def test_slope_sign_is_proven_from_the_derivatives_terms(text, sign):
    got, slope = parse(text, NAMES, Where()).slope("alpha", VALUES)
    assert got == sign, slope


@pytest.mark.parametrize("text", ["exp(-alpha*eps) - exp(-2*alpha*eps)", "alpha*exp(-alpha*eps)"])
def test_an_unproven_slope_really_is_positive_somewhere(text):
    """'unknown' is not a failure of nerve here: these betas do rise at small alpha."""
    expr, syms = _sympy_of(text, VALUES)
    slope = sympy.diff(expr, syms["alpha"]).subs({syms["alpha"]: sympy.Rational(1, 10), syms["eps"]: 1})
    assert slope > 0


@pytest.mark.parametrize("text,fragment", [
    ("1 - alpha", "no finite limit"),
    ("exp(alpha*eps)", "no finite limit"),
    ("1/((eps - 1)*alpha + 1)", "may vanish"),
])
def test_limits_that_are_infinite_or_unproven_are_refused(text, fragment):
    with pytest.raises(UserError) as info:
        parse(text, NAMES, Where("f.toml", 4, 9, "accuracy.beta")).limit("alpha", VALUES)
    assert fragment in info.value.message and info.value.line == 4


@pytest.mark.parametrize("text,values,fragment,column", [
    ("1/(m - 3)", {"m": 3}, "divides by zero", 0),
    ("2*exp(-eps) + e", {}, "write e^x as exp(x)", 14),
    ("exp(-alpha*eps)*(eps + 1)^m", {"alpha": 1, "m": F(1, 2)}, "non-integer exponent", 16),
    ("3*exp(-alpha^2*eps)", {"alpha": None}, "not of the form", 2),
    ("exp(-gamma)", {"gamma": 1}, "constant factor exp(-1)", 0),
    ("exp(-alpha*eps/m)", {"alpha": 1}, "no value for m", 15),
    ("exp(eps/100000)", {}, "beyond the exact kernel", 0),
])
def test_formula_errors_name_the_part_and_its_column(text, values, fragment, column):
    formula = parse(text, NAMES, Where("f.toml", 2, 10, "accuracy.beta"))
    with pytest.raises(UserError) as info:
        if values.get("alpha", 0) is None:
            formula.limit("alpha", {})
        else:
            formula.exact(values)
    assert fragment in info.value.message, info.value.message
    assert info.value.column == 10 + column


def test_e_to_a_power_is_exp():
    f = parse("m*e^(-alpha*eps/2)", NAMES, Where())
    g = parse("m*exp(-alpha*eps/2)", NAMES, Where())
    assert f.exact({"m": 2, "alpha": 3}) == g.exact({"m": 2, "alpha": 3})
    assert f.limit("alpha", {"m": 2}) == g.limit("alpha", {"m": 2})


def test_formula_is_picklable_for_workers():
    import pickle
    f = parse("2*m*c*exp(-alpha*eps/(8*c))", NAMES, Where("f.toml", 1, 1))
    g = pickle.loads(pickle.dumps(f))
    assert g.exact({"m": 3, "c": 2, "alpha": 1}) == f.exact({"m": 3, "c": 2, "alpha": 1})
