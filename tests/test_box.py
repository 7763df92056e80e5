"""Box accuracy claims (issue 28): reading `[accuracy.inputs] box`, the corner reduction's
verdicts, their agreement with grid verdicts at grid points, and every refusal."""
from __future__ import annotations

import dataclasses
import json
import math
import random
from fractions import Fraction

import pytest
from conftest import PROGRAMS, THEORIES, lap_cdf, lap_sf, run_main

from dipc_plus.accuracy.box import UNDECIDED, VERIFIED, claim_checks, decide_box
from dipc_plus.accuracy.checker import AccuracyChecker
from dipc_plus.accuracy.report import REFUTED
from dipc_plus.accuracy.monotone import NotReducible
from dipc_plus.claims.claim_file import load_claim
from dipc_plus.claims.formula import Where, parse as parse_formula
from dipc_plus.errors import UserError
from dipc_plus.semantics.distribution import certified, output_distribution

F = Fraction

SPARSE_CLAIM = """\
[program]
path = "{program}"
params = {{ m = 3, c = 1, T = 0 }}

[accuracy]
input_distance = "{d}"
output_distance = "zero-one"
alpha = "dd"
gamma = 0
beta = "2*m*c*exp(-alpha*eps/(8*c))"
{extra}
[accuracy.inputs]
{inputs}
"""


def sparse_claim(tmp_path, inputs, d="linf", extra="", program=PROGRAMS / "sparse.dip", name="c.toml"):
    path = tmp_path / name
    path.write_text(SPARSE_CLAIM.format(program=program, inputs=inputs, d=d, extra=extra))
    return path


def one_input_claim(tmp_path, body: str, beta: str, box="q = [-1, 1]", alpha='"dd"', eps="(0, inf)",
                    output_distance="zero-one", decl="input q: real\noutput b: bool\n"):
    program = tmp_path / "p.dip"
    program.write_text(decl + body)
    claim = tmp_path / "p.toml"
    claim.write_text(f'[program]\npath = "{program}"\n\n[accuracy]\ninput_distance = "linf"\n'
                     f'output_distance = "{output_distance}"\nalpha = {alpha}\ngamma = 0\nbeta = "{beta}"\n'
                     f'eps = "{eps}"\n\n[accuracy.inputs]\nbox = {{ {box} }}\n')
    return claim


# --------------------------------------------------------------------------- reading


def test_box_is_read_exactly(tmp_path):
    claim = load_claim(str(sparse_claim(tmp_path, 'box = { q = ["-1/2", 0.75] }'))).accuracy
    assert claim.inputs_kind == "box"
    assert claim.points.bounds == {f"q[{i}]": (F(-1, 2), F(3, 4)) for i in (1, 2, 3)}
    assert "every real input of the box q[1..3] each in [-1/2, 3/4]" in claim.describe()
    with pytest.raises(UserError, match="no finite list of inputs"):
        list(claim.points)


@pytest.mark.parametrize("inputs, message, hint", [
    ("box = { q = [1, -1] }", "empty (low > high)", "low <= high"),
    ("box = { q = [-1, inf] }", "infinite", "finite rational bounds"),
    ('box = { q = ["-inf", 1] }', "infinite", "finite rational bounds"),
    ("box = { q = [-1] }", "a box range is [low, high]", "q = [-1, 1]"),
    ("box = { z = [-1, 1] }", "'z' is not an input", "its inputs are: q"),
    ("box = { q = [-1, 1] }\ngrid = { q = [-1, 1] }", "exactly one of 'grid', 'list' and 'box'", "one claim per"),
    ("box = { q = [-1, 1] }\nstep = \"1/2\"", "step only applies to a grid", "remove it"),
    ("box = 3", "non-empty table", "box = { q = [-1, 1] }"),
])
def test_bad_boxes_are_located_user_errors(tmp_path, inputs, message, hint):
    path = sparse_claim(tmp_path, inputs)
    with pytest.raises(UserError) as info:
        load_claim(str(path))
    err = info.value
    assert message in err.message and hint in err.hint
    assert err.file == str(path) and err.line is not None
    code, out, errtext = run_main(["accuracy", path])
    assert code == 2 and "Traceback" not in errtext and message in errtext


