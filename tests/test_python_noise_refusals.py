"""The refusals of the Python subset's noise calls and list reductions (frontend/python/calls.py):
each is exit 2 at the .py line and column of the offending argument or call, with its message
and hint, never a traceback."""
from __future__ import annotations

import pytest

from conftest import run_main

HEAD = "import numpy as np\n\n\ndef f(prng, queries, epsilon):\n"
NOISE = "prng.laplace(scale=1/epsilon)"

# body, (line, column) of the refusal, the refused construct, a piece of the hint
CASES = {
    "unknown keyword": ("    return queries[0] + prng.laplace(scale=1/epsilon, where=2)\n", (5, 61),
                        "the argument where= of laplace", "laplace takes loc= and scale= here"),
    "no scale": ("    return queries[0] + prng.laplace(loc=1)\n", (5, 25), "laplace without a scale",
                 "write scale=c/epsilon"),
    "location not a number": ("    return prng.laplace(loc=True, scale=1/epsilon)\n", (5, 29),
                              "a noise location that is not a number", "write loc=q"),
    "negative scale": ("    return queries[0] + prng.laplace(scale=-1/epsilon)\n", (5, 44),
                       "a scale that is not positive", "c > 0"),
    "scale 1/eps^2": ("    return queries[0] + prng.laplace(scale=1/(epsilon*epsilon))\n", (5, 44),
                      "a noise scale that is not c/epsilon", "c a positive constant"),
    "scale divided by zero": ("    return queries[0] + prng.laplace(scale=1/(0*epsilon))\n", (5, 44),
                              "a division by zero", "write scale=c/epsilon"),
    "scale from the data": ("    return queries[0] + prng.laplace(scale=queries[1]/epsilon)\n", (5, 44),
                            "a noise scale that depends on the data", "a constant or a parameter"),
    "other numpy distribution": ("    return np.random.gumbel(1)\n", (5, 12), "the distribution `gumbel`",
                                 "exact engines integrate"),
    "argmax of an empty list": ("    out = []\n    return np.argmax(out)\n", (6, 12), "argmax of an empty list",
                                "give m >= 1"),
    "max of bools": ("    out = [q > 0 for q in queries]\n    return max(out)\n", (6, 12), "max of a list of bools",
                     "take argmax of numbers"),
    "sum of integers": ("    out = [i for i in range(3)]\n    return sum(out)\n", (6, 12), "sum of a list of integers",
                        "sum numbers or count bools"),
    "count of a number": (f"    out = [q + {NOISE} for q in queries]\n    return out.count(1)\n", (6, 12),
                          "count of something other than True or False in a list of bools", "out.count(True)"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_noise_and_reduction_refusals_are_located(tmp_path, name):
    body, (line, column), construct, hint = CASES[name]
    path = tmp_path / "mech.py"
    path.write_text(HEAD + body)
    code, out, err = run_main(["show", path, "--function", "f", "--set", "m=2"])
    assert code == 2 and out == "", out + err
    assert err.startswith(f"{path}:{line}:{column}: error: {construct} is outside the Python subset dipc reads"), err
    assert hint in err and "Traceback" not in err, err


def test_default_that_is_not_a_number_is_refused_at_it(tmp_path):
    path = tmp_path / "mech.py"
    path.write_text("def f(prng, queries, epsilon, c='a'):\n    return 1\n")
    code, _, err = run_main(["show", path, "--function", "f", "--set", "m=2"])
    assert code == 2 and err.startswith(f"{path}:1:33: error: the default of 'c' is not a number"), err
    assert "give c in params" in err
