"""Issue 42 item 4, the Python API's surfaces: `bool(report)` is the verdict, `float(kappa_star)`,
`.text` a property (still callable), public result and figure types, and `Claim.from_text(text,
program=prog)` without a dummy ``[program] path``."""
from __future__ import annotations

import pytest
from conftest import ROOT, THEORIES

import dipc_plus

LAPLACE_ACCURACY = THEORIES / "laplace.toml"
LAPLACE_PRIVACY = THEORIES / "laplace_privacy.toml"
PROGRAMS = ROOT / "programs"
PRIVACY_TABLES = ('[privacy]\nadjacency = "linf"\nbound = 1\nbudget = "eps"\n'
                  'events = { out = ["(-inf, 0]", "(0, inf)"] }\n\n[privacy.inputs]\ngrid = { q = [0, 1] }\n')


# --------------------------------------------------------------------------- bool(report)

def test_bool_of_a_report_is_its_verdict():
    verified = dipc_plus.check_accuracy(LAPLACE_ACCURACY, params={"k": 1})
    refuted = dipc_plus.check_accuracy(LAPLACE_ACCURACY, params={"k": 1}, kappa=2)
    assert (verified.verdict, refuted.verdict) == ("verified", "refuted")
    assert bool(verified) is True and bool(refuted) is False
    # the privacy reports inherit it from the base class: sens = 1/2 needs a 2 eps budget
    assert dipc_plus.check_privacy(LAPLACE_PRIVACY)
    assert not dipc_plus.check_privacy(LAPLACE_PRIVACY, params={"sens": "1/2"})
    assert not dipc_plus.privacy_loss(LAPLACE_PRIVACY, params={"sens": "1/2"})
    # a sweep is true when the claim itself (kappa = 1) holds
    assert dipc_plus.sweep(LAPLACE_ACCURACY, params={"k": 1})


# --------------------------------------------------------------------------- float(kappa_star)

def test_float_of_kappa_star_lies_in_its_enclosure():
    star = dipc_plus.sweep(LAPLACE_ACCURACY, params={"k": 1}).kappa_star
    value = float(star)
    assert isinstance(value, float) and float(star.lo) <= value <= float(star.hi)
    assert value == pytest.approx(float(star.text), rel=1e-4)   # kappa* = 1 here: beta = P[error]


# --------------------------------------------------------------------------- .text

def test_text_is_a_property_and_still_callable():
    reports = [dipc_plus.check_accuracy(LAPLACE_ACCURACY, params={"k": 1}, kappa=2),
               dipc_plus.sweep(LAPLACE_ACCURACY, params={"k": 1}),
               dipc_plus.check_privacy(LAPLACE_PRIVACY, params={"sens": "1/2"}),
               dipc_plus.privacy_loss(LAPLACE_PRIVACY)]
    for report in reports:
        text = report.text
        assert isinstance(text, str) and isinstance(text, dipc_plus.ReportText), type(report)
        assert text == str(report) and text() == text and text.splitlines()
    accuracy = reports[0]
    assert "REFUTED" in accuracy.text
    # the accuracy report's verbose form: every input's line, as `dipc accuracy --verbose`
    assert len(accuracy.text(verbose=True).splitlines()) > len(accuracy.text(verbose=False).splitlines())


# --------------------------------------------------------------------------- public types

def test_result_and_figure_types_have_public_names():
    for name in ("ReportText", "Distribution", "Exact", "DTMC", "SymbolicResult", "SampleResult", "PlotFigure"):
        assert name in dipc_plus.__all__ and name in dir(dipc_plus)
        assert isinstance(getattr(dipc_plus, name), type), name
    lap = dipc_plus.load(PROGRAMS / "laplace.dip", params={"k": 1})
    assert isinstance(lap.distribution(input={"q": [0]}), dipc_plus.Distribution)
    assert isinstance(lap.dtmc(input={"q": [0]}), dipc_plus.DTMC)
    assert isinstance(lap.within({"out": [0]}, 1, input={"q": [0]}), dipc_plus.Exact)
    sign = dipc_plus.Program.from_text("input x: real\noutput b: bool\nn <- Lap(eps, x)\nb <- n > 0\n")
    assert isinstance(sign.symbolic(box={"x": (-1, 1)}), dipc_plus.SymbolicResult)
    assert isinstance(lap.simulate(1, 10, input={"q": [0]}, seed=1), dipc_plus.SampleResult)
    figure = dipc_plus.check_accuracy(LAPLACE_ACCURACY, params={"k": 1}, kappa=2).plot(points=20)
    assert isinstance(figure, dipc_plus.PlotFigure) and figure._repr_png_().startswith(b"\x89PNG")