def test_box_on_finite_inputs_refused(tmp_path):
    program = tmp_path / "f.dip"
    program.write_text("input q: real\ninput h: bool\noutput b: bool\nr <- Lap(eps, q)\nb <- r >= 0\n")
    for box, message in (("h = [0, 1]", "'h' is not a real input (it is Boolean)"),
                         ("q = [0, 1]", "the finite input 'h'")):
        claim = sparse_claim(tmp_path, f"box = {{ {box} }}", program=program).read_text()
        claim = claim.replace("params = { m = 3, c = 1, T = 0 }\n", "").replace("2*m*c*", "")
        path = tmp_path / "f.toml"
        path.write_text(claim)
        with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
            load_claim(str(path))
        assert info.value.line is not None and info.value.hint


def test_box_needs_every_real_input(tmp_path):
    program = tmp_path / "two.dip"
    program.write_text("input a: real, z: real\noutput b: bool\nr <- Lap(eps, a)\nb <- r >= z\n")
    path = tmp_path / "two.toml"
    path.write_text(SPARSE_CLAIM.format(program=program, inputs="box = { a = [0, 1] }", d="linf", extra="")
                    .replace("params = { m = 3, c = 1, T = 0 }\n", "").replace("2*m*c*", ""))
    with pytest.raises(UserError, match="no range for the real input 'z'"):
        load_claim(str(path))


def test_box_with_grid_dd_or_table_refused(tmp_path):
    with pytest.raises(UserError, match="dd over the reals") as info:
        load_claim(str(sparse_claim(tmp_path, "box = { q = [-1, 1] }", extra='dd_over = "grid"')))
    assert info.value.line is not None


# --------------------------------------------------------------------------- verdicts


def box_and_grid(name: str, m: int, c: int, kappa: int = 1):
    sets = {"m": F(m), "c": F(c)}
    box = load_claim(str(THEORIES / f"{name}_box.toml"), sets).accuracy
    grid = load_claim(str(THEORIES / f"{name}.toml"), sets).accuracy
    return decide_box(box, kappa), AccuracyChecker(grid).run(kappa=kappa), box


@pytest.mark.parametrize("name, m, c, kappa", [
    ("sparse", 3, 1, 1), ("sparse", 3, 2, 1), ("sparse_variant", 3, 1, 1),
    ("sparse", 3, 1, 7), ("sparse", 3, 2, 12), ("sparse_variant", 3, 2, 9)])
def test_box_never_contradicts_the_grid(name, m, c, kappa):
    """The grid's points are points of the box (the corners of the grid): a box verdict
    'verified' needs the grid verified, a refuted grid needs a refuted box."""
    box_result, grid_result, box = box_and_grid(name, m, c, kappa)
    assert box_result.verdict != UNDECIDED
    assert box.points.bounds == {f"q[{i}]": (F(-1), F(1)) for i in range(1, m + 1)}
    if box_result.verdict == "verified":
        assert grid_result.verdict == "verified"
    if grid_result.verdict == REFUTED:
        assert box_result.verdict == REFUTED
    if box_result.verdict == REFUTED:   # a point of the box, refuted again by the per-point path
        cex = box_result.counterexample
        assert all(-1 <= v <= 1 for v in cex.input.values())
        again = AccuracyChecker(box).check_input(cex.input, kappa)
        assert any(r.verdict == REFUTED for r in again)


def test_sparse_kappa_seven_is_refuted_on_the_box():
    box_result, grid_result, _ = box_and_grid("sparse", 3, 1, 7)
    assert box_result.verdict == grid_result.verdict == REFUTED


def test_threshold_half_grid_verified_box_refuted_off_grid():
    grid = load_claim(str(THEORIES / "threshold_half.toml")).accuracy
    assert AccuracyChecker(grid).run().verdict == "verified"
    box = load_claim(str(THEORIES / "threshold_half_box.toml")).accuracy
    result = decide_box(box)
    assert result.verdict == REFUTED
    cex = result.counterexample
    q = cex.input["q"]
    assert q.denominator != 1 and -2 <= q <= 2          # off the integer grid, inside the box
    assert cex.eps >= 1                                  # inside the claim's eps interval
    # independent: P[error] from the Laplace oracle, beta at dd = |q - 1/2| by hand
    eps, dd = float(cex.eps), abs(float(q) - 0.5)
    p_err = lap_cdf(0.5, float(q), eps) if q >= F(1, 2) else lap_sf(0.5, float(q), eps)
    assert p_err > 0.4 * math.exp(-dd * eps / 4) + 1e-9
    assert any(r.verdict == REFUTED for r in AccuracyChecker(box).check_input(cex.input))


