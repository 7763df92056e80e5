"""StatDP's iSVT4 as written, releasing `out.count(False)` (programs/isvt4.dip, issue 40): the .dip
against StatDP's own Python text by Monte Carlo, and its every-length verdicts (the answers'
d = 3/2 carried to the count; the count's claim of eps refuted at m = 3 on the program as written)."""
from __future__ import annotations

import importlib.util
import json
from fractions import Fraction as F

import numpy as np

from conftest import PROGRAMS, ROOT, run_main

from dipc_plus.claims.privacy_reader import load_privacy_claim
from dipc_plus.frontend.load import load_program
from dipc_plus.privacy.online.every_length import classify, decide_every_length

THEORY = ROOT / "theories" / "isvt4_every_length.toml"


def _statdp_isvt4():
    spec = importlib.util.spec_from_file_location("statdp_isvt4", PROGRAMS / "python" / "isvt4.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.isvt4


def test_the_program_is_statdps_count_of_bots_by_monte_carlo():
    queries, n = [0, 1, 0], 60_000
    code, out, err = run_main(["prob", PROGRAMS / "isvt4.dip", "--set", "N=1", "--input", f"q={queries}",
                               "--eps", "1", "--json"])
    assert code == 0, err
    exact = {o["outputs"]["nbots"]: float(o["at"]["1"].strip("[]").split(" +/-")[0])
             for o in json.loads(out)["outcomes"]}
    isvt4, prng = _statdp_isvt4(), np.random.default_rng(40)
    counts = np.bincount([isvt4(prng, queries, 1.0, 1, 0.0).count(False) for _ in range(n)], minlength=4)
    for bots in range(4):
        p = exact.get(bots, 0.0)
        assert abs(counts[bots] / n - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-9, (bots, counts[bots] / n, p)


def test_the_answers_bound_carries_to_the_count():
    auto, bound, pats, _ = classify(load_program(PROGRAMS / "isvt4.dip", {"N": F(1)}), {"N"})
    assert auto.derived == ("nbots",) and bound.d == F(3, 2) and pats == []


def test_three_halves_eps_is_verified_for_every_m():
    res = decide_every_length(load_privacy_claim(str(THEORY)), str(THEORY), {})
    assert res.verdict == "verified" and res.d == F(3, 2)
    assert [t for _, t, _, _ in res.losses] == ["1/2", "1", "3/2"]


def test_statdps_claim_of_eps_is_refuted_at_m_3(tmp_path):
    claim = tmp_path / "isvt4_eps.toml"
    claim.write_text(THEORY.read_text().replace('"../programs/isvt4.dip"', f'"{(PROGRAMS / "isvt4.dip").as_posix()}"')
                     .replace('budget = "3/2*eps"', 'budget = "eps"'))
    res = decide_every_length(load_privacy_claim(str(claim)), str(claim), {})
    assert res.verdict == "refuted"
    m, r = res.counterexample
    assert m == 3 and not r.verified
