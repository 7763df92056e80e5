"""Box privacy claims (`[privacy.inputs] box`, privacy/dp/box.py): verdicts against the
literature and against the exact per-point check, the refusals of bad input, and the
coupling bound at one m against the every-m bound and the exact engine."""
from __future__ import annotations

import dataclasses
import functools
import json
import random
from fractions import Fraction as F

import pytest

from conftest import PROGRAMS, THEORIES, run_main
from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.privacy.dp.coupling import coupling_for
from dipc_plus.privacy.dp.box import (METHOD_BOUND, METHOD_SEARCH, REFUTED, UNDECIDED, VERIFIED,
                                      decide_box_privacy, lattice, lattice_claim, lattice_size)
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.privacy.loss.tight import privacy_loss
from dipc_plus.privacy.online.bound import coupling_bound
from dipc_plus.privacy.online.recognise import recognise
from dipc_plus.privacy.online.shape import online_shape

BOX_THEORIES = sorted(THEORIES.glob("*_privacy_box.toml"))


def box(name: str):
    return load_privacy_claim(str(THEORIES / name))


@functools.lru_cache(maxsize=None)
def decided(name: str):
    """The box decision of a shipped claim, once per test run (two tests read it)."""
    return decide_box_privacy(box(name))


def write_claim(tmp_path, program_text: str, privacy: str, inputs: str, name: str = "c.toml"):
    program = tmp_path / "p.dip"
    program.write_text(program_text)
    path = tmp_path / name
    path.write_text(f'[program]\npath = "{program}"\n\n[privacy]\n{privacy}\n\n[privacy.inputs]\n{inputs}\n')
    return path


def laplace_claim(tmp_path, privacy: str, inputs: str = "box = { q = [-1, 1] }", name: str = "c.toml"):
    program = PROGRAMS / "laplace.dip"
    path = tmp_path / name
    path.write_text(f'[program]\npath = "{program}"\nparams = {{ k = 1, sens = 1 }}\n\n[privacy]\n{privacy}\n'
                    'events = { out = ["(-inf, -1]", "(-1, 0]", "(0, 1]", "(1, 2]", "(2, inf)"] }\n\n'
                    f'[privacy.inputs]\n{inputs}\n')
    return path


# --------------------------------------------------------------------------- known answers


@pytest.mark.parametrize("name, verdict, method", [
    ("laplace_privacy_box.toml", VERIFIED, METHOD_BOUND),          # Dwork et al. 2006: eps-DP
    ("svt_lyu_alg1_privacy_box.toml", VERIFIED, METHOD_BOUND),     # Lyu et al. 2017, Alg. 1: eps-DP
    ("svt_lyu_alg4_privacy_box.toml", REFUTED, METHOD_SEARCH),     # Alg. 4 claimed eps: not eps-DP
    ("svt_lyu_alg4_tight_privacy_box.toml", VERIFIED, METHOD_BOUND),   # Alg. 4: (1+6c)/4*eps-DP
])
def test_shipped_box_claims_match_the_literature(name, verdict, method):
    res = decided(name)
    assert (res.verdict, res.method) == (verdict, method)
    if verdict == VERIFIED:
        assert res.coupling.bound <= res.claim.budget.k and res.losses
    else:
        cex = res.counterexample
        assert cex is not None
        bounds = res.claim.box_bounds
        for u in (cex.input, cex.neighbour):   # a pair of the box, at distance <= B
            assert all(bounds[n][0] <= u[n] <= bounds[n][1] for n in bounds)
        assert max(abs(cex.input[n] - cex.neighbour[n]) for n in bounds) <= res.claim.adjacency.bound