def test_corner_scaling_identity_against_the_per_point_engine():
    """The homogeneous reduction rests on P_err(eps, v(d)) = P_err(eps*d, v(1)); check it with
    the per-point engine at v(1/3) and v(1) (Sparse c = 1 m = 3, region bot, bot, top)."""
    program = load_claim(str(THEORIES / "sparse_box.toml"), {"m": F(3), "c": F(1)}).program
    w = {"out[1]": "bot", "out[2]": "bot", "out[3]": "top"}

    def p(d):
        u = {"q[1]": -d, "q[2]": -d, "q[3]": d}
        return output_distribution(program, u).within(w, F(0))
    near, unit = p(F(1, 3)), p(F(1))
    for eps in (F(1, 2), F(3), F(7, 5)):
        a, b = certified(near, eps, 200), certified(unit, eps / 3, 200)
        diff = a - b
        assert diff.contains(0) and diff.rad() < 1e-50
        assert not certified(unit, eps, 200).overlaps(a)     # the two inputs do differ


def test_box_verified_means_verified_at_off_grid_points():
    """Sparse c = 2 m = 3 is verified on the box: spot-check rational points off the grid."""
    box = load_claim(str(THEORIES / "sparse_box.toml"), {"m": F(3), "c": F(2)}).accuracy
    assert decide_box(box).verdict == "verified"
    checker = AccuracyChecker(box)
    rng = random.Random(28)
    for _ in range(6):
        u = {f"q[{i}]": F(rng.randint(-4, 3), 4) + F(1, 8) for i in (1, 2, 3)}
        assert all(r.verdict != REFUTED for r in checker.check_input(u))


def test_fixed_and_moving_corner_pieces(tmp_path):
    """A facet outside the box: v(d) is the box end -1 for d <= 4 (one sentence at d = 4), then
    moves with d.  P[error] = e^(-eps*dd)/2 = beta exactly: verified by both methods."""
    claim = one_input_claim(tmp_path, "r <- Lap(eps, q)\nb <- r >= -5\n", "exp(-alpha*eps)/2", box="q = [-1, 1]")
    result = decide_box(load_claim(str(claim)).accuracy)
    assert result.verdict == "verified"
    methods = {r.method for r in result.regions}
    assert "corner (fixed), corner (homogeneous)" in methods and "not applicable" in {r.verdict for r in result.regions}
    # the same with a beta one half smaller fails, at the box end q = -1 (dd = 4)
    claim = one_input_claim(tmp_path, "r <- Lap(eps, q)\nb <- r >= -5\n", "exp(-alpha*eps)/4")
    result = decide_box(load_claim(str(claim)).accuracy)
    assert result.verdict == REFUTED and result.counterexample.input == {"q": F(-1)}


def test_two_variable_piece_is_decided_or_undecided_with_its_region(tmp_path):
    """a moves with d, z stays at the box end -1 (its facet -5 is outside): not homogeneous.  With
    beta = 2 e^(-alpha eps/2) the (d, eps) sentence is proved by the wedge bound; with a negative
    eps*e^(-4 eps) term no exact route covers the tail eps >= 8, which is reported undecided."""
    program = tmp_path / "u.dip"
    program.write_text("input a: real, z: real\noutput x: bool, y: bool\nr <- Lap(eps, a)\nx <- r >= 0\n"
                       "s <- Lap(eps, z)\ny <- s >= -5\n")
    path = tmp_path / "u.toml"

    def write(beta):
        path.write_text(f'[program]\npath = "{program}"\n[accuracy]\ninput_distance = "linf"\n'
                        f'output_distance = "zero-one"\nalpha = "dd"\ngamma = 0\nbeta = "{beta}"\n'
                        '[accuracy.inputs]\nbox = { a = [-1, 1], z = [-1, 1] }\n')
    write("2*exp(-alpha*eps/2)")
    result = decide_box(load_claim(str(path)).accuracy)
    assert result.verdict == "verified"
    assert {r.method for r in result.regions if r.verdict == "verified"} == {"corner (two variables: wedge bound "
                                                                            "(exact))"}
    write("2*exp(-alpha*eps/2) - eps*exp(-4*eps)/100")
    result = decide_box(load_claim(str(path)).accuracy)
    assert result.verdict == UNDECIDED
    undecided = [r for r in result.regions if r.verdict == UNDECIDED]
    assert undecided and all("(d, eps) remains" in r.reason and "eps >= 8" in r.reason for r in undecided)
    assert result.undecided_share() == F(1)      # both regions a >= 0 and a < 0, z unconstrained in the box
    code, out, _ = run_main(["accuracy", path])
    assert code == 6 and "UNDECIDED" in out and "a >= 0" in out
    code, out, _ = run_main(["accuracy", path, "--json"])
    data = json.loads(out)
    assert data["verdict"] == "undecided" and data["scope"]["kind"] == "box"
    assert {r["region"] for r in data["regions"] if r["verdict"] == "undecided"} == {"a >= 0 and z >= -5", "a < 0 and z >= -5"}


