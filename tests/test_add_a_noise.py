"""CONTRIBUTING.md, "Add a noise", followed step by step for a toy noise.

The toy is WideLap(a*eps, mean): a Laplace noise of rate a/2 (twice the scale Lap(a*eps)
has).  It is written as a module in a temporary folder, registered by importing it, and
then used by `dipc prob` (the chain and the engines), by the argmax shortcut and by
`dipc simulate` (the sampler) without any other edit of the package.  Every number is
checked against the conftest Laplace oracles and numerical integration, not against the
built-in Lap.
"""
import importlib
import json
import re
import sys
import textwrap

import pytest
from conftest import lap_pdf, lap_cdf, lap_sf, quad, run_main

from dipc_plus.exact import noises
from dipc_plus.exact.noises import registry

# Step 1 of the walk-through: one module that draws the noise, says how the engines read
# it, and registers it.
TOY_MODULE = '''
"""WideLap(a*eps, mean): Laplace noise of rate a/2, i.e. scale 2/(a eps)."""
from fractions import Fraction

from dipc_plus.exact.linear import Noise
from dipc_plus.exact.noises.registry import EngineReading, NoiseSpec, register


def draw(rng, rate_eps, m):
    return rng.laplace(0.0, float(2 / rate_eps), m)


def reading(rate):
    return EngineReading(Noise("lap", Fraction(rate) / 2))


SPEC = register(NoiseSpec(kind="widelap", surface="WideLap", title="wide Laplace", value_type="real",
                          draw=draw, reading=reading))
'''


