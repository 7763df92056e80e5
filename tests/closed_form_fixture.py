"""Every closed form of a few whole grids, as strings: the bit-for-bit guard of kernel work.

    PYTHONPATH=. python tests/closed_form_fixture.py     # rewrite tests/fixtures/closed_forms.json

The pins of test_engine_regression.py check a handful of values against
quadrature; this fixture instead records str() of *every* probability of
(a) each input of each grid of experiments/bench_exact.py (P[P(u) = det(u)],
within gamma for NumericSparse), (b) p_correct of each input of the Sparse
m=4 c=1 accuracy check, (c) every outcome of the SVT (Lyu alg. 1) privacy
grid.  ExpPoly/ExpFrac print canonically, so a change of representation
inside the engine that alters any value, or even its printed form, shows up
as a differing string.  Regenerate only when a value is meant to change.
"""
from __future__ import annotations

import itertools
import json
import sys
from fractions import Fraction

from conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "closed_forms.json"

# the grids of experiments/bench_exact.py's TABLES (copied, so a benchmark edit cannot move the guard)
BENCH_GRIDS = [
    ("noisy_max", "noisy_max.dip", {"m": 3}, 3, 0),
    ("sparse", "sparse.dip", {"m": 4, "c": 4, "T": 0}, 1, 0),
    ("sparse_variant", "sparse_variant.dip", {"m": 4, "c": 4, "T": 0}, 1, 0),
    ("numeric_sparse", "numeric_sparse.dip", {"m": 4, "c": 1, "T": 0}, 2, 1),
]


def bench_forms() -> dict:
    from dipc_plus.api import LoadedProgram
    from dipc_plus.claims import noise_free
    from dipc_plus.semantics.distribution import bind, distribution_of_chain
    out = {}
    for name, file, params, bound, gamma in BENCH_GRIDS:
        program = LoadedProgram.from_file(ROOT / "programs" / file, **params)
        for point in itertools.product(range(-bound, bound + 1), repeat=params["m"]):
            q = [Fraction(v) for v in point]
            det = noise_free.run(program.program, bind(program.program, {"q": q}))
            p = distribution_of_chain(program.dtmc(q=q)).within(det, gamma)
            out[f"{name} q={list(point)}"] = str(p)
    return out


def accuracy_forms() -> dict:
    from dipc_plus.accuracy.checker import AccuracyChecker
    from dipc_plus.claims.claim_file import load_claim
    result = AccuracyChecker(load_claim(str(ROOT / "theories" / "sparse.toml"), {"m": 4, "c": 1})).run()
    out = {}
    for r in result.reports:
        js = r.to_json()
        out[f"sparse-accuracy m=4 c=1 {json.dumps(js['input'])} alpha={js['alpha']}"] = js.get("p_correct")
    return out


def privacy_forms() -> dict:
    from dipc_plus.api import LoadedProgram
    from dipc_plus.semantics.distribution import distribution_of_chain
    program = LoadedProgram.from_file(ROOT / "programs" / "svt_lyu_alg1.dip", m=3, c=1, T=0)
    out = {}
    for point in itertools.product(range(-1, 2), repeat=3):
        dist = distribution_of_chain(program.dtmc(q=[Fraction(v) for v in point]))
        for o, p in dist.items():
            out[f"svt_lyu_alg1 q={list(point)} {dist.describe(o)}"] = str(p)
    return out


def all_forms() -> dict:
    return {**bench_forms(), **accuracy_forms(), **privacy_forms()}


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    forms = all_forms()
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps(forms, indent=0, sort_keys=True) + "\n")
    print(f"{len(forms)} closed forms written to {FIXTURE.relative_to(ROOT)}")