def test_the_bound_at_one_m_against_the_literature_and_the_every_m_bound():
    """Lyu et al.'s constants: Alg. 1 is eps-DP, Alg. 4 (1+6c)/4*eps-DP; at one m the game
    is at most the every-m value and, at m = 3, Alg. 1 pays 3 reads of rate 1/4 (mode Z)."""
    for name, every_m, at_3 in (("svt_lyu_alg1_privacy.toml", F(1), F(3, 4)),
                                ("svt_lyu_alg4_privacy.toml", F(7, 4), F(7, 4))):
        c = box(name)
        auto = recognise(online_shape(c.program.source, dict(c.program.params)))
        assert coupling_bound(auto).d == every_m
        values = [coupling_bound(auto, m).d for m in range(0, 8)]
        assert values[0] == 0 and values[3] == at_3
        assert values == sorted(values) and all(v <= every_m for v in values)
        assert values[-1] == every_m          # reached: the least fixpoint is their sup
    lap = box("laplace_privacy_box.toml")
    auto = recognise(online_shape(lap.program.source, dict(lap.program.params)))
    assert coupling_bound(auto).d is None     # a released noisy value per iteration: no constant for every k
    assert [coupling_bound(auto, k).d for k in range(4)] == [0, 1, 2, 3]   # k*eps at k outputs


def test_verified_box_holds_at_off_grid_points():
    """The coupling verdict is about every real input: the exact check at random rational
    pairs of the box (not on its integer lattice) agrees, and so does the exact loss."""
    rng = random.Random(28)
    claim = box("svt_lyu_alg4_tight_privacy_box.toml")
    names = list(claim.box_bounds)
    for _ in range(2):      # a pair per claim: off-grid inputs cost seconds per pair
        u = {n: F(rng.randint(-3, 3), 3) for n in names}
        w = {n: min(F(1), max(F(-1), u[n] + F(rng.randint(-3, 3), 3))) for n in names}
        assert u != w and any(x.denominator > 1 for x in (*u.values(), *w.values()))
        listed = dataclasses.replace(claim, explicit_points=[u, w], grid=None, inputs_kind="list")
        r = check_dp(listed)
        assert r.verified and r.pairs >= 1        # the pair (in each order: its inputs are neighbours)
        loss = privacy_loss(listed)
        assert loss.infinite is None and (loss.sup is None or loss.sup.upper() <= F(7, 4))
    lap = box("laplace_privacy_box.toml")
    fine = lattice_claim(lap, F(1, 4))        # 9 points of [-1, 1]
    assert fine.npoints == 9 and check_dp(fine).verified


def test_refuted_between_the_grid_points(tmp_path):
    """Neighbours at distance 1/2: the integer points have no pair, the lattice of step 1/2 has,
    and the Laplace mechanism pays eps/2 there, more than the claimed eps/4."""
    path = laplace_claim(tmp_path, 'adjacency = "linf"\nbound = "1/2"\nbudget = "1/4*eps"')
    res = decide_box_privacy(load_privacy_claim(str(path)))
    assert res.verdict == REFUTED
    assert [s.step for s in res.searched] == [F(1), F(1, 2)] and res.searched[0].pairs == 0
    cex = res.counterexample
    assert {cex.input["q[1]"].denominator, cex.neighbour["q[1]"].denominator} & {2}
    code, out, _ = run_main(["privacy", path, "--json"])
    data = json.loads(out)
    assert code == 1 and data["verdict"] == "refuted" and data["scope"]["kind"] == "box"
    assert data["method"] == METHOD_SEARCH and "counterexample" in data