def test_numeric_alpha_closure_point(tmp_path):
    body = "r <- Lap(eps, q)\nb <- r >= 1/2\n"
    ok = one_input_claim(tmp_path, body, "exp(-eps/2)/2", alpha='"1/2"', box="q = [-2, 2]")
    assert decide_box(load_claim(str(ok)).accuracy).verdict == "verified"
    bad = one_input_claim(tmp_path, body, "exp(-eps/2)/2", alpha='"1/4"', box="q = [-2, 2]")
    result = decide_box(load_claim(str(bad)).accuracy)
    assert result.verdict == REFUTED
    dd = abs(result.counterexample.input["q"] - F(1, 2))
    assert F(1, 4) < dd < F(1, 2)


# --------------------------------------------------------------------------- refusals


def test_mixed_signs_leave_the_region_undecided(tmp_path):
    """a = (q + N >= 0), b = (N' >= q - 1): q has both signs on the paths to (a, b) = (true, true),
    whose region 0 <= q <= 1 has share 1/2 of the box (a region of share 0 would be not applicable:
    tests/test_box_regions.py)."""
    claim = one_input_claim(tmp_path, "r <- Lap(eps, q)\na <- r >= 0\ns <- Lap(eps, 0)\nb <- s >= q - 1\n",
                            "2*exp(-alpha*eps/2)", decl="input q: real\noutput a: bool, b: bool\n")
    result = decide_box(load_claim(str(claim)).accuracy)
    assert result.verdict == UNDECIDED
    assert any("check 'monotone'" in r.reason for r in result.regions)
    assert "monotone" not in dict(result.checks)


def test_region_that_is_a_half_plane_is_decided(tmp_path):
    """y = [a + N >= z]: the regions a >= z and a < z are half-planes (tests/test_box_polyhedral.py);
    P[error] = e^(-2x)/2 at dd = x/eps, so beta = e^(-x) holds."""
    program = tmp_path / "nb.dip"
    program.write_text("input a: real, z: real\noutput y: bool\nr <- Lap(eps, a)\ny <- r >= z\n")
    path = tmp_path / "nb.toml"
    path.write_text(f'[program]\npath = "{program}"\n[accuracy]\ninput_distance = "linf"\n'
                    'output_distance = "zero-one"\nalpha = "dd"\ngamma = 0\nbeta = "exp(-alpha*eps)"\n'
                    '[accuracy.inputs]\nbox = { a = [-1, 1], z = [-1, 1] }\n')
    result = decide_box(load_claim(str(path)).accuracy)
    assert result.verdict == VERIFIED
    assert "monotone along the facets" in dict(result.checks)


def test_input_distance_must_be_linf(tmp_path):
    path = sparse_claim(tmp_path, "box = { q = [-1, 1] }", d="zero-one")
    code, _, err = run_main(["accuracy", path])
    assert code == 2 and 'a box claim needs input_distance = "linf", not "zero-one"' in err
    assert ":6:" in err and "Traceback" not in err              # the line of input_distance
    grid = load_claim(str(sparse_claim(tmp_path, "grid = { q = [-1, 1] }", d="zero-one", name="g.toml")))
    box = dataclasses.replace(grid.accuracy, inputs_kind="box")  # past the reader: the decider's own check
    with pytest.raises(NotReducible, match="check 'box-region': the input distance is zero-one"):
        claim_checks(box)


