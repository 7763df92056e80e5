"""The symmetry proof (privacy/online/symmetry.py) and the grid check over output orbits
(privacy/dp/orbit_pairs.py) against the exact engine at every input.

The orbit path computes output tables at one input per (output, orbit key) and reads P_u[o] at
every other input through the proof, so a hole in the proof shows as a looked-up closed form that
differs from the one the engine computes at u.  Here, on small programs drawn in and just outside
the online class (c = 1, 2; T varied; the threshold drawn again; released reads; counters; exits
or none; guards written several ways), every looked-up P_u[o] is compared with the per-point
distribution of the chain (no shortcuts) at every input of the grid, and the whole check with
the per-pair walk (DIPC_CLASSES=off): verdict, counts and counterexample identical."""
from __future__ import annotations

import itertools
import os
import random
from dataclasses import replace
from fractions import Fraction as F

import pytest

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.errors import UserError
from dipc_plus.exact.expoly import ExpFrac
from dipc_plus.frontend.load import parse_program
from dipc_plus.privacy.dp.check import check_dp
from dipc_plus.privacy.dp.orbit_pairs import Orbits, orbit_tables, pair_multisets
from dipc_plus.privacy.dp.plan import plan
from dipc_plus.privacy.dp.support_pairs import refusal, supports_of
from dipc_plus.privacy.online.symmetry import Exchangeability
from dipc_plus.semantics.distribution import output_distribution
from conftest import PROGRAMS
from online_programs import RATES, Spec, claim_text, render

GRID = (-1, 0, 1)          # the claim's grid q = [-1, 1] (step 1)


def exact(program, u: tuple) -> dict:
    """{output: P} at q = u from the per-point chain without shortcuts (independent of the proof)."""
    flat = {f"q[{k + 1}]": F(v) for k, v in enumerate(u)}
    return {o: ExpFrac.of(p) for o, p in output_distribution(program, flat, shortcuts=False).marginal().items()}


def svt(c: int, m: int, resample: bool = False, release: bool = False) -> str:
    """Lyu et al. Alg. 1 with cutoff c, optionally drawing the threshold again after each top or
    releasing the compared read."""
    return "\n".join([
        f"param m = {m}", f"param c = {c}", "type Ans = {none, bot, top}", "input q: real[m]",
        "output out: Ans[m]", *(["output val: real[m]"] if release else []), "var count: 0..c = 0",
        "for i = 1 to m do", "    out[i] <- none", *(["    val[i] <- 0"] if release else []), "end",
        "rT <- Lap(eps/2, 0)", "for i = 1 to m do", "    r <- Lap(eps/4, q[i])", "    if r >= rT then",
        "        out[i] <- top", *(["        val[i] <- r"] if release else []),
        *(["        rT <- Lap(eps/2, 0)"] if resample else []),
        "        count <- count + 1", "        if count >= c then", "            exit", "        end",
        "    else", "        out[i] <- bot", "    end", "end", ""])


# --------------------------------------------------------------------------- the proof itself


def test_svt_c2_groups_are_the_bots_and_the_tops_and_they_are_exchangeable():
    program = parse_program(svt(2, 4), "svt_c2.dip")
    proof = Exchangeability(program)
    o = ("top", "bot", "bot", "top")
    groups = proof.of(o)
    assert groups.groups == ((0, 3), (1, 2)) and groups.unread == ()
    u = (F(1), F(-1), F(0), F(0))
    base = exact(program, u)[o]
    assert exact(program, (u[3], u[1], u[2], u[0]))[o] == base            # tops swapped
    assert exact(program, (u[0], u[2], u[1], u[3]))[o] == base            # bots swapped
    assert exact(program, (u[1], u[0], u[2], u[3]))[o] != base            # a top with a bot: not exchangeable


def test_a_threshold_drawn_again_splits_the_groups_and_they_really_differ():
    program = parse_program(svt(2, 4, resample=True), "svt_resample.dip")
    o = ("bot", "top", "bot", "top")
    groups = Exchangeability(program).of(o)
    assert groups.groups == ((0,), (1,), (2,), (3,))   # bots (and tops) on both sides of the new draw
    u = (F(-1), F(1), F(1), F(0))
    assert exact(program, (u[2], u[1], u[0], u[3]))[o] != exact(program, u)[o]