@pytest.fixture
def widelap(tmp_path, monkeypatch):
    """The toy noise, registered for one test and forgotten after it (the registry's two tables
    are copies for the test, the originals come back after it)."""
    for table in ("_BY_KIND", "_BY_SURFACE"):
        monkeypatch.setattr(registry, table, dict(getattr(registry, table)))
    (tmp_path / "toy_widelap.py").write_text(TOY_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("toy_widelap")
    yield module.SPEC
    sys.modules.pop("toy_widelap", None)


def _program(tmp_path, body: str, name: str = "toy.dip"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def _ball(text: str) -> tuple[float, float]:
    """'[mid +/- rad]' (an arb ball as the JSON prints it) as (mid, rad)."""
    found = re.fullmatch(r"\[([-0-9.e]+) \+/- ([0-9.e-]+)\]", text)
    assert found, text
    return float(found.group(1)), float(found.group(2))


def _contains(ball: str, value: float) -> bool:
    mid, rad = _ball(ball)
    return abs(mid - value) <= rad + 1e-15 * max(1.0, abs(value))


def test_registered_noise_is_known_to_every_lookup(widelap):
    assert noises.by_surface("WideLap") is widelap
    assert noises.by_kind("widelap") is widelap
    assert "WideLap" in noises.surface_names()
    assert widelap.described() == "WideLap(a*eps, mean) (wide Laplace)"


def test_dipc_prob_on_the_toy_noise(widelap, tmp_path):
    path = _program(tmp_path, """\
        input q: real
        output out: bool

        y <- WideLap(eps, q)
        out <- y > 0
        """)
    code, out, err = run_main(["prob", path, "--input", "q=1", "--eps", "1/2", "--json"])
    assert code == 0, err
    result = json.loads(out)
    assert result["noises"] == {"N0": {"kind": "widelap", "rate": 1}}
    by_value = {o["outputs"]["out"]: o for o in result["outcomes"]}
    # P[1 + WideLap(eps) > 0] = P[1 + Lap(eps/2) > 0]; at eps = 1/2 the Laplace rate is 1/4.
    assert _contains(by_value[True]["at"]["1/2"], lap_sf(0.0, 1.0, 0.25))
    assert _contains(by_value[False]["at"]["1/2"], lap_cdf(0.0, 1.0, 0.25))
    # the closed form by hand: 1 - (1/2) e^(-eps/2)
    assert by_value[True]["probability"] == "1 - 1/2*e^(-1/2*eps)"


def test_dipc_prob_prints_the_toy_noise_by_its_name(widelap, tmp_path):
    path = _program(tmp_path, """\
        input q: real
        output out: real

        out <- WideLap(eps/3, q)
        """)
    code, out, err = run_main(["prob", path, "--input", "q=2"])
    assert code == 0, err
    assert "out=N0 + 2" in out
    assert "N0 ~ WideLap(eps/3, 0)" in out


def test_argmax_shortcut_reads_the_toy_noise(widelap, tmp_path):
    path = _program(tmp_path, """\
        input q: real[2]
        output out: 1..2

        noisy: real[2]
        for i = 1 to 2 do
            noisy[i] <- WideLap(eps, q[i])
        end
        out <- argmax(noisy)
        """)
    code, out, err = run_main(["prob", path, "--input", "q=[0,1]", "--eps", "1", "--json"])
    assert code == 0, err
    result = json.loads(out)
    assert result["method"] == "argmax-integral"
    rate = 0.5   # WideLap(1*eps) at eps = 1
    # P[out = 1] = P[N1 > 1 + N2] = integral of pdf(x; 0) * P[1 + N2 < x]
    p1 = quad(lambda x: lap_pdf(x, 0.0, rate) * lap_cdf(x, 1.0, rate), [0.0, 1.0])
    by_value = {o["outputs"]["out"]: o for o in result["outcomes"]}
    assert _contains(by_value[1]["at"]["1"], p1)
    assert _contains(by_value[2]["at"]["1"], 1 - p1)


def test_sampler_draws_the_toy_noise(widelap, tmp_path):
    path = _program(tmp_path, """\
        input q: real
        output out: bool

        y <- WideLap(eps, q)
        out <- y > 0
        """)
    code, out, err = run_main(["simulate", path, "--input", "q=1", "--eps", "1/2", "-n", "40000",
                               "--seed", "11", "--confidence", "0.999", "--json", "-q"])
    assert code == 0, err
    result = json.loads(out)
    hits = {o["values"]["out"]: o["interval"] for o in result["outcomes"]}
    lo, hi = hits[True]
    expected = lap_sf(0.0, 1.0, 0.25)
    assert lo <= expected <= hi
    # the built-in Lap(eps) has P = 1 - e^(-1/2)/2 = 0.697 here, well outside the interval
    assert not (lo <= lap_sf(0.0, 1.0, 0.5) <= hi)


def test_toy_noise_name_is_reserved_and_typed(widelap, tmp_path):
    path = _program(tmp_path, """\
        input q: real
        output out: int

        out <- WideLap(eps, q)
        """)
    code, _out, err = run_main(["prob", path, "--input", "q=1"])
    assert code == 2
    assert "WideLap gives a real sample" in err
    path = _program(tmp_path, """\
        input WideLap: real
        output out: real

        out <- 1
        """, "reserved.dip")
    code, _out, err = run_main(["prob", path])
    assert code == 2
    assert "expected a name, but found 'WideLap'" in err
    assert "'WideLap' is a reserved word" in err


def test_unknown_noise_lists_the_registered_ones(widelap, tmp_path):
    path = _program(tmp_path, """\
        input q: real
        output out: real

        out <- Gumbel(eps, q)
        """)
    code, _out, err = run_main(["prob", path, "--input", "q=1"])
    assert code == 2
    assert "unknown function 'Gumbel'" in err
    assert "the noises are Lap, ExpNoise, DLap, WideLap" in err
    assert "Traceback" not in err


def test_unregistered_noise_is_gone(tmp_path):
    """Without the fixture the toy name is an ordinary (unknown) function: the registry,
    not the grammar, made it a noise."""
    assert noises.by_surface("WideLap") is None
    path = _program(tmp_path, """\
        input q: real
        output out: real

        out <- WideLap(eps, q)
        """)
    code, _out, err = run_main(["prob", path, "--input", "q=1"])
    assert code == 2
    assert "unknown function 'WideLap'" in err


def test_registering_a_taken_name_is_refused(widelap):
    clash = noises.NoiseSpec(kind="other", surface="Lap", title="x", value_type="real",
                             draw=widelap.draw, reading=widelap.reading)
    with pytest.raises(ValueError, match="already registered"):
        noises.register(clash)
    assert noises.by_surface("Lap").kind == "lap"
    assert "other" not in [n.kind for n in noises.all_noises()]


def test_symbolic_inputs_take_the_toy_noise(widelap, tmp_path):
    """`dipc prob --symbolic` keeps q as a symbol; by hand, P[q + Lap(eps/2) > 0] is
    1 - e^(-q eps/2)/2 for q >= 0 and e^(q eps/2)/2 for q < 0."""
    path = _program(tmp_path, """\
        input q: real
        output out: bool

        y <- WideLap(eps, q)
        out <- y > 0
        """)
    code, out, err = run_main(["prob", path, "--symbolic", "--box", "q=[-1,1]"])
    assert code == 0, err
    true_part = out[out.index("out=true"):]
    assert "where q >= 0:\n    1 - 1/2*e^(-1/2*q*eps)" in true_part
    assert "where q < 0:\n    1/2*e^(1/2*q*eps)" in true_part
