"""The pointwise density-ratio bound (privacy/dp/density_ratio.py): its whitelist names the refused
line, and every bound it proves holds against exact event probabilities of the per-point engine at
rational pairs of inputs (shipped programs and random straight-line programs at m = 2)."""
from __future__ import annotations

import itertools
import random
from fractions import Fraction as F
from pathlib import Path

import flint
import pytest

from dipc_plus.exact.constraints import probability as per_point_probability
from dipc_plus.exact.expoly import ExpFrac, ExpPoly
from dipc_plus.exact.linear import LinForm, atom
from dipc_plus.frontend.load import load_program, parse_program
from dipc_plus.privacy.dp.density_ratio import Refused, loss_bound, path_draws
from dipc_plus.semantics import ir
from dipc_plus.semantics.distribution import output_distribution

ROOT = Path(__file__).resolve().parent.parent
EPSES = (F(1, 4), F(1), F(3))
CUTS = (None, F(-1), F(1, 2), F(2))       # ends of the intervals of a real output: (-inf, -1], (-1, 1/2], ...


def bound_of(program, kind: str, box=(F(0), F(2)), b=F(1)) -> F:
    box_bounds = {n: box for n, _ in program.inputs}
    paths, cells = path_draws(program, box_bounds)
    assert not cells
    return loss_bound(paths, [n for n, _ in program.inputs], kind, b)[0]


def grouped(program, u: dict) -> dict:
    out = {name: [u[e] for e in elems] for name, elems in program.arrays.items() if all(e in u for e in elems)}
    out.update({n: u[n] for n, _ in program.inputs if not any(n in e for e in program.arrays.values())})
    return out


def event_probabilities(program, u: dict, events: list) -> dict:
    """{(finite outputs, interval index per real output): exact P} at u, by the per-point engine."""
    dist = output_distribution(program, grouped(program, u), shortcuts=False)
    idx = {n: i for i, n in enumerate(dist.names)}
    reals = [n for n, t in program.outputs if isinstance(t, ir.RealT)]
    finite = [n for n, t in program.outputs if not isinstance(t, ir.RealT)]
    out: dict = {}
    for entry_out, entry in dist.entries.items():
        vals = entry_out.values
        key_f = tuple(str(vals[idx[n]]) for n in finite)
        for choice in itertools.product(range(len(events)), repeat=len(reals)):
            atoms = list(entry_out.constraints)
            for n, c in zip(reals, choice):
                x = vals[idx[n]]
                x = x if isinstance(x, LinForm) else LinForm.constant(F(x))
                lo, hi = events[c]
                if lo is not None:
                    atoms.append(atom(x, ">", LinForm.constant(lo)))
                if hi is not None:
                    atoms.append(atom(x, "<=", LinForm.constant(hi)))
            p = ExpFrac.of(per_point_probability(atoms, dist.noises))
            key = (key_f, choice)
            total = out.get(key, ExpFrac.of(ExpPoly.ZERO))
            out[key] = total + entry.weight * p
    return out


def intervals(cuts=CUTS) -> list:
    ends = [c for c in cuts if c is not None]
    return [(None, ends[0])] + list(zip(ends, ends[1:])) + [(ends[-1], None)]


def worst_ratio(program, u: dict, v: dict, k: F, events=None, check: bool = True) -> float | None:
    """The largest (midpoint of) (ln P_u[S] - ln P_v[S]) / eps - k over the events S and
    EPSES (None when no event has both probabilities positive); with `check`, fail when one is
    certified above 0 (the bound k is wrong)."""
    events = events or intervals()
    pu, pv = event_probabilities(program, u, events), event_probabilities(program, v, events)
    worst = None
    flint.ctx.prec = 200
    for key, p in pu.items():
        q = pv.get(key, ExpFrac.of(ExpPoly.ZERO))
        for eps in EPSES:
            a, b = p.arb_value(eps, 200), q.arb_value(eps, 200)
            if not a > 0:
                continue
            assert b > 0, f"an event of positive probability at {u} has probability 0 at {v}"
            excess = (a.log() - b.log()) / _arb(eps) - _arb(k)
            mid = float(excess.mid())
            assert not (check and excess > 0), f"P ratio above e^({k} eps) at eps = {eps}, {u} vs {v}, event {key}"
            worst = mid if worst is None else max(worst, mid)
    return worst