def test_positions_after_an_exit_are_unread_and_an_impossible_output_has_no_groups():
    proof = Exchangeability(parse_program(svt(1, 3), "svt_c1.dip"))
    assert proof.of(("bot", "top", "none")) == type(proof.of(("bot", "top", "none")))(((0,), (1,)), (2,))
    assert proof.of(("top", "bot", "none")) is None      # nothing is written after the exit
    assert proof.of(("none", "none", "none")) is None


def test_a_released_read_is_refused_with_its_place():
    with pytest.raises(UserError) as err:
        Exchangeability(parse_program(svt(1, 3, release=True), "svt_release.dip"))
    assert "no symmetry proved" in err.value.message and "releases a real value" in err.value.message
    assert "svt_release.dip:" in err.value.message   # the step's comparison, file:line


def test_a_released_gap_is_refused_with_its_place():
    """The gap r - x (in the online class since the gap variant) also ties a value to its position."""
    path = PROGRAMS / "gap_above_threshold.dip"
    with pytest.raises(UserError) as err:
        Exchangeability(parse_program(path.read_text(), str(path)))
    assert "releases a real value" in err.value.message and "outputs the gap" in err.value.message


def test_a_program_outside_the_online_class_is_refused_where_it_leaves_it():
    with pytest.raises(UserError) as err:
        Exchangeability(parse_program((PROGRAMS / "noisy_min.dip").read_text(), str(PROGRAMS / "noisy_min.dip")))
    assert err.value.file.endswith("noisy_min.dip") and err.value.line is not None


def test_pair_multisets_count_every_sequence_once():
    kinds = [(x, y) for x in range(3) for y in range(3) if abs(x - y) <= 1]   # 7 kinds: L-inf on {-1,0,1}
    for size in range(5):
        got = pair_multisets(size, kinds)
        assert sum(count for _, _, count, _ in got) == len(kinds) ** size
        by_keys: dict = {}
        for seq in itertools.product(kinds, repeat=size):   # every sequence, brute force
            key = (tuple(sorted(a for a, _ in seq)), tuple(sorted(b for _, b in seq)))
            by_keys[key] = by_keys.get(key, 0) + 1
        merged: dict = {}
        for a, b, count, _ in got:
            merged[(a, b)] = merged.get((a, b), 0) + count
        assert merged == by_keys


# --------------------------------------------------------------------------- generated programs


def draw(rng: random.Random) -> tuple[Spec, int, int]:
    """(spec, m, T): mostly in the online class, about one in five just outside it."""
    s = Spec(thr_rate=rng.choice(RATES), read_rate=rng.choice(RATES), grid=(GRID[0], GRID[-1]),
             budget=rng.choice((F(1, 2), F(1), F(1), F(3, 2), F(2))),
             op=rng.choice((">=", ">", "<", "<=")), guard=rng.choice(("if", "bool")),
             cutoff=rng.choice(("exit", "count", "count", "", "bot_exit", "both_exit")))
    if s.cutoff == "count":
        s = replace(s, c=rng.choice(("1", "2", "2")))
    r = rng.random()
    if r < 0.1:
        s = replace(s, read_rate=None)                         # a noise-free comparison
    elif r < 0.2:
        s = replace(s, read_rate_over_c=True, c="2")
    r = rng.random()
    if r < 0.12:
        s = replace(s, bot_sym="top")                          # one symbol for both outcomes
    elif r < 0.22:
        s = replace(s, bot_sym="")                             # bot leaves `none`
    if rng.random() < 0.25:
        s = replace(s, resample=rng.choice(("top", "top", "every")), resample_rate=rng.choice(RATES))
    if rng.random() < 0.2:                                     # just outside: a real release
        s = replace(s, top_release=rng.choice(("read", "noisy")))
    # m = 4 only where the per-pair walk stays short (a real release or no exit: 10-15 s there)
    short = not s.top_release and s.cutoff != ""
    return s, rng.choice((3, 3, 4) if short else (3,)), rng.choice((0, 0, 1, -1))