def test_output_distance_and_real_outputs_refused(tmp_path):
    body = "o <- Lap(eps, q)\n"
    decl = "input q: real\noutput o: real\n"
    linf = one_input_claim(tmp_path, body, "exp(-gamma*eps)", output_distance="linf", decl=decl)
    with pytest.raises(UserError, match='a box claim needs output_distance = "zero-one" or "noisy-max", not "linf"'):
        load_claim(str(linf))
    claim = load_claim(str(one_input_claim(tmp_path, "r <- Lap(eps, q)\nb <- r >= 0\n", "exp(-alpha*eps)")))
    from dipc_plus.claims.distances import LinfOutput
    with pytest.raises(NotReducible, match="check 'output-distance'"):
        claim_checks(dataclasses.replace(claim.accuracy, output_distance=LinfOutput()))
    zero_one = one_input_claim(tmp_path, body, "exp(-alpha*eps)", decl=decl)
    with pytest.raises(NotReducible, match="check 'program-shape': the output 'o' is not finite"):
        decide_box(load_claim(str(zero_one)).accuracy)


def test_loops_refused(tmp_path):
    claim = one_input_claim(tmp_path, "var k: 0..2 = 0\nr <- Lap(eps, q)\nb <- r >= 0\nwhile k < 1 do\n"
                            "    k <- k + 1\nend\n", "exp(-alpha*eps)")
    code, _, err = run_main(["accuracy", claim])
    assert code == 2 and "check 'program-shape': a While statement" in err and "Traceback" not in err


def test_paper_convention_refused():
    code, _, err = run_main(["accuracy", THEORIES / "threshold_half_box.toml", "--paper"])
    assert code == 2 and "check 'convention'" in err


def test_beta_increasing_in_alpha_refused():
    claim = load_claim(str(THEORIES / "threshold_half_box.toml")).accuracy
    where = Where(claim.file, None, None, "accuracy.beta")
    rising = dataclasses.replace(claim, beta=parse_formula("1 - exp(-alpha*eps)", ["alpha", "gamma"], where))
    with pytest.raises(NotReducible, match="check 'beta-alpha'"):
        claim_checks(rising)


def test_box_json_names_scope_method_and_regions():
    code, out, _ = run_main(["accuracy", THEORIES / "sparse_box.toml", "--set", "m=3", "--set", "c=1", "--json"])
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "verified"
    assert data["scope"]["kind"] == "box" and data["scope"]["inputs_detail"] == "q[1..3] each in [-1, 1]"
    assert {c["name"] for c in data["checks"]} >= {"box-region", "beta-alpha", "program-shape", "monotone"}
    assert sum(F(r["share"]) for r in data["regions"]) == 1
    assert all(r["method"] == "corner (homogeneous)" for r in data["regions"])


def test_box_where_the_claim_applies_nowhere_is_vacuous(tmp_path):
    """alpha = 3 but no input of [-1, 1] is further than 3/2 from the threshold 1/2: exit 5."""
    claim = one_input_claim(tmp_path, "r <- Lap(eps, q)\nb <- r >= 1/2\n", "exp(-eps)", alpha="3")
    result = decide_box(load_claim(str(claim)).accuracy)
    assert result.verdict == "verified" and result.vacuous
    code, out, _ = run_main(["accuracy", claim])
    assert code == 5 and "vacuously" in out
    code, _, _ = run_main(["accuracy", claim, "--allow-vacuous"])
    assert code == 0


def test_proved_directions_match_the_per_point_probabilities():
    """accuracy.monotone's sign for each (output, input), against exact probabilities from the
    per-point engine at two inputs differing in that input only (Sparse c = 2, m = 3)."""
    from dipc_plus.accuracy.monotone import Monotonicity
    program = load_claim(str(THEORIES / "sparse_box.toml"), {"m": F(3), "c": F(2)}).program
    mono = Monotonicity(program)
    base = {"q[1]": F(-1, 2), "q[2]": F(1, 4), "q[3]": F(0)}
    low = output_distribution(program, base)
    seen = set()
    for j in ("q[1]", "q[2]", "q[3]"):
        high = output_distribution(program, {**base, j: base[j] + F(1, 2)})
        for w in ({"out[1]": "bot", "out[2]": "top", "out[3]": "bot"},
                  {"out[1]": "top", "out[2]": "top", "out[3]": "none"},
                  {"out[1]": "bot", "out[2]": "bot", "out[3]": "bot"}):
            k = mono.output(w).direction(j)
            diff = certified(high.within(w, F(0)), F(1), 200) - certified(low.within(w, F(0)), F(1), 200)
            if k == 0:
                assert diff.contains(0) and diff.rad() < 1e-40
            else:
                assert (diff > 0) if k > 0 else (diff < 0), (w, j, k)
            seen.add(k)
    assert seen == {-1, 0, 1}