def neighbours(names, kind: str, points):
    for u in points:
        for v in points:
            d = [abs(u[n] - v[n]) for n in names]
            if u == v:
                continue
            if kind == "l1" and sum(d) <= 1 or kind == "one-position" and sum(1 for x in d if x) == 1 and max(d) <= 1:
                yield u, v


# --------------------------------------------------------------------------- shipped programs

SHIPPED = [("laplace_histogram.dip", {"m": F(2)}, "l1", F(1)), ("laplace_histogram.dip", {"m": F(2)}, "one-position", F(1)),
           ("partial_sums.dip", {"m": F(2)}, "one-position", F(1)), ("smart_sum.dip", {"m": F(2), "b": F(2)},
                                                                    "one-position", F(1))]


@pytest.mark.parametrize("path,params,kind,k", SHIPPED)
def test_bound_holds_against_exact_event_ratios(path, params, kind, k):
    program = load_program(ROOT / "programs" / path, params)
    assert bound_of(program, kind) == k
    names = [n for n, _ in program.inputs]
    pairs = [({names[0]: F(0), names[1]: F(1)}, {names[0]: F(1), names[1]: F(1)}),
             ({names[0]: F(1, 2), names[1]: F(2)}, {names[0]: F(1, 2), names[1]: F(1)})]
    worst = max(worst_ratio(program, u, v, k) for u, v in pairs)
    assert worst > -F(1, 2) * k   # the events come close to the bound: it is not vacuous


def test_histogram_twin_at_rate_two_is_not_proved_and_its_loss_is_above_eps():
    program = load_program(ROOT / "programs" / "laplace_histogram.dip", {"m": F(2), "r": F(2)})
    assert bound_of(program, "l1") == 2
    u, v = {"q[1]": F(0), "q[2]": F(0)}, {"q[1]": F(1), "q[2]": F(0)}
    # P[out[1] <= -1] at q[1] = 0 against q[1] = 1: ratio e^(2 eps) > e^eps
    assert worst_ratio(program, u, v, F(1), check=False) > 0.99


def test_l1_histogram_bound_is_the_one_bin_cost_not_the_linf_sum():
    program = load_program(ROOT / "programs" / "laplace_histogram.dip", {"m": F(4)})
    assert bound_of(program, "l1") == 1 and bound_of(program, "one-position") == 1
    assert bound_of(program, "linf") == 4
    assert bound_of(program, "l1", b=F(3)) == 3


def test_linf_takes_the_sign_vectors_exactly():
    program = parse_program("input q: real[2]\noutput out: real\nout <- Lap(eps, q[1] - q[2])\n", "diff.dip")
    assert bound_of(program, "linf") == 2      # d = (1, -1)
    program = parse_program("input q: real[2]\noutput out: real[2]\nout[1] <- Lap(eps, q[1] - q[2])\n"
                            "out[2] <- Lap(eps, q[1] + q[2])\n", "two.dip")
    assert bound_of(program, "linf") == 2      # max(|d1 - d2| + |d1 + d2|) = 2 on the cube, not 4


# --------------------------------------------------------------------------- the whitelist


@pytest.mark.parametrize("text,line,words", [
    ("input q: real\noutput out: real\nout <- ExpNoise(eps, q)\n", 3, "one-sided exponential"),
    ("input q: real\noutput out: real\nx: real\nx <- Lap(eps, 0)\nout <- x + q\n", 5, "reads the input(s) q directly"),
    ("input q: real\noutput out: bool\nx: real\nx <- Lap(eps, 0)\nout <- x > q\n", 5, "beside draws"),
    ("input q: real\noutput out: real\nb: bool\nb <- false\nwhile not b do\n  b <- true\nend\nout <- Lap(eps, q)\n",
     5, "while loop"),
])
def test_whitelist_refuses_naming_the_line(text, line, words):
    program = parse_program(text, "refused.dip")
    with pytest.raises(Refused) as info:
        path_draws(program, {n: (F(0), F(1)) for n, _ in program.inputs})
    assert words in info.value.message and info.value.pos.line == line