def test_outside_the_online_class_the_recognisers_reason_is_kept_and_the_pair_bnb_proves_it(tmp_path):
    # private (o is the sign of the noise: its law does not move), but the comparison reads the input
    # beside a draw: no coupling bound applies; the pair branch-and-bound (issue 38, method 3) proves it
    path = write_claim(tmp_path, "input x: real\noutput o: bool\nr <- Lap(eps, x)\no <- r >= x\n",
                       'adjacency = "linf"\nbudget = "eps"', "box = { x = [-1, 1] }")
    res = decide_box_privacy(load_privacy_claim(str(path)))
    assert not res.coupling.applies
    assert "not in the online class" in res.coupling.reason
    assert "exactly one input, an array q: real[m]" in res.coupling.reason
    assert [s.verdict for s in res.searched] == ["verified", "verified", "verified"]
    assert res.verdict == VERIFIED and res.method.startswith("certified branch-and-bound")
    code, out, _ = run_main(["privacy", path])
    assert code == 0 and "VERIFIED on the box x in [-1, 1] by the certified branch-and-bound" in out
    assert "online class" in out and "scope: box" in out
    import dipc_plus
    assert dipc_plus.check_privacy(path).verified is True


@pytest.mark.parametrize("privacy, why", [
    ('adjacency = "linf"\nbudget = "eps + ln(2)"', "is not k*eps"),
    ('adjacency = "hamming"\nbudget = "3*eps"', 'the adjacency is "hamming"'),
])
def test_claim_shapes_the_bound_does_not_cover(tmp_path, privacy, why):
    res = decide_box_privacy(load_privacy_claim(str(laplace_claim(tmp_path, privacy))))
    assert not res.coupling.applies and why in res.coupling.reason
    assert res.verdict == UNDECIDED       # both hold (a change of q by 2 costs 2*eps), none refuted either


@pytest.mark.parametrize("adjacency", ["l1", "one-position"])
def test_adjacencies_inside_linf_use_the_bound(tmp_path, adjacency):
    """Their pairs have |q[i] - q'[i]| <= bound at every position, the coupling's premise."""
    res = decide_box_privacy(load_privacy_claim(str(laplace_claim(tmp_path, f'adjacency = "{adjacency}"\n'
                                                                            'budget = "eps"'))))
    assert res.verdict == VERIFIED and res.method == METHOD_BOUND


def test_box_verdict_never_contradicts_the_grid_verdict():
    """Every shipped box privacy claim against the exact check of the same claim at its integer
    points, and against its shipped grid twin where the twin's grid lies in the box."""
    assert len(BOX_THEORIES) >= 4
    for path in BOX_THEORIES:
        if load_privacy_claim(str(path)).every_output_value:
            continue    # no events: against the density check, tests/test_privacy_box_values.py
        res = decided(path.name)
        claim = res.claim
        grids = [check_dp(lattice_claim(claim, F(1)))]
        twin = THEORIES / path.name.replace("_box.toml", ".toml")
        if twin.exists():
            g = load_privacy_claim(str(twin))
            inside = all(claim.box_bounds[n][0] <= v <= claim.box_bounds[n][1] for n, vs in g.grid.items() for v in vs)
            if inside and (g.budget, g.adjacency.kind, g.adjacency.bound) == \
                    (claim.budget, claim.adjacency.kind, claim.adjacency.bound):
                grids.append(check_dp(g))
        for g in grids:
            assert not (res.verdict == VERIFIED and not g.verified), path.name
            assert not (not g.verified and res.verdict != REFUTED), path.name


def test_lattice_points():
    assert lattice(F(-1), F(1), F(1, 2)) == [F(-1), F(-1, 2), F(0), F(1, 2), F(1)]
    assert lattice(F(1, 3), F(2, 3), F(1)) == [F(1, 3), F(2, 3)]   # no integer inside: the ends
    assert lattice(F(0), F(0), F(1, 4)) == [F(0)]
    assert lattice(F(-1), F(10**9), F(1), 3) == [F(-1), F(0), F(1)]
    for lo, hi, step in ((F(-5, 2), F(7, 3), F(1)), (F(-1, 3), F(1, 2), F(1, 4)), (F(0), F(4), F(1, 2))):
        assert lattice_size(lo, hi, step) == len(lattice(lo, hi, step))
    assert lattice_size(F(0), F(10**12), F(1, 4)) == 4 * 10**12 + 1