# --------------------------------------------------------------------------- Claim.from_text(program=)

def test_claim_from_text_without_a_program_table_uses_the_program_given():
    lap = dipc_plus.load(PROGRAMS / "laplace.dip")
    claim = dipc_plus.Claim.from_text('[program]\nparams = { k = 1 }\n\n' + PRIVACY_TABLES, program=lap,
                                      name="params_only")
    assert dipc_plus.check_privacy(claim).verdict == "verified"
    # no [program] table at all: the program's file with its default parameters, k = 2 outputs that
    # both move on a neighbouring input (a loss of 2 eps)
    bare = dipc_plus.Claim.from_text(PRIVACY_TABLES, program=lap)
    assert repr(bare) == "<Claim <claim>: privacy of laplace.dip>"
    assert dipc_plus.check_privacy(bare).verdict == "refuted"
    # a Program made from text needs no file either
    coin = dipc_plus.Program.from_text((PROGRAMS / "randomized_response_coin.dip").read_text(), name="coin")
    r = dipc_plus.check_privacy(dipc_plus.Claim.from_text('[privacy]\nadjacency = "hamming"\nbudget = "ln(3)"\n',
                                                          program=coin))
    assert r.verdict == "verified"


def test_claim_from_text_with_program_keeps_the_users_lines():
    lap = dipc_plus.load(PROGRAMS / "laplace.dip")
    text = '[program]\nparams = { k = 1 }\n\n[privacy]\nadjacency = "linf"\nbudgte = "eps"\n'
    claim = dipc_plus.Claim.from_text(text, program=lap, name="cell")
    with pytest.raises(dipc_plus.UserError) as err:
        dipc_plus.check_privacy(claim)
    column = text.splitlines()[5].index('"eps"') + 1   # where the same claim as a file is located
    assert (err.value.file, err.value.line, err.value.column) == ("cell", 6, column)
    assert "did you mean 'budget'" in err.value.hint


def test_claim_from_text_refuses_a_path_that_is_not_the_program_given():
    lap = dipc_plus.load(PROGRAMS / "laplace.dip")
    text = '[program]\npath = "noisy_max.dip"\nparams = { k = 1 }\n\n' + PRIVACY_TABLES
    with pytest.raises(dipc_plus.UserError) as err:
        dipc_plus.Claim.from_text(text, program=lap, base_dir=PROGRAMS, name="cell")
    e = err.value
    assert (e.file, e.line, e.column) == ("cell", 2, text.splitlines()[1].index('"') + 1)
    assert "noisy_max.dip" in e.message and "laplace.dip" in e.message and "drop the [program] path" in e.hint
    # a path that does not exist is not the program either
    with pytest.raises(dipc_plus.UserError, match="another program"):
        dipc_plus.Claim.from_text(text.replace("noisy_max.dip", "x.dip"), program=lap, base_dir=PROGRAMS)
    # the same file (or a file with the same text) is accepted
    same = dipc_plus.Claim.from_text(text.replace("noisy_max.dip", "laplace.dip"), program=lap, base_dir=PROGRAMS)
    assert dipc_plus.check_privacy(same).verdict == "verified"
    coin = dipc_plus.Program.from_text((PROGRAMS / "randomized_response_coin.dip").read_text(), name="coin")
    named = dipc_plus.Claim.from_text('[program]\npath = "randomized_response_coin.dip"\n\n[privacy]\n'
                                      'adjacency = "hamming"\nbudget = "ln(3)"\n', program=coin, base_dir=PROGRAMS)
    assert dipc_plus.check_privacy(named).verdict == "verified"