def test_exponential_noise_without_input_in_its_mean_is_admitted():
    program = parse_program("input q: real\noutput out: real\noutput b: bool\nx: real\nx <- ExpNoise(eps, 0)\n"
                            "out <- Lap(eps, q)\nb <- x > out\n", "exp_free.dip")
    assert bound_of(program, "one-position") == 1


def test_input_only_comparison_splits_the_box_unless_constant_on_it():
    text = "input q: real\noutput out: real\nb: bool\nb <- q > 1/2\nif b then\n out <- Lap(eps, q)\nelse\n out <- Lap(eps, 0)\nend\n"
    program = parse_program(text, "jump.dip")
    paths, cells = path_draws(program, {"q": (F(0), F(1))})
    assert [p.line for p in cells] == [4] and len(paths) == 2
    paths, cells = path_draws(program, {"q": (F(1), F(2))})
    assert cells == []


# --------------------------------------------------------------------------- random straight-line programs


def random_program(rng: random.Random) -> str:
    lines = ["input q: real[2]", "output out: real", "output b: bool", "x: real[3]"]
    for i in range(1, 4):
        terms = [f"{rng.choice([-1, 1, 2])}*q[{j}]" for j in (1, 2) if rng.random() < 0.6]
        terms += [f"{rng.choice([-1, 1])}*x[{j}]" for j in range(1, i) if rng.random() < 0.4]
        mean = " + ".join(terms) or "0"
        lines.append(f"x[{i}] <- Lap({rng.choice(['eps', 'eps/2', '2*eps'])}, {mean})")
    lines.append(f"out <- x[{rng.randint(1, 3)}] + {rng.choice([0, 1])}*x[{rng.randint(1, 3)}]")
    lines.append(f"b <- x[{rng.randint(1, 3)}] > x[{rng.randint(1, 3)}] + 1/2")
    return "\n".join(lines) + "\n"


def test_random_programs_never_exceed_the_bound_at_lattice_pairs():
    rng = random.Random(38)
    points = [{"q[1]": a, "q[2]": b} for a in (F(0), F(1, 2), F(1)) for b in (F(0), F(1))]
    checked = 0
    for n in range(8):
        program = parse_program(random_program(rng), f"random{n}.dip")
        kind = rng.choice(["l1", "one-position"])
        k = bound_of(program, kind, box=(F(0), F(1)))
        pairs = list(neighbours(["q[1]", "q[2]"], kind, points))
        for u, v in rng.sample(pairs, min(3, len(pairs))):
            worst_ratio(program, u, v, k, events=intervals((F(0), F(1))))
            checked += 1
    assert checked >= 20


def _arb(x: F) -> flint.arb:
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


# --------------------------------------------------------------------------- the box decision


def box_claim(tmp_path, program: str, params: str, adjacency: str, extra: str = "") -> Path:
    path = tmp_path / "claim.toml"
    path.write_text(f'[program]\npath = "{ROOT / "programs" / program}"\nparams = {{ {params} }}\n\n[privacy]\n'
                    f'adjacency = "{adjacency}"\nbound = 1\nbudget = "eps"\n{extra}\n[privacy.inputs]\n'
                    'box = { q = [0, 2] }\n')
    return path


def test_box_decision_names_the_density_ratio_method(tmp_path):
    import json

    from conftest import run_main
    claim = box_claim(tmp_path, "laplace_histogram.dip", "m = 4, r = 1", "l1",
                      'events = { out = ["(-inf, 0]", "(0, inf)"] }')
    code, out, _ = run_main(["privacy", claim])
    assert code == 0 and "VERIFIED" in out and "by the density-ratio bound: loss <= eps" in out
    code, out, _ = run_main(["privacy", claim, "--json"])
    got = json.loads(out)
    assert code == 0 and got["method"] == "density-ratio bound: loss <= eps" and got["density_ratio"]["k"] == "1"


def test_box_twin_at_rate_two_is_not_verified(tmp_path):
    from conftest import run_main
    claim = box_claim(tmp_path, "laplace_histogram.dip", "m = 2, r = 2", "l1",
                      'events = { out = ["(-inf, 0]", "(0, inf)"] }')
    code, out, _ = run_main(["privacy", claim])
    # the bound (2*eps) proves nothing; the exact search refutes the claim on the box
    assert code == 1 and "\nREFUTED" in out and "at most e^(2*eps) between a pair" in out