def test_huge_boxes_build_no_huge_lattice(tmp_path):
    """A box with 10^9 integer values per input: the bound's check takes the smallest values, the
    search skips the lattices it cannot afford (undecided, saying so)."""
    res = decide_box_privacy(load_privacy_claim(str(alg1_claim(tmp_path, "box = { q = [-1, 1000000000] }"))))
    assert res.verdict == VERIFIED and "3 smallest values" in res.losses[0][0]
    text = (THEORIES / "svt_lyu_alg4_privacy_box.toml").read_text().replace("[0, 1]", "[0, 1000000000]")
    path = tmp_path / "alg4.toml"
    path.write_text(text.replace("../programs/", f"{PROGRAMS}/"))
    res = decide_box_privacy(load_privacy_claim(str(path)))
    assert res.verdict == UNDECIDED and [s.verdict for s in res.searched] == ["skipped"]
    assert "not searched" in res.undecided_reasons()[-1]


def test_json_of_a_verified_box():
    code, out, _ = run_main(["privacy", THEORIES / "laplace_privacy_box.toml", "--json"])
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "verified" and data["method"] == METHOD_BOUND
    assert data["scope"]["kind"] == "box" and data["scope"]["inputs_detail"] == "q[1] in [-1, 1]"
    assert data["coupling"]["d"] == 1 or data["coupling"]["d"] == "1"
    assert data["losses"][0]["sup_loss_over_eps"] == "1"


# --------------------------------------------------------------------------- bad input


ALG1 = PROGRAMS / "svt_lyu_alg1.dip"


def alg1_claim(tmp_path, inputs: str, extra: str = ""):
    path = tmp_path / "a.toml"
    path.write_text(f'[program]\npath = "{ALG1}"\nparams = {{ m = 3 }}\n\n[privacy]\nadjacency = "linf"\n'
                    f'budget = "eps"\n{extra}\n[privacy.inputs]\n{inputs}\n')
    return path


@pytest.mark.parametrize("inputs, extra, message, hint", [
    ("box = { q = [1, -1] }", "", "the range [1, -1] is empty (low > high)", "low <= high"),
    ('box = { q = [-1, "inf"] }', "", "the bound inf is infinite; a box is bounded", "finite rational bounds"),
    ("box = { q = [-1, 1] }\ngrid = { q = [-1, 1] }", "", "give exactly one of 'grid', 'list' and 'box' "
     "(this table has grid and box)", "one claim per kind of inputs"),
    ("box = { q = [-1, 1] }\nlist = [ { q = [0, 0, 0] } ]", "", "(this table has list and box)", "box ="),
    ('box = { q = [-1, 1] }\nstep = "1/2"', "", "step only applies to a grid", "remove it"),
    ("box = { r = [-1, 1] }", "", "'r' is not an input of svt_lyu_alg1", "its inputs are: q"),
    ("box = { q = [-1, 1] }", 'length = "every"\n', "a box claim is decided at its own m", 'remove length'),
])
def test_bad_box_input_exit_2(tmp_path, inputs, extra, message, hint):
    path = alg1_claim(tmp_path, inputs, extra)
    code, out, err = run_main(["privacy", path])
    assert code == 2 and "Traceback" not in err, err
    assert message in err and hint in err and str(path) in err
    assert f"{path}:" in err and any(ch.isdigit() for ch in err.split(f"{path}:")[1][:3])   # a line number


def test_box_on_a_finite_input(tmp_path):
    path = write_claim(tmp_path, "input b: bool\noutput o: bool\no <- b\n", 'adjacency = "hamming"\nbudget = "eps"',
                       "box = { b = [0, 1] }")
    code, _, err = run_main(["privacy", path])
    assert code == 2 and "'b' is not a real input (it is Boolean): a box covers real inputs only" in err
    assert f"{path}:9:" in err and "grid" in err            # the line of the box