def write_claim(tmp_path, name: str, spec: Spec, m: int, T: int) -> str:
    prog = tmp_path / f"{name}.dip"
    prog.write_text(render(spec))
    claim = tmp_path / f"{name}.toml"
    claim.write_text(claim_text(spec, prog.name, every=False).replace("params = { m = 1 }",
                                                                       f"params = {{ m = {m}, T = {T} }}"))
    return str(claim)


def check_every_lookup(claim) -> Orbits | str:
    """The orbit store of the claim, each P_u[o] it would read compared with the exact engine at
    every input u of the grid; or why the orbit path does not apply."""
    pl = plan(claim)
    why = refusal(claim, pl, None)
    if why is not None:
        return why
    unit = pl.units[0]
    supports = supports_of(claim, unit)
    orbits = supports if isinstance(supports, str) else orbit_tables(claim, unit, supports)
    if isinstance(orbits, str):
        return orbits
    program = claim.program
    n = len(orbits.names)
    for idx in itertools.product(range(len(GRID)), repeat=n):
        table = exact(program, tuple(GRID[i] for i in idx))
        assert set(table) <= set(orbits.sup.outputs)
        for o in orbits.sup.outputs:
            assert ExpFrac.of(orbits.probability(o, idx)) == table.get(o, ExpFrac.of(0)), (o, idx)
    return orbits


def same_on_both_paths(path: str, monkeypatch):
    monkeypatch.delenv("DIPC_CLASSES", raising=False)
    shared = check_dp(load_privacy_claim(path))
    monkeypatch.setenv("DIPC_CLASSES", "off")
    walked = check_dp(load_privacy_claim(path))
    monkeypatch.delenv("DIPC_CLASSES")
    assert shared.verdict == walked.verdict
    a, b = shared.to_json(), walked.to_json()
    for key in ("seconds", "work"):
        a.pop(key, None)
        b.pop(key, None)
    assert a == b
    return shared


SEEN: dict = {}
# programs per seed: 6 every time; DIPC_LONG_GENERATOR=1 checks 40 per seed (CONTRIBUTING, Tests)
PROGRAMS_PER_SEED = 40 if os.environ.get("DIPC_LONG_GENERATOR") else 6


@pytest.mark.parametrize("seed", range(3))
def test_generated_programs_every_lookup_is_the_exact_probability(seed, tmp_path, monkeypatch):
    rng = random.Random(1000 + seed)
    seen = {"orbits": 0, "refused": 0, "failed": 0}
    for k in range(PROGRAMS_PER_SEED):
        spec, m, T = draw(rng)
        path = write_claim(tmp_path, f"g{seed}_{k}", spec, m, T)
        try:
            claim = load_privacy_claim(path)
        except UserError:
            continue
        found = check_every_lookup(claim)
        result = same_on_both_paths(path, monkeypatch)
        if isinstance(found, Orbits):
            seen["orbits"] += 1
            assert result.work["path"] == ("output orbits" if result.verified else "per pair"), result.work
            seen["failed"] += not result.verified
        else:
            seen["refused"] += 1
            assert result.work["path"] != "output orbits"
    SEEN[seed] = seen


def test_generated_programs_exercised_every_branch():
    if len(SEEN) < 3:
        pytest.skip("runs after test_generated_programs_every_lookup_is_the_exact_probability")
    total = {k: sum(s[k] for s in SEEN.values()) for k in ("orbits", "refused", "failed")}
    assert total["orbits"] >= 6 and total["refused"] >= 1 and total["failed"] >= 1, total


def test_an_output_with_too_many_ways_to_it_hands_the_check_to_the_support_path(tmp_path, monkeypatch):
    """Both outcomes write `top` and nothing exits: 2^m paths give the all-top output; past
    MAX_PATHS the proof gives up on that output and the support path checks every input."""
    import dipc_plus.privacy.online.symmetry as symmetry
    monkeypatch.setattr(symmetry, "MAX_PATHS", 4)
    spec = Spec(bot_sym="top", cutoff="", grid=(GRID[0], GRID[-1]))
    path = write_claim(tmp_path, "many_ways", spec, 3, 0)
    result = same_on_both_paths(path, monkeypatch)
    assert result.work["path"] == "output supports" and "ways through the loop" in result.work["symmetry"]