def test_box_with_a_pufferfish_claim(tmp_path):
    path = tmp_path / "pf.toml"
    src = (THEORIES / "truncated_geometric_count_pufferfish.toml")
    text = src.read_text().replace('"../programs/', f'"{PROGRAMS}/')
    path.write_text(text + "\n[privacy.inputs]\nbox = { q = [-1, 1] }\n")
    code, _, err = run_main(["privacy", path])
    assert code == 2 and "a box of inputs is for a differential-privacy claim" in err
    assert f"{path}:" in err and "Traceback" not in err


def test_box_on_real_outputs_without_events_is_read(tmp_path):
    """No longer refused: decided on every output value (tests/test_privacy_box_values.py)."""
    path = write_claim(tmp_path, "input x: real\noutput o: bool, y: real\nr <- Lap(eps, x)\no <- r >= 0\ny <- r\n",
                       'adjacency = "linf"\nbudget = "eps"', "box = { x = [-1, 1] }")
    claim = load_privacy_claim(str(path))
    assert claim.inputs_kind == "box" and claim.every_output_value


@pytest.mark.parametrize("flag", [["--every-length"], ["--shard", "1/2", "--json"]])
def test_flags_a_box_claim_does_not_take(flag):
    code, out, err = run_main(["privacy", THEORIES / "laplace_privacy_box.toml", *flag])
    assert code == 2 and "does not apply to a box claim" in err + out and "Traceback" not in err


def test_other_commands_refuse_a_box_claim():
    code, _, err = run_main(["privacy-loss", THEORIES / "laplace_privacy_box.toml"])
    assert code == 2 and "a box claim has no finite list of inputs" in err and "`dipc privacy` decides" in err


def test_box_read_directly(tmp_path):
    with pytest.raises(UserError, match="empty"):
        load_privacy_claim(str(alg1_claim(tmp_path, "box = { q = [2, 1] }")))
    c = load_privacy_claim(str(alg1_claim(tmp_path, 'box = { q = ["-1/2", 1] }')))
    assert c.inputs_kind == "box" and c.box_bounds["q[2]"] == (F(-1, 2), F(1))
    assert "every real input of the box q[1..3] each in [-1/2, 1]" in c.describe()
    assert coupling_for(c).applies


def test_notebook_api_decides_a_box_claim():
    import dipc_plus
    r = dipc_plus.check_privacy(THEORIES / "svt_lyu_alg4_privacy_box.toml")
    assert r.verdict == "refuted" and r.counterexample is not None
    assert r.to_json()["scope"]["kind"] == "box" and "REFUTED on the box" in r.text()
    with pytest.raises(UserError, match="does not apply to a box claim"):
        dipc_plus.check_privacy(THEORIES / "laplace_privacy_box.toml", every_length=True)


def test_a_wrong_bound_is_an_internal_error_not_a_verdict(monkeypatch):
    """The cross-check can fail: with d forced to 1/8 (the exact loss of Alg. 1 on the integer
    points is 3/4) the command stops with exit 3 and prints no verdict."""
    from dipc_plus.privacy.dp import coupling
    from dipc_plus.privacy.online.bound import Bound
    monkeypatch.setattr(coupling, "coupling_bound", lambda auto, m: Bound(F(1, 8), m, {}))
    code, out, err = run_main(["privacy", THEORIES / "svt_lyu_alg1_privacy_box.toml"])
    assert code == 3 and "VERIFIED" not in out and "REFUTED" not in out


def test_large_boxes_check_the_bound_on_two_block_points(monkeypatch):
    """Above CHECK_POINTS integer points the bound is checked on the two-block ones (9(m + 1))."""
    from dipc_plus.privacy.dp import box as box_module
    monkeypatch.setattr(box_module, "CHECK_POINTS", 10)
    res = decide_box_privacy(box("svt_lyu_alg1_privacy_box.toml"))
    assert res.verdict == VERIFIED
    (what, text, pairs), = res.losses
    assert "two-block" in what and F(text) <= F(3, 4) and 0 < pairs < 316
